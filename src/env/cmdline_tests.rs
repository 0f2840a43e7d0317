use super::*;

#[test]
fn only_allowlisted_parameters_are_kept_with_their_values() {
    let line = "BOOT_IMAGE=/boot/vmlinuz-6.8 root=UUID=1234-abcd ro quiet mitigations=off \
                idle=poll isolcpus=1-3 nopti transparent_hugepage=madvise console=ttyS0";
    assert_eq!(
        allowlisted(line),
        "mitigations=off idle=poll isolcpus=1-3 nopti transparent_hugepage=madvise"
    );
}

#[test]
fn an_agents_secret_is_never_kept() {
    let line =
        "console=ttyS0 reboot=k panic=1 pci=off nomodule agent --auth-required=s3cr3t-TOKEN-123 \
                auth_token=s3cr3t-TOKEN-123 -- idle=poll mitigations=off";
    let kept = allowlisted(line);
    assert!(!kept.contains("s3cr3t"), "{kept}");
    // After `--` the words are init's, even when they look like the kernel's.
    assert_eq!(kept, "");
}

#[test]
fn a_name_must_match_exactly_and_quoted_values_stay_one_word() {
    assert_eq!(allowlisted("idlex=1 xidle=poll idle"), "idle");
    assert_eq!(
        allowlisted("dyndbg=\"file idle=poll +p\" preempt=full"),
        "preempt=full"
    );
    assert_eq!(allowlisted("isolcpus=\"1,2 3\" x"), "isolcpus=\"1,2 3\"");
    let long = format!("isolcpus={}", "1,".repeat(200));
    assert_eq!(allowlisted(&long), "");
}

#[test]
fn the_allowlist_has_no_duplicates_and_no_catch_alls() {
    let mut v = ALLOWLIST.to_vec();
    v.sort_unstable();
    v.dedup();
    assert_eq!(v.len(), ALLOWLIST.len());
    for name in ["root", "BOOT_IMAGE", "init", "console", "ip", "nfsroot", ""] {
        assert!(!ALLOWLIST.contains(&name), "{name}");
    }
}
