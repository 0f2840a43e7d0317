//! Yardsticks: what reading a clock, a bare system call and a memcpy cost
//! here. The seeds use them to put creation and switch times in proportion
//! (Sysel §4, seed 004: clock_gettime ≈ 94 ns, chrono ≈ 110 ns; Bendersky,
//! seed 000: memcpy of 64 KiB ≈ 3 µs, of 2 MB ≈ 60 µs).

pub mod memcpy;
pub mod syscall;
pub mod timer;
