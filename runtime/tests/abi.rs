//! The symbol table, the group layout, and the small entry points.

use parc_runtime::clib::{parc_rt_calloc, parc_rt_malloc, parc_rt_wtime};
use parc_runtime::sched::{
    parc_rt_enter, parc_rt_group_init, parc_rt_spawn, parc_rt_sync, parc_rt_worker_id,
};
use parc_runtime::{ParcGroup, symbols, with_workers};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

/// Every `extern "C"` entry point and exported static (`parc_rt_*`)
/// defined in `src/` is in `symbols()`, exactly once, with a non-null
/// address.
#[test]
fn symbol_table_is_complete() {
    let table = symbols();
    let names: BTreeSet<&str> = table.iter().map(|(n, _)| *n).collect();
    assert_eq!(names.len(), table.len(), "duplicate names in symbols()");
    assert!(table.iter().all(|(_, p)| !p.is_null()));
    let mut defined = BTreeSet::new();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    for entry in std::fs::read_dir(src).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            let found = ["extern \"C\" fn ", "pub static "]
                .iter()
                .find_map(|k| line.find(&format!("{k}parc_rt_")).map(|i| i + k.len()));
            if let Some(i) = found {
                let rest = &line[i..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                defined.insert(name);
            }
        }
    }
    let names: BTreeSet<String> = names.into_iter().map(String::from).collect();
    assert_eq!(defined, names);
}

#[test]
fn group_layout() {
    assert_eq!(size_of::<ParcGroup>(), 32);
    assert_eq!(align_of::<ParcGroup>(), 8);
    // All-zero bytes are an empty group.
    let mut raw = [0u64; 4];
    let g = raw.as_mut_ptr().cast::<ParcGroup>();
    // SAFETY: 32 zeroed, 8-aligned bytes are a valid group.
    unsafe {
        assert_eq!((*g).pending(), 0);
        parc_rt_sync(g);
        raw = [7; 4];
        parc_rt_group_init(raw.as_mut_ptr().cast());
    }
    assert_eq!(raw, [0; 4]);
}

extern "C" fn add_one(ctx: *mut u8) {
    // SAFETY: ctx holds a pointer to a counter.
    let counter = unsafe { &**(ctx as *const *const AtomicU64) };
    counter.fetch_add(1, Ordering::Relaxed);
}

extern "C" fn entered(ctx: *mut u8) {
    // On a worker: the id is a worker's.
    assert!(parc_rt_worker_id() < parc_runtime::sched::parc_rt_num_workers());
    let mut g = ParcGroup::new();
    for _ in 0..100 {
        // SAFETY: ctx is the counter pointer, copied per spawn.
        unsafe { parc_rt_spawn(&mut g, add_one, (&ctx as *const *mut u8).cast(), 8) };
    }
    // SAFETY: live group.
    unsafe { parc_rt_sync(&mut g) };
}

#[test]
fn enter_runs_on_a_worker() {
    let counter = AtomicU64::new(0);
    // SAFETY: `entered` takes the counter's address.
    unsafe { parc_rt_enter(entered, (&counter as *const AtomicU64).cast_mut().cast()) };
    assert_eq!(counter.load(Ordering::Relaxed), 100);
}

/// A spawned task may recurse deeply: workers have 16 MiB stacks.
extern "C" fn deep_task(ctx: *mut u8) {
    fn deep(n: u32) -> u64 {
        let pad = std::hint::black_box([n as u64; 16]);
        if n == 0 {
            0
        } else {
            std::hint::black_box(deep(n - 1)) + pad[1]
        }
    }
    // SAFETY: ctx holds a `u64` result slot pointer.
    unsafe { **(ctx as *const *mut u64) = deep(40_000) };
}

#[test]
fn tasks_have_big_stacks() {
    let mut out = 0u64;
    let p = &mut out as *mut u64 as usize;
    with_workers(2, move || {
        let mut g = ParcGroup::new();
        // SAFETY: the slot outlives the sync.
        unsafe {
            parc_rt_spawn(&mut g, deep_task, (&p as *const usize).cast(), 8);
            parc_rt_sync(&mut g);
        }
    });
    assert_eq!(out, (1..=40_000u64).sum::<u64>());
}

#[test]
fn allocation_and_clock() {
    let p = parc_rt_malloc(0);
    assert!(!p.is_null());
    let q = parc_rt_calloc(100, 8);
    // SAFETY: 800 zeroed bytes.
    assert!(
        unsafe { std::slice::from_raw_parts(q, 800) }
            .iter()
            .all(|&b| b == 0)
    );
    // SAFETY: both from the C allocator.
    unsafe {
        libc::free(p.cast());
        libc::free(q.cast());
    }
    let t0 = parc_rt_wtime();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let t1 = parc_rt_wtime();
    assert!(t1 - t0 >= 0.019 && t1 - t0 < 5.0, "{t0} {t1}");
}
