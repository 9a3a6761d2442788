//! Preprocessing tokens (C99 6.4): what directives and macro expansion work
//! on. Coarser than ParC's tokens (a pp-number such as `1e+5f` or `0x1p3`
//! is one token, `#` and `##` are punctuators); the lexer proper reads the
//! preprocessor's output again, so nothing here converts values.
//!
//! Invariants: scanning never fails (a character no token starts with is
//! an `Other` token, an unterminated literal ends at its line's end, and
//! the lexer proper reports both); comments become whitespace; a
//! backslash-newline splice joins lines and is in no token's text.

use std::collections::HashSet;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    Char,
    Str,
    Punct,
    Other,
}

/// A preprocessing token.
#[derive(Clone, Debug)]
pub struct PpTok {
    pub kind: Kind,
    pub text: Rc<str>,
    /// File-space position where it was spelt (see `source_map`).
    pub pos: u32,
    /// The expansion that produced it, if a macro did.
    pub expansion: Option<u32>,
    /// Whitespace (or a comment) came before it.
    pub space: bool,
    /// First token of a line (a `#` here starts a directive).
    pub bol: bool,
    /// Painted blue: it named a macro inside that macro's own expansion and
    /// is never expanded again (C99 6.10.3.4p2).
    pub noexpand: bool,
}

impl PpTok {
    pub fn is(&self, text: &str) -> bool {
        self.kind != Kind::Str && self.kind != Kind::Char && &*self.text == text
    }

    pub fn is_ident(&self) -> bool {
        self.kind == Kind::Ident
    }

    /// A token made by the preprocessor (`__LINE__`, stringizing, pasting,
    /// `defined`'s result) spelt at `pos`.
    pub fn made(kind: Kind, text: &str, pos: u32, expansion: Option<u32>) -> PpTok {
        PpTok {
            kind,
            text: text.into(),
            pos,
            expansion,
            space: false,
            bol: false,
            noexpand: false,
        }
    }
}

/// Punctuators, longest first within each first character.
const PUNCTS: [&str; 48] = [
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=",
    "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "[", "]", "(", ")", "{", "}", ".", "&", "*",
    "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", ";", "=", ",", "#",
];

/// The source with backslash-newline splices removed, and for each byte
/// its offset in the original.
struct Spliced {
    bytes: Vec<u8>,
    origin: Vec<u32>,
    len: u32,
}

fn splice(text: &str) -> Spliced {
    let b = text.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut origin = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            let nl = match (b.get(i + 1), b.get(i + 2)) {
                (Some(b'\n'), _) => 2,
                (Some(b'\r'), Some(b'\n')) => 3,
                _ => 0,
            };
            if nl > 0 {
                i += nl;
                continue;
            }
        }
        bytes.push(b[i]);
        origin.push(i as u32);
        i += 1;
    }
    Spliced {
        bytes,
        origin,
        len: b.len() as u32,
    }
}

