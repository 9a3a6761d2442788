//! Where preprocessed text came from: the files read and the macro
//! expansions that produced each byte the parser sees.
//!
//! The lexer, the parser and the checker work on one string, the
//! preprocessor's output, and their [`Span`]s are byte offsets into it. The
//! preprocessor's own diagnostics point into files that produced no output
//! (a `#include` of a missing header, an `#error`). Both kinds of position
//! live in one space of `u32` positions, as in rustc's source map:
//! - `0..FILE_SPACE`: the output text, resolved through a table of
//!   *pieces* (a verbatim run of a file, or one token a macro expansion
//!   made);
//! - `FILE_SPACE..`: the files themselves, each at its own base (one more
//!   than its length apart, so that an end-of-file position is its own).
//!
//! Invariants: pieces are sorted by output offset and do not overlap; every
//! output byte lies in a piece; every position a piece or an expansion
//! names is in file space.

use crate::ast::Span;

/// Where file space begins; the output text must be shorter.
pub const FILE_SPACE: u32 = 1 << 31;

/// One file read (or made up: the command line's `-D` definitions).
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name diagnostics and `__FILE__` show.
    pub name: String,
    pub text: String,
    /// First position of the file in file space.
    pub base: u32,
    /// Byte offsets at which lines start.
    line_starts: Vec<u32>,
    /// `#line` directives: from the physical line `.0` on (1-based), line
    /// numbers count from `.1` and the file is called `.2` when given.
    line_directives: Vec<(u32, u32, Option<String>)>,
    /// The `#include` directive that read this file (file space), if any.
    pub included_at: Option<u32>,
    /// A parc header (not the user's): diagnostics prefer user files.
    pub builtin: bool,
}

impl SourceFile {
    fn line_of(&self, offset: u32) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    /// 1-based physical line and column (in characters) of `offset`.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = offset.min(self.text.len() as u32);
        let line = self.line_of(offset);
        let start = self.line_starts[line - 1] as usize;
        let col = self
            .text
            .get(start..offset as usize)
            .map_or(1, |s| s.chars().count() + 1);
        (line, col)
    }

    /// The name and line `#line` directives say `offset` has.
    pub fn presumed(&self, offset: u32) -> (&str, usize) {
        let (line, _) = self.line_col(offset);
        let mut name = self.name.as_str();
        let mut presumed = line;
        for (from, to, file) in &self.line_directives {
            if (*from as usize) <= line {
                presumed = (*to as usize) + (line - *from as usize);
                if let Some(f) = file {
                    name = f;
                }
            }
        }
        (name, presumed)
    }
}

/// A macro expansion: every token it produced points here.
#[derive(Clone, Debug)]
pub struct Expansion {
    /// The macro's name.
    pub name: String,
    /// The macro name in its `#define` (file space).
    pub def: u32,
    /// The invocation (file space), from the macro's name to its `)`.
    pub site: Span,
    /// The expansion the invocation's name came from, if any.
    pub parent: Option<u32>,
}

/// A run of output bytes and where it came from.
#[derive(Clone, Copy, Debug)]
struct Piece {
    out: u32,
    len: u32,
    /// File-space position of the first byte.
    src: u32,
    /// `true`: byte `out + k` came from `src + k`. `false`: a token that
    /// an expansion spelt (or a pasted or stringized one): every byte maps
    /// to `src`, the token it was spelt from.
    verbatim: bool,
    expansion: Option<u32>,
}

/// What a position resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Index into [`SourceMap::files`].
    pub file: usize,
    pub offset: u32,
    /// The expansion whose token this is.
    pub expansion: Option<u32>,
}

/// The files and expansions behind one preprocessed text.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
    pub expansions: Vec<Expansion>,
    pieces: Vec<Piece>,
    out_len: u32,
    next_base: u32,
}

