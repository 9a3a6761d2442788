//! `printf` formatting, byte for byte against what a gcc-built C program
//! prints (glibc), with arguments passed as generated code passes them.

use parc_runtime::printf::{ARG_DOUBLE, ARG_INT, ARG_PTR, format};

enum A<'a> {
    I(i64),
    D(f64),
    S(&'a [u8]),
    P(usize),
}

fn fmt(f: &str, args: &[A]) -> Result<String, String> {
    let slots: Vec<(u64, u8)> = args
        .iter()
        .map(|a| match a {
            A::I(v) => (*v as u64, ARG_INT),
            A::D(v) => (v.to_bits(), ARG_DOUBLE),
            A::S(s) => (s.as_ptr() as u64, ARG_PTR),
            A::P(p) => (*p as u64, ARG_PTR),
        })
        .collect();
    let mut out = Vec::new();
    // SAFETY: every `S` is NUL-terminated.
    unsafe { format(f.as_bytes(), &slots, &mut out) }.map_err(|e| format!("printf: {e}"))?;
    Ok(String::from_utf8(out).unwrap())
}

fn ok(f: &str, args: &[A]) -> String {
    fmt(f, args).unwrap()
}

use A::*;

#[test]
fn integers() {
    assert_eq!(
        ok(
            "%d|%i|%5d|%-5d|%05d|%+d|% d",
            &[I(42), I(-7), I(42), I(42), I(-42), I(3), I(3)]
        ),
        "42|-7|   42|42   |-0042|+3| 3"
    );
    // `%d` reads an int: the slot is narrowed.
    assert_eq!(ok("%d %u", &[I(0x1_0000_0005), I(-1)]), "5 4294967295");
    assert_eq!(
        ok(
            "%ld %lu %lld %llu",
            &[I(i64::MIN), I(-1), I(i64::MAX), I(1 << 40)]
        ),
        "-9223372036854775808 18446744073709551615 9223372036854775807 1099511627776"
    );
    assert_eq!(
        ok(
            "%x %X %#x %o %#o %08x",
            &[I(255), I(255), I(255), I(8), I(8), I(0xbeef)]
        ),
        "ff FF 0xff 10 010 0000beef"
    );
    assert_eq!(ok("%lx", &[I(-1)]), "ffffffffffffffff");
    assert_eq!(
        ok("%hd %hhd %hhu", &[I(70000), I(300), I(-1)]),
        "4464 44 255"
    );
    assert_eq!(
        ok("%.3d|%8.3d|%-8.3d|%.0d|", &[I(7), I(-7), I(7), I(0)]),
        "007|    -007|007     ||"
    );
}

#[test]
fn floating() {
    assert_eq!(
        ok(
            "%f %.2f %10.3f %-10.1f|",
            &[D(1.23456), D(2.675), D(-1.0), D(0.05)]
        ),
        "1.234560 2.67     -1.000 0.1       |"
    );
    assert_eq!(
        ok("%e %E %.0e", &[D(12345.678), D(0.000123), D(5e10)]),
        "1.234568e+04 1.230000E-04 5e+10"
    );
    assert_eq!(
        ok(
            "%g %g %g %G %g",
            &[D(100000.0), D(1000000.0), D(0.0001), D(1e-5), D(0.1 + 0.2)]
        ),
        "100000 1e+06 0.0001 1E-05 0.3"
    );
    assert_eq!(
        ok(
            "%.17g %#g %+.1f %08.2f",
            &[D(0.1), D(1.0), D(2.25), D(-3.5)]
        ),
        "0.10000000000000001 1.00000 +2.2 -0003.50"
    );
    assert_eq!(
        ok(
            "%f %f %F %e",
            &[D(f64::INFINITY), D(f64::NAN), D(f64::NEG_INFINITY), D(-0.0)]
        ),
        "inf nan -INF -0.000000e+00"
    );
    assert_eq!(ok("%.0f %.0f %.0f", &[D(0.5), D(1.5), D(2.5)]), "0 2 2");
    assert_eq!(ok("%f", &[D(1e300)]).len(), 301 + 7);
    // An integer slot printed with %f is converted, as the front end would.
    assert_eq!(ok("%.1f", &[I(3)]), "3.0");
}

#[test]
fn strings_chars_pointers_percent() {
    assert_eq!(
        ok(
            "[%s] [%8s] [%-8s] [%.2s]",
            &[S(b"abc\0"), S(b"abc\0"), S(b"abc\0"), S(b"abc\0")]
        ),
        "[abc] [     abc] [abc     ] [ab]"
    );
    // `%.Ns` may read an unterminated array of N bytes.
    assert_eq!(ok("%.3s!", &[S(b"xyz")]), "xyz!");
    assert_eq!(
        ok(
            "%c%c%3c|%-3c|",
            &[
                I(b'h' as i64),
                I(b'i' as i64),
                I(b'x' as i64),
                I(b'y' as i64)
            ]
        ),
        "hi  x|y  |"
    );
    assert_eq!(ok("100%% %d%%", &[I(5)]), "100% 5%");
    assert_eq!(ok("%p %p", &[P(0x1234), P(0)]), "0x1234 (nil)");
    assert_eq!(ok("no conversions\n", &[]), "no conversions\n");
    assert_eq!(ok("", &[]), "");
}

#[test]
fn star_width_and_precision() {
    assert_eq!(
        ok(
            "[%*d] [%-*d] [%*d]",
            &[I(5), I(42), I(5), I(42), I(-5), I(42)]
        ),
        "[   42] [42   ] [42   ]"
    );
    assert_eq!(
        ok(
            "[%.*f] [%*.*f] [%.*f]",
            &[I(2), D(1.23456), I(8), I(3), D(2.5), I(-1), D(1.5)]
        ),
        "[1.23] [   2.500] [1.500000]"
    );
}

#[test]
fn errors() {
    assert_eq!(
        fmt("%d %d", &[I(1)]).unwrap_err(),
        "printf: the format needs more arguments than were passed"
    );
    assert_eq!(
        fmt("%s", &[P(0)]).unwrap_err(),
        "printf: the argument of `%s` is a null pointer"
    );
    assert_eq!(
        fmt("%n", &[P(8)]).unwrap_err(),
        "printf: unsupported conversion `%n`"
    );
    assert_eq!(
        fmt("abc %-5", &[]).unwrap_err(),
        "printf: the format ends inside the conversion `%-5`"
    );
    assert_eq!(
        fmt("%99999999999d", &[I(1)]).unwrap_err(),
        "printf: field width or precision 99999999999 is too large (at most 16777216 is formatted)"
    );
}
