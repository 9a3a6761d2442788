//! What the driver prints besides the compiled program: `--explain-ad`
//! (the AD's accumulation sites), the optimizer's remarks, `--stats`, and
//! the AD's refusals rendered at source positions (`--time-passes` is
//! `stage_times`).

use crate::{CompileError, Compiled};
use parc_ad::{AdError, AdReport};
use parc_ir::{FuncKind, Module, SrcLoc};
use parc_lang::ast::Span;
use parc_lang::diag::{self, Diagnostic};
use parc_opt::remarks::Style;
use std::collections::BTreeMap;

/// The span of the word (or the one character) at `loc` in `source`, or of
/// the start of the file where `loc` is not in it.
pub(crate) fn word_at(source: &str, loc: SrcLoc) -> Span {
    let Some(at) = offset_of(source, loc) else {
        return Span::new(0, 0);
    };
    let rest = &source[at..];
    let word = rest
        .char_indices()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(rest.len(), |(i, _)| i);
    let len = if word > 0 {
        word
    } else {
        rest.chars().next().map_or(0, char::len_utf8)
    };
    Span::new(at, at + len)
}

/// What the AD refuses in a module read from parir text: at the position
/// in the ParC file the IR was made from (`source_name`), which is not at
/// hand to quote.
pub(crate) fn ad_error_in_ir(e: &AdError, source_name: Option<&str>, path: &str) -> CompileError {
    let message = format!("cannot differentiate `{}`: {}", e.function, e.message);
    let rendered = match source_name {
        Some(src) if e.loc.is_known() => {
            format!("{src}:{}:{}: error: {message}\n", e.loc.line, e.loc.col)
        }
        _ => format!("{path}: error: {message}\n"),
    };
    CompileError {
        rendered,
        internal: false,
    }
}

/// The byte offset of 1-based `line`:`col` (columns count characters) in
/// `source`, if it is inside it.
fn offset_of(source: &str, loc: SrcLoc) -> Option<usize> {
    if !loc.is_known() {
        return None;
    }
    let start = if loc.line == 1 {
        0
    } else {
        source.match_indices('\n').nth(loc.line as usize - 2)?.0 + 1
    };
    let text = &source[start..];
    let line = &text[..text.find('\n').unwrap_or(text.len())];
    match line.char_indices().nth((loc.col as usize).max(1) - 1) {
        Some((i, _)) => Some(start + i),
        None => Some(start + line.len()),
    }
}

/// A construct the AD refuses, rendered as the front end renders errors:
/// `path:line:col: error: cannot differentiate ...` with the source
/// underlined (the identifier or character at the position).
pub(crate) fn ad_error(e: &AdError, path: &str, source: &str, color: bool) -> CompileError {
    let message = format!("cannot differentiate `{}`: {}", e.function, e.message);
    let rendered = match offset_of(source, e.loc) {
        Some(_) => {
            let d = Diagnostic::error(word_at(source, e.loc), message)
                .with_label("this cannot be differentiated");
            diag::render(path, source, &[d], color)
        }
        None => format!("{path}: error: {message}\n"),
    };
    CompileError {
        rendered,
        internal: false,
    }
}