impl SourceMap {
    /// A map of one file that is its own output (no preprocessing).
    pub fn identity(name: &str, text: &str) -> SourceMap {
        let mut map = SourceMap::default();
        let f = map.add_file(name, text, None, false);
        let len = text.len() as u32;
        map.push_verbatim(0, map.files[f].base, len);
        map.out_len = len;
        map
    }

    /// Adds a file; returns its index. File space must not overflow (the
    /// preprocessor limits how much it reads).
    pub fn add_file(
        &mut self,
        name: &str,
        text: &str,
        included_at: Option<u32>,
        builtin: bool,
    ) -> usize {
        let base = FILE_SPACE.saturating_add(self.next_base);
        self.next_base = self
            .next_base
            .saturating_add(text.len() as u32)
            .saturating_add(1);
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        self.files.push(SourceFile {
            name: name.to_string(),
            text: text.to_string(),
            base,
            line_starts,
            line_directives: Vec::new(),
            included_at,
            builtin,
        });
        self.files.len() - 1
    }

    /// How much file space is taken.
    pub fn file_space_used(&self) -> u32 {
        self.next_base
    }

    /// Records `#line`: from physical line `from` of `file` on, lines count
    /// from `to` (and the file is called `name`).
    pub fn add_line_directive(&mut self, file: usize, from: u32, to: u32, name: Option<String>) {
        self.files[file].line_directives.push((from, to, name));
    }

    pub fn add_expansion(&mut self, e: Expansion) -> u32 {
        self.expansions.push(e);
        self.expansions.len() as u32 - 1
    }

    /// Output bytes `out..out+len` are file-space bytes `src..src+len`.
    pub fn push_verbatim(&mut self, out: u32, src: u32, len: u32) {
        if len == 0 {
            return;
        }
        if let Some(last) = self.pieces.last_mut()
            && last.verbatim
            && last.expansion.is_none()
            && last.out + last.len == out
            && last.src + last.len == src
        {
            last.len += len;
            return;
        }
        self.pieces.push(Piece {
            out,
            len,
            src,
            verbatim: true,
            expansion: None,
        });
    }

    /// Output bytes `out..out+len` are a token spelt at `src`.
    pub fn push_token(&mut self, out: u32, len: u32, src: u32, expansion: Option<u32>) {
        if len == 0 {
            return;
        }
        self.pieces.push(Piece {
            out,
            len,
            src,
            verbatim: false,
            expansion,
        });
    }

    pub fn set_output_len(&mut self, len: u32) {
        self.out_len = len;
    }

    /// The file holding file-space position `pos`.
    fn file_at(&self, pos: u32) -> usize {
        self.files
            .partition_point(|f| f.base <= pos)
            .saturating_sub(1)
    }

    /// Where position `pos` (output or file space) came from.
    pub fn resolve(&self, pos: u32) -> Location {
        if pos >= FILE_SPACE {
            let file = self.file_at(pos);
            let base = self.files.get(file).map_or(FILE_SPACE, |f| f.base);
            return Location {
                file,
                offset: pos - base,
                expansion: None,
            };
        }
        let i = self.pieces.partition_point(|p| p.out <= pos);
        let Some(piece) = i.checked_sub(1).and_then(|i| self.pieces.get(i)) else {
            return Location {
                file: 0,
                offset: 0,
                expansion: None,
            };
        };
        // Past the last piece (the end of the output): its end.
        let delta = (pos - piece.out).min(piece.len);
        let src = if piece.verbatim {
            piece.src + delta
        } else {
            piece.src
        };
        let mut loc = self.resolve(src);
        loc.expansion = piece.expansion;
        loc
    }

    /// The file-space span of the output span `span`, as one file's range:
    /// where its start came from, up to where its end came from when that
    /// is later in the same file and the same expansion (else the start's
    /// token, whose length the expansion's piece gives).
    pub fn file_span(&self, span: Span) -> (Location, u32) {
        let start = self.resolve(span.start);
        if span.start >= FILE_SPACE {
            return (start, span.end.saturating_sub(span.start));
        }
        let end_pos = span.end.max(span.start + 1) - 1;
        let end = self.resolve(end_pos);
        let len = if end.file == start.file
            && end.expansion == start.expansion
            && end.offset >= start.offset
        {
            end.offset - start.offset + 1
        } else {
            self.token_len_at(span.start)
        };
        let len = if span.end == span.start { 0 } else { len };
        (start, len)
    }

