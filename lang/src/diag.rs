//! Diagnostics: what every phase of the front end reports instead of failing.
//!
//! Phases collect [`Diagnostic`]s and keep going where they can, so one run
//! reports several errors. [`render`] turns them into ariadne reports that name
//! the file, line and column, underline the span and print the hint.
//!
//! One line model for every position parc prints: lines end at `\n` (as C
//! counts them, and as `gcc` reports them), columns count characters. A
//! vertical tab, a form feed or a lone carriage return is whitespace inside
//! a line. ariadne would start a new line at each of those, so the text it
//! draws has them, and every other control character, replaced by one
//! visible character each ([`displayable`]): the box agrees with the
//! `file:line:col` header, and no control character from the source reaches
//! the terminal.

use crate::ast::Span;
use crate::source_map::{Expansion, SourceMap};
use ariadne::{Color, Config, Label, Report, ReportKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The headline: what is wrong, e.g. "use of undeclared variable `x`".
    pub message: String,
    pub span: Span,
    /// Text under the primary underline, if any.
    pub label: Option<String>,
    /// Further spans with their own labels (e.g. "first defined here").
    pub secondary: Vec<(Span, String)>,
    /// How to fix it, printed as `help: ...`.
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: None,
            secondary: Vec::new(),
            help: None,
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Lines longer than this (in bytes) are not echoed under a diagnostic.
const MAX_SHOWN_LINE: usize = 300;

/// Length in bytes of the line containing `offset`.
fn line_len(source: &str, offset: usize) -> usize {
    let offset = offset.min(source.len());
    let bytes = source.as_bytes();
    let start = bytes[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[offset..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| offset + i);
    end - start
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// The visible stand-in for a character that must not reach the terminal
/// as it is, or `None` for one that may. C0 controls and DEL become their
/// Unicode control pictures (`\x0B` is `␋`); other characters that move
/// the cursor or reorder text (C1 controls, the line and paragraph
/// separators, bidirectional overrides) become `�`. Tab and newline stay.
fn stand_in(c: char) -> Option<char> {
    match c {
        '\t' | '\n' => None,
        '\0'..='\x1f' => char::from_u32(0x2400 + c as u32),
        '\x7f' => Some('\u{2421}'),
        '\u{80}'..='\u{9f}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => Some('\u{fffd}'),
        _ => None,
    }
}

/// `source` as ariadne may draw it: each character [`stand_in`] replaces,
/// except a carriage return right before a newline (a CRLF line end, which
/// ariadne reads as one), becomes its stand-in. Replacing one character by
/// one keeps every line and column; `offset` maps a byte offset of `source`
/// to the same place in the result.
pub struct Displayable<'a> {
    pub text: std::borrow::Cow<'a, str>,
    /// `(offset in source, bytes added up to and including it)` for each
    /// replaced character, in order; empty when nothing was replaced.
    shifts: Vec<(usize, usize)>,
}

impl Displayable<'_> {
    /// The offset in [`Displayable::text`] of byte `offset` of the source.
    pub fn offset(&self, offset: usize) -> usize {
        let before = self.shifts.partition_point(|&(at, _)| at < offset);
        offset + before.checked_sub(1).map_or(0, |i| self.shifts[i].1)
    }
}

/// See [`Displayable`].
pub fn displayable(source: &str) -> Displayable<'_> {
    let replaced = |i: usize, c: char| {
        stand_in(c).filter(|_| !(c == '\r' && source.as_bytes().get(i + 1) == Some(&b'\n')))
    };
    if !source.char_indices().any(|(i, c)| replaced(i, c).is_some()) {
        return Displayable {
            text: source.into(),
            shifts: Vec::new(),
        };
    }
    let mut text = String::with_capacity(source.len() + 16);
    let mut shifts = Vec::new();
    let mut added = 0;
    for (i, c) in source.char_indices() {
        match replaced(i, c) {
            Some(s) => {
                text.push(s);
                added += s.len_utf8() - c.len_utf8();
                shifts.push((i, added));
            }
            None => text.push(c),
        }
    }
    Displayable {
        text: text.into(),
        shifts,
    }
}

