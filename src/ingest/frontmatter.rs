//! Frontmatter: split a file into its YAML block and body (gray_matter's rules: the first
//! line is `---`, the block ends at the next line that is `---`), parse the YAML with
//! yaml-rust2, and convert it to JSON.
//!
//! The split is done here rather than by `gray_matter::Matter::parse` because that copies
//! the whole file line by line and trims leading blank lines, which loses the line numbers
//! that diagnostics and sections need; a test checks both agree on the frontmatter text.
//! Invalid YAML is retried once with common slips repaired (an unquoted `@name` or
//! backtick value), so the fields are not lost; the diagnostic is reported either way.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// A file split into frontmatter and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML text between the delimiters (None when the file has no frontmatter).
    pub yaml: Option<&'a str>,
    /// The body after the closing delimiter (the whole file without frontmatter).
    pub body: &'a str,
    /// 1-based line number of the first body line.
    pub body_line: u32,
    /// True when a `---` block was opened but never closed (then `yaml` is None and the
    /// body is the whole file).
    pub unclosed: bool,
}

/// Split `text` into frontmatter and body.
pub fn split(text: &str) -> Split<'_> {
    let none = Split {
        yaml: None,
        body: text,
        body_line: 1,
        unclosed: false,
    };
    let Some(first_end) = text.find('\n') else {
        return none;
    };
    if text[..first_end].trim_end() != "---" {
        return none;
    }
    let yaml_start = first_end + 1;
    let mut pos = yaml_start;
    let mut line = 2u32;
    while pos < text.len() {
        let end = text[pos..].find('\n').map(|i| pos + i).unwrap_or(text.len());
        if text[pos..end].trim_end() == "---" {
            let body_start = (end + 1).min(text.len());
            return Split {
                yaml: Some(&text[yaml_start..pos]),
                body: &text[body_start..],
                body_line: line + 1,
                unclosed: false,
            };
        }
        pos = end + 1;
        line += 1;
    }
    Split { unclosed: true, ..none }
}

/// A YAML problem: 1-based line within the YAML text, column, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line inside the YAML block.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What the parser said.
    pub message: String,
}

