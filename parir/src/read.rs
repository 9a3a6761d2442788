//! Reads the text form that [`crate::print`] writes (its module doc is the
//! syntax) back into a [`Module`].
//!
//! The reader is a line-oriented lexer plus a recursive-descent parser in
//! two passes: the first reads `source`, `global`, `reloc`, and function
//! headers, so the second can resolve calls, launches and `global_addr`s to
//! functions and globals defined further down; the second reads bodies.
//!
//! Inside a body, value, block and sync-region numbers are the entity
//! indices: `v7` read back is `Value` 7. Arenas are filled up to the highest
//! number mentioned; numbers nothing defines (gaps left by passes) become
//! dead entries: blocks outside the layout, and values whose definition is
//! a dead `unreachable` instruction. Blocks and values may be used on lines
//! before the ones that define them. Instruction numbers are not part of the
//! text; instructions are numbered in the order they are read.
//!
//! The reader checks syntax and references (every used value and block is
//! defined exactly once in its function, every named function and global
//! exists, names are unique); it does not check types or Tapir's rules,
//! which is the verifier's job, so that invalid IR can be written down and
//! fed to the verifier. It never panics, whatever the input.
//!
//! Length (over 2,000 lines): one reader of one grammar, the one `print.rs`
//! writes: its lexer, cursor and one parse arm per instruction kind; the
//! last 640 lines are its unit tests.

use crate::entities::{Block, FuncId, GlobalId, Inst, SyncRegion, Value};
use crate::function::{
    Activity, AddrSpace, BlockData, FuncKind, Function, GlobalData, GradRequest, InstData, Linkage,
    Module, Signature, SrcLoc, ValueData, ValueDef,
};
use crate::inst::{BinaryOp, BlockCall, CastOp, FloatCC, InstKind, IntCC, UnaryOp};
use crate::intrinsic::Intrinsic;
use crate::print::implied_type;
use crate::types::Type;
use crate::verify::VerifyError;
use cranelift_entity::EntityRef;
use cranelift_entity::packed_option::ReservedValue;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

/// A syntax or reference error, at a 1-based line and column (columns count
/// characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ReadError {}

type Result<T> = std::result::Result<T, ReadError>;

/// Entity numbers at or above this are rejected: arenas are filled up to
/// the highest number used, and a typo like `v99999999999` must not make
/// the reader allocate gigabytes.
const MAX_ENTITY: u32 = 1 << 20;

/// Where the text defined each function, block, instruction and global
/// (1-based line and column), for messages about a module read from it:
/// [`TextPositions::of`] places a verifier error.
#[derive(Clone, Debug, Default)]
pub struct TextPositions {
    funcs: HashMap<FuncId, (u32, u32)>,
    blocks: HashMap<(FuncId, Block), (u32, u32)>,
    insts: HashMap<(FuncId, Inst), (u32, u32)>,
    globals: HashMap<GlobalId, (u32, u32)>,
}

impl TextPositions {
    /// The line and column of what `error` is about: its instruction, else
    /// its block's label, else its function's or its global's line.
    pub fn of(&self, module: &Module, error: &VerifyError) -> Option<(u32, u32)> {
        if let Some(g) = &error.global {
            let id = module.globals.iter().find(|(_, d)| &d.name == g)?.0;
            return self.globals.get(&id).copied();
        }
        let f = module.func_by_name(error.func.as_deref()?)?;
        let inst = error.inst.and_then(|i| self.insts.get(&(f, i)));
        let block = error.block.and_then(|b| self.blocks.get(&(f, b)));
        inst.or(block).or(self.funcs.get(&f)).copied()
    }
}

/// Reads a whole module.
pub fn read_module(text: &str) -> Result<Module> {
    read_module_with_positions(text).map(|(module, _)| module)
}

/// Reads a whole module, and where the text put each part of it.
pub fn read_module_with_positions(text: &str) -> Result<(Module, TextPositions)> {
    let lines = lex(text)?;
    let mut positions = TextPositions::default();
    let mut module = Module::new();
    let mut func_names: HashMap<String, FuncId> = HashMap::new();
    let mut global_names: HashMap<String, GlobalId> = HashMap::new();
    let mut bodies: Vec<(FuncId, u32, Range<usize>)> = Vec::new();
    // (global, reloc index, target name, position)
    let mut reloc_targets: Vec<(GlobalId, usize, String, Pos)> = Vec::new();
    let mut func_reloc_targets: Vec<(GlobalId, usize, String, Pos)> = Vec::new();
    // Relocs attach to the global on the line above (or above its relocs).
    let mut last_global: Option<GlobalId> = None;
    let mut gradients: Vec<PendingGradient> = Vec::new();

    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let mut cur = Cur::new(line);
        let (kw, pos) = cur.word("`global`, `func`, `declare`, `gradient` or `source`")?;
        match kw.as_str() {
            "source" => {
                if module.source_name.is_some() {
                    return Err(pos.err("`source` given twice"));
                }
                let (bytes, spos) = cur.string("a quoted file name")?;
                let name = String::from_utf8(bytes)
                    .map_err(|_| spos.err("the source name is not valid UTF-8"))?;
                cur.expect_end()?;
                module.source_name = Some(name);
                last_global = None;
            }
            "file" => {
                let kpos = cur.here();
                let k = cur.u32("a file number")?;
                if k as usize != module.files.len() + 1 {
                    return Err(kpos.err(format!(
                        "files are numbered from 1 in order: expected {}",
                        module.files.len() + 1
                    )));
                }
                let (bytes, spos) = cur.string("a quoted file name")?;
                let name = String::from_utf8(bytes)
                    .map_err(|_| spos.err("the file name is not valid UTF-8"))?;
                cur.expect_end()?;
                module.files.push(name);
                last_global = None;
            }
            "global" => {
                let (name, npos) = cur.name("a global name")?;
                if global_names.contains_key(&name) {
                    return Err(npos.err(format!("global @{name} is defined twice")));
                }
                let data = parse_global(&mut cur, name.clone())?;
                let g = module.globals.push(data);
                positions.globals.insert(g, (pos.line, pos.col));
                global_names.insert(name, g);
                last_global = Some(g);
            }
            "reloc" => {
                let Some(g) = last_global else {
                    return Err(pos.err("`reloc` must follow its `global` line"));
                };
                let (offset, _) = cur.u64("a byte offset")?;
                cur.expect_punct('=')?;
                if cur.eat_word("func_addr") {
                    let (target, tpos) = cur.name("the function the pointer points to")?;
                    cur.expect_end()?;
                    let relocs = &mut module.globals[g].func_relocs;
                    // Functions may come later; resolved once all are known.
                    func_reloc_targets.push((g, relocs.len(), target, tpos));
                    relocs.push((offset, FuncId::reserved_value()));
                    i += 1;
                    continue;
                }
                let (target, tpos) = cur.name("the global the pointer points to")?;
                let addend = parse_addend(&mut cur)?;
                cur.expect_end()?;
                let relocs = &mut module.globals[g].relocs;
                // Resolved once every global is known; a placeholder until then.
                reloc_targets.push((g, relocs.len(), target, tpos));
                relocs.push((offset, GlobalId::reserved_value(), addend));
            }
            "func" | "declare" => {
                last_global = None;
                let (func, npos) = parse_header(&mut cur, kw == "func")?;
                if func_names.contains_key(&func.name) {
                    return Err(npos.err(format!("function @{} is defined twice", func.name)));
                }
                let name = func.name.clone();
                if kw == "func" {
                    cur.expect_punct('{')?;
                    cur.expect_end()?;
                    let start = i + 1;
                    let mut j = start;
                    loop {
                        let Some(l) = lines.get(j) else {
                            return Err(Pos::at(line.no, 1)
                                .err(format!("function @{name} has no closing `}}`")));
                        };
                        match l.toks.first().map(|t| &t.tok) {
                            Some(Tok::Punct('}')) => break,
                            Some(Tok::Word(w))
                                if matches!(
                                    w.as_str(),
                                    "func" | "declare" | "global" | "gradient"
                                ) =>
                            {
                                return Err(Pos::at(l.no, 1).err(format!(
                                    "`{w}` inside the body of @{name}: missing `}}`?"
                                )));
                            }
                            _ => j += 1,
                        }
                    }
                    Cur::new(&lines[j]).skip_one().expect_end()?;
                    let fid = module.funcs.next_key();
                    bodies.push((fid, line.no, start..j));
                    i = j;
                } else {
                    cur.expect_end()?;
                }
                let fid = module.funcs.push(func);
                positions.funcs.insert(fid, (pos.line, pos.col));
                func_names.insert(name, fid);
            }
            "gradient" => {
                last_global = None;
                gradients.push(parse_gradient(&mut cur)?);
            }
            other => {
                return Err(pos.err(format!(
                    "expected `global`, `func`, `declare`, `gradient` or `source`, found `{other}`"
                )));
            }
        }
        i += 1;
    }

    // Gradient requests name functions that may come after them.
    for g in gradients {
        let resolve = |(name, pos): &(String, Pos)| {
            func_names
                .get(name)
                .copied()
                .ok_or_else(|| pos.err(format!("undefined function @{name}")))
        };
        module.grad_requests.push(GradRequest {
            grad: resolve(&g.grad)?,
            primal: resolve(&g.primal)?,
            activities: g.activities,
            linkage: g.linkage,
            loc: g.loc,
        });
    }

    for (g, idx, target, pos) in reloc_targets {
        let Some(&t) = global_names.get(&target) else {
            return Err(pos.err(format!("undefined global @{target}")));
        };
        module.globals[g].relocs[idx].1 = t;
    }
    for (g, idx, target, pos) in func_reloc_targets {
        let Some(&f) = func_names.get(&target) else {
            return Err(pos.err(format!("undefined function @{target}")));
        };
        module.globals[g].func_relocs[idx].1 = f;
    }

    for (fid, header_line, range) in bodies {
        let header = &module.funcs[fid];
        let mut func = Function::new(header.name.clone(), header.sig.clone());
        func.kind = header.kind;
        func.linkage = header.linkage;
        func.convergent = header.convergent;
        func.noalias = header.noalias.clone();
        func.param_names = header.param_names.clone();
        func.variadic = header.variadic;
        let mut body = Body {
            module: &module,
            funcs: &func_names,
            globals: &global_names,
            f: func,
            known: Vec::new(),
            val_use: Vec::new(),
            blk_defined: Vec::new(),
            blk_use: Vec::new(),
            hole: None,
            cur: None,
        };
        for line in &lines[range] {
            let at = (line.no, line.toks.first().map_or(1, |t| t.col));
            match body.line(line)? {
                Defined::Block(b) => positions.blocks.insert((fid, b), at),
                Defined::Inst(i) => positions.insts.insert((fid, i), at),
            };
        }
        let func = body.finish(header_line)?;
        module.funcs[fid] = func;
    }
    Ok((module, positions))
}

