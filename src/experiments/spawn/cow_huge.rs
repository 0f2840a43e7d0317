//! huge: split from cow.rs (the 800-line limit).

use super::*;

/// What a huge-page copy-on-write does: copies 2 MiB, or splits the huge
/// page and copies 4 KiB, read off the extra memory at the smallest share.
/// One subject in every run (issue 39 item 9): the write on huge pages
/// against the same share on 4 KiB pages, settled or not, and the huge
/// pages the heap got, none included.
pub(super) fn huge_vs_small(r: &ExperimentResult) -> Option<String> {
    let (pct, thp) = shares(r, "thp").into_iter().find(|(p, _)| *p > 0)?;
    let share = format!("{pct}%");
    let small = r.find(
        &WRITE_NS,
        &[(key::PAGES, "4k"), (WRITES, &share), (CHILD, CHILD_ALIVE)],
    )?;
    let huge_kib = r.reading(&ANON_HUGE_KIB, &[(key::PAGES, "thp")]);
    let got = match huge_kib {
        Some(k) if k > 0.0 => format!("{} of the heap in 2 MiB pages", fmt_size((k * 1024.0) as u64)),
        Some(_) => "none of the heap in 2 MiB pages: the THP heap got no huge pages here, so both figures are of 4 KiB pages".into(),
        None => "the heap's huge pages not read".into(),
    };
    let cmp = against(
        &thp.summary,
        &small.summary,
        &format!("the {} on 4 KiB pages", with_ci(&small.summary)),
        ["the write on huge pages", "the write on 4 KiB pages"],
    );
    let mut s = format!(
        "on huge pages ({got}), a write after fork at {share} costs {} per page, {cmp}",
        with_ci(&thp.summary)
    );
    let Some(huge_kib) = huge_kib.filter(|k| *k > 0.0) else {
        return Some(s);
    };
    let extra = r.median(&EXTRA_KIB, &[(key::PAGES, "thp"), (WRITES, &share)]);
    let heap_bytes = thp.label_num(HEAP_BYTES)?;
    let huge_after = r.reading(
        &PARENT_ANON_HUGE_KIB,
        &[(key::PAGES, "thp"), (WRITES, &share)],
    );
    if let (Some(extra), Some(after)) = (extra, huge_after) {
        let written = (heap_bytes / sys::PAGE as u64) as f64 * pct as f64 / 100.0;
        // Pages written per 2 MiB region: a region copied whole costs 2 MiB
        // however many of its pages are written.
        let per_region = (written / (heap_bytes as f64 / sys::HUGE_PAGE as f64)).max(1.0);
        let copy_kib = 2048.0 / per_region;
        let per_page = extra / written.max(1.0);
        let how = if (per_page / 4.0).ln().abs() < (per_page / copy_kib).ln().abs() {
            "the kernel split the huge pages and copied 4 KiB per write"
        } else {
            "the kernel copied whole 2 MiB pages"
        };
        s.push_str(&format!(
            "; the extra memory is {per_page:.1} KiB per written page ({copy_kib:.0} KiB if every touched 2 MiB page were copied whole, 4 KiB if split): {how}; the parent's huge pages went from {} to {}",
            crate::units::fmt_value(huge_kib * 1024.0, crate::units::Unit::Bytes),
            crate::units::fmt_value(after * 1024.0, crate::units::Unit::Bytes)
        ));
    }
    Some(s)
}

/// fork's return with the heap, per GiB, against Redis's 9-13 ms per GB;
/// a flagged figure is quoted with its mark and no rate is drawn from it.
pub(super) fn fork_per_gib(r: &ExperimentResult) -> Option<String> {
    let m = r
        .metrics
        .iter()
        .find(|m| m.name == FORK_NS.name && m.label(key::PAGES) == Some("4k"))?;
    let gib = m.label_num(HEAP_BYTES)? as f64 / (1u64 << 30) as f64;
    let rate = if m.summary.unstable {
        "per GiB not given (a figure did not settle)".to_string()
    } else {
        format!("{} per GiB", fmt_ns(m.summary.median / gib))
    };
    Some(format!(
        "fork with a touched {} heap on 4 KiB pages returns to the parent in {}: {rate} (Redis reports 9-13 ms per GB on bare metal)",
        m.label(HEAP)?,
        with_ci(&m.summary),
    ))
}
