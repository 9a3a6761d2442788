//! The map stays true and the files stay readable.
//!
//! `docs/ARCHITECTURE.md` names only paths that exist.
//!
//! Every code span of the page (outside fenced blocks) that looks like a
//! path — no spaces, and a `/` in it or a file extension at its end — must
//! name a file or directory of the repository, from its root. A module
//! file `x.rs` may also be `x/mod.rs` (a module that grew submodules keeps
//! its name). A span with a `*` names the files of a directory that match
//! it, of which there must be one at least. An extension alone (`.pc`)
//! is not a path. A bare file name (`eval.rs`)
//! cannot be checked, so it is refused too: write the path.
//!
//! A Rust file of more than [`LONG`] lines says why it is long: its module
//! doc (the `//!` lines it starts with) has a paragraph that begins with
//! `Length` and gives the reason in a sentence at least, such as "one
//! reader of one grammar". Otherwise it is split by concept.

use std::path::{Path, PathBuf};

const EXTENSIONS: [&str; 9] = [
    ".rs", ".md", ".h", ".pc", ".pir", ".c", ".toml", ".lalrpop", ".sh",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The code spans of `text` outside fenced blocks, with their line numbers.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut fenced = false;
    let mut prose = String::new();
    let mut lines_of = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            prose.push_str(line);
            prose.push('\n');
            lines_of.extend(std::iter::repeat_n(n + 1, line.len() + 1));
        }
    }
    let mut open: Option<usize> = None;
    for (i, c) in prose.char_indices() {
        if c != '`' {
            continue;
        }
        match open.take() {
            None => open = Some(i + 1),
            Some(start) => spans.push((lines_of[start], prose[start..i].to_string())),
        }
    }
    spans
}

/// Whether a code span is meant as a path.
fn is_path(span: &str) -> bool {
    let plausible = !span.is_empty()
        && !span.starts_with('-')
        && !span.contains("::")
        && span
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./*".contains(c));
    plausible
        && (span.contains('/')
            || EXTENSIONS
                .iter()
                .any(|e| span.len() > e.len() && span.ends_with(e)))
}

/// Why `span` names nothing, or `None` if it names what exists.
fn missing(root: &Path, span: &str) -> Option<String> {
    if !span.contains('/') {
        return Some("a bare file name: write its path from the repository root".into());
    }
    let path = span.trim_end_matches('/');
    if let Some(star) = path.find('*') {
        let (dir, pattern) = path.split_at(path[..star].rfind('/').map_or(0, |s| s + 1));
        let (before, after) = pattern.split_once('*').unwrap_or((pattern, ""));
        let matches = std::fs::read_dir(root.join(dir))
            .ok()
            .is_some_and(|entries| {
                entries.flatten().any(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with(before) && name.ends_with(after)
                })
            });
        return (!matches).then(|| format!("nothing in `{dir}` matches `{pattern}`"));
    }
    if root.join(path).exists() {
        return None;
    }
    if let Some(module) = path.strip_suffix(".rs")
        && root.join(module).join("mod.rs").is_file()
    {
        return None;
    }
    Some("no such file or directory".into())
}

#[test]
fn every_path_named_in_architecture_md_exists() {
    let root = root();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md is readable");
    let paths: Vec<(usize, String)> = code_spans(&text)
        .into_iter()
        .filter(|(_, s)| is_path(s))
        .collect();
    // The page is a code map: far fewer paths means the spans were misread.
    assert!(
        paths.len() >= 60,
        "only {} paths found in docs/ARCHITECTURE.md",
        paths.len()
    );
    let problems: Vec<String> = paths
        .iter()
        .filter_map(|(line, p)| missing(&root, p).map(|why| format!("line {line}: `{p}`: {why}")))
        .collect();
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md names paths that do not exist:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_path_check_refuses_what_does_not_exist() {
    let root = root();
    assert!(missing(&root, "docs/ARCHITECTURE.md").is_none());
    assert!(missing(&root, "lang/include/*.h").is_none());
    assert!(missing(&root, "docs/NO_SUCH_FILE.md").is_some());
    assert!(missing(&root, "lang/include/*.nothing").is_some());
    assert!(missing(&root, "eval.rs").is_some());
    assert!(is_path("parir/src/eval.rs") && is_path("eval.rs") && is_path(".ci/"));
    assert!(!is_path("--grad F") && !is_path("parc_opt::codegen_prepare") && !is_path("-O0"));
    assert!(!is_path(".pc"), "an extension alone is no path");
    let spans = code_spans("a `x/y.rs` b\n```\n`fenced/z.rs`\n```\n`c.h`");
    assert_eq!(
        spans,
        vec![(1, "x/y.rs".to_string()), (5, "c.h".to_string())]
    );
}

/// Lines beyond which a file must say why it is long (issue 21).
const LONG: usize = 1000;

/// The Rust files of the repository, from its root: every `.rs` below it
/// but in hidden directories and `target/`.
fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                let skipped = name.starts_with('.') || (dir == root && name == "target");
                if !skipped {
                    dirs.push(path);
                }
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The reason a file's module doc gives for its length: the words of its
/// paragraph that begins with `Length`, or `None` if there is none or it
/// says too little to be a reason.
fn length_reason(text: &str) -> Option<String> {
    let doc = text
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim());
    let mut reason: Option<Vec<&str>> = None;
    for line in doc {
        match &mut reason {
            None if line.starts_with("Length") => reason = Some(vec![line]),
            Some(_) if line.is_empty() => break,
            Some(words) => words.push(line),
            None => {}
        }
    }
    let reason = reason?.join(" ");
    // "Length: long." is no reason: ask for a sentence.
    (reason.split_whitespace().count() >= 8).then_some(reason)
}

#[test]
fn every_long_file_says_why() {
    let root = root();
    let files = rust_files(&root);
    assert!(
        files.len() >= 100,
        "only {} Rust files found under {}",
        files.len(),
        root.display()
    );
    let unexplained: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            let lines = text.lines().count();
            (lines > LONG && length_reason(&text).is_none()).then(|| {
                let rel = path.strip_prefix(&root).unwrap_or(path);
                format!("{} ({lines} lines)", rel.display())
            })
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "files over {LONG} lines without a `//! Length ...` paragraph in their module doc \
         saying why they are long (split them by concept, or give the reason):\n{}",
        unexplained.join("\n")
    );
}

#[test]
fn the_length_check_wants_a_reason() {
    let reason = "//! A module.\n//!\n//! Length (over 2,000 lines): one reader of one grammar,\n\
                  //! in one file.\n//!\n//! More.\nuse x;\n";
    assert_eq!(
        length_reason(reason).as_deref(),
        Some("Length (over 2,000 lines): one reader of one grammar, in one file.")
    );
    assert!(length_reason("//! A module.\n//!\n//! Length: long.\n").is_none());
    assert!(
        length_reason("//! A module.\nuse x;\n// Length: a comment, not the doc, says it\n")
            .is_none()
    );
    assert!(
        length_reason("fn f() {}\n//! Length: after code it is no module doc at all\n").is_none()
    );
}