/// What a line of a body defines.
enum Defined {
    Block(Block),
    Inst(Inst),
}

// ---------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// Opcodes, keywords, types, numbers, entity names (`v3`, `block2`).
    Word(String),
    /// `@name` or `@"name"`.
    Name(String),
    /// `@line:col` or `@line:col:file`.
    Loc(u32, u32, u32),
    Str(Vec<u8>),
    Punct(char),
    Arrow,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Name(n) => format!("`@{n}`"),
            Tok::Loc(l, c, 0) => format!("`@{l}:{c}`"),
            Tok::Loc(l, c, f) => format!("`@{l}:{c}:{f}`"),
            Tok::Str(_) => "a string".into(),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Arrow => "`->`".into(),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    col: u32,
}

/// The tokens of one non-empty line (comments dropped).
#[derive(Clone, Debug)]
struct Line {
    no: u32,
    toks: Vec<Token>,
    /// The column just past the last character, for "end of line" errors.
    end: u32,
}

#[derive(Clone, Copy, Debug)]
struct Pos {
    line: u32,
    col: u32,
}

impl Pos {
    fn at(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    fn err(self, message: impl Into<String>) -> ReadError {
        ReadError {
            line: self.line,
            col: self.col,
            message: message.into(),
        }
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_.$+-".contains(c)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_.$".contains(c)
}

fn lex(text: &str) -> Result<Vec<Line>> {
    let mut lines = Vec::new();
    for (idx, src) in text.lines().enumerate() {
        let no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        let chars: Vec<char> = src.chars().collect();
        let col_of = |i: usize| u32::try_from(i + 1).unwrap_or(u32::MAX);
        let mut toks = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let col = col_of(i);
            let pos = Pos::at(no, col);
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            if c == ';' {
                break;
            }
            let tok = match c {
                ',' | '(' | ')' | ':' | '=' | '{' | '}' => {
                    i += 1;
                    Tok::Punct(c)
                }
                '-' if chars.get(i + 1) == Some(&'>') => {
                    i += 2;
                    Tok::Arrow
                }
                '"' => {
                    let (bytes, next) = lex_string(&chars, i, no)?;
                    i = next;
                    Tok::Str(bytes)
                }
                '@' => match chars.get(i + 1) {
                    Some(d) if d.is_ascii_digit() => {
                        let mut j = i + 1;
                        let line_start = j;
                        while j < chars.len() && chars[j].is_ascii_digit() {
                            j += 1;
                        }
                        let l: String = chars[line_start..j].iter().collect();
                        if chars.get(j) != Some(&':') {
                            return Err(pos.err("a source position is written `@line:col`"));
                        }
                        j += 1;
                        let col_start = j;
                        while j < chars.len() && chars[j].is_ascii_digit() {
                            j += 1;
                        }
                        let cstr: String = chars[col_start..j].iter().collect();
                        let (Ok(l), Ok(cnum)) = (l.parse::<u32>(), cstr.parse::<u32>()) else {
                            return Err(pos.err("a source position is written `@line:col`"));
                        };
                        // `@line:col:file` outside the module's own file.
                        let mut file = 0;
                        if chars.get(j) == Some(&':')
                            && chars.get(j + 1).is_some_and(char::is_ascii_digit)
                        {
                            let file_start = j + 1;
                            j += 1;
                            while j < chars.len() && chars[j].is_ascii_digit() {
                                j += 1;
                            }
                            let fstr: String = chars[file_start..j].iter().collect();
                            file = fstr.parse::<u32>().map_err(|_| {
                                pos.err("a source position is written `@line:col[:file]`")
                            })?;
                        }
                        i = j;
                        Tok::Loc(l, cnum, file)
                    }
                    Some('"') => {
                        let (bytes, next) = lex_string(&chars, i + 1, no)?;
                        i = next;
                        let name = String::from_utf8(bytes)
                            .map_err(|_| pos.err("a name must be valid UTF-8"))?;
                        Tok::Name(name)
                    }
                    Some(&d) if is_name_char(d) => {
                        let mut j = i + 1;
                        while j < chars.len() && is_name_char(chars[j]) {
                            j += 1;
                        }
                        let name: String = chars[i + 1..j].iter().collect();
                        i = j;
                        Tok::Name(name)
                    }
                    _ => return Err(pos.err("expected a name or a source position after `@`")),
                },
                c if is_word_char(c) => {
                    let mut j = i;
                    while j < chars.len()
                        && is_word_char(chars[j])
                        && !(chars[j] == '-' && chars.get(j + 1) == Some(&'>'))
                    {
                        j += 1;
                    }
                    let w: String = chars[i..j].iter().collect();
                    i = j;
                    Tok::Word(w)
                }
                other => return Err(pos.err(format!("unexpected character `{other}`"))),
            };
            toks.push(Token { tok, col });
        }
        if !toks.is_empty() {
            lines.push(Line {
                no,
                toks,
                end: col_of(chars.len()),
            });
        }
    }
    Ok(lines)
}

/// A string starting at the `"` at `start`; returns its bytes and the index
/// after the closing quote. Escapes: `\HH`, `\\`, `\"`, `\n`, `\t`.
fn lex_string(chars: &[char], start: usize, line: u32) -> Result<(Vec<u8>, usize)> {
    let mut bytes = Vec::new();
    let mut i = start + 1;
    let col = |i: usize| u32::try_from(i + 1).unwrap_or(u32::MAX);
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(Pos::at(line, col(start)).err("unterminated string"));
        };
        match c {
            '"' => return Ok((bytes, i + 1)),
            '\\' => {
                let esc = chars.get(i + 1).copied();
                match esc {
                    Some('\\') | Some('"') => {
                        bytes.push(esc.map_or(0, |e| e as u8));
                        i += 2;
                    }
                    Some('n') => {
                        bytes.push(b'\n');
                        i += 2;
                    }
                    Some('t') => {
                        bytes.push(b'\t');
                        i += 2;
                    }
                    _ => {
                        let hi = chars.get(i + 1).and_then(|c| c.to_digit(16));
                        let lo = chars.get(i + 2).and_then(|c| c.to_digit(16));
                        let (Some(hi), Some(lo)) = (hi, lo) else {
                            return Err(Pos::at(line, col(i))
                                .err("bad escape: write `\\HH` with two hex digits"));
                        };
                        bytes.push((hi * 16 + lo) as u8);
                        i += 3;
                    }
                }
            }
            c => {
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                i += 1;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// A cursor over one line's tokens

struct Cur<'a> {
    line: &'a Line,
    pos: usize,
}

impl<'a> Cur<'a> {
    fn new(line: &'a Line) -> Cur<'a> {
        Cur { line, pos: 0 }
    }

    fn skip_one(mut self) -> Cur<'a> {
        self.pos += 1;
        self
    }

    fn peek(&self) -> Option<&'a Tok> {
        self.line.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek2(&self) -> Option<&'a Tok> {
        self.line.toks.get(self.pos + 1).map(|t| &t.tok)
    }

    fn here(&self) -> Pos {
        let col = self
            .line
            .toks
            .get(self.pos)
            .map_or(self.line.end, |t| t.col);
        Pos::at(self.line.no, col)
    }

    fn found(&self) -> String {
        self.peek()
            .map_or_else(|| "the end of the line".to_string(), Tok::describe)
    }

    fn expected(&self, what: &str) -> ReadError {
        self.here()
            .err(format!("expected {what}, found {}", self.found()))
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn expect_punct(&mut self, c: char) -> Result<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{c}`")))
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn expect_word(&mut self, w: &str) -> Result<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{w}`")))
        }
    }

