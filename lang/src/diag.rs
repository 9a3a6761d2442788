//! Diagnostics: what every phase of the front end reports instead of failing.
//!
//! Phases collect [`Diagnostic`]s and keep going where they can, so one run
//! reports several errors. [`render`] turns them into ariadne reports that name
//! the file, line and column, underline the span and print the hint.

use crate::ast::Span;
use ariadne::{Color, Config, Label, Report, ReportKind, Source};

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

/// Renders diagnostics as ariadne reports. `color` is off for tests and pipes.
/// Each report starts with a `file:line:col: error: message` line so that
/// editors and scripts can find the position without parsing the art.
pub fn render(path: &str, source: &str, diags: &[Diagnostic], color: bool) -> String {
    let mut out = Vec::new();
    for d in diags {
        let (line, col) = line_col(source, d.span.start as usize);
        let kind_word = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        out.extend_from_slice(
            format!("{path}:{line}:{col}: {kind_word}: {}\n", d.message).as_bytes(),
        );
        if line_len(source, d.span.start as usize) > MAX_SHOWN_LINE {
            // A snippet of a line this long (generated code, a 50,000-deep
            // nesting) would bury the message; the position says where.
            if let Some(help) = &d.help {
                out.extend_from_slice(format!("  help: {help}\n").as_bytes());
            }
            continue;
        }
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let clamp = |s: Span| {
            let end = (s.end as usize).min(source.len());
            let start = (s.start as usize).min(end);
            start..end
        };
        let primary = clamp(d.span);
        let mut report = Report::build(kind, (path, primary.clone()))
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(ariadne::IndexType::Byte),
            )
            .with_message(&d.message);
        let mut label = Label::new((path, primary)).with_color(Color::Red);
        if let Some(text) = &d.label {
            label = label.with_message(text);
        }
        report = report.with_label(label);
        for (span, text) in &d.secondary {
            report = report.with_label(
                Label::new((path, clamp(*span)))
                    .with_message(text)
                    .with_color(Color::Blue),
            );
        }
        if let Some(help) = &d.help {
            report = report.with_help(help);
        }
        // Writing into a Vec cannot fail.
        let _ = report
            .finish()
            .write((path, Source::from(source)), &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}
