//! The C preprocessor: a file and its command-line definitions in, one
//! text for the lexer and a [`SourceMap`] out.
//!
//! Translation phases 1-4 of C99 on preprocessing tokens ([`lexer`]):
//! `#include` (`"..."` beside the including file, then `-I` directories;
//! `<...>` in the `-I` directories, then the headers parc ships,
//! [`headers`]), `#define`/`#undef` with object-like, function-like and
//! variadic macros ([`expand`]), `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/
//! `#endif` with `defined` ([`cond`]), `#line`, `#error`, `#warning`,
//! `#pragma` (`once`; `omp` lines go on to the lexer under `-fopenmp` and
//! are reported, once, without it; others are reported when ignoring them
//! would change the program), `__FILE__`,
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
mod expand;
pub(crate) mod headers;
mod lexer;

use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::source_map::{FILE_SPACE, SourceMap};
use expand::{Builtin, Ctx, Expander, Macro, Macros, Out};
use lexer::{Kind, PpTok};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Deepest `#include` nesting (gcc's limit).
pub const MAX_INCLUDE_DEPTH: usize = 200;

/// Most source text read for one translation unit.
pub const MAX_SOURCE_BYTES: usize = 512 << 20;

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

/// A header `#include` found.
struct Header {
    /// How diagnostics and `__FILE__` name it.
    display: String,
    /// Its identity (`#pragma once`, guards, cycles).
    key: String,
    /// `None` if it is not UTF-8 text.
    text: Option<String>,
    /// Where its own `#include "..."` look first.
    dir: Option<PathBuf>,
    /// One of parc's.
    builtin: bool,
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
             #define __SIZEOF_FLOAT__ 4\n#define __SIZEOF_DOUBLE__ 8\n",
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

    fn ctx_expand(&mut self, toks: Vec<PpTok>, base_is_text: bool) -> Vec<Out> {
        let mut cx = Ctx {
            macros: &self.macros,
            map: &mut self.map,
            diags: &mut self.diags,
            made: &mut self.made,
            counter: &mut self.counter,
            fatal: &mut self.fatal,
        };
        Expander::run(&mut cx, toks, base_is_text)
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

    /// Reads file `file` into the output (or, with `emit` false, only its
    /// directives: the predefined macros and the command line).
    fn process(&mut self, file: usize, dir: Option<&Path>, emit: bool) {
        let (text_len, base) = {
            let f = &self.map.files[file];
            (f.text.len(), f.base)
        };
        let toks = lexer::scan(&self.map.files[file].text, base);
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
            let run = toks[i..run_end].to_vec();
            i = run_end;
            if !emit {
                self.error(
                    Diagnostic::error(
                        span_over(&run, Span::new(0, 0)),
                        "text in a `-D` or `-U` option",
                    )
                    .with_help("a `-D` option defines one macro: `-DNAME` or `-DNAME=VALUE`"),
                );
                continue;
            }
            for o in self.ctx_expand(run, true) {
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

    fn define(&mut self, rest: &[PpTok], at: Span) {
        let Some(name) = rest.first().filter(|t| t.is_ident()) else {
            self.error(
                Diagnostic::error(span_over(rest, at), "`#define` needs a macro name")
                    .with_label("expected an identifier")
                    .with_help("write `#define NAME value`"),
            );
            return;
        };
        if name.is("defined") || name.is("__VA_ARGS__") {
            self.error(
                Diagnostic::error(
                    span_of(name),
                    format!("`{}` cannot be a macro name", name.text),
                )
                .with_label("reserved"),
            );
            return;
        }
        let mut i = 1;
        let mut params = None;
        let mut variadic = false;
        if rest.get(1).is_some_and(|t| t.is("(") && !t.space) {
            let mut ps: Vec<Rc<str>> = Vec::new();
            i = 2;
            let mut ok = false;
            if rest.get(i).is_some_and(|t| t.is(")")) {
                ok = true;
                i += 1;
            } else {
                while let Some(t) = rest.get(i) {
                    if t.is("...") {
                        variadic = true;
                        ps.push("__VA_ARGS__".into());
                        i += 1;
                    } else if t.is_ident() && !t.is("__VA_ARGS__") {
                        if ps.contains(&t.text) {
                            self.error(
                                Diagnostic::error(
                                    span_of(t),
                                    format!("duplicate macro parameter `{}`", t.text),
                                )
                                .with_label("already a parameter"),
                            );
                            return;
                        }
                        ps.push(t.text.clone());
                        i += 1;
                        // GNU named variadic parameter: `args...`.
                        if rest.get(i).is_some_and(|t| t.is("...")) {
                            variadic = true;
                            i += 1;
                        }
                    } else {
                        break;
                    }
                    match rest.get(i) {
                        Some(t) if t.is(",") && !variadic => i += 1,
                        Some(t) if t.is(")") => {
                            ok = true;
                            i += 1;
                            break;
                        }
                        _ => break,
                    }
                }
            }
            if !ok {
                let bad = rest.get(i).map_or(at, span_of);
                self.error(
                    Diagnostic::error(
                        bad,
                        format!("malformed parameter list of macro `{}`", name.text),
                    )
                    .with_label("expected a parameter name, `...` or `)`")
                    .with_help("write `#define NAME(a, b) ...` (no space before the `(`)"),
                );
                return;
            }
            params = Some(ps);
        }
        let mut body: Vec<PpTok> = rest[i..].to_vec();
        if let Some(first) = body.first_mut() {
            first.space = false;
        }
        for t in &mut body {
            t.bol = false;
        }
        if let Some(ps) = &params {
            for (k, t) in body.iter().enumerate() {
                if t.is("#") {
                    let next = body.get(k + 1);
                    let is_param = next.is_some_and(|n| {
                        n.is_ident() && (ps.contains(&n.text) || (variadic && n.is("__VA_ARGS__")))
                    });
                    if !is_param {
                        self.error(
                            Diagnostic::error(
                                span_of(t),
                                "`#` is not followed by a macro parameter",
                            )
                            .with_label("`#` makes a string of a parameter")
                            .with_help("write `#param`, or `##` to paste tokens"),
                        );
                        return;
                    }
                }
            }
        }
        if body.first().is_some_and(|t| t.is("##")) || body.last().is_some_and(|t| t.is("##")) {
            let t = if body.first().is_some_and(|t| t.is("##")) {
                &body[0]
            } else {
                &body[body.len() - 1]
            };
            self.error(
                Diagnostic::error(span_of(t), "`##` cannot be at either end of a macro")
                    .with_label("nothing to paste on this side"),
            );
            return;
        }
        if !variadic && body.iter().any(|t| t.is("__VA_ARGS__")) {
            let t = body.iter().find(|t| t.is("__VA_ARGS__")).cloned();
            if let Some(t) = t {
                self.error(
                    Diagnostic::error(span_of(&t), "`__VA_ARGS__` outside a variadic macro")
                        .with_label("only in the body of a macro declared with `...`"),
                );
                return;
            }
        }
        let m = Macro {
            params,
            variadic,
            body,
            def: name.pos,
            builtin: None,
        };
        if let Some(old) = self.macros.get(&name.text) {
            if old.builtin.is_some() {
                self.error(
                    Diagnostic::warning(
                        span_of(name),
                        format!("redefining builtin macro `{}`", name.text),
                    )
                    .with_label("redefined here"),
                );
            } else if !old.same_as(&m) {
                let prev = Span::new(old.def as usize, old.def as usize + name.text.len());
                self.error(
                    Diagnostic::warning(span_of(name), format!("`{}` redefined", name.text))
                        .with_label("this definition replaces the earlier one")
                        .with_secondary(prev, "the earlier definition")
                        .with_help("`#undef` it first if the change is meant"),
                );
            }
        }
        self.macros.insert(name.text.clone(), m);
    }

    /// Finds a header.
    fn find_header(&self, name: &str, quoted: bool, dir: Option<&Path>) -> Option<Header> {
        let mut candidates: Vec<PathBuf> = Vec::new();
        if quoted {
            candidates.push(dir.map_or_else(|| PathBuf::from(name), |d| d.join(name)));
        }
        candidates.extend(self.options.include_dirs.iter().map(|d| d.join(name)));
        for path in candidates {
            if path.is_file() {
                let text = std::fs::read(&path)
                    .ok()
                    .map(|b| String::from_utf8(b).map_err(|_| ()));
                let text = match text {
                    Some(Ok(t)) => Some(t),
                    _ => None,
                };
                let display = path.display().to_string();
                let display = display.strip_prefix("./").unwrap_or(&display).to_string();
                return Some(Header {
                    display,
                    key: key_of(&path),
                    text,
                    dir: path.parent().map(Path::to_path_buf),
                    builtin: false,
                });
            }
        }
        headers::find(name).map(|text| {
            let display = headers::display_name(name);
            Header {
                key: display.clone(),
                display,
                text: Some(text.to_string()),
                dir: None,
                builtin: true,
            }
        })
    }

    fn include(&mut self, file: usize, dir: Option<&Path>, rest: &[PpTok], at: Span, emit: bool) {
        let parsed = header_name(rest).or_else(|| {
            let expanded = self.expand_tokens(rest.to_vec());
            header_name(&expanded)
        });
        let Some((name, quoted)) = parsed else {
            self.error(
                Diagnostic::error(at, "`#include` expects \"FILE\" or <FILE>")
                    .with_label("no file name here")
                    .with_help("write `#include \"file.h\"` or `#include <stdio.h>`"),
            );
            return;
        };
        let Some(Header {
            display,
            key,
            text,
            dir: new_dir,
            builtin,
        }) = self.find_header(&name, quoted, dir)
        else {
            let mut d =
                Diagnostic::error(at, format!("cannot find `{name}`")).with_label("no such header");
            d = if !quoted && !name.contains('/') && headers::find(&name).is_none() {
                let shipped: Vec<&str> = headers::names().collect();
                d.with_help(format!(
                    "parc ships {} (it does not read the system's headers); for your own headers use `#include \"{name}\"` or `-I DIR`",
                    shipped.join(" ")
                ))
            } else {
                d.with_help(format!(
                    "looked beside the including file{}; add the directory with `-I DIR`",
                    if self.options.include_dirs.is_empty() {
                        ""
                    } else {
                        " and in the -I directories"
                    }
                ))
            };
            self.error(d);
            return;
        };
        if self.once.contains(&key) {
            return;
        }
        if let Some(g) = self.guards.get(&key)
            && self.macros.contains_key(g)
        {
            return;
        }
        let Some(text) = text else {
            self.error(
                Diagnostic::error(at, format!("cannot read `{display}` as UTF-8 text"))
                    .with_label("included here"),
            );
            return;
        };
        if self.include_stack.len() >= MAX_INCLUDE_DEPTH {
            let message = match self.include_stack.iter().rposition(|k| *k == key) {
                Some(p) => {
                    let cycle: Vec<String> = self.include_stack[p..]
                        .iter()
                        .chain(std::iter::once(&key))
                        .map(|k| short_name(k))
                        .collect();
                    format!("#include cycle: {}", cycle.join(" → "))
                }
                None => format!("#include nested more than {MAX_INCLUDE_DEPTH} deep"),
            };
            self.error(
                Diagnostic::error(at, message)
                    .with_label("included here")
                    .with_help("guard the header with `#ifndef NAME_H` / `#define NAME_H` / `#endif`, or `#pragma once`"),
            );
            self.fatal = true;
            return;
        }
        self.read += text.len();
        if self.read > MAX_SOURCE_BYTES
            || self.map.file_space_used() as usize + text.len() >= (u32::MAX - FILE_SPACE) as usize
        {
            self.error(
                Diagnostic::error(
                    at,
                    format!(
                        "more than {} MiB of source included",
                        MAX_SOURCE_BYTES >> 20
                    ),
                )
                .with_label("included here"),
            );
            self.fatal = true;
            return;
        }
        let _ = file;
        let new = self.map.add_file(&display, &text, Some(at.start), builtin);
        self.include_stack.push(key);
        if emit && !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.process(new, new_dir.as_deref(), emit);
        if emit && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.include_stack.pop();
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

    /// `#pragma` (and `_Pragma`): `once` is the preprocessor's; `omp`
    /// lines go on to the lexer under `-fopenmp` (macro-expanded, as
    /// OpenMP says) and are ignored with one warning without it, as gcc
    /// runs them; the rest are ignored, with a warning (once per kind)
    /// where that runs the program otherwise than a C compiler would
    /// (OpenACC's, unknown ones), an error for those that change data
    /// layout.
    fn pragma(&mut self, at: u32, toks: &[PpTok], emit: bool) {
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

/// `"name"` or `<name>` from directive tokens: the name and whether quoted.
fn header_name(toks: &[PpTok]) -> Option<(String, bool)> {
    let first = toks.first()?;
    if first.kind == Kind::Str && first.text.starts_with('"') {
        return Some((first.text.trim_matches('"').to_string(), true));
    }
    if first.is("<") {
        let close = toks.iter().position(|t| t.is(">"))?;
        let mut name = String::new();
        for (k, t) in toks[1..close].iter().enumerate() {
            if k > 0 && t.space {
                name.push(' ');
            }
            name.push_str(&t.text);
        }
        return (!name.is_empty()).then_some((name, false));
    }
    None
}

/// A file key shortened for a message: its last path component.
fn short_name(key: &str) -> String {
    Path::new(key)
        .file_name()
        .map_or_else(|| key.to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests;