    fn word(&mut self, what: &str) -> Result<(String, Pos)> {
        let pos = self.here();
        match self.peek() {
            Some(Tok::Word(w)) => {
                self.pos += 1;
                Ok((w.clone(), pos))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn name(&mut self, what: &str) -> Result<(String, Pos)> {
        let pos = self.here();
        match self.peek() {
            Some(Tok::Name(n)) => {
                self.pos += 1;
                Ok((n.clone(), pos))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn string(&mut self, what: &str) -> Result<(Vec<u8>, Pos)> {
        let pos = self.here();
        match self.peek() {
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok((s.clone(), pos))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn ty(&mut self) -> Result<Type> {
        let (w, pos) = self.word("a type")?;
        Type::from_name(&w).ok_or_else(|| pos.err(format!("unknown type `{w}`")))
    }

    fn u64(&mut self, what: &str) -> Result<(u64, Pos)> {
        let (w, pos) = self.word(what)?;
        parse_u64(&w)
            .map(|n| (n, pos))
            .ok_or_else(|| pos.err(format!("expected {what}, found `{w}`")))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        let (n, pos) = self.u64(what)?;
        u32::try_from(n).map_err(|_| pos.err(format!("{n} is too large for {what}")))
    }

    /// The optional trailing `@line:col`.
    fn loc(&mut self) -> Option<SrcLoc> {
        match self.peek() {
            Some(&Tok::Loc(l, c, f)) => {
                self.pos += 1;
                Some(SrcLoc::new(l, c).in_file(f))
            }
            _ => None,
        }
    }

    fn expect_end(&self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(self.here().err(format!(
                "unexpected {} at the end of the line",
                t.describe()
            ))),
        }
    }
}

fn parse_u64(w: &str) -> Option<u64> {
    if let Some(hex) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
        w.parse().ok()
    } else {
        None
    }
}

/// A signed 64-bit integer: decimal in `i64`'s range, or `0x` hex giving
/// the 64 bits directly; either may have a sign.
fn parse_i64(w: &str) -> Option<i64> {
    let (neg, digits) = match w.as_bytes().first() {
        Some(b'-') => (true, &w[1..]),
        Some(b'+') => (false, &w[1..]),
        _ => (false, w),
    };
    let hex = digits.starts_with("0x") || digits.starts_with("0X");
    let magnitude = parse_u64(digits)?;
    if hex {
        let v = magnitude as i64;
        return Some(if neg { v.wrapping_neg() } else { v });
    }
    if neg {
        if magnitude == 1 << 63 {
            Some(i64::MIN)
        } else {
            i64::try_from(magnitude).ok().map(|v| -v)
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// A float as [`crate::print::format_float`] writes it, or any decimal Rust
/// reads; `0x` gives the raw bits.
fn parse_f64(w: &str) -> Option<f64> {
    if let Some(hex) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).ok().map(f64::from_bits);
    }
    w.parse::<f64>().ok()
}

/// The number in an entity name: `v12` with prefix `v` is 12.
fn entity_number(w: &str, prefix: &str) -> Option<u32> {
    let digits = w.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

// ---------------------------------------------------------------------------
// Module-level items

fn parse_global(cur: &mut Cur, name: String) -> Result<GlobalData> {
    let mut data = GlobalData {
        name,
        ..GlobalData::default()
    };
    let mut seen_const = false;
    let mut seen_shared = false;
    loop {
        if cur.is_word("const") && !seen_const {
            seen_const = true;
            data.is_const = true;
        } else if cur.is_word("shared") && !seen_shared {
            seen_shared = true;
            data.space = AddrSpace::Shared;
        } else if cur.is_word("local") && !data.is_local {
            data.is_local = true;
        } else if cur.is_word("import") && !data.is_import {
            data.is_import = true;
        } else {
            break;
        }
        cur.pos += 1;
    }
    cur.expect_word("size")?;
    data.size = cur.u64("a size in bytes")?.0;
    cur.expect_word("align")?;
    data.align = cur.u32("an alignment")?;
    if data.is_import {
        cur.expect_end()?;
        return Ok(data);
    }
    cur.expect_punct('=')?;
    if !cur.eat_word("zeroinit") {
        data.init = cur
            .string("`zeroinit` or a quoted string of initial bytes")?
            .0;
    }
    cur.expect_end()?;
    Ok(data)
}

/// `+ N`, `- N`, or a signed word (`+0`, `-8`).
/// A `gradient` line, its function names not yet resolved.
struct PendingGradient {
    grad: (String, Pos),
    primal: (String, Pos),
    activities: Vec<Activity>,
    linkage: Linkage,
    loc: SrcLoc,
}

/// The rest of `gradient @GRAD = @PRIMAL(ACTIVITY, ...) LINKAGE [@l:c]`.
fn parse_gradient(cur: &mut Cur) -> Result<PendingGradient> {
    let grad = cur.name("the gradient function's name")?;
    cur.expect_punct('=')?;
    let primal = cur.name("the differentiated function's name")?;
    cur.expect_punct('(')?;
    let mut activities = Vec::new();
    if !cur.eat_punct(')') {
        loop {
            let (w, pos) = cur.word("an activity (`const`, `dup`, `dupnoneed`, `active`)")?;
            activities.push(match w.as_str() {
                "const" => Activity::Const,
                "dup" => Activity::Dup,
                "dupnoneed" => Activity::DupNoNeed,
                "active" => Activity::Active,
                _ => {
                    return Err(pos.err(format!(
                        "unknown activity `{w}` (const, dup, dupnoneed, active)"
                    )));
                }
            });
            if cur.eat_punct(')') {
                break;
            }
            cur.expect_punct(',')?;
        }
    }
    let (w, pos) = cur.word("the gradient's linkage (`export` or `local`)")?;
    let linkage = match w.as_str() {
        "export" => Linkage::Export,
        "local" => Linkage::Local,
        "import" => Linkage::Import,
        _ => return Err(pos.err(format!("unknown linkage `{w}`"))),
    };
    let loc = cur.loc().unwrap_or_default();
    cur.expect_end()?;
    Ok(PendingGradient {
        grad,
        primal,
        activities,
        linkage,
        loc,
    })
}

fn parse_addend(cur: &mut Cur) -> Result<i64> {
    let (w, pos) = cur.word("`+ addend`")?;
    let text = if w == "+" || w == "-" {
        let (n, npos) = cur.word("an addend")?;
        if n.starts_with(['+', '-']) {
            return Err(npos.err(format!("expected an unsigned addend, found `{n}`")));
        }
        format!("{w}{n}")
    } else if w.starts_with(['+', '-']) {
        w
    } else {
        return Err(pos.err(format!("expected `+ addend`, found `{w}`")));
    };
    parse_i64(&text).ok_or_else(|| pos.err(format!("bad addend `{text}`")))
}

/// `[linkage] [kind] [convergent] @name(types) [-> type]` after
/// `func`/`declare`.
fn parse_header(cur: &mut Cur, has_body: bool) -> Result<(Function, Pos)> {
    let mut linkage = None;
    let mut kind = None;
    let mut convergent = false;
    let mut variadic = false;
    loop {
        let pos = cur.here();
        let Some(Tok::Word(w)) = cur.peek() else {
            break;
        };
        if w == "convergent" {
            if convergent {
                return Err(pos.err("`convergent` twice".to_string()));
            }
            convergent = true;
            cur.pos += 1;
            continue;
        }
        let (l, k) = match w.as_str() {
            "export" => (Some(Linkage::Export), None),
            "local" => (Some(Linkage::Local), None),
            "import" => (Some(Linkage::Import), None),
            "host" => (None, Some(FuncKind::Host)),
            "kernel" => (None, Some(FuncKind::Kernel)),
            "device" => (None, Some(FuncKind::Device)),
            "variadic" if !variadic => {
                variadic = true;
                cur.pos += 1;
                continue;
            }
            other => return Err(pos.err(format!("expected a function name, found `{other}`"))),
        };
        if (l.is_some() && linkage.is_some()) || (k.is_some() && kind.is_some()) {
            return Err(pos.err(format!("`{w}` conflicts with an earlier keyword")));
        }
        linkage = linkage.or(l);
        kind = kind.or(k);
        cur.pos += 1;
    }
    let (name, npos) = cur.name("a function name (`@name`)")?;
    cur.expect_punct('(')?;
    let mut params = Vec::new();
    let mut noalias = Vec::new();
    let mut names = Vec::new();
    if !cur.eat_punct(')') {
        loop {
            params.push(cur.ty()?);
            if let Some(Tok::Word(w)) = cur.peek()
                && w == "noalias"
            {
                noalias.push((params.len() - 1) as u32);
                cur.pos += 1;
            }
            names.push(match cur.peek() {
                Some(Tok::Str(bytes)) => {
                    let name = String::from_utf8_lossy(bytes).into_owned();
                    cur.pos += 1;
                    name
                }
                _ => String::new(),
            });
            if cur.eat_punct(')') {
                break;
            }
            cur.expect_punct(',')?;
        }
    }
    let ret = if cur.peek() == Some(&Tok::Arrow) {
        cur.pos += 1;
        Some(cur.ty()?)
    } else {
        None
    };
    let mut func = Function::new(name, Signature { params, ret });
    func.noalias = noalias;
    if names.iter().any(|n| !n.is_empty()) {
        func.param_names = names;
    }
    func.linkage = linkage.unwrap_or(if has_body {
        Linkage::Export
    } else {
        Linkage::Import
    });
    func.kind = kind.unwrap_or_default();
    func.convergent = convergent;
    func.variadic = variadic;
    Ok((func, npos))
}

// ---------------------------------------------------------------------------
// Function bodies

/// Opcodes as the text names them.
#[derive(Clone, Copy, Debug)]
enum Op {
    Iconst,
    Fconst,
    GlobalAddr,
    FuncAddr,
    Fneg,
    Binary(BinaryOp),
    Icmp,
    Fcmp,
    Cast(CastOp),
    Select,
    Splat,
    ExtractLane,
    InsertLane,
    Reduce(BinaryOp),
    Alloca,
    Load,
    Store,
    PtrAdd,
    Call,
    CallIndirect,
    Launch,
    Intrinsic(Intrinsic),
    Jump,
    Brif,
    Return,
    Detach,
    Reattach,
    Sync,
    Unreachable,
}

fn op_from_name(name: &str) -> Option<Op> {
    Some(match name {
        "iconst" => Op::Iconst,
        "fconst" => Op::Fconst,
        "global_addr" => Op::GlobalAddr,
        "func_addr" => Op::FuncAddr,
        "fneg" => Op::Fneg,
        "icmp" => Op::Icmp,
        "fcmp" => Op::Fcmp,
        "select" => Op::Select,
        "splat" => Op::Splat,
        "extract_lane" => Op::ExtractLane,
        "insert_lane" => Op::InsertLane,
        "alloca" => Op::Alloca,
        "load" => Op::Load,
        "store" => Op::Store,
        "ptradd" => Op::PtrAdd,
        "call" => Op::Call,
        "call_indirect" => Op::CallIndirect,
        "launch" => Op::Launch,
        "jump" => Op::Jump,
        "brif" => Op::Brif,
        "return" => Op::Return,
        "detach" => Op::Detach,
        "reattach" => Op::Reattach,
        "sync" => Op::Sync,
        "unreachable" => Op::Unreachable,
        _ => {
            if let Some(op) = BinaryOp::ALL.into_iter().find(|op| op.name() == name) {
                Op::Binary(op)
            } else if let Some(op) = name.strip_prefix("reduce_").and_then(|name| {
                BinaryOp::ALL
                    .into_iter()
                    .find(|op| op.name() == name && op.is_reduction())
            }) {
                Op::Reduce(op)
            } else if let Some(op) = CastOp::ALL.into_iter().find(|op| op.name() == name) {
                Op::Cast(op)
            } else {
                Op::Intrinsic(Intrinsic::from_name(name)?)
            }
        }
    })
}

/// Splits `load.f64` into the opcode and its type suffix. Intrinsic names
/// contain dots themselves (`thread_idx.x`), so the whole word is tried
/// first.
fn split_opcode(word: &str, pos: Pos) -> Result<(Op, Option<Type>)> {
    if let Some(op) = op_from_name(word) {
        return Ok((op, None));
    }
    if let Some((base, suffix)) = word.rsplit_once('.')
        && let Some(op) = op_from_name(base)
    {
        return match Type::from_name(suffix) {
            Some(t) => Ok((op, Some(t))),
            None => Err(pos.err(format!("unknown type `{suffix}` in `{word}`"))),
        };
    }
    Err(pos.err(format!("unknown opcode `{word}`")))
}

struct Body<'m> {
    module: &'m Module,
    funcs: &'m HashMap<String, FuncId>,
    globals: &'m HashMap<String, GlobalId>,
    f: Function,
    /// The type of each value once its definition has been read.
    known: Vec<Option<Type>>,
    /// Where each value was first used, for "undefined value" errors.
    val_use: Vec<Option<Pos>>,
    blk_defined: Vec<bool>,
    blk_use: Vec<Option<Pos>>,
    /// The dead instruction that values nobody defines claim as their
    /// definition (so every `ValueData` names a real instruction).
    hole: Option<Inst>,
    cur: Option<Block>,
}

impl Body<'_> {
    fn check_number(n: u32, pos: Pos) -> Result<usize> {
        if n >= MAX_ENTITY {
            Err(pos.err(format!(
                "entity number {n} is too large (the reader accepts numbers below {MAX_ENTITY})"
            )))
        } else {
            Ok(n as usize)
        }
    }

    fn value_entity(&mut self, n: u32, pos: Pos) -> Result<Value> {
        let idx = Self::check_number(n, pos)?;
        if self.f.values.len() <= idx {
            let hole = *self.hole.get_or_insert_with(|| {
                self.f.insts.push(InstData {
                    kind: InstKind::Unreachable,
                    result: None,
                })
            });
            while self.f.values.len() <= idx {
                self.f.values.push(ValueData {
                    ty: Type::I64,
                    def: ValueDef::Result(hole),
                });
            }
            self.known.resize(idx + 1, None);
            self.val_use.resize(idx + 1, None);
        }
        Ok(Value::new(idx))
    }

    fn block_entity(&mut self, n: u32, pos: Pos) -> Result<Block> {
        let idx = Self::check_number(n, pos)?;
        while self.f.blocks.len() <= idx {
            self.f.blocks.push(BlockData::default());
        }
        if self.blk_defined.len() <= idx {
            self.blk_defined.resize(idx + 1, false);
            self.blk_use.resize(idx + 1, None);
        }
        Ok(Block::new(idx))
    }

    fn region(&mut self, cur: &mut Cur) -> Result<SyncRegion> {
        let (w, pos) = cur.word("a sync region (`srN`)")?;
        let n = entity_number(&w, "sr")
            .ok_or_else(|| pos.err(format!("expected a sync region (`srN`), found `{w}`")))?;
        let idx = Self::check_number(n, pos)?;
        while self.f.sync_regions.len() <= idx {
            self.f.sync_regions.push(());
        }
        Ok(SyncRegion::new(idx))
    }

    /// A value operand; records its first use.
    fn value(&mut self, cur: &mut Cur) -> Result<Value> {
        let (w, pos) = cur.word("a value (`vN`)")?;
        let n = entity_number(&w, "v")
            .ok_or_else(|| pos.err(format!("expected a value (`vN`), found `{w}`")))?;
        let v = self.value_entity(n, pos)?;
        self.val_use[v.index()].get_or_insert(pos);
        Ok(v)
    }

    fn block_ref(&mut self, cur: &mut Cur) -> Result<Block> {
        let (w, pos) = cur.word("a block (`blockN`)")?;
        let n = entity_number(&w, "block")
            .ok_or_else(|| pos.err(format!("expected a block (`blockN`), found `{w}`")))?;
        let b = self.block_entity(n, pos)?;
        self.blk_use[b.index()].get_or_insert(pos);
        Ok(b)
    }

    /// `blockN` or `blockN(v1, v2)`.
    fn block_call(&mut self, cur: &mut Cur) -> Result<BlockCall> {
        let block = self.block_ref(cur)?;
        let args = if cur.is_punct('(') {
            self.paren_values(cur)?
        } else {
            Vec::new()
        };
        Ok(BlockCall { block, args })
    }

    /// `(v1, v2, ...)`, possibly empty.
    fn paren_values(&mut self, cur: &mut Cur) -> Result<Vec<Value>> {
        cur.expect_punct('(')?;
        let mut out = Vec::new();
        if cur.eat_punct(')') {
            return Ok(out);
        }
        loop {
            out.push(self.value(cur)?);
            if cur.eat_punct(')') {
                return Ok(out);
            }
            cur.expect_punct(',')?;
        }
    }

    fn three_values(&mut self, cur: &mut Cur, what: &str) -> Result<[Value; 3]> {
        let pos = cur.here();
        let vals = self.paren_values(cur)?;
        <[Value; 3]>::try_from(vals).map_err(|v| {
            pos.err(format!(
                "`{what}` takes three values (x, y, z), found {}",
                v.len()
            ))
        })
    }

    fn func_ref(&mut self, cur: &mut Cur) -> Result<FuncId> {
        let (name, pos) = cur.name("a function name (`@name`)")?;
        self.funcs
            .get(&name)
            .copied()
            .ok_or_else(|| pos.err(format!("undefined function @{name}")))
    }

    fn line(&mut self, line: &Line) -> Result<Defined> {
        let mut cur = Cur::new(line);
        if let Some(Tok::Word(w)) = cur.peek()
            && let Some(n) = entity_number(w, "block")
        {
            return self.block_header(&mut cur, n).map(Defined::Block);
        }
        self.inst(&mut cur).map(Defined::Inst)
    }

    /// `blockN:` or `blockN(v1: T, v2: T):`.
    fn block_header(&mut self, cur: &mut Cur, n: u32) -> Result<Block> {
        let pos = cur.here();
        cur.pos += 1;
        let b = self.block_entity(n, pos)?;
        if self.blk_defined[b.index()] {
            return Err(pos.err(format!("{b} is defined twice")));
        }
        self.blk_defined[b.index()] = true;
        self.f.layout.push(b);
        self.cur = Some(b);
        if cur.eat_punct('(') && !cur.eat_punct(')') {
            loop {
                let (w, vpos) = cur.word("a parameter (`vN: type`)")?;
                let vn = entity_number(&w, "v").ok_or_else(|| {
                    vpos.err(format!("expected a parameter (`vN: type`), found `{w}`"))
                })?;
                cur.expect_punct(':')?;
                let ty = cur.ty()?;
                let v = self.value_entity(vn, vpos)?;
                let n = self.f.blocks[b].params.len() as u32;
                self.define(v, ty, ValueDef::Param(b, n), vpos)?;
                self.f.blocks[b].params.push(v);
                if cur.eat_punct(')') {
                    break;
                }
                cur.expect_punct(',')?;
            }
        }
        cur.expect_punct(':')?;
        cur.expect_end()?;
        Ok(b)
    }

    fn define(&mut self, v: Value, ty: Type, def: ValueDef, pos: Pos) -> Result<()> {
        if self.known[v.index()].is_some() {
            return Err(pos.err(format!("{v} is defined twice")));
        }
        self.known[v.index()] = Some(ty);
        self.f.values[v] = ValueData { ty, def };
        Ok(())
    }

    fn inst(&mut self, cur: &mut Cur) -> Result<Inst> {
        let start = cur.here();
        let Some(block) = self.cur else {
            return Err(start.err("an instruction must follow a block label (`blockN:`)"));
        };
        let result = match (cur.peek(), cur.peek2()) {
            (Some(Tok::Word(w)), Some(Tok::Punct('='))) => {
                let n = entity_number(w, "v").ok_or_else(|| {
                    start.err(format!("expected a value (`vN`) before `=`, found `{w}`"))
                })?;
                cur.pos += 2;
                Some(self.value_entity(n, start)?)
            }
            _ => None,
        };
        let (word, opos) = cur.word("an opcode")?;
        let (op, suffix) = split_opcode(&word, opos)?;
        let kind = self.operands(cur, op)?;
        let local_name = match (&kind, cur.peek()) {
            (InstKind::Alloca { .. }, Some(Tok::Str(bytes))) => {
                let name = String::from_utf8_lossy(bytes).into_owned();
                cur.pos += 1;
                Some(name)
            }
            _ => None,
        };
        let loc = cur.loc();
        cur.expect_end()?;

        let ty = match (result, suffix) {
            (Some(_), Some(t)) => Some(t),
            (Some(v), None) => {
                let known = |x: Value| self.known.get(x.index()).copied().flatten();
                match implied_type(self.module, &kind, &known) {
                    Some(t) => Some(t),
                    None => {
                        return Err(opos.err(format!(
                            "cannot tell the type of {v}: write it as `{word}.TYPE`"
                        )));
                    }
                }
            }
            (None, Some(t)) => {
                return Err(opos.err(format!(
                    "`.{t}` gives a result type, but the instruction has no result"
                )));
            }
            (None, None) => None,
        };
        let inst = self.f.insts.push(InstData { kind, result: None });
        if let (Some(v), Some(ty)) = (result, ty) {
            self.define(v, ty, ValueDef::Result(inst), start)?;
            self.f.insts[inst].result = Some(v);
        }
        self.f.blocks[block].insts.push(inst);
        if let Some(loc) = loc {
            self.f.locs[inst] = loc;
        }
        if let Some(name) = local_name {
            self.f.local_names.insert(inst, name);
        }
        Ok(inst)
    }

    /// A lane number (the verifier checks it against the vector's lanes).
    fn lane(&mut self, cur: &mut Cur) -> Result<u8> {
        let (n, pos) = cur.u64("a lane number")?;
        u8::try_from(n).map_err(|_| pos.err(format!("lane {n} is out of range")))
    }

    fn operands(&mut self, cur: &mut Cur, op: Op) -> Result<InstKind> {
        Ok(match op {
            Op::Iconst => {
                let (w, pos) = cur.word("an integer")?;
                InstKind::Iconst(
                    parse_i64(&w).ok_or_else(|| {
                        pos.err(format!("expected a 64-bit integer, found `{w}`"))
                    })?,
                )
            }
            Op::Fconst => {
                let (w, pos) = cur.word("a number")?;
                InstKind::Fconst(
                    parse_f64(&w)
                        .ok_or_else(|| pos.err(format!("expected a number, found `{w}`")))?,
                )
            }
            Op::GlobalAddr => {
                let (name, pos) = cur.name("a global name (`@name`)")?;
                let g = self
                    .globals
                    .get(&name)
                    .copied()
                    .ok_or_else(|| pos.err(format!("undefined global @{name}")))?;
                InstKind::GlobalAddr(g)
            }
            Op::FuncAddr => InstKind::FuncAddr(self.func_ref(cur)?),
            Op::Fneg => InstKind::Unary(UnaryOp::Fneg, self.value(cur)?),
            Op::Binary(op) => {
                let a = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::Binary(op, a, self.value(cur)?)
            }
            Op::Icmp => {
                let (w, pos) = cur.word("a condition (`eq`, `slt`, ...)")?;
                let cc = IntCC::ALL
                    .into_iter()
                    .find(|c| c.name() == w)
                    .ok_or_else(|| pos.err(format!("unknown integer condition `{w}`")))?;
                let a = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::Icmp(cc, a, self.value(cur)?)
            }
            Op::Fcmp => {
                let (w, pos) = cur.word("a condition (`eq`, `lt`, ...)")?;
                let cc = FloatCC::ALL
                    .into_iter()
                    .find(|c| c.name() == w)
                    .ok_or_else(|| pos.err(format!("unknown float condition `{w}`")))?;
                let a = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::Fcmp(cc, a, self.value(cur)?)
            }
            Op::Cast(op) => InstKind::Cast(op, self.value(cur)?),
            Op::Select => {
                let c = self.value(cur)?;
                cur.expect_punct(',')?;
                let a = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::Select(c, a, self.value(cur)?)
            }
            Op::Splat => InstKind::Splat(self.value(cur)?),
            Op::ExtractLane => {
                let v = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::ExtractLane(v, self.lane(cur)?)
            }
            Op::InsertLane => {
                let v = self.value(cur)?;
                cur.expect_punct(',')?;
                let x = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::InsertLane(v, x, self.lane(cur)?)
            }
            Op::Reduce(op) => InstKind::Reduce(op, self.value(cur)?),
            Op::Alloca => {
                let size = cur.u32("a size in bytes")?;
                cur.expect_punct(',')?;
                cur.expect_word("align")?;
                let align = cur.u32("an alignment")?;
                InstKind::Alloca { size, align }
            }
            Op::Load => InstKind::Load(self.value(cur)?),
            Op::Store => {
                let value = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::Store {
                    value,
                    ptr: self.value(cur)?,
                }
            }
            Op::PtrAdd => {
                let a = self.value(cur)?;
                cur.expect_punct(',')?;
                InstKind::PtrAdd(a, self.value(cur)?)
            }
            Op::Call => {
                let func = self.func_ref(cur)?;
                InstKind::Call {
                    func,
                    args: self.paren_values(cur)?,
                }
            }
            Op::CallIndirect => {
                let callee = self.value(cur)?;
                InstKind::CallIndirect {
                    callee,
                    args: self.paren_values(cur)?,
                }
            }
            Op::Launch => {
                let kernel = self.func_ref(cur)?;
                let args = self.paren_values(cur)?;
                cur.expect_word("grid")?;
                let grid = self.three_values(cur, "grid")?;
                cur.expect_word("block")?;
                let block = self.three_values(cur, "block")?;
                InstKind::Launch {
                    kernel,
                    grid,
                    block,
                    args,
                }
            }
            Op::Intrinsic(op) => {
                let mut args = Vec::new();
                if matches!(cur.peek(), Some(Tok::Word(_))) {
                    loop {
                        args.push(self.value(cur)?);
                        if !cur.eat_punct(',') {
                            break;
                        }
                    }
                }
                InstKind::Intrinsic { op, args }
            }
            Op::Jump => InstKind::Jump(self.block_call(cur)?),
            Op::Brif => {
                let cond = self.value(cur)?;
                cur.expect_punct(',')?;
                let then_dest = self.block_call(cur)?;
                cur.expect_punct(',')?;
                InstKind::Brif {
                    cond,
                    then_dest,
                    else_dest: self.block_call(cur)?,
                }
            }
            Op::Return => {
                if matches!(cur.peek(), Some(Tok::Word(_))) {
                    InstKind::Return(Some(self.value(cur)?))
                } else {
                    InstKind::Return(None)
                }
            }
            Op::Detach => {
                cur.expect_word("within")?;
                let region = self.region(cur)?;
                cur.expect_punct(',')?;
                let task = self.block_ref(cur)?;
                cur.expect_punct(',')?;
                InstKind::Detach {
                    region,
                    task,
                    cont: self.block_ref(cur)?,
                }
            }
            Op::Reattach => {
                cur.expect_word("within")?;
                let region = self.region(cur)?;
                cur.expect_punct(',')?;
                InstKind::Reattach {
                    region,
                    cont: self.block_ref(cur)?,
                }
            }
            Op::Sync => {
                cur.expect_word("within")?;
                let region = self.region(cur)?;
                cur.expect_punct(',')?;
                InstKind::Sync {
                    region,
                    next: self.block_ref(cur)?,
                }
            }
            Op::Unreachable => InstKind::Unreachable,
        })
    }

    /// Checks that every used value and block was defined and hands back
    /// the function.
    fn finish(self, header_line: u32) -> Result<Function> {
        if self.f.layout.is_empty() {
            return Err(Pos::at(header_line, 1).err(format!(
                "function @{} has a body with no blocks (write `declare` for a declaration)",
                self.f.name
            )));
        }
        let mut first: Option<(Pos, String)> = None;
        let mut note = |pos: Pos, msg: String| {
            if first
                .as_ref()
                .is_none_or(|(p, _)| (pos.line, pos.col) < (p.line, p.col))
            {
                first = Some((pos, msg));
            }
        };
        for (i, used) in self.val_use.iter().enumerate() {
            if let Some(pos) = *used
                && self.known[i].is_none()
            {
                note(pos, format!("use of undefined value {}", Value::new(i)));
            }
        }
        for (i, used) in self.blk_use.iter().enumerate() {
            if let Some(pos) = *used
                && !self.blk_defined[i]
            {
                note(pos, format!("use of undefined block {}", Block::new(i)));
            }
        }
        if let Some((pos, msg)) = first {
            return Err(pos.err(msg));
        }
        Ok(self.f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::FunctionAnalyses;
    use crate::builder::{FuncBuilder, new_function};
    use crate::intrinsic::{CopyKind, Dim};
    use crate::print::print_module;
    use crate::verify::verify_module;

    fn err(text: &str) -> ReadError {
        match read_module(text) {
            Ok(m) => panic!("expected an error, read:\n{}", print_module(&m)),
            Err(e) => e,
        }
    }

    fn assert_err(text: &str, line: u32, col: u32, needle: &str) {
        let e = err(text);
        assert!(
            e.message.contains(needle) && (e.line, e.col) == (line, col),
            "wanted {line}:{col}: ...{needle}..., got {e}"
        );
    }

    fn roundtrip(m: &Module) {
        let first = print_module(m);
        let again = read_module(&first).unwrap_or_else(|e| panic!("{e}\n{first}"));
        assert_eq!(first, print_module(&again));
    }

    #[test]
    fn errors_have_positions() {
        let f = |body: &str| format!("func @f(i32) -> i32 {{\nblock0(v0: i32):\n{body}\n}}\n");
        assert_err(&f("    v1 = frob v0"), 3, 10, "unknown opcode `frob`");
        assert_err(&f("    v1 = iadd.i33 v0, v0"), 3, 10, "unknown type `i33`");
        assert_err(&f("    return v9"), 3, 12, "use of undefined value v9");
        assert_err(
            &f("    jump block4"),
            3,
            10,
            "use of undefined block block4",
        );
        assert_err(
            &f("    v0 = iconst.i32 1\n    return v0"),
            3,
            5,
            "v0 is defined twice",
        );
        assert_err(&f("    iconst.i32 1\n    return v0"), 3, 5, "no result");
        assert_err(
            &f("    v1 = iadd v2, v0\n    v2 = iconst.i32 1"),
            3,
            10,
            "write it as `iadd.TYPE`",
        );
        assert_err(&f("    v1 = call @g(v0)"), 3, 15, "undefined function @g");
        assert_err(&f("    v1 = global_addr @g"), 3, 22, "undefined global @g");
        assert_err(&f("    v1 = iadd v0 v0"), 3, 18, "expected `,`, found `v0`");
        assert_err(
            &f("    return v0 v0"),
            3,
            15,
            "unexpected `v0` at the end of the line",
        );
        assert_err(
            &f("    v1 = icmp lt v0, v0"),
            3,
            15,
            "unknown integer condition `lt`",
        );
        assert_err(&f("    v1 = load.i32 v99999999"), 3, 19, "too large");
        assert_err(
            &f("    v1 = iconst.i32 99999999999999999999"),
            3,
            21,
            "64-bit integer",
        );
        assert_err(
            &f("    launch @f() grid(v0, v0) block(v0, v0, v0)"),
            3,
            21,
            "three values",
        );
        assert_err(&f("    return v0 @3"), 3, 15, "`@line:col`");
        assert_err(
            &f("block0:\n    return v0"),
            3,
            1,
            "block0 is defined twice",
        );
        assert_err(
            "func @f() {\n    return\n}\n",
            2,
            5,
            "must follow a block label",
        );
        assert_err("func @f() {\nblock0:\n    return\n", 1, 1, "no closing `}`");
        assert_err(
            "func @f() {\nblock0:\nfunc @g() {\n}\n",
            3,
            1,
            "missing `}`",
        );
        assert_err("func @f() {\n}\n", 1, 1, "no blocks");
        assert_err("declare @f()\ndeclare @f()\n", 2, 9, "defined twice");
        assert_err(
            "global @g size 1 align 1 = \"\\zz\"\n",
            1,
            29,
            "two hex digits",
        );
        assert_err(
            "global @g size 1 align 1 = \"abc\n",
            1,
            28,
            "unterminated string",
        );
        assert_err(
            "global @g size 1 align 1 = zeroinit\n    reloc 0 = @h + 0\n",
            2,
            15,
            "undefined global @h",
        );
        assert_err("reloc 0 = @h + 0\n", 1, 1, "must follow its `global`");
        assert_err(
            "frob\n",
            1,
            1,
            "expected `global`, `func`, `declare`, `gradient` or `source`",
        );
        assert_err("declare @f(i32\n", 1, 15, "expected `,`");
        assert_err("declare kernel kernel @f()\n", 1, 16, "conflicts");
        assert_err("declare @f() # x\n", 1, 14, "unexpected character `#`");
        let e = err("declare @f(\n");
        assert_eq!(e.to_string(), format!("1:12: {}", e.message));
    }

    #[test]
    fn comments_and_blank_lines_anywhere() {
        let m = read_module(
            "; leading\n\nfunc @f() { ; header\n; between\nblock0: ; label\n    return ; end\n\n} ; close\n",
        )
        .unwrap();
        assert_eq!(m.funcs.len(), 1);
        assert!(verify_module(&m).is_ok());
    }

    #[test]
    fn parameter_names_roundtrip() {
        let text = "func @f(ptr noalias \"x\", i32, f64 \"a b\") {\nblock0(v0: ptr, v1: i32, v2: f64):\n    v3 = alloca 8, align 8 \"sum\" @2:5\n    return\n}\n";
        let m = read_module(text).unwrap();
        let f = &m.funcs[FuncId::new(0)];
        assert_eq!(f.param_names, ["x", "", "a b"]);
        assert_eq!(f.param_name(1), None);
        assert_eq!(f.local_names.values().collect::<Vec<_>>(), ["sum"]);
        assert_eq!(crate::print::print_module(&m), text);
    }

    #[test]
    fn noalias_parameters_roundtrip_and_verify() {
        let text = "func @f(ptr noalias, i32, ptr noalias) {\nblock0(v0: ptr, v1: i32, v2: ptr):\n    return\n}\n";
        let m = read_module(text).unwrap();
        let f = &m.funcs[FuncId::new(0)];
        assert_eq!(f.noalias, [0, 2]);
        assert!(f.param_noalias(2) && !f.param_noalias(1));
        assert!(verify_module(&m).is_ok());
        assert_eq!(print_module(&m), text);
        let bad = read_module("func @f(i32 noalias) {\nblock0(v0: i32):\n    return\n}\n").unwrap();
        let errs = verify_module(&bad).unwrap_err();
        assert!(
            errs.iter().any(|e| e.message.contains("noalias")),
            "{errs:?}"
        );
    }

    #[test]
    fn numbers_are_entity_indices() {
        let m = read_module(
            "func @f() {\nblock3:\n    v7 = iconst.i32 1\n    detach within sr2, block5, block1\nblock5:\n    reattach within sr2, block1\nblock1:\n    sync within sr2, block6\nblock6:\n    return\n}\n",
        )
        .unwrap();
        let f = &m.funcs[FuncId::new(0)];
        assert_eq!(
            f.layout.iter().map(|b| b.index()).collect::<Vec<_>>(),
            [3, 5, 1, 6]
        );
        assert_eq!(f.values.len(), 8);
        assert_eq!(f.sync_regions.len(), 3);
        let i = f.blocks[Block::new(3)].insts[0];
        assert_eq!(f.result(i), Some(Value::new(7)));
        assert_eq!(f.value_def(Value::new(7)), ValueDef::Result(i));
        // Gaps are dead: v0..v6 are defined by an unplaced instruction.
        let ValueDef::Result(hole) = f.value_def(Value::new(0)) else {
            panic!()
        };
        assert!(f.placed_insts().all(|(_, i)| i != hole));
        assert!(verify_module(&m).is_ok(), "{:?}", verify_module(&m));
    }

    /// A module with every instruction kind and every intrinsic, built with
    /// the builder.
    #[test]
    fn every_kind_and_intrinsic_roundtrips() {
        let mut m = Module::new();
        let g = m.globals.push(GlobalData {
            name: "g".into(),
            size: 8,
            align: 8,
            init: vec![0, 1, b'"', b'\\', 0xff],
            ..GlobalData::default()
        });
        let callee = m.funcs.push(Function::new(
            "callee",
            Signature {
                params: vec![Type::I32],
                ret: Some(Type::F64),
            },
        ));
        m.funcs[callee].linkage = Linkage::Import;
        let mut f = new_function(
            "all",
            Signature {
                params: vec![Type::I32, Type::I64, Type::F64, Type::Ptr, Type::I1],
                ret: Some(Type::I32),
            },
        );
        let entry = f.layout[0];
        let p = f.blocks[entry].params.clone();
        let sr = f.create_sync_region();
        let mut b = FuncBuilder::new(&mut f);
        let (b1, b2, b3, b4) = (
            b.create_block(),
            b.create_block(),
            b.create_block(),
            b.create_block(),
        );
        b.switch_to(entry);
        b.set_loc(SrcLoc::new(10, 2));
        b.iconst(Type::I8, -3);
        b.fconst(Type::F32, 0.5);
        b.global_addr(g);
        b.func_addr(callee);
        b.unary(UnaryOp::Fneg, p[2]);
        for op in BinaryOp::ALL {
            let x = if op.is_float() { p[2] } else { p[0] };
            b.binary(op, x, x);
        }
        for cc in IntCC::ALL {
            b.icmp(cc, p[0], p[0]);
        }
        for cc in FloatCC::ALL {
            b.fcmp(cc, p[2], p[2]);
        }
        for op in CastOp::ALL {
            b.cast(op, p[0], Type::F32);
        }
        b.select(p[4], p[0], p[0]);
        let a = b.alloca(8, 8);
        let l = b.load(Type::F64, a);
        b.store(l, a);
        b.ptradd(a, p[1]);
        b.call(callee, Some(Type::F64), vec![p[0]]);
        for op in Intrinsic::all() {
            let (params, ret) = op.signature();
            let args = params.iter().map(|_| p[0]).collect();
            let ret = ret.map(|_| Type::F64);
            b.intrinsic(op, ret, args);
        }
        b.launch(callee, [p[0]; 3], [p[0]; 3], vec![p[3]]);
        b.brif(p[4], BlockCall::new(b1, vec![p[0]]), BlockCall::to(b2));
        b.switch_to(b1);
        let x = b.param(b1, Type::I32);
        b.jump(b4, vec![x]);
        b.switch_to(b2);
        b.detach(sr, b3, b4);
        b.switch_to(b3);
        b.reattach(sr, b4);
        b.switch_to(b4);
        b.sync(sr, entry);
        let dead = b.create_block();
        b.switch_to(dead);
        b.ret(Some(x));
        b.unreachable();
        m.funcs.push(f);
        let text = print_module(&m);
        for op in Intrinsic::all() {
            assert!(text.contains(&op.name()), "{} missing", op.name());
        }
        roundtrip(&m);
    }

    /// xorshift64*: deterministic, dependency-free randomness.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len())]
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    fn random_name(rng: &mut Rng, i: usize) -> String {
        let alphabet = [
            "a", "b", "_", ".", "$", "1", " ", "\"", "\\", "é", "\n", "x",
        ];
        let len = rng.below(4);
        let mut s: String = (0..len).map(|_| rng.pick(&alphabet)).collect();
        s.push_str(&i.to_string());
        s
    }

    fn random_type(rng: &mut Rng) -> Type {
        rng.pick(&Type::ALL)
    }

    /// A random module: any instruction, operand and type (most of it
    /// ill-typed), but every used value defined by a placed instruction or
    /// block parameter, which is all the text form needs to round-trip.
    fn random_module(rng: &mut Rng) -> Module {
        let mut m = Module::new();
        if rng.chance(30) {
            m.source_name = Some(random_name(rng, 0));
        }
        for i in 0..rng.below(4) {
            let init: Vec<u8> = (0..rng.below(6)).map(|_| rng.next() as u8).collect();
            let space = if rng.chance(20) {
                AddrSpace::Shared
            } else {
                AddrSpace::Global
            };
            let is_import = space == AddrSpace::Global && init.is_empty() && rng.chance(20);
            m.globals.push(GlobalData {
                name: random_name(rng, i),
                size: rng.below(40) as u64,
                align: 1 << rng.below(4),
                init,
                relocs: Vec::new(),
                func_relocs: Vec::new(),
                is_const: rng.chance(50),
                space,
                is_local: !is_import && rng.chance(20),
                is_import,
            });
        }
        let nglobals = m.globals.len();
        for g in m.globals.values_mut() {
            if g.is_import {
                continue;
            }
            for _ in 0..rng.below(3) {
                if nglobals > 0 {
                    let t = GlobalId::new(rng.below(nglobals));
                    g.relocs
                        .push((rng.below(64) as u64, t, rng.next() as i64 >> rng.below(64)));
                }
            }
        }
        let nfuncs = 1 + rng.below(4);
        for i in 0..nfuncs {
            let sig = Signature {
                params: (0..rng.below(4)).map(|_| random_type(rng)).collect(),
                ret: rng.chance(60).then(|| random_type(rng)),
            };
            let mut f = Function::new(random_name(rng, i), sig);
            f.kind = rng.pick(&[FuncKind::Host, FuncKind::Kernel, FuncKind::Device]);
            f.variadic = rng.chance(10);
            f.linkage = rng.pick(&[Linkage::Export, Linkage::Local, Linkage::Import]);
            f.convergent = rng.chance(30);
            m.funcs.push(f);
        }
        for fid in m.funcs.keys().collect::<Vec<_>>() {
            if rng.chance(25) {
                continue; // a declaration
            }
            let f = random_body(rng, &m, m.funcs[fid].clone());
            m.funcs[fid] = f;
        }
        m
    }

    fn random_body(rng: &mut Rng, m: &Module, mut f: Function) -> Function {
        let nblocks = 1 + rng.below(6);
        let blocks: Vec<Block> = (0..nblocks)
            .map(|_| {
                if rng.chance(15) {
                    f.create_block(); // a dead block: a gap in the numbering
                }
                f.create_block()
            })
            .collect();
        for _ in 0..rng.below(3) {
            f.create_sync_region();
        }
        let nregions = f.sync_regions.len();
        let mut vals: Vec<Value> = Vec::new();
        for (i, &b) in blocks.iter().enumerate() {
            let tys: Vec<Type> = if i == 0 {
                f.sig.params.clone()
            } else {
                (0..rng.below(3)).map(|_| random_type(rng)).collect()
            };
            for t in tys {
                vals.push(f.append_block_param(b, t));
            }
        }
        let nfuncs = m.funcs.len();
        let nglobals = m.globals.len();
        for &b in &blocks {
            for _ in 0..rng.below(8) {
                if vals.is_empty() {
                    let i = f.append_inst(b, InstKind::Iconst(1), Some(Type::I32));
                    vals.extend(f.result(i));
                    continue;
                }
                let v = |rng: &mut Rng| vals[rng.below(vals.len())];
                let kind = match rng.below(20) {
                    0 => InstKind::Iconst(rng.next() as i64),
                    1 => InstKind::Fconst(f64::from_bits(rng.next())),
                    2 if nglobals > 0 => InstKind::GlobalAddr(GlobalId::new(rng.below(nglobals))),
                    3 => InstKind::FuncAddr(FuncId::new(rng.below(nfuncs))),
                    4 => InstKind::Unary(UnaryOp::Fneg, v(rng)),
                    5 => InstKind::Binary(rng.pick(&BinaryOp::ALL), v(rng), v(rng)),
                    6 => InstKind::Icmp(rng.pick(&IntCC::ALL), v(rng), v(rng)),
                    7 => InstKind::Fcmp(rng.pick(&FloatCC::ALL), v(rng), v(rng)),
                    8 => InstKind::Cast(rng.pick(&CastOp::ALL), v(rng)),
                    9 => InstKind::Select(v(rng), v(rng), v(rng)),
                    10 => InstKind::Alloca {
                        size: rng.next() as u32,
                        align: rng.next() as u32,
                    },
                    11 => InstKind::Load(v(rng)),
                    12 => InstKind::Store {
                        value: v(rng),
                        ptr: v(rng),
                    },
                    13 => InstKind::PtrAdd(v(rng), v(rng)),
                    14 => InstKind::Call {
                        func: FuncId::new(rng.below(nfuncs)),
                        args: (0..rng.below(3)).map(|_| v(rng)).collect(),
                    },
                    16 => InstKind::CallIndirect {
                        callee: v(rng),
                        args: (0..rng.below(3)).map(|_| v(rng)).collect(),
                    },
                    15 => InstKind::Launch {
                        kernel: FuncId::new(rng.below(nfuncs)),
                        grid: [v(rng), v(rng), v(rng)],
                        block: [v(rng), v(rng), v(rng)],
                        args: (0..rng.below(3)).map(|_| v(rng)).collect(),
                    },
                    _ => {
                        let all = Intrinsic::all();
                        InstKind::Intrinsic {
                            op: all[rng.below(all.len())],
                            args: (0..rng.below(4)).map(|_| v(rng)).collect(),
                        }
                    }
                };
                let ty = rng.chance(75).then(|| random_type(rng));
                let i = f.append_inst(b, kind, ty);
                if rng.chance(30) {
                    f.locs[i] = SrcLoc::new(rng.below(3) as u32, rng.below(100) as u32);
                }
                if rng.chance(10) {
                    f.make_inst(InstKind::Unreachable, Some(Type::I1)); // dead
                }
                vals.extend(f.result(i));
            }
            let v = |rng: &mut Rng| vals[rng.below(vals.len())];
            let call = |rng: &mut Rng| {
                let args = (0..rng.below(3))
                    .map(|_| vals[rng.below(vals.len())])
                    .collect();
                BlockCall::new(blocks[rng.below(nblocks)], args)
            };
            let region = SyncRegion::new(rng.below(nregions.max(1)));
            let kind = if vals.is_empty() {
                InstKind::Return(None)
            } else {
                match rng.below(8) {
                    0 => InstKind::Jump(call(rng)),
                    1 => InstKind::Brif {
                        cond: v(rng),
                        then_dest: call(rng),
                        else_dest: call(rng),
                    },
                    2 => InstKind::Return(rng.chance(50).then(|| v(rng))),
                    3 => InstKind::Detach {
                        region,
                        task: rng.pick(&blocks),
                        cont: rng.pick(&blocks),
                    },
                    4 => InstKind::Reattach {
                        region,
                        cont: rng.pick(&blocks),
                    },
                    5 => InstKind::Sync {
                        region,
                        next: rng.pick(&blocks),
                    },
                    6 => InstKind::Unreachable,
                    _ => InstKind::Return(None),
                }
            };
            if nregions == 0
                && matches!(
                    kind,
                    InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
                )
            {
                f.create_sync_region();
            }
            f.append_inst(b, kind, None);
        }
        // A layout in random order, the entry first.
        let mut rest = blocks[1..].to_vec();
        for i in (1..rest.len()).rev() {
            rest.swap(i, rng.below(i + 1));
        }
        f.layout = std::iter::once(blocks[0]).chain(rest).collect();
        f
    }

    #[test]
    fn random_modules_roundtrip_and_never_panic_the_verifier() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..400 {
            let m = random_module(&mut rng);
            roundtrip(&m);
            let _ = verify_module(&m);
            for f in m.funcs.values() {
                let _ = FunctionAnalyses::compute(f);
            }
            let _ = crate::print::print_dot(&m);
        }
    }

    /// Mutated text never panics the reader; whatever reads also prints,
    /// round-trips, verifies and analyses without panicking.
    #[test]
    fn mutated_text_never_panics() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let pieces = [
            "v",
            "block",
            "sr",
            "@",
            "\"",
            ":",
            ",",
            "(",
            ")",
            "=",
            "{",
            "}",
            "->",
            ";",
            "\\",
            "0",
            "-1",
            "i32",
            "ptr",
            "9999999",
            "\n",
            " ",
            "é",
            "@1:2",
            "iadd",
            "detach within",
            "return",
            "func",
            "declare",
            "reloc 0 = @a + 1",
        ];
        for _ in 0..300 {
            let m = random_module(&mut rng);
            let text = print_module(&m);
            for _ in 0..10 {
                let mut t: Vec<char> = text.chars().collect();
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(t.len() + 1);
                    match rng.below(3) {
                        0 if at < t.len() => {
                            t.remove(at);
                        }
                        1 => {
                            let p = rng.pick(&pieces);
                            for (k, c) in p.chars().enumerate() {
                                t.insert(at + k, c);
                            }
                        }
                        _ => {
                            let end = (at + rng.below(20)).min(t.len());
                            t.drain(at..end);
                        }
                    }
                }
                let mutated: String = t.into_iter().collect();
                if let Ok(m2) = read_module(&mutated) {
                    roundtrip(&m2);
                    let _ = verify_module(&m2);
                    for f in m2.funcs.values() {
                        let _ = FunctionAnalyses::compute(f);
                    }
                }
            }
        }
        // Arbitrary bytes, too.
        for _ in 0..2000 {
            let bytes: Vec<u8> = (0..rng.below(60)).map(|_| rng.next() as u8).collect();
            let _ = read_module(&String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn filetests_that_read_also_cover_dims_and_copies() {
        // Intrinsic names with dots parse whole, and take suffixes after.
        for d in Dim::ALL {
            assert!(matches!(
                split_opcode(&format!("grid_dim.{}.i64", d.name()), Pos::at(1, 1)),
                Ok((Op::Intrinsic(Intrinsic::GridDim(_)), Some(Type::I64)))
            ));
        }
        assert!(matches!(
            split_opcode("cuda_memcpy.d2h", Pos::at(1, 1)),
            Ok((
                Op::Intrinsic(Intrinsic::CudaMemcpy(CopyKind::DeviceToHost)),
                None
            ))
        ));
    }
}