/// The outcome of reading a frontmatter block.
#[derive(Debug, Clone)]
pub enum Parsed {
    /// A mapping (the normal case).
    Mapping(Yaml),
    /// Valid YAML that is not a mapping; carries the kind of value found.
    NotMapping(&'static str),
    /// Invalid YAML; `recovered` holds the mapping read after repairing common slips.
    Invalid {
        /// The parser's error for the original text.
        error: YamlError,
        /// The mapping read from the repaired text, if the repair worked.
        recovered: Option<Yaml>,
    },
}

/// Parse a YAML frontmatter block.
pub fn parse_yaml(yaml: &str) -> Parsed {
    match load(yaml) {
        Ok(doc) => match doc {
            Yaml::Hash(_) => Parsed::Mapping(doc),
            Yaml::Null => Parsed::Mapping(Yaml::Hash(Default::default())),
            Yaml::Array(_) => Parsed::NotMapping("a list"),
            _ => Parsed::NotMapping("a scalar"),
        },
        Err(error) => {
            let recovered = repair(yaml).and_then(|fixed| match load(&fixed) {
                Ok(doc @ Yaml::Hash(_)) => Some(doc),
                _ => None,
            });
            Parsed::Invalid { error, recovered }
        }
    }
}

/// Deepest nesting of collections accepted. yaml-rust2 builds its tree recursively, one
/// stack frame set per level: a frontmatter nested thousands of levels deep (a few MB of
/// indentation) overflowed the stack of a worker thread and aborted the whole run.
const MAX_NESTING: usize = 128;

/// Walk the YAML events without building anything (and without recursion): the first
/// alias use, or a nesting deeper than [`MAX_NESTING`], is an error at its position.
/// Syntax errors are left to the loader, which reports them the same way.
fn screen(yaml: &str) -> Result<(), YamlError> {
    use yaml_rust2::parser::{Event, Parser};
    let mut parser = Parser::new_from_str(yaml);
    let mut depth = 0usize;
    let err = |m: &yaml_rust2::scanner::Marker, message: String| {
        let (line, col) = position(yaml, m.index());
        YamlError { line, col, message }
    };
    loop {
        let Ok((event, mark)) = parser.next_token() else {
            return Ok(());
        };
        match event {
            Event::StreamEnd => return Ok(()),
            Event::Alias(_) => {
                return Err(err(
                    &mark,
                    "YAML aliases (*name) are not supported in frontmatter".into(),
                ));
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(err(&mark, format!("nested deeper than {MAX_NESTING} levels")));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
}

/// True when the text might hold an alias or nest deeper than [`MAX_NESTING`], so
/// [`screen`] must look. Block nesting needs indentation (or `- `/`? ` prefixes) at
/// least one column per level (an indentless sequence adds one level on the same
/// column), and flow nesting needs a bracket per level, so frontmatter with narrow line
/// prefixes and few brackets is safe without the extra pass.
fn needs_screen(yaml: &str) -> bool {
    (yaml.contains('&') && yaml.contains('*'))
        || yaml.bytes().filter(|b| matches!(b, b'[' | b'{')).count() > MAX_NESTING
        || yaml.lines().any(|l| {
            l.bytes()
                .take_while(|b| matches!(b, b' ' | b'\t' | b'-' | b'?' | b':'))
                .count()
                > 32
        })
}

fn load(yaml: &str) -> Result<Yaml, YamlError> {
    // Most frontmatter is flat: the common case skips the extra pass.
    if needs_screen(yaml) {
        screen(yaml)?;
    }
    match YamlLoader::load_from_str(yaml) {
        Ok(mut docs) => Ok(if docs.is_empty() {
            Yaml::Null
        } else {
            docs.swap_remove(0)
        }),
        Err(e) => Err(YamlError {
            line: position(yaml, e.marker().index()).0,
            col: position(yaml, e.marker().index()).1,
            // The scanner's own limit on `[[[` nesting (255 levels).
            message: match e.info() {
                "recursion limit exceeded" => "nested deeper than 255 levels".to_string(),
                info => info.to_string(),
            },
        }),
    }
}

/// 1-based line and column of the character at `index` (a character count, as yaml-rust2
/// reports positions). Lines are counted at `\n` only, like every other line number
/// mdgraph prints: YAML also breaks lines at a lone `\r`, which made its own line numbers
/// point past the end of files with stray carriage returns.
fn position(yaml: &str, index: usize) -> (u32, u32) {
    let (mut line, mut col) = (1u32, 1u32);
    for c in yaml.chars().take(index) {
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line, col)
}

/// Quote plain values that start with a character YAML reserves (`@`, `` ` ``), the usual
/// slip in hand-written frontmatter (`assignee: @dana`). Returns None when nothing changed.
fn repair(yaml: &str) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(yaml.len() + 16);
    for line in yaml.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let fixed = match body.find(": ") {
            Some(i) => {
                let value = body[i + 2..].trim();
                if value.starts_with('@') || value.starts_with('`') {
                    changed = true;
                    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
                    Some(format!("{}: \"{}\"", &body[..i], escaped))
                } else {
                    None
                }
            }
            None => None,
        };
        match fixed {
            Some(f) => {
                out.push_str(&f);
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    changed.then_some(out)
}

/// Deepest nesting converted to JSON; deeper values become `null` (hostile input guard).
const MAX_DEPTH: usize = 64;

/// Convert YAML to JSON. Mapping keys that are not strings are written as strings; floats
/// that JSON cannot hold are kept as their text.
pub fn to_json(y: &Yaml) -> Value {
    to_json_depth(y, 0)
}

fn to_json_depth(y: &Yaml, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    match y {
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(s.clone())),
        Yaml::Integer(i) => Value::Number((*i).into()),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(a) => Value::Array(a.iter().map(|v| to_json_depth(v, depth + 1)).collect()),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                m.insert(scalar_text(k).unwrap_or_default(), to_json_depth(v, depth + 1));
            }
            Value::Object(m)
        }
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Value::Null,
    }
}

/// The text of a scalar (floats keep their written form: `4.10` stays `4.10`).
pub fn scalar_text(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Look up a dotted key path (`links.relates`) in a mapping.
pub fn get_path<'a>(y: &'a Yaml, path: &str) -> Option<&'a Yaml> {
    let mut cur = y;
    for part in path.split('.') {
        match cur {
            Yaml::Hash(h) => cur = h.get(&Yaml::String(part.to_string()))?,
            _ => return None,
        }
    }
    Some(cur)
}

/// How many lines past the previous value the next one is looked for.
const VALUE_WINDOW: usize = 64;

/// Line finder for a YAML block: where keys and values were written.
pub struct KeyLines<'a> {
    lines: Vec<&'a str>,
}

impl<'a> KeyLines<'a> {
    /// Index the lines of a YAML block.
    pub fn new(yaml: &'a str) -> Self {
        KeyLines {
            lines: yaml.lines().collect(),
        }
    }

    /// 0-based index of the line that declares the dotted key path, with its indent.
    fn key_line(&self, path: &str) -> Option<(usize, usize)> {
        let mut from = 0;
        let mut min_indent = 0;
        let mut found = None;
        for part in path.split('.') {
            let mut hit = None;
            for (i, line) in self.lines.iter().enumerate().skip(from) {
                let indent = line.len() - line.trim_start().len();
                let t = line.trim_start();
                if found.is_some() && !t.is_empty() && !t.starts_with('#') && indent < min_indent {
                    break;
                }
                let bare = t.strip_prefix(part).or_else(|| {
                    t.strip_prefix('"')
                        .and_then(|r| r.strip_prefix(part))
                        .and_then(|r| r.strip_prefix('"'))
                });
                if indent >= min_indent && bare.is_some_and(|r| r.trim_start().starts_with(':')) {
                    hit = Some((i, indent));
                    break;
                }
            }
            let (i, indent) = hit?;
            found = Some((i, indent));
            from = i + 1;
            min_indent = indent + 1;
        }
        found
    }