/// `--explain-ad` for code compiled for a GPU: as [`explain_ad`], and
/// each site in device code (a function of `module` that is a kernel or
/// `__device__`) followed by how the GPU makes the update (`on the GPU:
/// ...`).
pub fn explain_ad_gpu(path: &str, report: &AdReport, module: &Module) -> String {
    let mut sites: Vec<_> = report.sites.iter().collect();
    sites.sort_by_key(|s| (!s.loc.is_known(), s.loc.line, s.loc.col));
    let mut lines: Vec<String> = Vec::new();
    for s in sites {
        let one = explain_ad(
            path,
            &AdReport {
                sites: vec![s.clone()],
                ..AdReport::default()
            },
        );
        let on_device = module
            .func_by_name(&s.function)
            .is_some_and(|f| module.funcs[f].kind != FuncKind::Host);
        let line = if on_device {
            format!("{one}    on the GPU: {}\n", s.class.on_gpu())
        } else {
            one
        };
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines.concat()
}

/// `--explain-ad`: one `path:line:col: class: reason` line per accumulation
/// site, in source order (sites without a position last, as `path: ...`).
pub fn explain_ad(path: &str, report: &AdReport) -> String {
    let mut sites: Vec<_> = report.sites.iter().collect();
    sites.sort_by_key(|s| (!s.loc.is_known(), s.loc.line, s.loc.col));
    let mut lines: Vec<String> = Vec::new();
    for s in sites {
        let class = s.class.name();
        let line = if s.loc.is_known() {
            format!(
                "{path}:{}:{}: {class}: {}\n",
                s.loc.line, s.loc.col, s.reason
            )
        } else {
            format!("{path}: {class}: {} (in `{}`)\n", s.reason, s.function)
        };
        // Two gradients of one function (say with different activities)
        // make the same decision at the same place: say it once.
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines.concat()
}

/// The optimizer's remarks in each of `styles` that reports them, as
/// lines `FILE:LINE:COL: ...` sorted by file and position (remarks whose
/// position is unknown, as in loops the AD made, last, naming the
/// function that holds them). A loop inlined into several callers is
/// reported where it is written, each different line once. `path`: the
/// file of a program of one file (or the source an IR file came from).
pub fn render_remarks(compiled: &Compiled, path: &str, styles: &[Style]) -> String {
    let mut lines: Vec<((String, bool, u32, u32), String)> = Vec::new();
    for r in &compiled.remarks {
        let file = compiled
            .file_of
            .get(&r.function)
            .map_or(path, String::as_str);
        for &style in styles {
            if let Some(line) = r.render(file, style) {
                let key = (file.to_string(), !r.loc.is_known(), r.loc.line, r.loc.col);
                if !lines.iter().any(|(_, l)| *l == line) {
                    lines.push((key, line));
                }
            }
        }
    }
    // Stable: the styles' order is kept at each position.
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    lines.into_iter().map(|(_, l)| l).collect()
}

/// `--stats`: the optimizer's named counters, then the bytes each
/// gradient records on its tape per call.
pub(crate) fn stats(counters: &BTreeMap<String, u64>, ad_report: Option<&AdReport>) -> String {
    let mut out = String::new();
    for (name, n) in counters {
        out += &format!("{n:>12}  {name}\n");
    }
    if let Some(report) = ad_report {
        for t in report.tapes.iter().filter(|t| t.gradient) {
            let (total, recursive) = parc_ad::tape_report::total(&report.tapes, &t.function);
            out += &format!(
                "{:>12}  ad: bytes recorded per call of `{}`{}\n",
                parc_ad::tape_report::show_size(&total),
                t.function,
                if recursive {
                    " and level of recursion"
                } else {
                    ""
                }
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_positions_map_to_offsets() {
        let src = "ab\ncdé f\n\nx";
        assert_eq!(offset_of(src, SrcLoc::new(1, 1)), Some(0));
        assert_eq!(offset_of(src, SrcLoc::new(2, 3)), Some(5));
        // Columns count characters: `f` is the 5th of line 2.
        assert_eq!(offset_of(src, SrcLoc::new(2, 5)), Some(8));
        assert_eq!(offset_of(src, SrcLoc::new(4, 1)), Some(11));
        // Past the end of a line: its end; past the last line: unknown.
        assert_eq!(offset_of(src, SrcLoc::new(1, 9)), Some(2));
        assert_eq!(offset_of(src, SrcLoc::new(9, 1)), None);
        assert_eq!(offset_of(src, SrcLoc::default()), None);
        assert_eq!(offset_of(src, SrcLoc::new(2, 0)), Some(3));
    }

    #[test]
    fn ad_errors_in_ir_point_at_the_parc_file() {
        let e = AdError {
            function: "f".into(),
            loc: SrcLoc::new(5, 26),
            message: "a `spawn` that reaches different `sync`s on different paths cannot be differentiated yet".into(),
        };
        assert_eq!(
            ad_error_in_ir(&e, Some("sp.pc"), "sp.pir").rendered,
            "sp.pc:5:26: error: cannot differentiate `f`: a `spawn` that reaches different `sync`s on different paths cannot be differentiated yet\n"
        );
        assert!(
            ad_error_in_ir(&e, None, "sp.pir")
                .rendered
                .starts_with("sp.pir: error: cannot differentiate `f`")
        );
    }

    #[test]
    fn ad_errors_render_as_diagnostics() {
        let src = "int f(int x) {\n    return spawn_me(x);\n}\n";
        let e = AdError {
            function: "f".into(),
            loc: SrcLoc::new(2, 12),
            message: "a call to `extern` function `spawn_me`".into(),
        };
        let r = ad_error(&e, "t.pc", src, false);
        assert!(!r.internal);
        assert!(
            r.rendered.starts_with(
                "t.pc:2:12: error: cannot differentiate `f`: a call to `extern` function `spawn_me`\n"
            ),
            "{}",
            r.rendered
        );
        // The identifier at the position is underlined.
        assert!(r.rendered.contains("────┬───"), "{}", r.rendered);
        let unknown = AdError {
            loc: SrcLoc::default(),
            ..e
        };
        assert_eq!(
            ad_error(&unknown, "t.pc", src, false).rendered,
            "t.pc: error: cannot differentiate `f`: a call to `extern` function `spawn_me`\n"
        );
    }

    #[test]
    fn explain_ad_sorts_by_position() {
        use parc_ad::{AccumulationClass, AccumulationSite};
        let site = |line, col, class, reason: &str| AccumulationSite {
            function: "f".into(),
            loc: SrcLoc::new(line, col),
            class,
            reason: reason.into(),
        };
        let report = AdReport {
            sites: vec![
                site(9, 2, AccumulationClass::Atomic, "b"),
                site(0, 0, AccumulationClass::Local, "c"),
                site(3, 7, AccumulationClass::Reduction, "a"),
                site(3, 7, AccumulationClass::Reduction, "a"),
            ],
            ..AdReport::default()
        };
        assert_eq!(
            explain_ad("p.pc", &report),
            "p.pc:3:7: reduction: a\np.pc:9:2: atomic: b\np.pc: local: c (in `f`)\n"
        );
    }
}
