//! The C math functions tasklab and its dependencies call (and two an
//! optimiser may call in their place), defined in the
//! executable itself from the `libm` crate, so the process does not map
//! glibc's `libm.so.6`.
//!
//! Why: fork copies every mapping of the parent and exit tears each one down,
//! so a shared library's five mappings cost each fork about as much as the
//! rest of a small program's image. A C program such as the seeds' samples maps
//! only libc and the loader; a Rust program on glibc also maps `libm.so.6` (for
//! these functions) and `libgcc_s.so.1` (for std's unwinder, which `build.rs`
//! links statically as gcc's `-static-libgcc` does). With both gone,
//! tasklab's fork figure is that of a process with a C sample's image
//! (docs/FIDELITY.md, session 10).
//!
//! The file is compiled into the binary (`src/main.rs` includes it), not into
//! the library: the linker takes every object of the binary, so these
//! definitions are there before any library asks for the symbols, and
//! `--as-needed` then leaves `libm.so.6` out. Test binaries link glibc's libm
//! as before. Each function is the `libm` crate's port of musl's, accurate to
//! within one unit in the last place like glibc's; the tests below check
//! known values, and `tests/spawn.rs` that the worker maps no libm.
//!
//! The names are C's, so they clash with nothing Rust names; no other object
//! of the executable defines them (the link would fail on a duplicate). Code
//! that calls a math function not here (`atan2`, say) brings libm back, and
//! `tests/spawn.rs` fails, naming it: add the function here.

/// Defines each C function `name(args) -> ret` as the `libm` crate's
/// function of the same name and signature.
macro_rules! from_libm {
    ($($c:literal $name:ident($($arg:ident: $t:ty),+) -> $ret:ty;)+) => {$(
        #[doc = $c]
        #[no_mangle]
        extern "C" fn $name($($arg: $t),+) -> $ret {
            libm::$name($($arg),+)
        }
    )+};
}

from_libm! {
    "`double exp(double)`." exp(x: f64) -> f64;
    "`double log(double)`." log(x: f64) -> f64;
    "`double log10(double)`." log10(x: f64) -> f64;
    "`double pow(double, double)`." pow(x: f64, y: f64) -> f64;
    "`double hypot(double, double)`." hypot(x: f64, y: f64) -> f64;
    "`float hypotf(float, float)`." hypotf(x: f32, y: f32) -> f32;
    "`double sin(double)`: an unoptimised build calls it and `cos` where an optimised one calls `sincos`." sin(x: f64) -> f64;
    "`double cos(double)`." cos(x: f64) -> f64;
    "`double exp2(double)`: an optimiser may call it for `pow(2, x)`." exp2(x: f64) -> f64;
    "`double exp10(double)`: an optimiser may call it for `pow(10, x)`." exp10(x: f64) -> f64;
}

/// `void sincos(double x, double *sin, double *cos)`: the compiler emits it
/// where code takes both the sine and the cosine of one value.
///
/// # Safety
///
/// C's contract: `sin` and `cos` point to `f64`s valid and aligned for a
/// write, as the compiler's call passes (two locals of the caller).
#[no_mangle]
unsafe extern "C" fn sincos(x: f64, sin: *mut f64, cos: *mut f64) {
    let (s, c) = libm::sincos(x);
    // SAFETY: the caller keeps the contract above.
    unsafe {
        sin.write(s);
        cos.write(c);
    }
}

#[cfg(test)]
#[path = "math_symbols_tests.rs"]
mod tests;
