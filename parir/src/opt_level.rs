//! How hard the compiler works on a module, as `-O0` to `-O3` say it: one
//! type that the driver, the optimizer's pipelines and every backend read.

use std::fmt;

/// An optimization level, spelled as gcc and clang spell it (`-O0` ...
/// `-O3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OptLevel {
    /// No optimization: the IR as lowered, code generated without
    /// optimizing (fast to build, each statement where the source has it,
    /// locals in memory: what a debugger wants).
    O0,
    /// The cheap scalar passes (promotion to registers, constant folding,
    /// dead code).
    O1,
    /// Every pass (the default).
    #[default]
    O2,
    /// Accepted as gcc and clang spell it; optimizes as [`OptLevel::O2`]
    /// does (parc has no pass that only `-O3` would run).
    O3,
}

impl OptLevel {
    /// The level as a number, `0` to `3`.
    pub fn number(self) -> u8 {
        match self {
            OptLevel::O0 => 0,
            OptLevel::O1 => 1,
            OptLevel::O2 => 2,
            OptLevel::O3 => 3,
        }
    }

    /// The level of a number (`0` to `3`), as in `-O2`.
    pub fn from_number(n: u8) -> Option<OptLevel> {
        Some(match n {
            0 => OptLevel::O0,
            1 => OptLevel::O1,
            2 => OptLevel::O2,
            3 => OptLevel::O3,
            _ => return None,
        })
    }

    /// True at `-O0`: nothing is optimized.
    pub fn is_none(self) -> bool {
        self == OptLevel::O0
    }
}

impl fmt::Display for OptLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "-O{}", self.number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip() {
        for n in 0..4 {
            let level = OptLevel::from_number(n).expect("a level");
            assert_eq!(level.number(), n);
            assert_eq!(level.to_string(), format!("-O{n}"));
        }
        assert_eq!(OptLevel::from_number(4), None);
        assert_eq!(OptLevel::default(), OptLevel::O2);
        assert!(OptLevel::O0.is_none() && !OptLevel::O1.is_none());
    }
}
