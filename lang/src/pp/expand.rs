//! Macro expansion (C99 6.10.3): object-like and function-like macros, `#`
//! and `##`, variadic macros (`__VA_ARGS__`, GNU's `, ## __VA_ARGS__`),
//! rescanning, and the `_Pragma` operator.
//!
//! The expander reads tokens from a stack of frames: the bottom one is the
//! text being expanded, each other one the replacement of a macro still
//! being rescanned. A macro is disabled while its frame is on the stack, and
//! a token naming a disabled macro is painted blue (`noexpand`) for good,
//! as gcc and clang do; so self-reference ends, and macro recursion is not
//! an error but leaves the name unexpanded. Arguments are expanded on their
//! own (with the frames' macros still disabled) before substitution, unless
//! `#` or `##` takes them as written.
//!
//! Every token a replacement produces records its expansion (name,
//! definition, invocation) in the source map, so diagnostics can say "in
//! expansion of macro `X`". Limits keep hostile input finite: at most
//! [`MAX_TOKENS`] tokens made by expansion in one translation unit, and
//! arguments nested at most [`MAX_ARG_DEPTH`] invocations deep.

use super::lexer::{Kind, PpTok, single_token};
use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::source_map::{Expansion, SourceMap};
use std::collections::HashMap;
use std::rc::Rc;

/// Most tokens (and invocations) expansion may make in one translation
/// unit: far more than real programs make (a 200,000-line program's
/// worth), and little enough to stop a macro that doubles at each level
/// within a second.
pub const MAX_TOKENS: usize = 2_000_000;

/// Most invocations nested inside one another's arguments.
pub const MAX_ARG_DEPTH: usize = 200;

/// Macros whose expansion the preprocessor computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    File,
    Line,
    Counter,
}

#[derive(Clone, Debug)]
pub struct Macro {
    /// `None` for an object-like macro.
    pub params: Option<Vec<Rc<str>>>,
    /// The last parameter takes the rest of the arguments.
    pub variadic: bool,
    pub body: Vec<PpTok>,
    /// The macro's name in its `#define` (file space).
    pub def: u32,
    pub builtin: Option<Builtin>,
}

impl Macro {
    /// Whether two definitions are the same (C99 6.10.3p2), so that
    /// redefining one as the other is allowed.
    pub fn same_as(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| a.text == b.text && (i == 0 || a.space == b.space))
    }
}

pub type Macros = HashMap<Rc<str>, Macro>;

/// What expansion hands back, in order.
#[derive(Debug)]
pub enum Out {
    /// A token of the output; `true` if it is a token of the text being
    /// expanded, unchanged (its spelling can be copied verbatim).
    Tok(PpTok, bool),
    /// A macro invocation in the text being expanded took this file-space
    /// range (its name up to its `)`), which the output replaces.
    Consumed(u32, u32),
    /// `_Pragma("...")`: the pragma's text, at the operator's position.
    Pragma(String, u32),
}

/// What the expander shares with the preprocessor.
pub struct Ctx<'a> {
    pub macros: &'a Macros,
    pub map: &'a mut SourceMap,
    pub diags: &'a mut Vec<Diagnostic>,
    /// Tokens made so far (against [`MAX_TOKENS`]).
    pub made: &'a mut usize,
    pub counter: &'a mut u64,
    /// Set when a limit stops expansion: the preprocessor gives up.
    pub fatal: &'a mut bool,
}

struct Frame {
    toks: Vec<PpTok>,
    pos: usize,
    /// Where the frame ends: `toks.len()`, or for source text expanded a
    /// part at a time ([`Text`]) the end of the run.
    end: usize,
    /// The macro this frame is the replacement of (disabled meanwhile).
    macro_name: Option<Rc<str>>,
}

pub struct Expander<'c, 'a> {
    cx: &'c mut Ctx<'a>,
    frames: Vec<Frame>,
    /// Macros disabled by an enclosing expansion (while expanding an
    /// argument).
    outer: Vec<Rc<str>>,
    /// Whether frame 0 is source text (for `Out::Tok`'s flag and
    /// `Out::Consumed`).
    base_is_text: bool,
    depth: usize,
}

/// Source text being expanded a part at a time ([`Expander::run_part`]):
/// the tokens `toks[pos..end]` are still to expand.
pub struct Text {
    pub toks: Vec<PpTok>,
    pub pos: usize,
    pub end: usize,
}

