//! The checks of a module's gradient requests against the source, before
//! the pipeline: every `--grad` name found, none the AD cannot fulfil, a
//! warning for each that computes nothing.

use crate::reports::word_at;
use crate::{CompileError, Origin, usage_error};
use parc_ir::{Linkage, Module, SrcLoc};
use parc_lang::diag::{self, Diagnostic, Severity};

/// The module's gradient requests against [`parc_ir::gradient`]'s rule:
/// every `--grad` name asked for, none the AD cannot fulfil (an error at
/// the request's position, with the rule's hint), and a warning for each
/// that computes nothing. Returns the rendered warnings; an error carries
/// the warnings too, in request order.
pub(crate) fn checked_requests(
    module: &Module,
    exported: &[String],
    path: &str,
    origin: Origin<'_>,
    color: bool,
) -> Result<String, CompileError> {
    for name in exported {
        let requested = module.grad_requests.iter().any(|r| {
            r.linkage == Linkage::Export
                && module.funcs.get(r.primal).is_some_and(|p| &p.name == name)
        });
        if !requested {
            let where_ = match origin {
                Origin::Files(_) => "in any of the files".to_string(),
                _ => format!("in `{path}`"),
            };
            return Err(usage_error(format!(
                "no function `{name}` to differentiate {where_} (`--grad {name}`)"
            )));
        }
    }
    let mut found = Vec::new();
    for req in &module.grad_requests {
        // `--grad` requests are at the function, the others at a call.
        let label = if req.linkage == Linkage::Export {
            "the function `--grad` names"
        } else {
            "differentiated here"
        };
        let grad = module.funcs.get(req.grad).map_or("", |g| g.name.as_str());
        if let Some(r) = parc_ir::gradient::refusal(module, req) {
            found.push((
                Severity::Error,
                r.at.unwrap_or(req.loc),
                r.message,
                Some(r.help),
                label,
                grad,
            ));
        } else if let Some(why) = parc_ir::gradient::computes_nothing(module, req) {
            let what = if req.linkage == Linkage::Export {
                format!("`{grad}`")
            } else {
                "this gradient".to_string()
            };
            found.push((
                Severity::Warning,
                req.loc,
                format!("{what} computes nothing: {why}"),
                Some("differentiate with respect to a `double`/`float` parameter or through a pointer and its shadow".to_string()),
                label,
                grad,
            ));
        }
    }
    type Found<'m> = (
        Severity,
        SrcLoc,
        String,
        Option<String>,
        &'static str,
        &'m str,
    );
    let diagnostic = |source: &str, (severity, loc, message, help, label, _): Found<'_>| {
        let d = match severity {
            Severity::Error => Diagnostic::error(word_at(source, loc), message),
            Severity::Warning => Diagnostic::warning(word_at(source, loc), message),
        }
        .with_label(label);
        match help {
            Some(h) => d.with_help(h),
            None => d,
        }
    };
    // A position in a header names it, without a quote.
    let (list_elsewhere, found): (Vec<Found<'_>>, Vec<Found<'_>>) =
        found.into_iter().partition(|f| {
            module
                .file_of(f.1)
                .is_some_and(|n| !matches!(origin, Origin::Files(fs) if fs.named(n).is_some()))
        });
    let plain = |(severity, loc, message, help, _, _): Found<'_>, src: Option<&str>| {
        let word = match severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let at = match src {
            Some(src) if loc.is_known() => format!("{src}:{}:{}", loc.line, loc.col),
            _ => path.to_string(),
        };
        let help = help.map_or(String::new(), |h| format!("  help: {h}\n"));
        format!("{at}: {word}: {message}\n{help}")
    };
    let elsewhere: String = list_elsewhere
        .into_iter()
        .map(|f| {
            let file = module.file_of(f.1);
            plain(f, file)
        })
        .collect();
    let render = |list: Vec<Found<'_>>| match origin {
        Origin::Files(files) => list
            .into_iter()
            .map(|f| {
                let (path, source) = match module.file_of(f.1).and_then(|n| files.named(n)) {
                    Some(named) => named,
                    None => files.of(f.5),
                };
                diag::render(path, source, &[diagnostic(source, f)], color)
            })
            .collect(),
        Origin::Source(source) => {
            let diags: Vec<Diagnostic> = list.into_iter().map(|f| diagnostic(source, f)).collect();
            diag::render(path, source, &diags, color)
        }
        Origin::Ir => list
            .into_iter()
            .map(|f| plain(f, module.source_name.as_deref()))
            .collect(),
    };
    let only_warnings =
        found.iter().all(|f| f.0 == Severity::Warning) && !elsewhere.contains(": error: ");
    let rendered = render(found) + &elsewhere;
    if only_warnings {
        Ok(rendered)
    } else {
        Err(CompileError {
            rendered,
            internal: false,
        })
    }
}
