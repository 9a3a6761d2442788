//! Test directives: `// key: value` lines in C and ParC files, `; key:
//! value` lines in parir text.
//!
//! A file's *header* is its first lines up to the first that is neither a
//! comment nor blank; [`directive`] reads the header (`// args: 3`, `//
//! exit: 1`, `; test: pass licm`), [`directive_lines`] every comment line
//! of the file (`; error: ...`, `; stat: ...`, which may sit beside the IR
//! they speak of).

/// The comment text of a line (`// x` or `; x`, without the marker and the
/// surrounding blanks), or `None` for a line that is not a comment.
fn comment(line: &str) -> Option<&str> {
    let l = line.trim_start();
    l.strip_prefix("//")
        .or_else(|| l.strip_prefix(';'))
        .map(str::trim)
}

/// The value of `key` in a comment's text `key: value`.
fn value<'a>(comment: &'a str, key: &str) -> Option<&'a str> {
    comment.strip_prefix(key)?.strip_prefix(':').map(str::trim)
}

/// The value of the first `key:` directive in the header of `source`.
pub fn directive(source: &str, key: &str) -> Option<String> {
    source
        .lines()
        .take_while(|l| comment(l).is_some() || l.trim().is_empty())
        .filter_map(comment)
        .find_map(|c| value(c, key))
        .map(str::to_string)
}

/// The values of every `key:` comment line of `source`, in order.
pub fn directive_lines(source: &str, key: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(comment)
        .filter_map(|c| value(c, key))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_directives_stop_at_the_first_line_of_code() {
        let src = "// args: 1 2\n\n//   exit:  3 \nint main() {}\n// tol: 1\n";
        assert_eq!(directive(src, "args").as_deref(), Some("1 2"));
        assert_eq!(directive(src, "exit").as_deref(), Some("3"));
        assert_eq!(directive(src, "tol"), None, "after the code");
        assert_eq!(directive(src, "arg"), None, "a key is a whole word");
        let pir = "; test: pass licm\n; stat: licm.hoisted = 2\nfunc @f() {\n";
        assert_eq!(directive(pir, "test").as_deref(), Some("pass licm"));
    }

    #[test]
    fn comment_lines_anywhere() {
        let pir = "; test: verify\nfunc @f() {\n; error: one\n  ;error:two\n}\n";
        assert_eq!(directive_lines(pir, "error"), ["one", "two"]);
        assert!(directive_lines(pir, "stat").is_empty());
    }
}
