; test: verify
; error: in @bad_kernel: a kernel cannot return a value [module]
; error: in @bad_kernel, block0, `launch @ok_kernel() grid(v0, v0, v0) block(v0, v0, v0)`: `launch` outside host code [gpu]
; error: in @bad_kernel, block0, `detach within sr0, block1, block2`: `detach` in a kernel or device function [gpu]
; error: in @bad_kernel, block1, `reattach within sr0, block2`: `reattach` in a kernel or device function [gpu]
; error: in @bad_kernel, block2, `sync within sr0, block3`: `sync` in a kernel or device function [gpu]
; error: in @host, block0, `v0 = thread_idx.x`: GPU-only intrinsic `thread_idx.x` in a host function [gpu]
; error: in @host, block0, `barrier`: GPU-only intrinsic `barrier` in a host function [gpu]
; error: in @host, block0, `v1 = global_addr @tile`: shared global @tile used in a host function [gpu]
; error: in @host, block0, `v2 = call @helper()`: host code calls device function @helper [gpu]
; GPU rules: GPU-only intrinsics and shared memory only in kernels and
; device functions; device functions called only from GPU code; launches
; only from host code; no Tapir terminators on the GPU; kernels return
; nothing.
global @tile shared size 64 align 8 = zeroinit
func device @helper() -> i32 {
block0:
    v0 = thread_idx.y
    return v0
}
func kernel @bad_kernel(i32) -> i32 {
block0(v0: i32):
    launch @ok_kernel() grid(v0, v0, v0) block(v0, v0, v0)
    detach within sr0, block1, block2
block1:
    reattach within sr0, block2
block2:
    sync within sr0, block3
block3:
    return v0
}
func kernel convergent @ok_kernel() {
block0:
    v0 = call @helper()
    barrier
    return
}
func convergent @host() -> i32 {
block0:
    v0 = thread_idx.x
    barrier
    v1 = global_addr @tile
    v2 = call @helper()
    return v2
}