impl<'c, 'a> Expander<'c, 'a> {
    /// Expands `toks` completely.
    pub fn run(cx: &'c mut Ctx<'a>, toks: Vec<PpTok>, base_is_text: bool) -> Vec<Out> {
        let end = toks.len();
        let mut e = Expander {
            cx,
            frames: vec![Frame {
                toks,
                pos: 0,
                end,
                macro_name: None,
            }],
            outer: Vec::new(),
            base_is_text,
            depth: 0,
        };
        let mut out = Vec::new();
        e.expand_into(&mut out, usize::MAX);
        out
    }

    /// Expands source text from `text.pos` to `text.end`, stopping early
    /// once `out` holds `limit` items at a token of the text that no
    /// macro invocation has begun to read, where nothing but `text.pos`
    /// is pending: another call goes on from there as if there had been
    /// one. What a part makes is the caller's to use before the next, so
    /// that a long file's expansion is never held whole.
    pub fn run_part(cx: &'c mut Ctx<'a>, text: &mut Text, out: &mut Vec<Out>, limit: usize) {
        let mut e = Expander {
            cx,
            frames: vec![Frame {
                toks: std::mem::take(&mut text.toks),
                pos: text.pos,
                end: text.end,
                macro_name: None,
            }],
            outer: Vec::new(),
            base_is_text: true,
            depth: 0,
        };
        e.expand_into(out, limit);
        let base = e.frames.swap_remove(0);
        text.toks = base.toks;
        text.pos = base.pos;
    }

    fn disabled(&self, name: &str) -> bool {
        self.outer.iter().any(|m| &**m == name)
            || self
                .frames
                .iter()
                .any(|f| f.macro_name.as_deref() == Some(name))
    }

    /// The next token and whether it is from frame 0's text.
    fn next(&mut self) -> Option<(PpTok, bool)> {
        loop {
            let depth = self.frames.len();
            let top = self.frames.last_mut()?;
            if let Some(t) = top.toks[..top.end].get(top.pos) {
                top.pos += 1;
                return Some((t.clone(), depth == 1 && self.base_is_text));
            }
            if depth == 1 {
                return None;
            }
            self.frames.pop();
        }
    }

    /// The next token without taking it (finished frames are dropped).
    fn peek(&mut self) -> Option<&PpTok> {
        while self.frames.len() > 1 {
            let top = self.frames.last()?;
            if top.pos < top.end {
                break;
            }
            self.frames.pop();
        }
        let top = self.frames.last()?;
        top.toks[..top.end].get(top.pos)
    }

    /// Expands the frames into `out`; returns early, with only frame 0
    /// left and nothing of it read ahead, once `out` holds `limit` items.
    fn expand_into(&mut self, out: &mut Vec<Out>, limit: usize) {
        loop {
            if out.len() >= limit && self.frames.len() == 1 {
                return;
            }
            let Some((mut t, from_text)) = self.next() else {
                return;
            };
            if *self.cx.fatal {
                return;
            }
            if t.kind != Kind::Ident || t.noexpand {
                out.push(Out::Tok(t, from_text));
                continue;
            }
            if &*t.text == "_Pragma" && self.peek().is_some_and(|p| p.is("(")) {
                self.pragma_operator(t, from_text, out);
                continue;
            }
            let Some(m) = self.cx.macros.get(&t.text) else {
                out.push(Out::Tok(t, from_text));
                continue;
            };
            if self.disabled(&t.text) {
                t.noexpand = true;
                out.push(Out::Tok(t, from_text));
                continue;
            }
            if m.params.is_some() && !self.peek().is_some_and(|p| p.is("(")) {
                out.push(Out::Tok(t, from_text));
                continue;
            }
            let mut consumed = from_text.then_some((t.pos, t.pos + t.text.len() as u32));
            let args = if m.params.is_some() {
                match self.collect_args(&t, m, &mut consumed) {
                    Some(a) => Some(a),
                    None => {
                        if let Some((s, e)) = consumed {
                            out.push(Out::Consumed(s, e));
                        }
                        continue;
                    }
                }
            } else {
                None
            };
            let end = consumed.map_or(t.pos + t.text.len() as u32, |c| c.1);
            if let Some((s, e)) = consumed {
                out.push(Out::Consumed(s, e));
            }
            let site = Span {
                start: t.pos,
                end: end.max(t.pos),
            };
            let exp = self.cx.map.add_expansion(Expansion {
                name: t.text.to_string(),
                def: m.def,
                site,
                parent: t.expansion,
            });
            let mut repl = match m.builtin {
                Some(b) => vec![self.builtin(b, &t, exp)],
                None => self.substitute(m, args.unwrap_or_default(), exp),
            };
            if let Some(first) = repl.first_mut() {
                first.space = t.space;
            }
            *self.cx.made += repl.len() + 1;
            if *self.cx.made > MAX_TOKENS {
                // Blame the invocation in the text, not the macro deep
                // inside it that happened to cross the line.
                let outermost = self.cx.map.outermost(exp);
                let outermost = (outermost.site, outermost.name.clone());
                self.cx.diags.push(
                    Diagnostic::error(
                        outermost.0,
                        format!("macro expansion makes more than {MAX_TOKENS} tokens"),
                    )
                    .with_label(format!("expanding `{}` here", outermost.1))
                    .with_help("a macro that expands to several copies of itself, nested, grows exponentially"),
                );
                *self.cx.fatal = true;
                return;
            }
            self.frames.push(Frame {
                end: repl.len(),
                toks: repl,
                pos: 0,
                macro_name: Some(t.text.clone()),
            });
        }
    }

