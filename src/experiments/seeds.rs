//! The seed articles' files and machines, as the seeds describe them.

pub const SEED_CLONE: &str = "000_e2b023eeee857798.txt";
pub const SEED_SWITCH: &str = "002_5f4198dc3381193f.txt";
pub const SEED_FORK: &str = "003_641a413697a75944.txt";
pub const SEED_SYSEL: &str = "004_37eeb410f17232cd.txt";

pub const SYSEL_HW: &str = "Intel Core i7-1065G7, 1.3-3.9 GHz, Ubuntu 20.04, Linux 5.4";
pub const BENDERSKY_HW: &str = "Intel Core i7-4771 (Haswell), 2018";
pub const SEED_FORK_HW: &str =
    "the author's machine, not described (Hackaday Linux Fu, c. 2022); built with `gcc -o stress stress.c` (no -O)";
