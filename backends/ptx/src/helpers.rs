//! The device runtime: PTX's system calls (`vprintf`, `malloc`, `free`,
//! provided by the CUDA driver) and parc's own allocation helpers over
//! them, written in PTX.
//!
//! Device `malloc` keeps each block's size in a 16-byte header before
//! it, which `realloc` (the AD's tapes grow with it) needs to copy the
//! old contents; `free` hands back the header too. A full device heap is
//! a run-time error ("out of memory"), as on the CPU. The runtime sizes
//! the heap when it loads a module that calls `malloc`.

use crate::Needs;

/// Names this module's PTX declares itself; functions of the program
/// with these names are renamed (see [`crate::symbol`]).
pub(crate) const RESERVED: &[&str] = &[
    "vprintf",
    "malloc",
    "free",
    "__parc_malloc",
    "__parc_free",
    "__parc_realloc",
];

/// `malloc(bytes) -> ptr`, faulting when the heap is full.
pub(crate) const MALLOC: &str = "__parc_malloc";
/// `free(ptr)` of what [`MALLOC`] returned (or null).
pub(crate) const FREE: &str = "__parc_free";
/// `realloc(ptr, bytes) -> ptr`.
pub(crate) const REALLOC: &str = "__parc_realloc";

/// The message a full device heap prints before the thread traps.
pub(crate) const OOM_MESSAGE: &str = "run-time error: out of memory (the GPU's heap is full)\n";

pub(crate) fn declarations(needs: &Needs) -> Vec<String> {
    let mut out = Vec::new();
    if needs.vprintf || needs.malloc {
        out.push(
            ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
                .to_string(),
        );
    }
    if needs.malloc {
        out.push(
            ".extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);\n"
                .to_string(),
        );
        out.push(".extern .func free (.param .b64 free_param_0);\n".to_string());
        out.push(format!(
            ".func (.param .b64 func_retval0) {MALLOC} (.param .b64 p0);\n\
             .func {FREE} (.param .b64 p0);\n\
             .func (.param .b64 func_retval0) {REALLOC} (.param .b64 p0, .param .b64 p1);\n"
        ));
    }
    if !out.is_empty() {
        out.push('\n'.to_string());
    }
    out
}

/// The helpers' bodies. `oom` is the symbol of the out-of-memory
/// message (a `.global` string).
pub(crate) fn definitions(needs: &Needs, oom: Option<&str>) -> Vec<String> {
    let Some(oom) = oom.filter(|_| needs.malloc) else {
        return Vec::new();
    };
    vec![
        format!(
            ".func (.param .b64 func_retval0) {MALLOC} (.param .b64 p0)
{{
	.reg .pred %p<2>;
	.reg .b64 %rd<6>;
	ld.param.b64 %rd1, [p0];
	add.s64 %rd2, %rd1, 16;
	{{
	.param .b64 a0;
	st.param.b64 [a0], %rd2;
	.param .b64 r0;
	call (r0), malloc, (a0);
	ld.param.b64 %rd3, [r0];
	}}
	setp.eq.s64 %p1, %rd3, 0;
	@%p1 bra $L__oom;
	st.u64 [%rd3], %rd1;
	add.s64 %rd4, %rd3, 16;
	st.param.b64 [func_retval0], %rd4;
	ret;
$L__oom:
	mov.u64 %rd5, {oom};
	cvta.global.u64 %rd5, %rd5;
	{{
	.param .b64 a0;
	st.param.b64 [a0], %rd5;
	.param .b64 a1;
	st.param.b64 [a1], 0;
	.param .b32 r0;
	call (r0), vprintf, (a0, a1);
	}}
	trap;
}}
"
        ),
        format!(
            ".func {FREE} (.param .b64 p0)
{{
	.reg .pred %p<2>;
	.reg .b64 %rd<3>;
	ld.param.b64 %rd1, [p0];
	setp.eq.s64 %p1, %rd1, 0;
	@%p1 bra $L__done;
	add.s64 %rd2, %rd1, -16;
	{{
	.param .b64 a0;
	st.param.b64 [a0], %rd2;
	call free, (a0);
	}}
$L__done:
	ret;
}}
"
        ),
        format!(
            ".func (.param .b64 func_retval0) {REALLOC} (.param .b64 p0, .param .b64 p1)
{{
	.reg .pred %p<3>;
	.reg .b16 %rs<2>;
	.reg .b64 %rd<10>;
	ld.param.b64 %rd1, [p0];
	ld.param.b64 %rd2, [p1];
	{{
	.param .b64 a0;
	st.param.b64 [a0], %rd2;
	.param .b64 r0;
	call (r0), {MALLOC}, (a0);
	ld.param.b64 %rd3, [r0];
	}}
	setp.eq.s64 %p1, %rd1, 0;
	@%p1 bra $L__done;
	ld.u64 %rd4, [%rd1+-16];
	min.u64 %rd5, %rd4, %rd2;
	mov.u64 %rd6, 0;
$L__copy:
	setp.ge.u64 %p2, %rd6, %rd5;
	@%p2 bra $L__copied;
	add.s64 %rd7, %rd1, %rd6;
	ld.u8 %rs1, [%rd7];
	add.s64 %rd8, %rd3, %rd6;
	st.u8 [%rd8], %rs1;
	add.s64 %rd6, %rd6, 1;
	bra $L__copy;
$L__copied:
	{{
	.param .b64 a0;
	st.param.b64 [a0], %rd1;
	call {FREE}, (a0);
	}}
$L__done:
	st.param.b64 [func_retval0], %rd3;
	ret;
}}
"
        ),
    ]
}
