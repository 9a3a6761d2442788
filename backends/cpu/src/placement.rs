//! Code placement: where a function's innermost loops start relative to
//! the 32-byte blocks the processor fetches instructions in.
//!
//! Cranelift lays a function's code out from byte 0 and places functions
//! one after another, so where a hot loop starts depends on everything
//! emitted before it. On the machines we measure (AMD EPYC) that alone
//! moves a loop's speed by a fifth. The stencil's primal, whose inner loop
//! is 122 bytes, with the loop's first byte at each even offset `s` within
//! a 64-byte block (byte-identical code, 5 runs each):
//!
//! | `s` | time (ms) |
//! |---|---|
//! | 0–6 | 68–69 |
//! | 8–26 | 77–85 |
//! | 28–36 | 64–69 |
//! | 38–48 | 77–87 |
//! | 52–62 | 63–65 |
//!
//! The slow placements are those whose first bytes lie well past a 32-byte
//! boundary; a loop starting on one is never among them. So gcc aligns
//! loops (`-falign-loops`), and so does this module, which Cranelift
//! (having no such setting) leaves to its user: a function with loops
//! starts on a 64-byte boundary after `P < 64` bytes of `nop`s (executed
//! once per call, a cycle or two), with `P` chosen to start as many of its
//! innermost loops as possible on a 32-byte boundary, then to have them
//! span the fewest 64-byte blocks, then as small as possible. A function
//! can only shift as a whole, so where its innermost loops start at
//! different offsets modulo 32, some stay where they fall: a loop inside
//! `d` others counts `8^d` times (matmul's row zeroing gives way to its
//! inner product, one level deeper).
//!
//! Loops are read from the machine code's block layout (Cranelift's
//! `machine_code_cfg_info`): an edge to a block at or before its source is
//! a back edge, and the loop is the code from its target to the end of its
//! source block; innermost loops contain no other.
//!
//! Only x86-64 gets padding (its multi-byte `nop`s fill any length);
//! other targets, and functions without loops, are placed as Cranelift
//! places them.

/// The alignment a function with loops gets, and the range of padding.
pub(crate) const FETCH: u32 = 64;

/// Where a loop should start: a multiple of this.
const LOOP_ALIGN: u32 = 32;

/// An innermost loop of a function's machine code: `[start, end)`, and
/// how much it counts: `8^d` for a loop inside `d` others (a guess at how
/// much more often it runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loop {
    start: u32,
    end: u32,
    weight: u64,
}

/// The padding to put before a function's code, `0..FETCH`, given its
/// code's length, its block start offsets and its edges (as `(from, to)`
/// block start offsets); `None` if it has no loop (place it as it is).
pub(crate) fn padding(len: u32, bb_starts: &[u32], bb_edges: &[(u32, u32)]) -> Option<u32> {
    let loops = innermost_loops(len, bb_starts, bb_edges);
    if loops.is_empty() {
        return None;
    }
    (0..FETCH).min_by_key(|&p| {
        let unaligned: u64 = loops
            .iter()
            .filter(|l| (l.start + p) % LOOP_ALIGN != 0)
            .map(|l| l.weight)
            .sum();
        let spanned: u64 = loops
            .iter()
            .map(|l| l.weight * u64::from((l.end - 1 + p) / FETCH - (l.start + p) / FETCH + 1))
            .sum();
        (unaligned, spanned)
    })
}