    /// 1-based lines (within the block) of each of `values` under the key `path`, which
    /// are in file order: one forward pass over the key's block (a long list costs linear
    /// time). A value not found within 64 lines of the previous one (it was
    /// written with escapes or quotes the parse removed) is placed on the key's own line;
    /// the window keeps a long list of such values linear too (100,000 escaped values took
    /// minutes when each one rescanned the rest of the block).
    pub fn value_lines(&self, path: &str, values: &[String]) -> Vec<u32> {
        let Some((k, indent)) = self.key_line(path) else {
            return vec![1; values.len()];
        };
        let mut end = k + 1;
        while end < self.lines.len() {
            let t = self.lines[end].trim_start();
            let ind = self.lines[end].len() - t.len();
            if !t.is_empty() && ind <= indent && !t.starts_with('-') {
                break;
            }
            end += 1;
        }
        // (line, col) just after the last value found; `hint`: the line where the next
        // value is expected (a value not found still took a line of a block list).
        let (mut line, mut col) = (k, 0usize);
        let mut hint = k;
        values
            .iter()
            .map(|v| {
                let from = hint.saturating_sub(VALUE_WINDOW);
                let (mut l, mut c) = if from > line { (from, 0) } else { (line, col) };
                while l < end && l <= hint + VALUE_WINDOW {
                    let text = self.lines[l].get(c..).unwrap_or("");
                    if let Some(at) = text.find(v.as_str()) {
                        (line, col, hint) = (l, c + at + v.len(), l);
                        return l as u32 + 1;
                    }
                    l += 1;
                    c = 0;
                }
                hint += 1;
                k as u32 + 1
            })
            .collect()
    }

    /// The text written after `key:` on the key's own line (comment removed), for plain
    /// scalars whose parsed form loses what was written (`0042`).
    pub fn raw_scalar(&self, path: &str) -> Option<&str> {
        let (k, _) = self.key_line(path)?;
        let line = self.lines[k];
        let after = line.split_once(':')?.1;
        let value = after.split(" #").next().unwrap_or(after).trim();
        (!value.is_empty() && !value.contains(char::is_whitespace) && !value.starts_with(['[', '{', '"', '\'']))
            .then_some(value)
    }

