//! The C preprocessor: a file and its command-line definitions in, one
//! text for the lexer and a [`SourceMap`] out.
//!
//! Translation phases 1-4 of C99 on preprocessing tokens ([`lexer`]):
//! `#include` ([`include`]: `"..."` beside the including file, then `-I`
//! directories; `<...>` in the `-I` directories, then the headers parc
//! ships, [`headers`]), `#define`/`#undef` with object-like, function-like
//! and variadic macros ([`define`], [`expand`]), `#if`/`#ifdef`/`#ifndef`/
//! `#elif`/`#else`/`#endif` with `defined` ([`cond`]), `#line`, `#error`,
//! `#warning`, `#pragma` ([`pragma`]: `once`; `omp` lines go on to the
//! lexer under `-fopenmp` and are reported, once, without it; others are
//! reported when ignoring them would change the program), `__FILE__`,
//! `__LINE__`, include guards and `#pragma once`.
//!
//! Why not a crate: the preprocessors on crates.io either run an external
//! `cpp` or give text with `#line` markers only; parc's diagnostics need to
//! know, for each byte the parser sees, the file, line and macro expansion
//! it came from, and the headers are parc's own, compiled in.
//!
//! The output keeps the source's text wherever no macro is expanded: a
//! program without directives or macros comes out byte for byte as it went
//! in (so its diagnostics are what they were before there was a
//! preprocessor). A directive line becomes an empty line, an included file
//! its own text, and an invocation the tokens of its expansion, spaced so
//! that they read back as the same tokens.
//!
//! Invariants: preprocessing never panics and always returns text; every
//! problem is a diagnostic positioned in the file it is about (file space
//! of the source map). Hostile input stays finite: includes nest at most
//! [`MAX_INCLUDE_DEPTH`] deep (a cycle is named as one), at most
//! [`MAX_SOURCE_BYTES`] are read, and [`expand`]'s limits bound what
//! macros make; past a limit the preprocessor stops with one error.

mod cond;
mod define;
mod expand;
pub(crate) mod headers;
mod include;
mod lexer;
mod pragma;

use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::source_map::{FILE_SPACE, SourceMap};
use expand::{Builtin, Ctx, Expander, Macro, Macros, Out};
use include::header_name;
use lexer::{Kind, PpTok};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Deepest `#include` nesting (gcc's limit).
pub const MAX_INCLUDE_DEPTH: usize = 200;

/// Most source text read for one translation unit.
pub const MAX_SOURCE_BYTES: usize = 512 << 20;

/// How many items of expanded text (tokens, mostly) are made at a time
/// before they are emitted (see `expand::Expander::run_part`).
const PART: usize = 4096;

/// A `-D` or `-U` on the command line, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Define {
    /// `-DNAME` (as 1), `-DNAME=VALUE`, `-D'F(x)=x'`.
    Set(String),
    /// `-UNAME`.
    Unset(String),
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub defines: Vec<Define>,
    /// `-I` directories, searched in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-fopenmp`: defines `_OPENMP`.
    pub openmp: bool,
}

impl Options {
    /// The options that gcc-style flags give (`-DX`, `-DX=V`, `-UX`,
    /// `-fopenmp`, `-fno-openmp`, in order; others are not the
    /// preprocessor's and are skipped): what the test harnesses read from a
    /// program's `// flags:` line.
    pub fn from_flags(flags: &str) -> Options {
        let mut options = Options::default();
        for f in flags.split_whitespace() {
            if let Some(d) = f.strip_prefix("-D") {
                options.defines.push(Define::Set(d.to_string()));
            } else if let Some(u) = f.strip_prefix("-U") {
                options.defines.push(Define::Unset(u.to_string()));
            } else if f == "-fopenmp" || f == "-fno-openmp" {
                options.openmp = f == "-fopenmp";
            }
        }
        options
    }
}

/// What preprocessing produces.
pub struct Preprocessed {
    /// The text the lexer reads.
    pub text: String,
    pub map: SourceMap,
    /// Errors and warnings, positioned in file space.
    pub diags: Vec<Diagnostic>,
}

