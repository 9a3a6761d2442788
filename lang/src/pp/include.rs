//! `#include`: the header's name (written or from macros), the search
//! (`"..."` beside the including file, then `-I` directories; `<...>` in
//! the `-I` directories, then the headers parc ships), include guards,
//! `#pragma once` and the nesting limit.

use super::lexer::{Kind, PpTok};
use super::{MAX_INCLUDE_DEPTH, MAX_SOURCE_BYTES, Pp, headers, key_of};
use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::source_map::FILE_SPACE;
use std::path::{Path, PathBuf};

/// A header `#include` found.
pub(super) struct Header {
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

impl Pp<'_> {
    /// Finds a header.
    pub(super) fn find_header(
        &self,
        name: &str,
        quoted: bool,
        dir: Option<&Path>,
    ) -> Option<Header> {
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

    pub(super) fn include(
        &mut self,
        file: usize,
        dir: Option<&Path>,
        rest: &[PpTok],
        at: Span,
        emit: bool,
    ) {
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
}

/// `"name"` or `<name>` from directive tokens: the name and whether quoted.
pub(super) fn header_name(toks: &[PpTok]) -> Option<(String, bool)> {
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