    /// The length of the token piece holding output position `pos` (1 for
    /// verbatim text).
    fn token_len_at(&self, pos: u32) -> u32 {
        let i = self.pieces.partition_point(|p| p.out <= pos);
        match i.checked_sub(1).and_then(|i| self.pieces.get(i)) {
            Some(p) if !p.verbatim => p.len,
            _ => 1,
        }
    }

    /// The expansions `loc` is inside, innermost first.
    pub fn expansion_chain(&self, loc: &Location) -> Vec<&Expansion> {
        let mut chain = Vec::new();
        let mut next = loc.expansion;
        while let Some(e) = next.and_then(|e| self.expansions.get(e as usize)) {
            chain.push(e);
            next = e.parent;
            if chain.len() > self.expansions.len() {
                break;
            }
        }
        chain
    }

    /// The outermost invocation expansion `exp` is nested in (itself if
    /// none): the one in the text being preprocessed.
    pub fn outermost(&self, exp: u32) -> &Expansion {
        let mut e = &self.expansions[exp as usize];
        for _ in 0..self.expansions.len() {
            match e.parent {
                Some(p) => e = &self.expansions[p as usize],
                None => break,
            }
        }
        e
    }

    /// The file, line and column instructions made from output position
    /// `pos` carry (`SrcLoc`): at the outermost macro invocation, in the
    /// file that holds it (a header's own lines for code defined in a
    /// header). The file is `None` for the main file (file 0 under its own
    /// name), else its name as `#line` may have changed it.
    pub fn code_position(&self, pos: u32) -> (Option<&str>, u32, u32) {
        let loc = self.resolve(pos);
        let at = match self.expansion_chain(&loc).last() {
            Some(e) => e.site.start,
            None => self.files.get(loc.file).map_or(0, |f| f.base) + loc.offset,
        };
        let file = self.file_at(at);
        let Some(f) = self.files.get(file) else {
            return (None, 0, 0);
        };
        let offset = at - f.base;
        let (name, line) = f.presumed(offset);
        let (_, col) = f.line_col(offset);
        let main = file == 0 && name == f.name;
        ((!main).then_some(name), line as u32, col as u32)
    }

    /// The file, line and column a diagnostic names for `loc`.
    pub fn describe(&self, loc: &Location) -> (String, usize, usize) {
        let f = &self.files[loc.file];
        let (name, line) = f.presumed(loc.offset);
        let (_, col) = f.line_col(loc.offset);
        (name.to_string(), line, col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_maps_every_byte_to_itself() {
        let map = SourceMap::identity("a.c", "int x;\nint y;\n");
        let loc = map.resolve(8);
        assert_eq!(loc.file, 0);
        assert_eq!(loc.offset, 8);
        assert_eq!(map.describe(&loc), ("a.c".to_string(), 2, 2));
        assert_eq!(map.code_position(8), (None, 2, 2));
    }

    #[test]
    fn line_directives_renumber() {
        let mut map = SourceMap::identity("a.c", "a\nb\nc\nd\n");
        map.add_line_directive(0, 3, 100, Some("gen.y".into()));
        let loc = map.resolve(6);
        assert_eq!(map.describe(&loc), ("gen.y".to_string(), 101, 1));
        assert_eq!(map.describe(&map.resolve(0)), ("a.c".to_string(), 1, 1));
        // Code positions name the file `#line` gives.
        assert_eq!(map.code_position(6), (Some("gen.y"), 101, 1));
        assert_eq!(map.code_position(0), (None, 1, 1));
    }
}