/// Preprocesses the file `path` whose text is `source`.
pub fn preprocess(path: &str, source: &str, options: &Options) -> Preprocessed {
    let mut pp = Pp {
        options,
        map: SourceMap::default(),
        macros: Macros::new(),
        diags: Vec::new(),
        out: String::with_capacity(source.len()),
        made: 0,
        counter: 0,
        fatal: false,
        once: HashSet::new(),
        guards: HashMap::new(),
        include_stack: Vec::new(),
        read: source.len(),
        pragma_warned: HashSet::new(),
    };
    let main = pp.map.add_file(path, source, None, false);
    pp.predefine();
    let dir = Path::new(path).parent().map(Path::to_path_buf);
    pp.include_stack.push(key_of(Path::new(path)));
    pp.process(main, dir.as_deref(), true);
    let len = pp.out.len() as u32;
    pp.map.set_output_len(len);
    if pp.out.len() >= FILE_SPACE as usize {
        pp.diags.push(Diagnostic::error(
            Span::new(FILE_SPACE as usize, FILE_SPACE as usize),
            "the preprocessed program is larger than 2 GiB",
        ));
        pp.out.clear();
    }
    Preprocessed {
        text: pp.out,
        map: pp.map,
        diags: pp.diags,
    }
}

/// A file's identity for `#pragma once` and include guards.
fn key_of(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

struct Pp<'o> {
    options: &'o Options,
    map: SourceMap,
    macros: Macros,
    diags: Vec<Diagnostic>,
    out: String,
    made: usize,
    counter: u64,
    fatal: bool,
    /// Files that said `#pragma once`.
    once: HashSet<String>,
    /// Files wholly inside `#ifndef G ... #endif`: their guard macro.
    guards: HashMap<String, Rc<str>>,
    /// Keys of the files being read, outermost first.
    include_stack: Vec<String>,
    /// Bytes of source read so far.
    read: usize,
    /// Pragma namespaces already warned about (once per namespace).
    pragma_warned: HashSet<String>,
}

/// One level of `#if` nesting.
struct Cond {
    /// This group's text is kept.
    active: bool,
    /// Some group of this conditional was kept (or the parent is skipped).
    taken: bool,
    seen_else: bool,
    /// The directive that opened it (file space).
    at: Span,
}

/// Include-guard detection for one file: `#ifndef G` first, its `#endif`
/// last.
#[derive(Default)]
struct GuardScan {
    seen_anything: bool,
    candidate: Option<Rc<str>>,
    /// The guard's `#endif` was seen (nothing may follow).
    closed: bool,
    spoiled: bool,
}

fn span_of(t: &PpTok) -> Span {
    Span::new(t.pos as usize, t.pos as usize + t.text.len())
}

/// The span from the first to the last of `toks` (or `dflt`).
fn span_over(toks: &[PpTok], dflt: Span) -> Span {
    match (toks.first(), toks.last()) {
        (Some(a), Some(b)) => Span::new(
            a.pos as usize,
            (b.pos as usize + b.text.len()).max(a.pos as usize),
        ),
        _ => dflt,
    }
}

