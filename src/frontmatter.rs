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

/// Count alias uses (`*name`) with the event parser. yaml-rust2 expands every alias by
/// copying its anchor, so nested aliases grow exponentially (a 500-byte "billion laughs"
/// frontmatter takes gigabytes); frontmatter does not need them, so they are refused.
fn alias_uses(yaml: &str) -> usize {
    struct Count(usize);
    impl yaml_rust2::parser::EventReceiver for Count {
        fn on_event(&mut self, ev: yaml_rust2::parser::Event) {
            if matches!(ev, yaml_rust2::parser::Event::Alias(_)) {
                self.0 += 1;
            }
        }
    }
    let mut c = Count(0);
    let _ = yaml_rust2::parser::Parser::new_from_str(yaml).load(&mut c, false);
    c.0
}

fn load(yaml: &str) -> Result<Yaml, YamlError> {
    // Only text with both an anchor and an alias marker can hold aliases: the common
    // case skips the extra pass.
    if yaml.contains('&') && yaml.contains('*') && alias_uses(yaml) > 0 {
        return Err(YamlError {
            line: 1,
            col: 1,
            message: "YAML aliases (*name) are not supported in frontmatter".into(),
        });
    }
    match YamlLoader::load_from_str(yaml) {
        Ok(mut docs) => Ok(if docs.is_empty() {
            Yaml::Null
        } else {
            docs.swap_remove(0)
        }),
        Err(e) => Err(YamlError {
            line: e.marker().line() as u32,
            col: e.marker().col() as u32 + 1,
            message: e.info().to_string(),
        }),
    }
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
    /// time). A value not found is placed on the key's own line.
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
        let (mut line, mut col) = (k, 0usize);
        values
            .iter()
            .map(|v| {
                let (mut l, mut c) = (line, col);
                while l < end {
                    let text = self.lines[l].get(c..).unwrap_or("");
                    if let Some(at) = text.find(v.as_str()) {
                        line = l;
                        col = c + at + v.len();
                        return l as u32 + 1;
                    }
                    l += 1;
                    c = 0;
                }
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
