func @f(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v9
    return v1
}
