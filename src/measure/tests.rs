#[test]
fn workers_re_execute_the_running_binary_not_its_path() {
    let exe = super::self_exe().unwrap();
    assert_eq!(exe, std::path::Path::new("/proc/self/exe"));
    // argv[0] stays a name a person can read in `ps`.
    let cmd = super::self_command().unwrap();
    assert_eq!(cmd.get_program(), "/proc/self/exe");
}
