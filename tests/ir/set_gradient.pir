; `set` and its gradient request as lowering gives them (from a ParC file
; `set_gradient.pc`: parallel_for (i) a[i] = val * a[i]; and main calling
; __enzyme_autodiff(set, a, da, 2.0, 5)), made with `parc build
; set_gradient.pc --O0 --dump-after lower`: the AD runs on it when parc
; reads it, before or after the optimizer as for ParC input.
source "set_gradient.pc"
global @.str.0 const size 24 align 1 = "d_val = %g, da[3] = %g\0A\00"

func @set(ptr "a", f64 "val", i32 "n") {
block0(v0: ptr, v1: f64, v2: i32):
    v3 = alloca 8, align 8 @3:18
    v4 = alloca 8, align 8 @3:28
    v5 = alloca 4, align 4 @3:37
    store v0, v3 @3:1
    store v1, v4 @3:1
    store v2, v5 @3:1
    v6 = iconst.i32 0 @5:27
    v7 = load.i32 v5 @5:34
    v8 = iconst.i32 1 @5:37
    jump block1(v6) @5:5
block1(v9: i32):
    v10 = icmp slt v9, v7 @5:5
    brif v10, block2, block6 @5:5
block2:
    detach within sr0, block3, block5 @5:5
block3:
    v11 = alloca 4, align 4 @5:23
    store v9, v11 @5:5
    v12 = load.ptr v3 @6:9
    v13 = load.i32 v11 @6:11
    v14 = sext.i64 v13 @6:11
    v15 = iconst.i64 8 @6:9
    v16 = imul v14, v15 @6:9
    v17 = ptradd v12, v16 @6:9
    v18 = load.f64 v4 @6:16
    v19 = load.ptr v3 @6:22
    v20 = load.i32 v11 @6:24
    v21 = sext.i64 v20 @6:24
    v22 = iconst.i64 8 @6:22
    v23 = imul v21, v22 @6:22
    v24 = ptradd v19, v23 @6:22
    v25 = load.f64 v24 @6:22
    v26 = fmul v18, v25 @6:16
    store v26, v17 @6:9
    jump block4 @6:9
block4:
    reattach within sr0, block5 @5:5
block5:
    v27 = iadd v9, v8 @5:5
    jump block1(v27) @5:5
block6:
    sync within sr0, block7 @5:5
block7:
    return @7:1
}

func @main() -> i32 {
block0:
    v0 = alloca 40, align 8 @11:12
    v1 = alloca 40, align 8 @12:12
    v2 = alloca 8, align 8 @13:12
    v3 = iconst.i32 0 @11:12
    v4 = iconst.i64 40 @11:12
    memset v0, v3, v4 @11:12
    v5 = fconst.f64 1.0 @11:20
    store v5, v0 @11:12
    v6 = iconst.i64 8 @11:12
    v7 = ptradd v0, v6 @11:12
    v8 = fconst.f64 2.0 @11:25
    store v8, v7 @11:12
    v9 = iconst.i64 16 @11:12
    v10 = ptradd v0, v9 @11:12
    v11 = fconst.f64 3.0 @11:30
    store v11, v10 @11:12
    v12 = iconst.i64 24 @11:12
    v13 = ptradd v0, v12 @11:12
    v14 = fconst.f64 4.0 @11:35
    store v14, v13 @11:12
    v15 = iconst.i64 32 @11:12
    v16 = ptradd v0, v15 @11:12
    v17 = fconst.f64 5.0 @11:40
    store v17, v16 @11:12
    v18 = iconst.i32 0 @12:12
    v19 = iconst.i64 40 @12:12
    memset v1, v18, v19 @12:12
    v20 = fconst.f64 1.0 @12:21
    store v20, v1 @12:12
    v21 = iconst.i64 8 @12:12
    v22 = ptradd v1, v21 @12:12
    v23 = fconst.f64 1.0 @12:26
    store v23, v22 @12:12
    v24 = iconst.i64 16 @12:12
    v25 = ptradd v1, v24 @12:12
    v26 = fconst.f64 1.0 @12:31
    store v26, v25 @12:12
    v27 = iconst.i64 24 @12:12
    v28 = ptradd v1, v27 @12:12
    v29 = fconst.f64 1.0 @12:36
    store v29, v28 @12:12
    v30 = iconst.i64 32 @12:12
    v31 = ptradd v1, v30 @12:12
    v32 = fconst.f64 1.0 @12:41
    store v32, v31 @12:12
    v33 = fconst.f64 2.0 @13:49
    v34 = iconst.i32 5 @13:54
    v35 = call @set.grad(v0, v1, v33, v34) @13:19
    store v35, v2 @13:12
    v36 = global_addr @.str.0 @14:12
    v37 = load.f64 v2 @14:40
    v38 = iconst.i64 3 @14:49
    v39 = iconst.i64 8 @14:46
    v40 = imul v38, v39 @14:46
    v41 = ptradd v1, v40 @14:46
    v42 = load.f64 v41 @14:46
    v43 = printf v36, v37, v42 @14:5
    v44 = iconst.i32 0 @15:12
    return v44 @15:5
}

declare @set.grad(ptr, ptr, f64, i32) -> f64

gradient @set.grad = @set(dup, active, const) local @13:19