/// A message with its control characters escaped (`\u{b}`), as Rust's
/// `escape_debug` writes them, so that it prints on one line as it reads.
pub fn escape_controls(message: &str) -> std::borrow::Cow<'_, str> {
    if message.chars().any(|c| stand_in(c).is_some() || c == '\n') {
        message
            .chars()
            .map(|c| {
                if stand_in(c).is_some() || c == '\n' {
                    c.escape_debug().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect::<String>()
            .into()
    } else {
        message.into()
    }
}

/// Renders diagnostics as ariadne reports. `color` is off for tests and pipes.
/// Each report starts with a `file:line:col: error: message` line so that
/// editors and scripts can find the position without parsing the art.
/// `source` is the whole text the spans point into (no preprocessing).
pub fn render(path: &str, source: &str, diags: &[Diagnostic], color: bool) -> String {
    render_mapped(&SourceMap::identity(path, source), diags, color)
}

/// Where a diagnostic's span is shown: the file, the byte range in it, and
/// the macro expansions it is inside (innermost first) for notes.
fn place(map: &SourceMap, span: Span) -> (usize, std::ops::Range<usize>, Vec<&Expansion>) {
    let (loc, len) = map.file_span(span);
    let chain = map.expansion_chain(&loc);
    // A token a parc header's macro spelt (`INT_MAX`): show where the
    // user's code invoked it; the header's text would not help.
    if map.files[loc.file].builtin
        && let Some(k) = chain
            .iter()
            .position(|e| !map.files[map.resolve(e.site.start).file].builtin)
    {
        let site = chain[k].site;
        let at = map.resolve(site.start);
        let start = at.offset as usize;
        let end = start + site.end.saturating_sub(site.start) as usize;
        return (at.file, start..end, chain[k + 1..].to_vec());
    }
    let start = loc.offset as usize;
    (loc.file, start..start + len as usize, chain)
}

/// Renders diagnostics whose spans are positions of `map` (preprocessed
/// text or the files behind it): each names the file and line its text
/// was written at, and a token a macro made gets an "in expansion of
/// macro" note for each invocation it came through. The text ariadne draws
/// is each file's [`displayable`] form, and messages, paths and notes have
/// their control characters escaped.
pub fn render_mapped(map: &SourceMap, diags: &[Diagnostic], color: bool) -> String {
    let mut out = Vec::new();
    let shown: Vec<Displayable> = map.files.iter().map(|f| displayable(&f.text)).collect();
    let names: Vec<String> = map
        .files
        .iter()
        .map(|f| escape_controls(&f.name).into_owned())
        .collect();
    for d in diags {
        let (file, range, chain) = place(map, d.span);
        let source = map.files[file].text.as_str();
        let (shown_path, line, col) = map.describe(&crate::source_map::Location {
            file,
            offset: range.start as u32,
            expansion: None,
        });
        let kind_word = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let message = escape_controls(&d.message);
        let shown_path = escape_controls(&shown_path);
        out.extend_from_slice(
            format!("{shown_path}:{line}:{col}: {kind_word}: {message}\n").as_bytes(),
        );
        let notes: String = chain
            .iter()
            .map(|e| {
                let at = map.resolve(e.site.start);
                let (p, l, c) = map.describe(&at);
                format!(
                    "{}:{l}:{c}: note: in expansion of macro `{}`\n",
                    escape_controls(&p),
                    escape_controls(&e.name)
                )
            })
            .collect();
        if line_len(source, range.start) > MAX_SHOWN_LINE {
            // A snippet of a line this long (generated code, a 50,000-deep
            // nesting) would bury the message; the position says where.
            if let Some(help) = &d.help {
                out.extend_from_slice(format!("  help: {}\n", escape_controls(help)).as_bytes());
            }
            out.extend_from_slice(notes.as_bytes());
            continue;
        }
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        // A byte range of file `k` as a range of its displayable text.
        let clamp = |k: usize, r: std::ops::Range<usize>| {
            let text = &map.files[k].text;
            let end = r.end.min(text.len());
            let start = r.start.min(end);
            shown[k].offset(start)..shown[k].offset(end)
        };
        let primary = clamp(file, range);
        let id = names[file].clone();
        let mut report = Report::build(kind, (id.clone(), primary.clone()))
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(ariadne::IndexType::Byte),
            )
            .with_message(message.as_ref());
        let mut label = Label::new((id, primary)).with_color(Color::Red);
        if let Some(text) = &d.label {
            label = label.with_message(escape_controls(text));
        }
        report = report.with_label(label);
        let mut used = vec![file];
        for (span, text) in &d.secondary {
            let (sf, sr, _) = place(map, *span);
            if !used.contains(&sf) {
                used.push(sf);
            }
            report = report.with_label(
                Label::new((names[sf].clone(), clamp(sf, sr)))
                    .with_message(escape_controls(text))
                    .with_color(Color::Blue),
            );
        }
        if let Some(help) = &d.help {
            report = report.with_help(escape_controls(help));
        }
        let sources = ariadne::sources(
            used.iter()
                .map(|&k| (names[k].clone(), shown[k].text.to_string())),
        );
        // Writing into a Vec cannot fail.
        let _ = report.finish().write(sources, &mut out);
        out.extend_from_slice(notes.as_bytes());
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_keep_lines_and_columns() {
        // A vertical tab and a form feed are whitespace inside line 1.
        let src = "int x;\x0b\x0c @\nint y;\n";
        let at = src.find('@').unwrap_or(0);
        assert_eq!(line_col(src, at), (1, 10));
        let d = Diagnostic::error(Span::new(at, at + 1), "bad").with_label("here");
        let out = render("t.pc", src, &[d], false);
        assert!(out.starts_with("t.pc:1:10: error: bad\n"), "{out}");
        assert!(out.contains("[ t.pc:1:10 ]"), "{out}");
        assert!(out.contains(" 1 │ int x;␋␌ @"), "{out}");
        assert!(!out.contains(['\x0b', '\x0c']), "{out}");
    }

    #[test]
    fn the_terminal_gets_no_control_characters() {
        let src = "a\x1b[2Jb\r\nc\rd\u{202e}e\u{85}@\n";
        let shown = displayable(src);
        assert_eq!(shown.text, "a␛[2Jb\r\nc␍d\u{fffd}e\u{fffd}@\n");
        let at = src.find('@').unwrap_or(0);
        assert_eq!(&shown.text[shown.offset(at)..], "@\n");
        assert_eq!(shown.offset(0), 0);
        let d = Diagnostic::error(Span::new(at, at + 1), "bad `\x1b`");
        let out = render("t\x07.pc", src, &[d], false);
        assert!(
            out.starts_with("t\\u{7}.pc:2:7: error: bad `\\u{1b}`\n"),
            "{out}"
        );
        assert!(out.contains("[ t\\u{7}.pc:2:7 ]"), "{out}");
        assert!(
            !out.contains(['\x1b', '\x07', '\u{85}', '\u{202e}']),
            "{out}"
        );
    }

    #[test]
    fn clean_text_is_not_copied() {
        let shown = displayable("int main() {\r\n\treturn 0;\r\n}\r\n");
        assert!(matches!(shown.text, std::borrow::Cow::Borrowed(_)));
        assert_eq!(shown.offset(7), 7);
    }
}
