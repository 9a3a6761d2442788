//! Kernels on an NVIDIA GPU through the CUDA driver API.
//!
//! The driver is reached through `cudarc` with dynamic loading: nothing
//! of CUDA is needed to build or run parc, and a machine without
//! `libcuda` runs every kernel on the CPU (`gpu.rs`), as before.
//!
//! # Choosing the device
//!
//! Once per process, at the first launch or CUDA memory call:
//! `PARC_DEVICE=cpu` runs kernels on the CPU; `PARC_DEVICE=gpu` requires
//! a GPU (the program ends with the reason when there is none); unset,
//! the GPU is used when the program carries PTX (executables and `parc
//! run` register it at start, see [`parc_rt_set_ptx`]), `libcuda` loads,
//! and device 0 has compute capability 7.0 or more; the CPU otherwise.
//! `PARC_DEVICE_INFO=1` says which on stderr, and why.
//!
//! # Memory
//!
//! With the GPU chosen, `cudaMalloc` is *managed* memory
//! (`cuMemAllocManaged`, zeroed): the GPU's kernels and the host's code
//! can both use it, so a launch the GPU cannot take still runs on the CPU
//! over the same memory. `cudaMemcpy` is `cuMemcpy` (unified addressing
//! works out the direction), `cudaFree` `cuMemFree`,
//! `cudaDeviceSynchronize` `cuCtxSynchronize`.
//!
//! # Launches
//!
//! [`parc_rt_gpu_launch`] runs a launch on the GPU when the GPU is chosen
//! and every non-null pointer argument points into memory from
//! `cudaMalloc` (CUDA's rule: host memory is not the device's); it waits
//! for the kernel (launches are synchronous in ParC). Otherwise it
//! returns 0 and the generated code runs the launch on the CPU. Errors
//! of the driver (a fault in a kernel, a launch it refuses, out of
//! memory) end the program with the driver's message.

use crate::fault;
use cudarc::driver::{result, sys};
use std::collections::{BTreeMap, HashMap};
use std::ffi::{CStr, CString, c_char, c_void};
use std::sync::{Mutex, OnceLock};

/// The program's PTX, registered before `main` runs.
static PTX: OnceLock<CString> = OnceLock::new();

/// The device kernels run on, chosen once.
static DEVICE: OnceLock<Device> = OnceLock::new();

enum Device {
    Cpu,
    Gpu(Gpu),
}

struct Gpu {
    ctx: sys::CUcontext,
    module: sys::CUmodule,
    functions: Mutex<HashMap<String, usize>>,
    /// `cudaMalloc`ed blocks: start → length.
    blocks: Mutex<BTreeMap<u64, u64>>,
}

// SAFETY: the context and module handles are process-wide driver objects;
// the driver API may be called with them from any thread once the context
// is made current there (`Gpu::enter`).
unsafe impl Send for Gpu {}
unsafe impl Sync for Gpu {}

/// Registers the program's PTX (`len` bytes at `text`, not NUL-
/// terminated). Called by the generated main entry before `main`; the
/// first registration wins.
///
/// # Safety
/// `text` points to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_set_ptx(text: *const u8, len: i64) {
    if text.is_null() || len <= 0 {
        return;
    }
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(text, len as usize) };
    if let Ok(c) = CString::new(bytes) {
        let _ = PTX.set(c);
    }
}

/// What `PARC_DEVICE` asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Cpu,
    Gpu,
    Either,
}

fn wanted() -> Wanted {
    match std::env::var("PARC_DEVICE").as_deref() {
        Ok("cpu") => Wanted::Cpu,
        Ok("gpu") => Wanted::Gpu,
        Ok("") | Err(_) => Wanted::Either,
        Ok(other) => fault::die(&format!(
            "PARC_DEVICE={other}: the device must be `gpu` or `cpu`"
        )),
    }
}

fn info(message: &str) {
    if std::env::var_os("PARC_DEVICE_INFO").is_some_and(|v| v != "0") {
        eprintln!("parc: {message}");
    }
}

fn driver_error(what: &str, e: result::DriverError) -> String {
    let text = e
        .error_string()
        .ok()
        .and_then(|s| s.to_str().ok())
        .unwrap_or("unknown error");
    format!("{what}: {text} ({e:?})")
}

fn device() -> &'static Device {
    DEVICE.get_or_init(|| {
        let want = wanted();
        if want == Wanted::Cpu {
            info("kernels run on the CPU (PARC_DEVICE=cpu)");
            return Device::Cpu;
        }
        match open_gpu() {
            Ok((gpu, name)) => {
                info(&format!("kernels run on the GPU: {name}"));
                Device::Gpu(gpu)
            }
            Err(reason) if want == Wanted::Gpu => {
                fault::die(&format!("PARC_DEVICE=gpu, but {reason}"))
            }
            Err(reason) => {
                info(&format!("kernels run on the CPU: {reason}"));
                Device::Cpu
            }
        }
    })
}

/// A GPU kernels could run on (device 0, compute capability 7.0 or
/// more, through a CUDA driver that loads), in words, or why there is
/// none. Opens nothing but the driver.
pub fn probe() -> Result<String, String> {
    find_device().map(|(_, name)| name)
}