impl Pp<'_> {
    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// The predefined macros, then `-D`/`-U` in order, each read as a
    /// `#define` or `#undef` of a made-up file (so errors in `-D` text
    /// are positioned like any other).
    fn predefine(&mut self) {
        for (name, b) in [
            ("__FILE__", Builtin::File),
            ("__LINE__", Builtin::Line),
            ("__COUNTER__", Builtin::Counter),
        ] {
            self.macros.insert(
                name.into(),
                Macro {
                    params: None,
                    variadic: false,
                    body: Vec::new(),
                    def: FILE_SPACE,
                    builtin: Some(b),
                },
            );
        }
        let mut text = String::from(
            "#define __STDC__ 1\n#define __STDC_VERSION__ 199901L\n#define __STDC_HOSTED__ 1\n\
             #define __PARC__ 1\n#define __LP64__ 1\n#define _LP64 1\n#define __CHAR_BIT__ 8\n\
             #define __SIZEOF_SHORT__ 2\n#define __SIZEOF_INT__ 4\n#define __SIZEOF_LONG__ 8\n\
             #define __SIZEOF_LONG_LONG__ 8\n#define __SIZEOF_POINTER__ 8\n\
             #define __SIZEOF_FLOAT__ 4\n#define __SIZEOF_DOUBLE__ 8\n\
             #define __builtin_expect(e, c) ((long)(e))\n",
        );
        if self.options.openmp {
            // OpenMP 4.0's date: the version whose loop constructs parc
            // implements (a subset; see docs/LANGUAGE.md).
            text.push_str("#define _OPENMP 201307\n");
        }
        let builtin = self.map.add_file("<built-in>", &text, None, true);
        self.process(builtin, None, false);
        if self.options.defines.is_empty() {
            return;
        }
        let mut text = String::new();
        for d in &self.options.defines {
            match d {
                Define::Set(s) => {
                    let (name, value) = s.split_once('=').unwrap_or((s, "1"));
                    text.push_str(&format!("#define {name} {value}\n"));
                }
                Define::Unset(name) => text.push_str(&format!("#undef {name}\n")),
            }
        }
        let cmd = self.map.add_file("<command line>", &text, None, false);
        self.process(cmd, None, false);
    }

    /// What the expander shares with the preprocessor.
    fn ctx(&mut self) -> Ctx<'_> {
        Ctx {
            macros: &self.macros,
            map: &mut self.map,
            diags: &mut self.diags,
            made: &mut self.made,
            counter: &mut self.counter,
            fatal: &mut self.fatal,
        }
    }

    fn ctx_expand(&mut self, toks: Vec<PpTok>, base_is_text: bool) -> Vec<Out> {
        Expander::run(&mut self.ctx(), toks, base_is_text)
    }

    /// Expands the next part of source text `text` into `out` (see
    /// [`Expander::run_part`]).
    fn expand_part(&mut self, text: &mut expand::Text, out: &mut Vec<Out>) {
        Expander::run_part(&mut self.ctx(), text, out, PART);
    }

    /// Expands tokens of a directive (`#if`, `#include`, `#line`): tokens
    /// only.
    fn expand_tokens(&mut self, toks: Vec<PpTok>) -> Vec<PpTok> {
        self.ctx_expand(toks, false)
            .into_iter()
            .filter_map(|o| match o {
                Out::Tok(t, _) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// Appends file text `from..to` (offsets in `file`) to the output.
    fn emit_verbatim(&mut self, file: usize, from: usize, to: usize) {
        if to <= from {
            return;
        }
        let f = &self.map.files[file];
        let Some(text) = f.text.get(from..to) else {
            return;
        };
        let src = f.base + from as u32;
        let out = self.out.len() as u32;
        self.out.push_str(text);
        self.map.push_verbatim(out, src, (to - from) as u32);
    }

    /// Appends a token an expansion made.
    fn emit_token(&mut self, t: &PpTok) {
        let glue = self
            .out
            .chars()
            .last()
            .is_some_and(|c| lexer::would_glue(c.encode_utf8(&mut [0; 4]), &t.text));
        if (t.space || glue) && !self.out.ends_with([' ', '\n', '\t']) {
            self.out.push(' ');
        }
        let out = self.out.len() as u32;
        self.out.push_str(&t.text);
        self.map
            .push_token(out, t.text.len() as u32, t.pos, t.expansion);
    }

    /// Reads file `file` into the output (or, with `emit` false, only its
    /// directives: the predefined macros and the command line).
    fn process(&mut self, file: usize, dir: Option<&Path>, emit: bool) {
        let (text_len, base) = {
            let f = &self.map.files[file];
            (f.text.len(), f.base)
        };
        let mut toks = lexer::scan(&self.map.files[file].text, base);
        let mut conds: Vec<Cond> = Vec::new();
        let mut guard = GuardScan::default();
        // File offset up to which the output has the file's text.
        let mut emitted = 0usize;
        let mut i = 0;
        while i < toks.len() && !self.fatal {
            let skipping = conds.last().is_some_and(|c| !c.active);
            let line_end = toks[i + 1..]
                .iter()
                .position(|t| t.bol)
                .map_or(toks.len(), |p| i + 1 + p);
            if toks[i].bol && toks[i].is("#") {
                let hash = toks[i].clone();
                if emit && !skipping {
                    self.emit_verbatim(file, emitted, (hash.pos - base) as usize);
                }
                let line = toks[i + 1..line_end].to_vec();
                self.directive(file, dir, &hash, &line, &mut conds, &mut guard, emit);
                // Resume at the start of the line of the next line's first
                // token: the directive, comments and blank lines go.
                emitted = match toks.get(line_end) {
                    Some(t) => {
                        let next = (t.pos - base) as usize;
                        let text = &self.map.files[file].text;
                        text[..next].rfind('\n').map_or(next, |n| n + 1)
                    }
                    None => text_len,
                }
                .max(emitted);
                if emit {
                    self.out.push('\n');
                }
                i = line_end;
                continue;
            }
            guard.seen_anything = true;
            if guard.closed {
                guard.spoiled = true;
            }
            if skipping {
                i = line_end;
                continue;
            }
            // A run of text lines up to the next directive.
            let run_end = toks[i..]
                .iter()
                .position(|t| t.bol && t.is("#"))
                .map_or(toks.len(), |p| i + p);
            let run = i..run_end;
            i = run_end;
            if !emit {
                self.error(
                    Diagnostic::error(
                        span_over(&toks[run], Span::new(0, 0)),
                        "text in a `-D` or `-U` option",
                    )
                    .with_help("a `-D` option defines one macro: `-DNAME` or `-DNAME=VALUE`"),
                );
                continue;
            }
            // A part at a time, each emitted before the next is made: the
            // expansion of a whole file at once took 40 bytes a token.
            let mut text = expand::Text {
                toks: std::mem::take(&mut toks),
                pos: run.start,
                end: run.end,
            };
            let mut part = Vec::new();
            loop {
                self.expand_part(&mut text, &mut part);
                for o in part.drain(..) {
                    match o {
                        Out::Tok(t, true) => {
                            let end = (t.pos - base) as usize + t.text.len();
                            self.emit_verbatim(file, emitted, end);
                            emitted = emitted.max(end);
                        }
                        Out::Tok(t, false) => self.emit_token(&t),
                        Out::Consumed(s, e) => {
                            self.emit_verbatim(file, emitted, (s - base) as usize);
                            emitted = emitted.max((e - base) as usize);
                        }
                        Out::Pragma(text, at) => {
                            let toks = lexer::scan(&text, at);
                            // Positions inside the string are not the file's:
                            // every token of the pragma is at the operator.
                            let toks: Vec<PpTok> =
                                toks.into_iter().map(|t| PpTok { pos: at, ..t }).collect();
                            self.pragma(at, &toks, emit);
                        }
                    }
                }
                if text.pos >= text.end || self.fatal {
                    break;
                }
            }
            toks = text.toks;
        }
        if emit && !self.fatal && conds.last().is_none_or(|c| c.active) {
            self.emit_verbatim(file, emitted, text_len);
        }
        if self.fatal {
            return;
        }
        for c in conds.iter().rev() {
            self.error(
                Diagnostic::error(c.at, "unterminated conditional directive")
                    .with_label("this has no `#endif`")
                    .with_help("add `#endif` at the end of the conditional group"),
            );
        }
        if let (Some(g), false) = (guard.candidate, guard.spoiled)
            && guard.closed
            && let Some(key) = self.include_stack.last()
        {
            self.guards.insert(key.clone(), g);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn directive(
        &mut self,
        file: usize,
        dir: Option<&Path>,
        hash: &PpTok,
        line: &[PpTok],
        conds: &mut Vec<Cond>,
        guard: &mut GuardScan,
        emit: bool,
    ) {
        let at = span_over(line, span_of(hash));
        let at = Span::new(hash.pos as usize, at.end as usize);
        let Some(name_tok) = line.first() else {
            return; // the null directive
        };
        let name: &str = &name_tok.text;
        let rest = &line[1..];
        let skipping = conds.last().is_some_and(|c| !c.active);
        let first_thing = !guard.seen_anything;
        guard.seen_anything = true;
        if guard.closed {
            guard.spoiled = true;
        }
        match name {
            "if" | "ifdef" | "ifndef" => {
                let value = if skipping {
                    false
                } else {
                    match name {
                        "if" => self.if_value(rest, at),
                        _ => match rest.first() {
                            Some(t) if t.is_ident() => {
                                if rest.len() > 1 {
                                    self.extra_tokens(name, &rest[1..]);
                                }
                                let defined = self.macros.contains_key(&t.text);
                                if name == "ifndef" && first_thing && conds.is_empty() {
                                    guard.candidate = Some(t.text.clone());
                                }
                                defined == (name == "ifdef")
                            }
                            _ => {
                                self.error(
                                    Diagnostic::error(at, format!("`#{name}` needs a macro name"))
                                        .with_label("no name here")
                                        .with_help(format!("write `#{name} NAME`")),
                                );
                                false
                            }
                        },
                    }
                };
                conds.push(Cond {
                    active: value,
                    taken: value || skipping,
                    seen_else: false,
                    at,
                });
            }
            "elif" | "else" | "elifdef" | "elifndef" => {
                let Some(c) = conds.last() else {
                    self.error(
                        Diagnostic::error(at, format!("`#{name}` without `#if`"))
                            .with_label("no conditional is open here")
                            .with_help("remove it, or add the `#if` it belongs to"),
                    );
                    return;
                };
                if c.seen_else {
                    let opened = c.at;
                    self.error(
                        Diagnostic::error(at, format!("`#{name}` after `#else`"))
                            .with_label("the `#else` group already ended this conditional")
                            .with_secondary(opened, "the conditional"),
                    );
                    return;
                }
                if conds.len() == 1 && guard.candidate.is_some() {
                    guard.spoiled = true;
                }
                let taken = c.taken;
                let value = !taken
                    && match name {
                        "else" => {
                            if !rest.is_empty() {
                                self.extra_tokens(name, rest);
                            }
                            true
                        }
                        "elif" => self.if_value(rest, at),
                        _ => {
                            let defined = rest
                                .first()
                                .is_some_and(|t| self.macros.contains_key(&t.text));
                            defined == (name == "elifdef")
                        }
                    };
                if let Some(c) = conds.last_mut() {
                    c.active = value;
                    c.taken |= value;
                    c.seen_else = name == "else";
                }
            }
            "endif" => {
                if conds.pop().is_none() {
                    self.error(
                        Diagnostic::error(at, "`#endif` without `#if`")
                            .with_label("no conditional is open here")
                            .with_help("remove it, or add the `#if` it belongs to"),
                    );
                } else {
                    if !rest.is_empty() {
                        self.extra_tokens(name, rest);
                    }
                    if conds.is_empty() && guard.candidate.is_some() {
                        guard.closed = true;
                    }
                }
            }
            _ if skipping => {}
            "define" => self.define(rest, at),
            "undef" => match rest.first() {
                Some(t) if t.is_ident() => {
                    if rest.len() > 1 {
                        self.extra_tokens(name, &rest[1..]);
                    }
                    self.macros.remove(&t.text);
                }
                _ => self.error(
                    Diagnostic::error(at, "`#undef` needs a macro name")
                        .with_label("no name here")
                        .with_help("write `#undef NAME`"),
                ),
            },
            "include" | "include_next" => self.include(file, dir, rest, at, emit),
            "line" => self.line(file, hash, rest, at),
            "error" | "warning" => {
                let f = &self.map.files[file];
                let text = f.text[(name_tok.pos - f.base) as usize + name.len()..]
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                let message = if text.is_empty() {
                    format!("#{name}")
                } else {
                    format!("#{name} {text}")
                };
                let d = if name == "error" {
                    Diagnostic::error(at, message)
                } else {
                    Diagnostic::warning(at, message)
                };
                self.error(d.with_label(format!("`#{name}` directive")));
            }
            "pragma" => self.pragma(hash.pos, rest, emit),
            "ident" | "sccs" => {}
            _ if name_tok.kind == Kind::Number => self.line(file, hash, line, at),
            _ => self.error(
                Diagnostic::error(span_of(name_tok), format!("invalid preprocessing directive `#{name}`"))
                    .with_label("not a directive")
                    .with_help(
                        "directives are #include, #define, #undef, #if, #ifdef, #ifndef, #elif, #else, #endif, #line, #error, #warning and #pragma",
                    ),
            ),
        }
    }

    fn extra_tokens(&mut self, name: &str, extra: &[PpTok]) {
        let span = span_over(extra, Span::new(0, 0));
        self.error(
            Diagnostic::warning(span, format!("extra tokens at end of `#{name}` directive"))
                .with_label("ignored")
                .with_help("put a comment in `/* */` or `//`"),
        );
    }

    /// Replaces `defined X`, `defined(X)` and `__has_include(...)` by 1 or 0.
    fn resolve_defined(&mut self, toks: &[PpTok], at: Span) -> Option<Vec<PpTok>> {
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let has_include = t.is("__has_include");
            if t.is("defined") || has_include {
                let paren = toks.get(i + 1).is_some_and(|p| p.is("("));
                let value = if has_include {
                    let close = toks[i..].iter().position(|x| x.is(")")).map(|p| i + p);
                    let Some(close) = close.filter(|_| paren) else {
                        self.error(
                            Diagnostic::error(
                                span_of(t),
                                "`__has_include` needs a header name in parentheses",
                            )
                            .with_label("malformed"),
                        );
                        return None;
                    };
                    let name = header_name(&toks[i + 2..close]);
                    i = close + 1;
                    name.is_some_and(|(n, quoted)| self.find_header(&n, quoted, None).is_some())
                } else {
                    let name = toks.get(i + 1 + usize::from(paren));
                    let ok = name.is_some_and(PpTok::is_ident)
                        && (!paren || toks.get(i + 3).is_some_and(|c| c.is(")")));
                    if !ok {
                        self.error(
                            Diagnostic::error(span_of(t), "`defined` needs a macro name")
                                .with_label("no name here")
                                .with_help("write `defined(NAME)` or `defined NAME`"),
                        );
                        let _ = at;
                        return None;
                    }
                    let defined = name.is_some_and(|n| self.macros.contains_key(&n.text));
                    i += if paren { 4 } else { 2 };
                    defined
                };
                let mut v = PpTok::made(
                    Kind::Number,
                    if value { "1" } else { "0" },
                    t.pos,
                    t.expansion,
                );
                v.noexpand = true;
                out.push(v);
                continue;
            }
            out.push(t.clone());
            i += 1;
        }
        Some(out)
    }

    fn if_value(&mut self, rest: &[PpTok], at: Span) -> bool {
        let Some(toks) = self.resolve_defined(rest, at) else {
            return false;
        };
        let expanded = self.expand_tokens(toks);
        // `defined` that a macro produced (gcc accepts it, with a warning).
        let Some(expanded) = self.resolve_defined(&expanded, at) else {
            return false;
        };
        match cond::evaluate(&expanded, at) {
            Ok(v) => v,
            Err(d) => {
                self.error(d);
                false
            }
        }
    }

    /// `#line N ["file"]` (also gcc's `# N "file"` line markers).
    fn line(&mut self, file: usize, hash: &PpTok, rest: &[PpTok], at: Span) {
        let toks = if rest.first().is_some_and(|t| t.kind == Kind::Number) {
            rest.to_vec()
        } else {
            self.expand_tokens(rest.to_vec())
        };
        let number = toks
            .first()
            .filter(|t| t.kind == Kind::Number && t.text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.text.parse::<u32>().ok())
            .filter(|&n| n > 0);
        let Some(number) = number else {
            self.error(
                Diagnostic::error(at, "`#line` needs a positive line number")
                    .with_label("expected a number")
                    .with_help("write `#line 42` or `#line 42 \"file.c\"`"),
            );
            return;
        };
        let name = toks.get(1).and_then(|t| {
            (t.kind == Kind::Str)
                .then(|| t.text.trim_start_matches('L').trim_matches('"').to_string())
        });
        let f = &self.map.files[file];
        let (physical, _) = f.line_col(hash.pos - f.base);
        self.map
            .add_line_directive(file, physical as u32 + 1, number, name);
    }
}

#[cfg(test)]
mod tests;
