//! `<string.h>` on the interpreter's checked memory: every byte a function
//! reads or writes is checked as a load or store of the program would be,
//! so a missing terminator or a short destination is a fault at the call.
//! The comparisons call the host C library on copies, so their results
//! (glibc's byte differences, not just their signs) are those of native
//! code, which calls the same functions; the rest are written here, since
//! they write memory or return pointers into their arguments.

use super::Fault;
use super::memory::{Kind, Memory, Site};
use std::ffi::CString;

/// A copy of the NUL-terminated string at `addr` (at most `limit` bytes,
/// needing no terminator then) for the host library.
fn copy(mem: &Memory, addr: u64, limit: Option<usize>) -> Result<CString, Fault> {
    let s = string(mem, addr, limit)?;
    Ok(CString::new(s).expect("read_cstr stops at the first NUL"))
}

/// The bytes of the string at `addr`, without its NUL.
fn string(mem: &Memory, addr: u64, limit: Option<usize>) -> Result<&[u8], Fault> {
    if addr == 0 {
        return Err(Fault::msg("null pointer passed as a string"));
    }
    Ok(mem.read_cstr(addr, limit)?)
}

/// `n` as a length to read (more than memory holds faults anyway).
fn limit(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

pub(crate) fn strlen(mem: &Memory, s: u64) -> Result<u64, Fault> {
    Ok(string(mem, s, None)?.len() as u64)
}

pub(crate) fn strncmp(mem: &Memory, a: u64, b: u64, n: u64) -> Result<i32, Fault> {
    if n == 0 {
        return Ok(0);
    }
    let (a, b) = (copy(mem, a, Some(limit(n)))?, copy(mem, b, Some(limit(n)))?);
    // SAFETY: both are NUL-terminated; strncmp reads no further.
    Ok(unsafe { libc::strncmp(a.as_ptr(), b.as_ptr(), limit(n)) })
}

pub(crate) fn strcasecmp(mem: &Memory, a: u64, b: u64) -> Result<i32, Fault> {
    let (a, b) = (copy(mem, a, None)?, copy(mem, b, None)?);
    // SAFETY: both are NUL-terminated.
    Ok(unsafe { libc::strcasecmp(a.as_ptr(), b.as_ptr()) })
}

pub(crate) fn strncasecmp(mem: &Memory, a: u64, b: u64, n: u64) -> Result<i32, Fault> {
    if n == 0 {
        return Ok(0);
    }
    let (a, b) = (copy(mem, a, Some(limit(n)))?, copy(mem, b, Some(limit(n)))?);
    // SAFETY: both are NUL-terminated; strncasecmp reads no further.
    Ok(unsafe { libc::strncasecmp(a.as_ptr(), b.as_ptr(), limit(n)) })
}

pub(crate) fn memcmp(mem: &Memory, a: u64, b: u64, n: u64) -> Result<i32, Fault> {
    if n == 0 {
        return Ok(0);
    }
    let (a, b) = (mem.read(a, n)?, mem.read(b, n)?);
    // SAFETY: both slices hold `n` bytes.
    Ok(unsafe { libc::memcmp(a.as_ptr().cast(), b.as_ptr().cast(), a.len()) })
}

/// Writes `bytes` and a NUL at `dst`.
fn put_string(mem: &mut Memory, dst: u64, bytes: &[u8]) -> Result<(), Fault> {
    let out = mem.write(dst, bytes.len() as u64 + 1)?;
    out[..bytes.len()].copy_from_slice(bytes);
    out[bytes.len()] = 0;
    Ok(())
}

/// `strcpy(dst, src)`; returns `dst`.
pub(crate) fn strcpy(mem: &mut Memory, dst: u64, src: u64) -> Result<u64, Fault> {
    let s = string(mem, src, None)?.to_vec();
    put_string(mem, dst, &s)?;
    Ok(dst)
}

/// `strncpy(dst, src, n)`: exactly `n` bytes, NUL-padded, unterminated
/// when `src` has `n` or more.
pub(crate) fn strncpy(mem: &mut Memory, dst: u64, src: u64, n: u64) -> Result<u64, Fault> {
    if n == 0 {
        return Ok(dst);
    }
    let s = string(mem, src, Some(limit(n)))?.to_vec();
    let out = mem.write(dst, n)?;
    out[..s.len()].copy_from_slice(&s);
    out[s.len()..].fill(0);
    Ok(dst)
}

/// `strcat(dst, src)`; returns `dst`.
pub(crate) fn strcat(mem: &mut Memory, dst: u64, src: u64) -> Result<u64, Fault> {
    let end = dst.wrapping_add(strlen(mem, dst)?);
    let s = string(mem, src, None)?.to_vec();
    put_string(mem, end, &s)?;
    Ok(dst)
}

/// `strncat(dst, src, n)`: at most `n` bytes of `src`, then a NUL.
pub(crate) fn strncat(mem: &mut Memory, dst: u64, src: u64, n: u64) -> Result<u64, Fault> {
    let end = dst.wrapping_add(strlen(mem, dst)?);
    let s = string(mem, src, Some(limit(n)))?.to_vec();
    put_string(mem, end, &s)?;
    Ok(dst)
}

/// `memmove(dst, src, n)`; returns `dst`.
pub(crate) fn memmove(mem: &mut Memory, dst: u64, src: u64, n: u64) -> Result<u64, Fault> {
    mem.copy(dst, src, n)?;
    Ok(dst)
}

/// `strchr(s, c)`: the first `(char)c` in `s`, its terminator included;
/// 0 (null) if none.
pub(crate) fn strchr(mem: &Memory, s: u64, c: u64) -> Result<u64, Fault> {
    let bytes = string(mem, s, None)?;
    let c = c as u8;
    Ok(match bytes.iter().position(|&b| b == c) {
        Some(i) => s + i as u64,
        None if c == 0 => s + bytes.len() as u64,
        None => 0,
    })
}

/// `strrchr(s, c)`: the last `(char)c` in `s`, its terminator included.
pub(crate) fn strrchr(mem: &Memory, s: u64, c: u64) -> Result<u64, Fault> {
    let bytes = string(mem, s, None)?;
    let c = c as u8;
    Ok(match bytes.iter().rposition(|&b| b == c) {
        Some(i) => s + i as u64,
        None if c == 0 => s + bytes.len() as u64,
        None => 0,
    })
}

/// `strstr(haystack, needle)`: the first occurrence; `haystack` for an
/// empty needle.
pub(crate) fn strstr(mem: &Memory, haystack: u64, needle: u64) -> Result<u64, Fault> {
    let h = string(mem, haystack, None)?;
    let n = string(mem, needle, None)?;
    if n.is_empty() {
        return Ok(haystack);
    }
    Ok(h.windows(n.len())
        .position(|w| w == n)
        .map_or(0, |i| haystack + i as u64))
}

/// `memchr(s, c, n)`: reads byte by byte and stops at the first match, as
/// C says, so `n` may run past the object after a match.
pub(crate) fn memchr(mem: &Memory, s: u64, c: u64, n: u64) -> Result<u64, Fault> {
    let c = c as u8;
    for i in 0..n {
        let at = s.wrapping_add(i);
        if mem.read(at, 1)?[0] == c {
            return Ok(at);
        }
    }
    Ok(0)
}

/// `strdup(s)`: a copy in a new heap block (`free` frees it).
pub(crate) fn strdup(mem: &mut Memory, s: u64, site: Site) -> Result<u64, Fault> {
    let bytes = string(mem, s, None)?.to_vec();
    let p = mem.alloc(bytes.len() as u64 + 1, Kind::Heap, site)?;
    put_string(mem, p, &bytes)?;
    Ok(p)
}

/// `strspn(s, set)` (`inside`) or `strcspn(s, set)`: the length of the
/// start of `s` whose bytes are (or are not) in `set`.
pub(crate) fn strspn(mem: &Memory, s: u64, set: u64, inside: bool) -> Result<u64, Fault> {
    let set = string(mem, set, None)?.to_vec();
    let bytes = string(mem, s, None)?;
    Ok(bytes
        .iter()
        .position(|b| set.contains(b) != inside)
        .unwrap_or(bytes.len()) as u64)
}

/// `strpbrk(s, set)`: the first byte of `s` in `set`, or null.
pub(crate) fn strpbrk(mem: &Memory, s: u64, set: u64) -> Result<u64, Fault> {
    let n = strspn(mem, s, set, false)?;
    Ok(if n == strlen(mem, s)? { 0 } else { s + n })
}

/// `strtok(s, delim)`: skips delimiters from `s` (null: from where the
/// last call stopped, kept in `next`), and ends the token that follows
/// with a NUL written over the delimiter after it; null when no token is
/// left.
pub(crate) fn strtok(mem: &mut Memory, next: &mut u64, s: u64, delim: u64) -> Result<u64, Fault> {
    let from = if s == 0 { *next } else { s };
    if from == 0 {
        return Ok(0);
    }
    let start = from + strspn(mem, from, delim, true)?;
    if mem.read(start, 1)?[0] == 0 {
        *next = 0;
        return Ok(0);
    }
    let end = start + strspn(mem, start, delim, false)?;
    if mem.read(end, 1)?[0] == 0 {
        *next = 0;
    } else {
        mem.write(end, 1)?[0] = 0;
        *next = end + 1;
    }
    Ok(start)
}