/// Loads the driver, makes device 0's primary context and loads the
/// program's PTX into it, or says why not.
fn open_gpu() -> Result<(Gpu, String), String> {
    let (dev, name) = find_device()?;
    let Some(ptx) = PTX.get() else {
        return Err(format!("the program carries no PTX for {name}"));
    };
    // SAFETY: `dev` is valid; the context lives as long as the process.
    let ctx = unsafe { result::primary_ctx::retain(dev) }
        .map_err(|e| driver_error("cannot open a context on the GPU", e))?;
    // SAFETY: `ctx` was just retained.
    unsafe { result::ctx::set_current(ctx) }
        .map_err(|e| driver_error("cannot use the GPU's context", e))?;
    if ptx.as_bytes().windows(6).any(|w| w == b"malloc") {
        // Device `malloc` (the gradients' growing tapes): a larger heap
        // than the driver's 8 MiB.
        let _ = result::ctx::set_limit(sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE, 512 << 20);
    }
    // SAFETY: `ptx` is NUL-terminated PTX text.
    let module = unsafe { result::module::load_data(ptx.as_ptr() as *const c_void) }
        .map_err(|e| driver_error("the CUDA driver rejects the program's PTX", e))?;
    let gpu = Gpu {
        ctx,
        module,
        functions: Mutex::new(HashMap::new()),
        blocks: Mutex::new(BTreeMap::new()),
    };
    Ok((gpu, name))
}

/// Device 0 and its description, if the driver loads and it is recent
/// enough.
fn find_device() -> Result<(sys::CUdevice, String), String> {
    // SAFETY: only probes whether the library loads (cudarc would panic
    // at its first call without it).
    if !unsafe { sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda) on this machine".into());
    }
    result::init().map_err(|e| driver_error("the CUDA driver does not start", e))?;
    let count = result::device::get_count().map_err(|e| driver_error("no GPU", e))?;
    if count < 1 {
        return Err("the CUDA driver finds no GPU".into());
    }
    let dev = result::device::get(0).map_err(|e| driver_error("no GPU 0", e))?;
    let attr = |a| {
        // SAFETY: `dev` is a valid device.
        unsafe { result::device::get_attribute(dev, a) }.unwrap_or(0)
    };
    let major = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    let minor = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    let name = result::device::get_name(dev).unwrap_or_else(|_| "an NVIDIA GPU".into());
    if major < 7 {
        return Err(format!(
            "{name} has compute capability {major}.{minor}; parc's PTX needs 7.0 or more"
        ));
    }
    Ok((dev, format!("{name} (compute capability {major}.{minor})")))
}

impl Gpu {
    /// Makes the context current on this thread (workers call in too).
    fn enter(&self) {
        // SAFETY: the context stays retained for the process.
        if let Err(e) = unsafe { result::ctx::set_current(self.ctx) } {
            fault::die(&driver_error("cannot use the GPU's context", e));
        }
    }

    fn function(&self, name: &str) -> sys::CUfunction {
        let mut functions = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&f) = functions.get(name) {
            return f as sys::CUfunction;
        }
        let symbol = ptx_symbol(name);
        let c = CString::new(symbol).unwrap_or_default();
        // SAFETY: the module is loaded; `c` names an entry of it.
        let f = unsafe { result::module::get_function(self.module, c) }.unwrap_or_else(|e| {
            fault::die(&driver_error(
                &format!("the GPU code has no kernel `{name}`"),
                e,
            ))
        });
        functions.insert(name.to_string(), f as usize);
        f
    }

    /// True if `p` points into a `cudaMalloc`ed block.
    fn owns(&self, p: u64) -> bool {
        let blocks = self.blocks.lock().unwrap_or_else(|p| p.into_inner());
        blocks
            .range(..=p)
            .next_back()
            .is_some_and(|(&start, &len)| p < start + len.max(1))
    }
}

/// The PTX name of kernel `name`: what `parc_ptx::symbol` makes of it
/// (`.` becomes `$`; names the PTX module declares itself get a prefix).
pub fn ptx_symbol(name: &str) -> String {
    const RESERVED: &[&str] = &[
        "vprintf",
        "malloc",
        "free",
        "__parc_malloc",
        "__parc_free",
        "__parc_realloc",
    ];
    let mangled = name.replace('.', "$");
    if RESERVED.contains(&mangled.as_str()) {
        format!("$f${mangled}")
    } else {
        mangled
    }
}

/// The chosen GPU, if kernels run on one.
fn gpu() -> Option<&'static Gpu> {
    match device() {
        Device::Gpu(g) => {
            g.enter();
            Some(g)
        }
        Device::Cpu => None,
    }
}

