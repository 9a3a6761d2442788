//! `#pragma`: `once`, `omp` lines passed on to the lexer
//! under `-fopenmp` (reported once without it), and the pragmas whose
//! ignoring would change the program.

use super::lexer::PpTok;
use super::{Pp, span_of, span_over};
use crate::ast::Span;
use crate::diag::Diagnostic;

impl Pp<'_> {
    /// Appends a `#pragma` line for the lexer, its tokens mapped to where
    /// they were written.
    fn emit_pragma(&mut self, at: u32, toks: &[PpTok]) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        let out = self.out.len() as u32;
        self.out.push_str("#pragma");
        self.map.push_token(out, 7, at, None);
        for t in toks {
            let mut t = t.clone();
            t.space = true;
            self.emit_token(&t);
        }
        self.out.push('\n');
        // Stand-alone directives apply to no statement: an empty one
        // follows them, so that the grammar's `pragma statement` holds
        // (`#pragma omp barrier` before a `}` too).
        let standalone = toks.get(1).is_some_and(|t| {
            matches!(
                &*t.text,
                "barrier" | "flush" | "taskwait" | "taskyield" | "cancel" | "cancellation"
            )
        });
        if standalone {
            let out = self.out.len() as u32;
            self.out.push(';');
            self.map.push_token(out, 1, at, None);
            self.out.push('\n');
        }
    }

    /// `#pragma` (and `_Pragma`): `once` is the preprocessor's; `omp`
    /// lines go on to the lexer under `-fopenmp` (macro-expanded, as
    /// OpenMP says) and are ignored with one warning without it, as gcc
    /// runs them; the rest are ignored, with a warning (once per kind)
    /// where that runs the program otherwise than a C compiler would
    /// (OpenACC's, unknown ones), an error for those that change data
    /// layout.
    pub(super) fn pragma(&mut self, at: u32, toks: &[PpTok], emit: bool) {
        let Some(first) = toks.first() else {
            return;
        };
        let span = Span::new(at as usize, span_over(toks, span_of(first)).end as usize);
        match &*first.text {
            "once" => {
                if let Some(key) = self.include_stack.last() {
                    self.once.insert(key.clone());
                }
            }
            "omp" if self.options.openmp => {
                // OpenMP pragmas are macro-expanded (OpenMP 5.2, 3.1); the
                // checker decides what each means.
                let expanded = self.expand_tokens(toks.to_vec());
                if emit {
                    self.emit_pragma(at, &expanded);
                }
            }
            "omp" => {
                if self.pragma_warned.insert("omp".to_string()) {
                    self.error(
                        Diagnostic::warning(
                            span,
                            "`#pragma omp` is ignored without `-fopenmp`: the program runs \
                             serially, as gcc runs it without `-fopenmp`",
                        )
                        .with_label("ignored")
                        .with_help("build with `-fopenmp` to run OpenMP loops in parallel"),
                    );
                }
            }
            // Hints and diagnostics control that do not change what the
            // program computes.
            "GCC" | "clang" | "STDC" | "unroll" | "nounroll" | "ivdep" | "scop" | "endscop"
            | "region" | "endregion" | "message" | "ident" | "vector" | "novector" => {}
            "pack" | "weak" | "redefine_extname" => self.error(
                Diagnostic::error(span, format!("`#pragma {}` is not supported", first.text))
                    .with_label("this would change the program's layout or linking")
                    .with_help("remove it; parc lays out structs as C's default does"),
            ),
            other => {
                if self.pragma_warned.insert(other.to_string()) {
                    let what = if other == "acc" {
                        "OpenACC directives are not supported: the code runs serially on the host as written"
                            .to_string()
                    } else {
                        format!("unknown pragma `#pragma {other}` ignored")
                    };
                    self.error(Diagnostic::warning(span, what).with_label("ignored"));
                }
            }
        }
    }
}