    /// 1-based line (within the block) of `value` under the key `path`.
    pub fn value_line(&self, path: &str, value: &str) -> u32 {
        self.value_lines(path, &[value.to_string()])[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_count_newlines_not_carriage_returns() {
        // Regression (fuzz): YAML counts a lone `\r` as a line break, so an error after
        // stray carriage returns was reported past the end of the file.
        let yaml = "id: A-1\nstate:\r\r\r\r Ready\nassignee: @dana\n";
        let Parsed::Invalid { error, .. } = parse_yaml(yaml) else {
            panic!("not invalid")
        };
        assert_eq!((error.line, error.col), (3, 11), "{}", error.message);
        // CRLF files keep their lines too.
        let Parsed::Invalid { error, .. } = parse_yaml("id: A-1\r\nassignee: @dana\r\n") else {
            panic!("not invalid")
        };
        assert_eq!((error.line, error.col), (2, 11));
    }

    #[test]
    fn value_lines_of_a_long_list_of_escaped_values_stay_linear() {
        // Regression: values not found verbatim (escapes) rescanned the rest of the block
        // each, 100,000 of them took minutes.
        let n = 100_000;
        let yaml: String = std::iter::once("relates:\n".to_string())
            .chain((0..n).map(|i| format!("  - \"E\\x2D{i}\"\n")))
            .chain(std::iter::once("  - plain-1\n".to_string()))
            .collect();
        let mut values: Vec<String> = (0..n).map(|i| format!("E-{i}")).collect();
        values.push("plain-1".into());
        let lines = KeyLines::new(&yaml).value_lines("relates", &values);
        assert_eq!(lines[0], 1, "not found verbatim: the key's line");
        assert_eq!(lines[n], n as u32 + 2, "found values keep their line");
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        // Regression: 2,000 nested block mappings aborted the run (stack overflow in a
        // worker thread); 4,000 did so in release builds too.
        let block: String = (0..4000).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
        let seq = format!("x: {}y\n", "- ".repeat(10_000));
        let flow = format!("x: {}{}\n", "[".repeat(300), "]".repeat(300));
        let flow_map = format!("x: {}1{}\n", "{a: ".repeat(300), "}".repeat(300));
        for (yaml, line) in [(&block, 129), (&seq, 1), (&flow, 1), (&flow_map, 1)] {
            let handle = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn({
                    let yaml = yaml.clone();
                    move || parse_yaml(&yaml)
                })
                .unwrap();
            match handle.join().expect("no stack overflow") {
                Parsed::Invalid { error, .. } => {
                    assert_eq!(error.line, line, "{}", error.message);
                    assert!(
                        error.message.contains("nested deeper than")
                            || error.message.contains("not allowed in this context"),
                        "{}",
                        error.message
                    );
                }
                other => panic!("accepted: {other:?}"),
            }
        }
        // Reasonable nesting and deeply indented block text are fine.
        let ok = format!(
            "a:\n  b:\n    c: [[1, [2]], {{d: [3]}}]\ntext: |\n{}code\n",
            " ".repeat(200)
        );
        assert!(matches!(parse_yaml(&ok), Parsed::Mapping(_)));
    }

    #[test]
    fn split_follows_gray_matter() {
        let s = split("---\nid: A-1\n---\n# Title\n");
        assert_eq!(s.yaml, Some("id: A-1\n"));
        assert_eq!(s.body, "# Title\n");
        assert_eq!(s.body_line, 4);
        assert!(split("no frontmatter\n---\n").yaml.is_none());
        let u = split("---\nid: A\nbody\n");
        assert!(u.unclosed && u.yaml.is_none());
        let crlf = split("---\r\nid: A\r\n---\r\nbody");
        assert_eq!(crlf.yaml, Some("id: A\r\n"));
        assert_eq!(crlf.body, "body");
    }

    #[test]
    fn at_sign_value_is_invalid_but_recovered() {
        match parse_yaml("id: T-1\nassignee: @dana\ntitle: x\n") {
            Parsed::Invalid { error, recovered } => {
                assert_eq!(error.line, 2);
                let r = recovered.expect("repair works");
                assert_eq!(
                    to_json(get_path(&r, "assignee").unwrap()),
                    Value::String("@dana".into())
                );
            }
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    #[test]
    fn alias_bomb_is_refused_quickly() {
        // Regression: 7 levels of 10 aliases expanded to 10^7 nodes (gigabytes).
        let mut y = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            y.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        assert!(matches!(parse_yaml(&y), Parsed::Invalid { .. }));
        // Anchors and stars in plain text are fine.
        assert!(matches!(
            parse_yaml("title: \"R&D *notes*\"\nid: A-1\n"),
            Parsed::Mapping(_)
        ));
    }

    #[test]
    fn not_mapping() {
        assert!(matches!(parse_yaml("- a\n- b\n"), Parsed::NotMapping("a list")));
        assert!(matches!(parse_yaml("just text\n"), Parsed::NotMapping("a scalar")));
        assert!(matches!(parse_yaml(""), Parsed::Mapping(_)));
    }

    #[test]
    fn floats_keep_their_text() {
        let Parsed::Mapping(y) = parse_yaml("parent_task_id: 4.10\n") else {
            panic!()
        };
        assert_eq!(scalar_text(get_path(&y, "parent_task_id").unwrap()).unwrap(), "4.10");
    }

    #[test]
    fn key_and_value_lines() {
        let y = "id: A\nlinks:\n  relates: [B-1]\n  blocks:\n    - C-2\n    - D-3\nparent: P\n";
        let k = KeyLines::new(y);
        assert_eq!(k.value_line("links.relates", "B-1"), 3);
        assert_eq!(k.value_line("links.blocks", "D-3"), 6);
        assert_eq!(k.value_line("parent", "P"), 7);
        let many = KeyLines::new("rel:\n  - A-1\n  - A-2\n  - A-1\nnext: [B-1, B-2, B-1]\n");
        assert_eq!(
            many.value_lines("rel", &["A-1".into(), "A-2".into(), "A-1".into()]),
            [2, 3, 4]
        );
        assert_eq!(
            many.value_lines("next", &["B-1".into(), "B-2".into(), "B-1".into(), "Z".into()]),
            [5, 5, 5, 5]
        );
    }

    #[test]
    fn agrees_with_gray_matter_on_the_frontmatter_text() {
        use gray_matter::{Matter, ParsedEntity, engine::YAML};
        let m: Matter<YAML> = Matter::new();
        for input in [
            "---\ntitle: Home\nid: X-1\n---\nOther stuff\n",
            "---\n\nid: X-2\n\n---\n# H\n",
            "---   \nid: X-3\n---  \nbody\n",
        ] {
            let g: ParsedEntity = m.parse(input).unwrap();
            assert_eq!(split(input).yaml.unwrap().trim(), g.matter, "{input:?}");
        }
    }
}