/// Runs a launch on the GPU if it can (see the module doc): `desc` is
/// `"NAME:KINDS"` (the kernel's parir name, and a letter per parameter,
/// `p` for pointers), `args` the launch's 8-byte argument slots, `grid`
/// and `block` three `i32` each (already checked as the CPU checks
/// them). Returns 1 when the kernel ran on the GPU, 0 when the caller
/// must run it on the CPU.
///
/// # Safety
/// `desc` is a NUL-terminated string; `args` holds one slot per
/// parameter; `grid` and `block` point to three `i32`s each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_gpu_launch(
    desc: *const c_char,
    args: *mut u64,
    grid: *const i32,
    block: *const i32,
) -> i32 {
    if PTX.get().is_none() {
        return 0;
    }
    let Some(gpu) = gpu() else {
        return 0;
    };
    // SAFETY: the caller's contract.
    let desc = unsafe { CStr::from_ptr(desc) }.to_string_lossy();
    let (name, kinds) = desc.rsplit_once(':').unwrap_or((&desc, ""));
    let mut params: Vec<*mut c_void> = Vec::with_capacity(kinds.len());
    for (i, kind) in kinds.bytes().enumerate() {
        // SAFETY: one slot per parameter.
        let slot = unsafe { args.add(i) };
        // SAFETY: likewise.
        let v = unsafe { *slot };
        if kind == b'p' && v != 0 && !gpu.owns(v) {
            info(&format!(
                "kernel `{name}` runs on the CPU: its argument {} is not memory from cudaMalloc",
                i + 1
            ));
            return 0;
        }
        params.push(slot as *mut c_void);
    }
    // SAFETY: three `i32`s each, checked positive by the caller.
    let (g, b) = unsafe {
        (
            std::slice::from_raw_parts(grid, 3),
            std::slice::from_raw_parts(block, 3),
        )
    };
    let f = gpu.function(name);
    // SAFETY: `f` is an entry of the loaded module; `params` points to one
    // slot per parameter (little-endian, so narrower parameters read
    // their low bytes); the slots outlive the launch, which is waited for.
    let launched = unsafe {
        result::launch_kernel(
            f,
            (g[0] as u32, g[1] as u32, g[2] as u32),
            (b[0] as u32, b[1] as u32, b[2] as u32),
            0,
            std::ptr::null_mut(),
            &mut params,
        )
    };
    if let Err(e) = launched.and_then(|()| result::ctx::synchronize()) {
        fault::die(&driver_error(
            &format!("the kernel `{name}` failed on the GPU"),
            e,
        ));
    }
    1
}

/// `cudaMalloc` on the GPU, if kernels run on one: zeroed managed memory.
pub(crate) fn malloc(bytes: u64) -> Option<*mut u8> {
    let gpu = gpu()?;
    // SAFETY: a plain allocation; zeroed before use.
    let p = unsafe {
        result::malloc_managed(
            bytes.max(1) as usize,
            sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL,
        )
    }
    .unwrap_or_else(|e| fault::die(&driver_error("cudaMalloc", e)));
    // SAFETY: `p` has `bytes` bytes.
    if let Err(e) = unsafe { result::memset_d8_sync(p, 0, bytes.max(1) as usize) } {
        fault::die(&driver_error("cudaMalloc", e));
    }
    let mut blocks = gpu.blocks.lock().unwrap_or_else(|p| p.into_inner());
    blocks.insert(p, bytes);
    Some(p as *mut u8)
}

/// `cudaFree` of a block [`malloc`] made; false if it made none at `p`.
pub(crate) fn free(p: *mut u8) -> bool {
    let Some(gpu) = gpu() else {
        return false;
    };
    let mut blocks = gpu.blocks.lock().unwrap_or_else(|p| p.into_inner());
    if blocks.remove(&(p as u64)).is_none() {
        return false;
    }
    // SAFETY: `p` came from `cuMemAllocManaged` and is freed once.
    if let Err(e) = unsafe { result::free_sync(p as sys::CUdeviceptr) } {
        fault::die(&driver_error("cudaFree", e));
    }
    true
}

/// `cudaMemcpy` on the GPU, if kernels run on one.
pub(crate) fn memcpy(dst: *mut u8, src: *const u8, bytes: u64) -> bool {
    if gpu().is_none() {
        return false;
    }
    // SAFETY: unified addressing: both are valid for `bytes` (checked by
    // the caller as on the CPU).
    let r = unsafe { sys::cuMemcpy(dst as u64, src as u64, bytes as usize) }.result();
    if let Err(e) = r {
        fault::die(&driver_error("cudaMemcpy", e));
    }
    true
}

/// `cudaDeviceSynchronize` on the GPU, if kernels run on one.
pub(crate) fn synchronize() {
    if gpu().is_some()
        && let Err(e) = result::ctx::synchronize()
    {
        fault::die(&driver_error("cudaDeviceSynchronize", e));
    }
}

/// Which device kernels run on, in words (for `parc run --device-info`
/// and tests): `gpu: NAME` or `cpu`.
pub fn describe() -> String {
    match device() {
        Device::Gpu(_) => "gpu".into(),
        Device::Cpu => "cpu".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_follow_the_ptx_backend() {
        assert_eq!(ptx_symbol("k.fwd"), "k$fwd");
        assert_eq!(ptx_symbol("saxpy"), "saxpy");
        assert_eq!(ptx_symbol("malloc"), "$f$malloc");
    }
}
