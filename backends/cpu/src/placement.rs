//! Code placement: where a function's innermost loops fall relative to
//! the 64-byte blocks the processor fetches and caches decoded
//! instructions in.
//!
//! Cranelift lays a function's code out from byte 0 and places functions
//! one after another, so where a hot loop starts depends on everything
//! emitted before it. On the machines we measure (AMD EPYC, Zen 3) a small
//! loop that straddles a 64-byte boundary runs at about half the speed of
//! the same bytes inside one block: a loop of `L` bytes starting at offset
//! `s` modulo 64 is fast exactly where `s + L ≤ 64`, in parc's code and in
//! gcc's alike (gcc without `-falign-loops=64`). So a function with loops starts on a
//! 64-byte boundary after `P < 64` bytes of `nop`s (executed once per
//! call, a cycle or two), with `P` chosen so that its innermost loops
//! span as few 64-byte blocks as their lengths allow, then as small as
//! possible: a function whose loops already fall well is not padded. A
//! function can only shift as a whole, so where two loops want different
//! shifts, the deeper wins: a loop inside `d` others counts `8^d` (matmul's
//! row zeroing gives way to its inner product, one level deeper).
//!
//! Only the span is asked for, not a start on a 32-byte boundary (what
//! gcc's `-falign-loops=32` would do): aligning every innermost loop's start
//! can make a loop straddle a boundary it did not straddle before (a
//! 52-byte loop starting at 32), see `bench/README.md`.
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
        loops
            .iter()
            .map(|l| {
                let spanned = (l.end - 1 + p) / FETCH - (l.start + p) / FETCH + 1;
                let fewest = (l.end - l.start).div_ceil(FETCH);
                l.weight.saturating_mul(u64::from(spanned - fewest))
            })
            .fold(0u64, u64::saturating_add)
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

    /// The 64-byte blocks `[start, end)` spans when shifted by `p`.
    fn blocks(start: u32, end: u32, p: u32) -> u32 {
        (end - 1 + p) / FETCH - (start + p) / FETCH + 1
    }

    #[test]
    fn a_loop_spans_as_few_blocks_as_its_length_allows() {
        // The stencil's sweep: the loop is bytes 146..268 of 300, spanning
        // three blocks as it falls; from p = 46 (start 192) to 52 it spans
        // two.
        let p = padding(300, &[0, 146, 268], &[(0, 146), (146, 146), (146, 268)]);
        assert_eq!(p, Some(46));
        assert_eq!(blocks(146, 268, 0), 3);
        assert_eq!(blocks(146, 268, 46), 2);
    }

    #[test]
    fn a_small_loop_does_not_straddle_a_block_boundary() {
        // matmul's inner product: 34 bytes at 176, crossing 192 as it falls.
        let p = padding(271, &[0, 176, 210], &[(0, 176), (176, 176), (176, 210)]).expect("a loop");
        assert_eq!(p, 16);
        assert_eq!(blocks(176, 210, p), 1);
    }

    #[test]
    fn functions_without_loops_are_left_alone() {
        assert_eq!(padding(40, &[0, 20], &[(0, 20)]), None);
    }

    #[test]
    fn loops_that_fall_well_are_not_moved() {
        // An outer loop 10..200 around an inner one 50..120, which spans
        // two blocks, as few as its 70 bytes can.
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
        assert_eq!(padding(220, &starts, &edges), Some(0));
    }

    #[test]
    fn deeper_loops_win() {
        // In an outer loop 0..220: a loop at 40..90 and, inside 100..210,
        // a loop at 150..200. The first fits one block for p in 24..=38,
        // the second for p in 42..=56.
        let starts = [0, 40, 90, 100, 150, 200, 210];
        let edges = [(40, 40), (150, 150), (200, 100), (210, 0)];
        assert_eq!(padding(220, &starts, &edges), Some(42));
        assert_eq!(blocks(40, 90, 42), 2);
        assert_eq!(blocks(150, 200, 42), 1);
    }

    #[test]
    fn the_most_loops_that_can_fit_do() {
        // Three 30-byte loops at the same depth, at 20, 84 and 130, each
        // inside one block already.
        let starts = [0, 20, 50, 84, 114, 130, 160];
        let edges = [(20, 20), (84, 84), (130, 130)];
        assert_eq!(padding(170, &starts, &edges), Some(0));
        // 40-byte loops at 50 and 114 (one residue) fit one block for p in
        // 14..=38, one at 210 for p in 46..=63 or 0..=6: the two win, at
        // the smallest shift that fits them, and the third straddles.
        let starts = [0, 50, 90, 114, 154, 210, 250];
        let edges = [(50, 50), (114, 114), (210, 210)];
        let p = padding(260, &starts, &edges).expect("loops");
        assert_eq!(p, 14);
        assert_eq!(blocks(50, 90, p) + blocks(114, 154, p), 2);
        assert_eq!(blocks(210, 250, p), 2);
    }

    #[test]
    fn deep_nests_do_not_overflow_the_weights() {
        // 30 loops, each inside the last: `[k, 100 - k)` for k < 30.
        let starts: Vec<u32> = (0..100).collect();
        let edges: Vec<(u32, u32)> = (0..30).map(|k| (99 - k, k)).collect();
        let p = padding(100, &starts, &edges).expect("loops");
        assert_eq!(blocks(29, 71, p), 1);
    }

    #[test]
    fn nops_have_the_length_asked() {
        for n in 0..FETCH {
            assert_eq!(x86_nops(n).len(), n as usize);
        }
        assert_eq!(x86_nops(11), [&x86_nops(9)[..], &[0x66, 0x90]].concat());
    }
}