fn innermost_loops(len: u32, bb_starts: &[u32], bb_edges: &[(u32, u32)]) -> Vec<Loop> {
    let mut starts: Vec<u32> = bb_starts.iter().copied().filter(|&s| s < len).collect();
    starts.sort_unstable();
    starts.dedup();
    // The end of the block starting at `s`: the next distinct start.
    let block_end = |s: u32| {
        let i = starts.partition_point(|&x| x <= s);
        starts.get(i).copied().unwrap_or(len)
    };
    let mut loops: Vec<Loop> = bb_edges
        .iter()
        .filter(|&&(from, to)| to <= from && from < len)
        .map(|&(from, to)| Loop {
            start: to,
            end: block_end(from),
            weight: 1,
        })
        .filter(|l| l.start < l.end)
        .collect();
    loops.sort_unstable_by_key(|l| (l.start, l.end));
    loops.dedup();
    let inside = |inner: &Loop, outer: &Loop| {
        (inner.start, inner.end) != (outer.start, outer.end)
            && outer.start <= inner.start
            && inner.end <= outer.end
    };
    loops
        .iter()
        .filter(|l| !loops.iter().any(|o| inside(o, l)))
        .map(|l| {
            let depth = loops.iter().filter(|o| inside(l, o)).count() as u32;
            Loop {
                weight: 8u64.saturating_pow(depth),
                ..*l
            }
        })
        .collect()
}

/// `n` bytes of x86-64 `nop`s, as few instructions as the recommended
/// multi-byte forms allow.
pub(crate) fn x86_nops(n: u32) -> Vec<u8> {
    const NOPS: [&[u8]; 9] = [
        &[0x90],
        &[0x66, 0x90],
        &[0x0f, 0x1f, 0x00],
        &[0x0f, 0x1f, 0x40, 0x00],
        &[0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00],
        &[0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
        &[0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    ];
    let mut out = Vec::with_capacity(n as usize);
    let mut left = n as usize;
    while left > 0 {
        let k = left.min(NOPS.len());
        out.extend_from_slice(NOPS[k - 1]);
        left -= k;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_starts_on_a_32_byte_boundary() {
        // The stencil's sweep: the loop is bytes 146..268 of 300. At
        // p = 46 it starts at 192 and fits two 64-byte blocks; at p = 14
        // (start 160) it would span three.
        let p = padding(300, &[0, 146, 268], &[(0, 146), (146, 146), (146, 268)]);
        assert_eq!(p, Some(46));
    }

    #[test]
    fn functions_without_loops_are_left_alone() {
        assert_eq!(padding(40, &[0, 20], &[(0, 20)]), None);
    }

    #[test]
    fn only_innermost_loops_count() {
        // An outer loop 10..200 around an inner one 50..120.
        let starts = [0, 10, 50, 120, 200];
        let edges = [
            (0, 10),
            (10, 50),
            (50, 50),
            (50, 120),
            (120, 10),
            (120, 200),
        ];
        assert_eq!(
            innermost_loops(220, &starts, &edges),
            vec![Loop {
                start: 50,
                end: 120,
                weight: 8
            }]
        );
        assert_eq!(padding(220, &starts, &edges), Some(14));
    }

    #[test]
    fn deeper_loops_win() {
        // In an outer loop 0..200: a loop at 8..30 and, inside 40..180, a
        // loop at 70..90 (residues 8 and 6 mod 32).
        let starts = [0, 8, 30, 40, 70, 90, 180];
        let edges = [(8, 8), (70, 70), (90, 40), (180, 0)];
        let p = padding(200, &starts, &edges).expect("loops");
        assert_eq!((70 + p) % 32, 0);
    }

    #[test]
    fn the_most_loops_that_can_be_aligned_are() {
        // Loops at 8, 40 and 70: the first two share a residue mod 32.
        let starts = [0, 8, 30, 40, 60, 70, 90];
        let edges = [(8, 8), (40, 40), (70, 70)];
        let p = padding(100, &starts, &edges).expect("loops");
        assert_eq!((8 + p) % 32, 0);
        assert_eq!((40 + p) % 32, 0);
    }

    #[test]
    fn nops_have_the_length_asked() {
        for n in 0..FETCH {
            assert_eq!(x86_nops(n).len(), n as usize);
        }
        assert_eq!(x86_nops(11), [&x86_nops(9)[..], &[0x66, 0x90]].concat());
    }
}
