//! The headers parc ships (`lang/include/`, compiled into the binary):
//! `#include <NAME>` finds them after the `-I` directories. Their text is
//! in those files; see `lang/include/README.md` for how to extend them.

/// Name (as written between `<` and `>`) and text of each shipped header.
const HEADERS: [(&str, &str); 22] = [
    ("assert.h", include_str!("../../include/assert.h")),
    ("ctype.h", include_str!("../../include/ctype.h")),
    (
        "cuda_runtime.h",
        include_str!("../../include/cuda_runtime.h"),
    ),
    ("errno.h", include_str!("../../include/errno.h")),
    ("float.h", include_str!("../../include/float.h")),
    ("getopt.h", include_str!("../../include/getopt.h")),
    ("inttypes.h", include_str!("../../include/inttypes.h")),
    ("limits.h", include_str!("../../include/limits.h")),
    ("math.h", include_str!("../../include/math.h")),
    ("omp.h", include_str!("../../include/omp.h")),
    ("sched.h", include_str!("../../include/sched.h")),
    ("stdarg.h", include_str!("../../include/stdarg.h")),
    ("stdbool.h", include_str!("../../include/stdbool.h")),
    ("stddef.h", include_str!("../../include/stddef.h")),
    ("stdint.h", include_str!("../../include/stdint.h")),
    ("stdio.h", include_str!("../../include/stdio.h")),
    ("stdlib.h", include_str!("../../include/stdlib.h")),
    ("string.h", include_str!("../../include/string.h")),
    (
        "sys/resource.h",
        include_str!("../../include/sys/resource.h"),
    ),
    ("sys/time.h", include_str!("../../include/sys/time.h")),
    ("time.h", include_str!("../../include/time.h")),
    ("unistd.h", include_str!("../../include/unistd.h")),
];

/// The shipped header called `name`, if any.
pub fn find(name: &str) -> Option<&'static str> {
    HEADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// Every shipped header's name, for suggestions.
pub fn names() -> impl Iterator<Item = &'static str> {
    HEADERS.iter().map(|(n, _)| *n)
}

/// How a shipped header is named in diagnostics and `__FILE__`.
pub fn display_name(name: &str) -> String {
    format!("<parc>/{name}")
}

/// The shipped header declaring function `name`, and its prototype there,
/// for diagnostics.
pub fn declaring(name: &str) -> Option<(&'static str, &'static str)> {
    let call = format!("{name}(");
    HEADERS.iter().find_map(|(header, text)| {
        let line = text.lines().map(str::trim).find(|l| {
            l.ends_with(");")
                && l.match_indices(&call)
                    .any(|(i, _)| l[..i].ends_with([' ', '*']))
        })?;
        Some((*header, line))
    })
}