/// Scans a file into tokens. `base` is the file's position in file space.
pub fn scan(text: &str, base: u32) -> Vec<PpTok> {
    let s = splice(text);
    let b = &s.bytes;
    let at = |i: usize| base + s.origin.get(i).copied().unwrap_or(s.len);
    let mut toks = Vec::new();
    // Identifiers, numbers and punctuators share one allocation per
    // spelling: a file's tokens are mostly repeats of a few spellings.
    let mut spellings: HashSet<Rc<str>> = HashSet::new();
    let mut i = 0;
    let mut space = false;
    let mut bol = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                bol = true;
                space = false;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0B | 0x0C => {
                space = true;
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                space = true;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // An unterminated comment runs to the end; the lexer proper
                // reports it (it sees the same text when no directive is
                // involved, and the comment then hides nothing else).
                match b[i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(p) => i += p + 4,
                    None => {
                        toks.push(PpTok {
                            kind: Kind::Other,
                            text: "/*".into(),
                            pos: at(i),
                            expansion: None,
                            space,
                            bol,
                            noexpand: false,
                        });
                        i = b.len();
                    }
                }
                space = true;
                continue;
            }
            _ => {}
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            // Encoding prefixes glue to a literal: `L"..."`, `u8'x'`.
            let word = &b[start..i];
            if matches!(word, b"L" | b"u" | b"U" | b"u8") && matches!(b.get(i), Some(b'"' | b'\''))
            {
                let q = b[i];
                i = literal_end(b, i, q);
                if q == b'"' { Kind::Str } else { Kind::Char }
            } else {
                Kind::Ident
            }
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < b.len() {
                let d = b[i];
                let sign =
                    matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if sign || d.is_ascii_alphanumeric() || d == b'_' || d == b'.' {
                    i += 1;
                } else {
                    break;
                }
            }
            Kind::Number
        } else if c == b'"' || c == b'\'' {
            i = literal_end(b, i, c);
            if c == b'"' { Kind::Str } else { Kind::Char }
        } else if let Some(p) = PUNCTS.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            i += p.len();
            Kind::Punct
        } else {
            // One whole character (UTF-8 aware).
            let len = std::str::from_utf8(&b[i..(i + 4).min(b.len())])
                .ok()
                .or_else(|| {
                    (1..4)
                        .rev()
                        .find_map(|n| std::str::from_utf8(&b[i..(i + n).min(b.len())]).ok())
                })
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            i += len;
            Kind::Other
        };
        let spelling = String::from_utf8_lossy(&b[start..i]);
        let text = if matches!(kind, Kind::Str | Kind::Char) {
            spelling.into()
        } else if let Some(t) = spellings.get(&*spelling) {
            Rc::clone(t)
        } else {
            let t: Rc<str> = spelling.into();
            spellings.insert(Rc::clone(&t));
            t
        };
        toks.push(PpTok {
            kind,
            text,
            pos: at(start),
            expansion: None,
            space,
            bol,
            noexpand: false,
        });
        space = false;
        bol = false;
    }
    toks
}

/// The end of a string or character literal opened by `quote` at `i`: after
/// its closing quote, or at the end of its line if it has none.
fn literal_end(b: &[u8], mut i: usize, quote: u8) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() && b[i + 1] != b'\n' => i += 2,
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Re-scans the text of a pasted token: `Some` if it is exactly one token.
pub fn single_token(text: &str, pos: u32, expansion: Option<u32>) -> Option<PpTok> {
    let toks = scan(text, 0);
    match toks.as_slice() {
        [t] if !t.space && t.text.len() == text.len() => Some(PpTok {
            pos,
            expansion,
            bol: false,
            ..t.clone()
        }),
        _ => None,
    }
}

/// Whether two tokens written one after the other without a space would
/// read back as other tokens (`-` `-` as `--`, `x` `1` as `x1`).
pub fn would_glue(prev: &str, next: &str) -> bool {
    let (Some(a), Some(b)) = (prev.chars().last(), next.chars().next()) else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    if word(a) && (word(b) || b == '\'' || b == '"') {
        return true;
    }
    if (word(a) || a == '.') && b == '.' {
        return true;
    }
    if a == '.' && word(b) {
        return true;
    }
    let punct = |c: char| "+-*/%<>=!&|^#.:".contains(c);
    punct(a) && punct(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        scan(src, 0).iter().map(|t| t.text.to_string()).collect()
    }

    #[test]
    fn pp_numbers_and_punctuators() {
        assert_eq!(
            texts("x=1e+5f+0x1p-3;a->b##c...d"),
            [
                "x", "=", "1e+5f", "+", "0x1p-3", ";", "a", "->", "b", "##", "c", "...", "d"
            ]
        );
    }

    #[test]
    fn comments_are_space_and_splices_join() {
        let t = scan("a/* c */b // x\n#de\\\nfine", 0);
        assert_eq!(t.len(), 4);
        assert!(t[1].space && !t[1].bol);
        assert!(t[2].bol && &*t[2].text == "#");
        assert_eq!(&*t[3].text, "define");
        assert_eq!(t[3].pos, 16);
    }

    #[test]
    fn literals_keep_their_quotes() {
        assert_eq!(
            texts(r#"f("a\"b", 'c', L"w")"#),
            ["f", "(", r#""a\"b""#, ",", "'c'", ",", "L\"w\"", ")"]
        );
    }

    #[test]
    fn pasting_checks() {
        assert!(single_token("x1", 0, None).is_some());
        assert!(single_token("+=", 0, None).is_some());
        assert!(single_token("+-", 0, None).is_none());
        assert!(would_glue("-", "-"));
        assert!(!would_glue("(", "x"));
        assert!(would_glue("x", "1"));
    }
}
