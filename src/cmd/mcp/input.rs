//! The MCP server's input: every line that is not JSON is answered here with a
//! JSON-RPC parse error, and JSON with an id that is no message with an invalid-request
//! error; rmcp drops both without a reply, so a client would wait forever.

use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The protocol's input, line by line, with every line that is not JSON answered here
/// with a parse error (-32700) and kept from rmcp, which drops such lines without a
/// reply (so a client waiting on that request would wait forever). A line that is JSON
/// but not a message goes on: rmcp answers it with an invalid-request error.
pub(super) struct Guarded<R> {
    inner: R,
    /// Bytes read and not yet judged (an incomplete line).
    pending: Vec<u8>,
    /// Judged lines, ready for rmcp.
    ready: std::collections::VecDeque<u8>,
    eof: bool,
}

impl<R> Guarded<R> {
    pub(super) fn new(inner: R) -> Self {
        Guarded {
            inner,
            pending: Vec::new(),
            ready: std::collections::VecDeque::new(),
            eof: false,
        }
    }

    /// Judge the complete lines in `pending` (all of it at the end of input).
    fn judge(&mut self) {
        while let Some(end) = self
            .pending
            .iter()
            .position(|&b| b == b'\n')
            .or(self.eof.then_some(self.pending.len()))
        {
            if end == 0 && self.pending.is_empty() {
                break;
            }
            let line: Vec<u8> = self.pending.drain(..(end + 1).min(self.pending.len())).collect();
            match parse_error_reply(&line) {
                None => self.ready.extend(line),
                Some(reply) => {
                    let mut out = std::io::stdout();
                    let _ = out.write_all(reply.as_bytes()).and_then(|()| out.flush());
                }
            }
        }
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Guarded<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        loop {
            if !this.ready.is_empty() {
                let n = buf.remaining().min(this.ready.len());
                let chunk: Vec<u8> = this.ready.drain(..n).collect();
                buf.put_slice(&chunk);
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut tmp = [0u8; 8192];
            let mut rb = tokio::io::ReadBuf::new(&mut tmp);
            match Pin::new(&mut this.inner).poll_read(cx, &mut rb) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {
                    if rb.filled().is_empty() {
                        this.eof = true;
                    }
                    this.pending.extend_from_slice(rb.filled());
                    this.judge();
                }
            }
        }
    }
}

/// The error reply to send for a line rmcp would drop or answer without an id: a line
/// that is not JSON (bad UTF-8, a lone surrogate escape, nesting past serde_json's
/// limit, a syntax error) gets a parse error (-32700, id null, as JSON-RPC says); JSON
/// that is no client message gets an invalid-request error (-32600) with its id, or id
/// null when it has none to trust. `None` for a line to pass on.
fn parse_error_reply(line: &[u8]) -> Option<String> {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace)
        || serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(text).is_ok()
    {
        return None;
    }
    let (id, code, message) = match serde_json::from_slice::<serde_json::Value>(text) {
        // JSON-RPC: a parse error's id is null (the id cannot be trusted).
        Err(e) => (serde_json::Value::Null, -32700, format!("Parse error: {e}")),
        Ok(v) => match v.get("id").filter(|id| id.is_number() || id.is_string()) {
            Some(id) => (id.clone(), -32600, "Invalid request".to_string()),
            // A notification (a method, no id) gets no reply: rmcp ignores the ones it
            // does not know.
            None if v.get("method").is_some_and(|m| m.is_string()) && v.get("id").is_none() => return None,
            // No id to answer to (none, null, or not a string or number): id null, as
            // JSON-RPC says.
            None => (serde_json::Value::Null, -32600, "Invalid request".to_string()),
        },
    };
    let reply = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    Some(format!("{reply}\n"))
}
