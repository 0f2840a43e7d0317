use super::*;

/// Within `ulps` units in the last place of `want`.
fn near(got: f64, want: f64, ulps: u64) -> bool {
    let (a, b) = (got.to_bits() as i64, want.to_bits() as i64);
    got.is_sign_positive() == want.is_sign_positive() && a.abs_diff(b) <= ulps
}

#[test]
fn each_function_gives_the_value_c_defines() {
    let e = std::f64::consts::E;
    assert!(near(exp(1.0), e, 1), "{}", exp(1.0));
    assert_eq!(exp(0.0), 1.0);
    assert!(near(log(e), 1.0, 1), "{}", log(e));
    assert_eq!(log(1.0), 0.0);
    assert!(log(0.0) == f64::NEG_INFINITY && log(-1.0).is_nan());
    assert_eq!(log10(1000.0), 3.0);
    assert_eq!(pow(2.0, 10.0), 1024.0);
    assert!(near(pow(10.0, -2.0), 0.01, 1));
    assert_eq!(hypot(3.0, 4.0), 5.0);
    assert_eq!(hypotf(3.0, 4.0), 5.0);
    let (mut s, mut c) = (0.0, 0.0);
    // SAFETY: two f64 locals, valid and aligned for a write.
    unsafe { sincos(std::f64::consts::FRAC_PI_6, &mut s, &mut c) };
    assert!(near(s, 0.5, 1), "{s}");
    assert!(near(c, 3f64.sqrt() / 2.0, 1), "{c}");
    assert!(near(sin(std::f64::consts::FRAC_PI_6), 0.5, 1));
    assert_eq!(cos(0.0), 1.0);
    assert_eq!(exp2(10.0), 1024.0);
    assert_eq!(exp10(3.0), 1000.0);
    assert!(near(cos(std::f64::consts::PI), -1.0, 1));
}