    /// `__FILE__`, `__LINE__`, `__COUNTER__`: as of the outermost
    /// invocation's position.
    fn builtin(&mut self, b: Builtin, t: &PpTok, exp: u32) -> PpTok {
        let at = self.cx.map.outermost(exp).site.start;
        let loc = self.cx.map.resolve(at);
        let (file, line, _) = self.cx.map.describe(&loc);
        match b {
            Builtin::File => {
                let mut s = String::from("\"");
                for c in file.chars() {
                    if c == '"' || c == '\\' {
                        s.push('\\');
                    }
                    s.push(c);
                }
                s.push('"');
                PpTok::made(Kind::Str, &s, t.pos, Some(exp))
            }
            Builtin::Line => PpTok::made(Kind::Number, &line.to_string(), t.pos, Some(exp)),
            Builtin::Counter => {
                let n = *self.cx.counter;
                *self.cx.counter += 1;
                PpTok::made(Kind::Number, &n.to_string(), t.pos, Some(exp))
            }
        }
    }

    /// Reads `( args )` after a function-like macro's name; `None` after
    /// reporting an error.
    fn collect_args(
        &mut self,
        name: &PpTok,
        m: &Macro,
        consumed: &mut Option<(u32, u32)>,
    ) -> Option<Vec<Vec<PpTok>>> {
        let nparams = m.params.as_ref().map_or(0, Vec::len);
        let note = |t: &PpTok, from_text: bool, consumed: &mut Option<(u32, u32)>| {
            if from_text {
                let end = t.pos + t.text.len() as u32;
                *consumed = Some(match *consumed {
                    Some((s, e)) => (s.min(t.pos), e.max(end)),
                    None => (t.pos, end),
                });
            }
        };
        let (open, from_text) = self.next()?;
        note(&open, from_text, consumed);
        let mut args: Vec<Vec<PpTok>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            let Some((t, from_text)) = self.next() else {
                self.cx.diags.push(
                    Diagnostic::error(
                        Span::new(name.pos as usize, name.pos as usize + name.text.len()),
                        format!("unterminated argument list invoking macro `{}`", name.text),
                    )
                    .with_label("this invocation has no closing `)`")
                    .with_help(
                        "close the argument list (the arguments of a macro cannot contain a directive)",
                    ),
                );
                return None;
            };
            note(&t, from_text, consumed);
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            } else if t.is(",") && depth == 0 && !(m.variadic && args.len() == nparams) {
                args.push(Vec::new());
                continue;
            }
            if let Some(last) = args.last_mut() {
                last.push(t);
            }
        }
        if nparams == 0 && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        // A variadic macro may be given nothing for `...`.
        if m.variadic && args.len() + 1 == nparams {
            args.push(Vec::new());
        }
        if args.len() != nparams {
            let span = match consumed {
                Some((s, e)) => Span::new(*s as usize, *e as usize),
                None => Span::new(name.pos as usize, name.pos as usize + name.text.len()),
            };
            let wanted = if m.variadic {
                format!("at least {}", nparams - 1)
            } else {
                nparams.to_string()
            };
            self.cx.diags.push(
                Diagnostic::error(
                    span,
                    format!(
                        "macro `{}` takes {wanted} argument{}, but {} {} given",
                        name.text,
                        if nparams == 1 && !m.variadic { "" } else { "s" },
                        args.len(),
                        if args.len() == 1 { "was" } else { "were" }
                    ),
                )
                .with_label("in this invocation")
                .with_secondary(Span::new(m.def as usize, m.def as usize), "defined here")
                .with_help("parenthesize an argument that contains a comma"),
            );
            return None;
        }
        Some(args)
    }

    /// An argument expanded on its own, as C99 6.10.3.1 asks.
    fn expand_arg(&mut self, arg: &[PpTok]) -> Vec<PpTok> {
        if self.depth >= MAX_ARG_DEPTH {
            if let Some(t) = arg.first() {
                self.cx.diags.push(
                    Diagnostic::error(
                        Span::new(t.pos as usize, t.pos as usize + t.text.len()),
                        format!("macro arguments nested more than {MAX_ARG_DEPTH} deep"),
                    )
                    .with_label("too deep here"),
                );
            }
            *self.cx.fatal = true;
            return arg.to_vec();
        }
        let mut outer = self.outer.clone();
        outer.extend(self.frames.iter().filter_map(|f| f.macro_name.clone()));
        let mut sub = Expander {
            cx: self.cx,
            frames: vec![Frame {
                toks: arg.to_vec(),
                pos: 0,
                end: arg.len(),
                macro_name: None,
            }],
            outer,
            base_is_text: false,
            depth: self.depth + 1,
        };
        let mut out = Vec::new();
        sub.expand_into(&mut out, usize::MAX);
        out.into_iter()
            .filter_map(|o| match o {
                Out::Tok(t, _) => Some(t),
                // `_Pragma` inside an argument: kept as written, run when
                // the substituted text is rescanned.
                Out::Pragma(text, pos) => Some(PpTok::made(
                    Kind::Str,
                    &format!("_Pragma({text:?})"),
                    pos,
                    None,
                )),
                Out::Consumed(..) => None,
            })
            .collect()
    }

    /// The replacement list with the arguments substituted (C99 6.10.3.1-3).
    fn substitute(&mut self, m: &Macro, args: Vec<Vec<PpTok>>, exp: u32) -> Vec<PpTok> {
        let params = m.params.as_deref().unwrap_or(&[]);
        let param = |t: &PpTok| -> Option<usize> {
            if t.kind != Kind::Ident {
                return None;
            }
            params.iter().position(|p| *p == t.text).or_else(|| {
                (m.variadic && &*t.text == "__VA_ARGS__").then(|| params.len().saturating_sub(1))
            })
        };
        let body = &m.body;
        let mut expanded: Vec<Option<Vec<PpTok>>> = vec![None; args.len()];
        // Segments of the result; a `##` joins the two around it.
        struct Seg {
            toks: Vec<PpTok>,
            /// `__VA_ARGS__` (GNU: `, ## __VA_ARGS__` drops the comma when
            /// it is empty, and keeps it, unpasted, when not).
            va: bool,
        }
        let mut segs: Vec<Seg> = Vec::new();
        let mut paste_next = false;
        let mut i = 0;
        while i < body.len() {
            let b = &body[i];
            if b.is("##") && i > 0 && i + 1 < body.len() {
                paste_next = true;
                i += 1;
                continue;
            }
            let pasted = paste_next || body.get(i + 1).is_some_and(|n| n.is("##"));
            let mut seg = if m.params.is_some()
                && b.is("#")
                && let Some(p) = body.get(i + 1).and_then(&param)
            {
                i += 1;
                let mut s = PpTok::made(Kind::Str, &stringize(&args[p]), b.pos, Some(exp));
                s.space = b.space;
                Seg {
                    toks: vec![s],
                    va: false,
                }
            } else if let Some(p) = param(b) {
                let toks = if pasted {
                    args[p].clone()
                } else {
                    if expanded[p].is_none() {
                        expanded[p] = Some(self.expand_arg(&args[p]));
                    }
                    expanded[p].clone().unwrap_or_default()
                };
                Seg {
                    va: m.variadic && p + 1 == params.len(),
                    toks,
                }
            } else {
                let mut t = b.clone();
                t.expansion = Some(exp);
                t.bol = false;
                Seg {
                    toks: vec![t],
                    va: false,
                }
            };
            if let Some(first) = seg.toks.first_mut() {
                first.space = b.space;
            }
            if paste_next && let Some(left) = segs.last_mut() {
                self.paste(&mut left.toks, &mut seg.toks, seg.va, exp);
                left.toks.append(&mut seg.toks);
            } else {
                segs.push(seg);
            }
            paste_next = false;
            i += 1;
        }
        segs.into_iter().flat_map(|s| s.toks).collect()
    }

    /// `left ## right`: glues the last token of `left` to the first of
    /// `right` (an empty side is a placemarker, C99 6.10.3.3).
    fn paste(&mut self, left: &mut Vec<PpTok>, right: &mut Vec<PpTok>, va: bool, exp: u32) {
        let gnu_comma = va && left.last().is_some_and(|t| t.is(","));
        if right.is_empty() {
            if gnu_comma {
                left.pop();
            }
            return;
        }
        if gnu_comma {
            return;
        }
        let Some(l) = left.pop() else {
            return;
        };
        let r = right.remove(0);
        let text = format!("{}{}", l.text, r.text);
        match single_token(&text, l.pos, Some(exp)) {
            Some(mut t) => {
                t.space = l.space;
                left.push(t);
            }
            None => {
                self.cx.diags.push(
                    Diagnostic::error(
                        Span::new(l.pos as usize, l.pos as usize + l.text.len()),
                        format!(
                            "pasting `{}` and `{}` does not give a valid preprocessing token",
                            l.text, r.text
                        ),
                    )
                    .with_label("`##` here")
                    .with_help("`##` must make one token, such as an identifier from two pieces"),
                );
                left.push(l);
                right.insert(0, r);
            }
        }
    }
}

