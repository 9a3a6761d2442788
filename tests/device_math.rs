//! The device math library against glibc: `tests/gpu/device_math.pc`
//! run in the reference interpreter with the library linked into its
//! kernels (as `--emit ptx` links it), so that the kernels compute with
//! parc's routines and the host with glibc's libm. Every function must
//! stay within 2 ulp of glibc on its inputs (the file lists them: the
//! whole range of each function, special values, `sin cos tan` up to
//! 1e6, `pow` with exponents up to 16 in magnitude); `pow` with larger
//! exponents is reported, not bounded (see `math.pc`); `cbrt` is held
//! to 4, as glibc's is itself up to 3 ulp from the correctly rounded
//! result.

#[allow(dead_code)]
mod corpus;

use parc::Options;

#[test]
fn device_math_is_within_2_ulp_of_glibc() {
    let path = "tests/gpu/device_math.pc";
    let source = std::fs::read_to_string(corpus::root().join(path)).expect("the test reads");
    let options = Options {
        opt_level: parc_ir::OptLevel::O2,
        gpu: true,
        ..Options::default()
    };
    let mut module = match parc::compile(path, &source, &options) {
        Ok(c) => c.module,
        Err(e) => panic!("{}", e.rendered),
    };
    if let Err(e) = parc::link_device_math(&mut module) {
        panic!("{}", e.rendered);
    }
    assert!(
        module.func_by_name("parc.math.sin").is_some(),
        "the library is linked"
    );
    let mut out = Vec::new();
    let config = parc_ir::interp::Config::default();
    let status = parc_ir::interp::run_main(&module, &config, &mut out).expect("the test runs");
    assert_eq!(status, 0);
    let text = String::from_utf8(out).expect("text");
    eprint!("{text}");
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split_whitespace();
        let name = words.next().expect("a name");
        let ulp: u64 = words
            .next()
            .and_then(|w| w.strip_prefix("max_ulp="))
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("no max_ulp in `{line}`"));
        seen += 1;
        // glibc's own `cbrt` is up to 3 ulp from the correctly rounded
        // result (measured with mpmath on 20,000 inputs over its range),
        // so a correct `cbrt` can be 3 ulp from it; the library's (fdlibm's
        // method, under 0.67 ulp) is held to glibc's error plus one.
        // `fmod` is exact in C: the library must give glibc's bits.
        let bound = match name {
            "cbrt" => 4,
            "fmod" | "fmodf" | "signed_zeros" => 0,
            _ => 2,
        };
        if name != "pow_large_y" {
            assert!(ulp <= bound, "{line}");
        }
    }
    assert_eq!(seen, 47, "{text}");
}
