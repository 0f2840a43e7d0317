//! DAMON read from fixture trees: on with a `pageout` scheme (this guest's
//! setting), off, none configured, no interface, no sysfs, an unreadable
//! file, and a module.

use super::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh empty directory under the system temp dir, removed on drop.
struct Tree(PathBuf);

impl Tree {
    fn new() -> Tree {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tasklab-damon-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sys/kernel/mm")).unwrap();
        Tree(dir)
    }
    fn write(&self, path: &str, content: &str) {
        let p = self.0.join(path.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{content}\n")).unwrap();
    }
    fn damon(&self) -> Damon {
        read_damon(&Root { root: &self.0 })
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const K: &str = "/sys/kernel/mm/damon/admin/kdamonds";

/// One kdamond in `state` with one paddr context; with `scheme`, this
/// guest's pageout scheme (12 aggregations of 5 s, 0..1 accesses of 10
/// samples, 128 MiB and 50 ms a second, anon rejected, unmapped allowed).
fn kdamond(t: &Tree, state: &str, scheme: bool) {
    t.write(&format!("{K}/nr_kdamonds"), "1");
    t.write(&format!("{K}/0/state"), state);
    t.write(&format!("{K}/0/pid"), "77");
    let c = format!("{K}/0/contexts");
    t.write(&format!("{c}/nr_contexts"), "1");
    t.write(&format!("{c}/0/operations"), "paddr");
    let iv = format!("{c}/0/monitoring_attrs/intervals");
    t.write(&format!("{iv}/sample_us"), "500000");
    t.write(&format!("{iv}/aggr_us"), "5000000");
    t.write(&format!("{iv}/update_us"), "60000000");
    t.write(
        &format!("{c}/0/schemes/nr_schemes"),
        if scheme { "1" } else { "0" },
    );
    if !scheme {
        return;
    }
    let s = format!("{c}/0/schemes/0");
    t.write(&format!("{s}/action"), "pageout");
    t.write(&format!("{s}/access_pattern/nr_accesses/min"), "0");
    t.write(&format!("{s}/access_pattern/nr_accesses/max"), "1");
    t.write(&format!("{s}/access_pattern/age/min"), "12");
    t.write(&format!("{s}/access_pattern/age/max"), "4294967295");
    t.write(&format!("{s}/quotas/bytes"), "134217728");
    t.write(&format!("{s}/quotas/ms"), "50");
    t.write(&format!("{s}/quotas/reset_interval_ms"), "1000");
    t.write(&format!("{s}/watermarks/metric"), "none");
    t.write(&format!("{s}/filters/nr_filters"), "0");
    t.write(&format!("{s}/core_filters/nr_filters"), "0");
    t.write(&format!("{s}/ops_filters/nr_filters"), "2");
    for (i, kind, allow) in [(0, "anon", "N"), (1, "unmapped", "Y")] {
        let f = format!("{s}/ops_filters/{i}");
        t.write(&format!("{f}/type"), kind);
        t.write(&format!("{f}/matching"), "Y");
        t.write(&format!("{f}/allow"), allow);
        t.write(&format!("{f}/memcg_path"), "");
    }
}

#[test]
fn a_running_kdamond_with_a_pageout_scheme_is_read_whole() {
    let t = Tree::new();
    kdamond(&t, "on", true);
    let d = t.damon();
    let DamonSysfs::Kdamonds(k) = &d.sysfs else {
        panic!("{d:?}")
    };
    assert_eq!(k.len(), 1);
    assert_eq!(k[0].state.as_deref(), Some("on"));
    let c = &k[0].contexts[0];
    assert_eq!(c.operations.as_deref(), Some("paddr"));
    assert_eq!(
        (c.sample_us, c.aggr_us, c.update_us),
        (Some(500_000), Some(5_000_000), Some(60_000_000))
    );
    let s = &c.schemes[0];
    assert_eq!(s.action.as_deref(), Some("pageout"));
    assert_eq!(s.nr_accesses, Some((0, 1)));
    assert_eq!(s.age, Some((12, u64::from(u32::MAX))));
    assert_eq!(
        (s.quota_bytes, s.quota_ms, s.quota_reset_ms),
        (Some(128 << 20), Some(50), Some(1000))
    );
    assert_eq!(s.filters, vec!["reject anon", "allow unmapped"]);
    assert_eq!(
        d.words(),
        "kdamond 0 on: paddr (sampling 500 ms, aggregation 5 s); pageout of regions idle \
         60 s (12 aggregations), 0..1 of 10 samples accessed, quota 128 MiB and 50 ms per 1 s, \
         filters: reject anon, allow unmapped"
    );
}

#[test]
fn a_stopped_kdamond_says_off_and_differs_from_a_running_one() {
    let (on, off) = (Tree::new(), Tree::new());
    kdamond(&on, "on", true);
    kdamond(&off, "off", true);
    let w = off.damon().words();
    assert!(w.starts_with("kdamond 0 off: paddr"), "{w}");
    assert_ne!(w, on.damon().words());
    let bare = Tree::new();
    kdamond(&bare, "on", false);
    assert_eq!(
        bare.damon().words(),
        "kdamond 0 on: paddr (sampling 500 ms, aggregation 5 s)"
    );
}

#[test]
fn an_interface_with_no_kdamond_is_none_configured() {
    let t = Tree::new();
    t.write(&format!("{K}/nr_kdamonds"), "0");
    let d = t.damon();
    assert_eq!(d.sysfs, DamonSysfs::Kdamonds(vec![]));
    assert_eq!(d.words(), "no kdamond");
}

#[test]
fn a_missing_interface_is_no_damon_and_a_missing_sysfs_is_unknown() {
    let t = Tree::new();
    assert_eq!(t.damon().sysfs, DamonSysfs::Absent);
    assert_eq!(t.damon().words(), "no DAMON");
    // No /sys/kernel/mm at all: nothing tells whether the kernel has DAMON.
    std::fs::remove_dir_all(t.0.join("sys")).unwrap();
    let d = t.damon();
    assert!(matches!(d.sysfs, DamonSysfs::Unknown(_)), "{d:?}");
    assert!(d.words().starts_with("unknown ("), "{}", d.words());
}

#[test]
fn an_unreadable_file_is_unknown_never_off() {
    let t = Tree::new();
    // A folder where the count should be: reading it fails as a file the
    // caller may not read would (the tests run as root, whom 0600 allows).
    std::fs::create_dir_all(t.0.join(K.trim_start_matches('/')).join("nr_kdamonds")).unwrap();
    let d = t.damon();
    let DamonSysfs::Unknown(why) = &d.sysfs else {
        panic!("{d:?}")
    };
    assert!(why.contains("nr_kdamonds"), "{why}");
    assert!(
        d.words().starts_with("unknown (cannot read"),
        "{}",
        d.words()
    );
    // A kdamond whose state cannot be read is not said to be off.
    let u = Tree::new();
    kdamond(&u, "on", false);
    std::fs::remove_file(u.0.join(format!("{K}/0/state").trim_start_matches('/'))).unwrap();
    assert!(u.damon().words().starts_with("kdamond 0 state unknown:"));
}

#[test]
fn damons_modules_are_named_with_their_state() {
    let t = Tree::new();
    t.write("/sys/module/damon_reclaim/parameters/enabled", "Y");
    t.write("/sys/module/damon_stat/parameters/enabled", "N");
    let d = t.damon();
    assert_eq!(
        d.modules,
        vec![
            ("damon_reclaim".to_string(), true),
            ("damon_stat".to_string(), false)
        ]
    );
    assert_eq!(d.words(), "damon_reclaim on; damon_stat off");
}

#[test]
fn the_fact_survives_json_and_a_file_without_it_reads_as_not_recorded() {
    let t = Tree::new();
    kdamond(&t, "on", true);
    let d = t.damon();
    let back: Damon = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
    let old: crate::env::Facts = serde_json::from_str("{\"pcid\": true}").unwrap();
    assert_eq!(old.damon, None);
}
