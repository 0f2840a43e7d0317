#[test]
fn slopes_keep_their_sign_and_never_read_minus_zero() {
    assert_eq!(super::signed_size(-2048.0), "-2 KiB");
    assert_eq!(super::signed_size(-0.4), "0 B");
    assert_eq!(super::signed_size(8192.0), "8 KiB");
}