/// `#x`: the argument's spelling as a string literal (C99 6.10.3.2).
fn stringize(arg: &[PpTok]) -> String {
    let mut s = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        if matches!(t.kind, Kind::Str | Kind::Char) {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}

/// Reads a `_Pragma` operator's string: the pragma text (C99 6.10.9).
fn destringize(lit: &str) -> Option<String> {
    let inner = lit.strip_prefix('L').unwrap_or(lit);
    let inner = inner.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(n) = chars.clone().next()
            && (n == '"' || n == '\\')
        {
            chars.next();
            out.push(n);
        } else {
            out.push(c);
        }
    }
    Some(out)
}

impl Expander<'_, '_> {
    fn pragma_operator(&mut self, t: PpTok, from_text: bool, out: &mut Vec<Out>) {
        let mut consumed = from_text.then_some((t.pos, t.pos + t.text.len() as u32));
        let mut toks = Vec::new();
        for _ in 0..3 {
            match self.next() {
                Some((x, ft)) => {
                    if ft {
                        let end = x.pos + x.text.len() as u32;
                        consumed = consumed.map(|(s, e)| (s, e.max(end)));
                    }
                    toks.push(x);
                }
                None => break,
            }
        }
        if let Some((s, e)) = consumed {
            out.push(Out::Consumed(s, e));
        }
        let text = match toks.as_slice() {
            [_, s, close] if s.kind == Kind::Str && close.is(")") => destringize(&s.text),
            _ => None,
        };
        match text {
            Some(text) => out.push(Out::Pragma(text, t.pos)),
            None => self.cx.diags.push(
                Diagnostic::error(
                    Span::new(t.pos as usize, t.pos as usize + t.text.len()),
                    "`_Pragma` takes one string literal in parentheses",
                )
                .with_label("malformed `_Pragma`")
                .with_help("write `_Pragma(\"omp parallel for\")`"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stringize_escapes_quotes() {
        let toks = super::super::lexer::scan(r#"a  "b\n" 'c'"#, 0);
        assert_eq!(stringize(&toks), r#""a \"b\\n\" 'c'""#);
    }

    #[test]
    fn destringize_undoes_escapes() {
        assert_eq!(
            destringize(r#""omp parallel for \"x\"""#).as_deref(),
            Some("omp parallel for \"x\"")
        );
    }
}
