use super::model::*;
use super::*;

fn r(median: f64) -> Range {
    Range {
        median,
        lo: median * 0.9,
        hi: median * 1.1,
    }
}

fn spread(median: f64, p10: f64, p90: f64) -> Range {
    Range {
        median,
        lo: p10,
        hi: p90,
    }
}

/// Slopes as a run on some machine could give them.
pub(super) fn fixture() -> Slopes {
    Slopes {
        fork: vec![(100.0, r(60e3)), (1_000.0, r(500e3)), (8_000.0, r(4e6))],
        // One fork's 10th and 90th percentiles at the same heaps, wider
        // than the median's interval.
        fork_single: vec![
            (100.0, spread(60e3, 50e3, 80e3)),
            (1_000.0, spread(500e3, 420e3, 650e3)),
            (8_000.0, spread(4e6, 3.5e6, 5e6)),
        ],
        cow_4k: vec![(1.0, r(2_000.0)), (10.0, r(1_500.0)), (100.0, r(1_000.0))],
        cow_thp: vec![],
        per_mapping: None,
        per_fd: None,
        flagged: vec![],
        fork_paused: vec![],
        fork_paused_single: vec![],
        fork_scattered: vec![],
        fork_scattered_single: vec![],
        fork_contiguous: vec![],
        fork_contiguous_single: vec![],
        frames_adjacent: vec![],
        pause_ms: None,
        // No run-to-run noise: the intervals as the heaps give them.
        run_noise: vec![(100.0, 0.0)],
        paused_run_noise: vec![(100.0, 0.0)],
    }
}

/// The fixture with forks after a 300 ms pause at its heaps: three times
/// the warm ones, and wider.
pub(super) fn with_cold() -> Slopes {
    Slopes {
        fork_paused: vec![(100.0, r(180e3)), (1_000.0, r(1.5e6)), (8_000.0, r(12e6))],
        fork_paused_single: vec![
            (100.0, spread(180e3, 120e3, 400e3)),
            (1_000.0, spread(1.5e6, 1.0e6, 3.0e6)),
            (8_000.0, spread(12e6, 8e6, 20e6)),
        ],
        pause_ms: Some(300.0),
        ..fixture()
    }
}

/// The fixture with slopes per extra mapping (1.9 µs) and per extra
/// descriptor (20 ns, its interval reaching below zero), measured in a
/// worker of 100 mappings and 10 descriptors.
fn with_image() -> Slopes {
    Slopes {
        per_mapping: Some(PerExtra {
            per: r(1_900.0),
            worker: 100.0,
        }),
        per_fd: Some(PerExtra {
            per: Range {
                median: 20.0,
                lo: -5.0,
                hi: 45.0,
            },
            worker: 10.0,
        }),
        ..fixture()
    }
}

pub(super) fn process(vm_pte_kib: u64) -> Process {
    Process {
        pid: 1,
        vm_pte_kib,
        rss_anon_kib: 1 << 20,
        ..Process::default()
    }
}

#[test]
fn predict_grows_with_vm_pte() {
    let s = fixture();
    let mut last = f64::NEG_INFINITY;
    for pte in [0, 500, 2_000, 4_000, 16_000] {
        let p = predict(&s, &process(pte), 10.0).unwrap();
        assert!(p.parent_return_ns.median > last, "{pte}: {p:?}");
        assert!(p.parent_return_ns.lo <= p.parent_return_ns.median);
        assert!(p.parent_return_ns.median <= p.parent_return_ns.hi);
        last = p.parent_return_ns.median;
    }
    assert!(!predict(&s, &process(4_000), 10.0).unwrap().extrapolated);
    assert!(predict(&s, &process(16_000), 10.0).unwrap().extrapolated);
}

#[test]
fn the_cow_cost_is_the_written_pages_at_the_rate_of_their_share() {
    let s = fixture();
    // 1 GiB of anonymous memory, 10% written: 26,214.4 pages at 1.5 µs.
    let p = predict(&s, &process(2_000), 10.0).unwrap();
    assert!((p.written_4k_pages - 26_214.4).abs() < 1e-6);
    assert!((p.cow_first_pass_ns.median - 26_214.4 * 1_500.0).abs() < 1e-3);
    // Between two shares measured, the rate is on the line between them.
    let p = predict(&s, &process(2_000), 55.0).unwrap();
    let rate = p.cow_first_pass_ns.median / p.written_4k_pages;
    assert!((rate - 1_250.0).abs() < 1e-6, "{rate}");
    // Huge pages with no huge-page figures are priced at the 4 KiB rate, and said to be.
    let mut huge = process(2_000);
    huge.anon_huge_kib = 512 << 10;
    let p = predict(&s, &huge, 10.0).unwrap();
    assert!(p.thp_at_4k_rate);
    assert!(p.written_thp_pages > 0.0 && p.written_4k_pages > 0.0);
    assert_eq!(
        predict(&s, &process(2_000), 0.0)
            .unwrap()
            .cow_first_pass_ns
            .median,
        0.0
    );
}

#[test]
fn slopes_that_cannot_predict_say_what_is_missing() {
    let mut s = fixture();
    s.cow_4k.clear();
    assert!(missing(&s).unwrap().contains("spawn.cow"));
    assert!(predict(&s, &process(10), 10.0).is_none());
    s.fork.truncate(1);
    assert!(missing(&s).unwrap().contains("spawn.heap"));
}

#[test]
fn a_pid_and_a_share_are_checked() {
    assert_eq!(parse_pid("42"), Ok(42));
    assert!(parse_pid("0").unwrap_err().contains("not a process id"));
    assert!(parse_pid("-3").is_err());
    assert!(parse_pid("abc").is_err());
    assert!(parse_pid("99999999999").is_err());
    assert_eq!(parse_share("10%"), Ok(10.0));
    assert_eq!(parse_share("0.5"), Ok(0.5));
    assert!(parse_share("101%").is_err());
    assert!(parse_share("ten").is_err());
}

#[test]
fn this_process_can_be_read_and_an_absent_one_cannot() {
    let me = read_process(std::process::id()).unwrap();
    assert!(me.vm_pte_kib > 0 && me.vmas > 0 && me.fds > 0);
    let gone = read_process(i32::MAX as u32).unwrap_err();
    assert!(gone.contains("no such process"), "{gone}");
    let text = render(&me, &predict(&fixture(), &me, 10.0).unwrap(), "a fixture");
    assert!(
        text.contains("fork() would return to the parent in"),
        "{text}"
    );
}

#[test]
fn a_process_that_is_not_ours_is_named_with_what_to_do() {
    let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    let user = denied::Facts {
        euid: 1000,
        owner: Some(0),
        ..denied::Facts::default()
    };
    let m = unreadable_with(1, "memory map (smaps_rollup)", &denied, &user);
    assert!(m.starts_with("--pid 1: permission denied"), "{m}");
    assert!(m.contains("as the process's user, or as root"), "{m}");
}

#[test]
fn predict_grows_with_the_vma_count() {
    let s = with_image();
    let mut last = f64::NEG_INFINITY;
    for vmas in [20, 100, 500, 2_000, 20_000] {
        let p = Process {
            vmas,
            fds: 10,
            ..process(2_000)
        };
        let got = predict(&s, &p, 10.0).unwrap();
        let r = got.parent_return_ns;
        assert!(r.median > last, "{vmas}: {got:?}");
        assert!(r.lo <= r.median && r.median <= r.hi, "{vmas}: {r:?}");
        let m = got.mappings.unwrap();
        assert_eq!(m.beyond_worker, vmas as f64 - 100.0);
        // Fewer mappings than the worker: a negative figure, its ends in order.
        assert!(m.ns.lo <= m.ns.median && m.ns.median <= m.ns.hi, "{m:?}");
        last = r.median;
    }
    // The extras are added to the page tables' figure, interval ends alike.
    let p = Process {
        vmas: 1_100,
        fds: 1_010,
        ..process(2_000)
    };
    let plain = predict(&fixture(), &p, 10.0).unwrap();
    assert_eq!((plain.mappings, plain.descriptors), (None, None));
    let got = predict(&s, &p, 10.0).unwrap();
    let d = got.descriptors.unwrap();
    assert_eq!((d.ns.lo, d.ns.hi), (-5_000.0, 45_000.0));
    let want = plain.parent_return_ns.median + 1_000.0 * 1_900.0 + 1_000.0 * 20.0;
    assert!((got.parent_return_ns.median - want).abs() < 1e-6);
    assert!(
        (got.parent_return_ns.lo - (plain.parent_return_ns.lo + 1_710_000.0 - 5_000.0)).abs()
            < 1e-6
    );
    let text = render(&p, &got, "a fixture");
    assert!(
        text.contains("its 1,100 mappings, 1,000 more than the measured worker's: +1.90 ms"),
        "{text}"
    );
    assert!(
        text.contains("mappings and descriptors priced per extra one"),
        "{text}"
    );
    assert!(!text.contains("not in the model"), "{text}");
    let text = render(&p, &plain, "a fixture");
    assert!(
        text.contains("mappings and descriptors are not in the model"),
        "{text}"
    );
}

#[test]
fn the_image_slopes_are_read_from_spawn_heap_when_it_has_them() {
    use crate::experiments::spawn::heap_image as image;
    use crate::experiments::testing::near;
    use crate::results::{Labels, Reading, Unit};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/report-results.json"
    );
    let mut r = RunResults::read(std::path::Path::new(path)).unwrap();
    // The fixture's run measured the image point; without it, no slopes.
    for e in &mut r.experiments {
        e.metrics.retain(|m| !m.name.starts_with("image_"));
        e.readings.retain(|x| !x.name.starts_with("image_"));
    }
    let before = Slopes::from_results(&r);
    assert_eq!((before.per_mapping, before.per_fd), (None, None));
    let heap = r
        .experiments
        .iter_mut()
        .find(|e| e.name == "spawn.heap")
        .unwrap();
    let with = |extra: &'static str, count: &'static str| {
        [("method", "fork"), ("extra", extra), ("count", count)]
    };
    let first_call = [
        ("method", "fork"),
        ("heap", "0 B"),
        ("heap_bytes", "0"),
        ("thp", "off"),
        ("call", "first"),
    ];
    heap.metrics.extend([
        // A first call is not a running process's fork: it stays out.
        near("parent_return_ns", &first_call, 1e6, 1.0),
        near(
            image::IMAGE_PARENT_RETURN_NS.name,
            &with("none", "0"),
            100e3,
            1.0,
        ),
        near(
            image::IMAGE_PARENT_RETURN_NS.name,
            &with("mappings", "1000"),
            1_100e3,
            1.0,
        ),
    ]);
    heap.readings.push(Reading {
        name: image::IMAGE_WORKER_MAPPINGS.name.into(),
        unit: Unit::Count,
        labels: Labels::new(),
        value: 120.0,
    });
    let s = Slopes::from_results(&r);
    let m = s.per_mapping.unwrap();
    assert_eq!(m.worker, 120.0);
    assert!((m.per.median - 1_000.0).abs() < 1e-9, "{m:?}");
    assert!(m.per.lo < m.per.median && m.per.median < m.per.hi, "{m:?}");
    // No descriptor series: that part stays out, and the rest still works.
    assert_eq!(s.per_fd, None);
    assert_eq!(s.fork, before.fork);
    assert!(s.fork.len() >= 2, "{:?}", s.fork);
}

#[test]
fn below_the_smallest_heap_the_figure_is_bounded_by_it_and_by_it_scaled_down() {
    let s = fixture();
    // The smallest heap: 100 KiB of page tables, 60 µs [54, 66].
    let p = predict(&s, &process(40), 10.0).unwrap();
    assert!(p.below_smallest);
    let f = p.parent_return_ns;
    assert_eq!(f.hi, 66e3, "at most the smallest heap's figure");
    assert!((f.lo - 54e3 * 0.4).abs() < 1e-6, "{f:?}");
    assert!(f.lo <= f.median && f.median <= f.hi);
    // At the smallest heap itself, its figure.
    let at = predict(&s, &process(100), 10.0).unwrap();
    assert!(!at.below_smallest);
    assert_eq!(at.parent_return_ns, r(60e3));
    let text = render(&process(40), &p, "a test");
    assert!(
        text.contains("to 66.0 µs") && text.contains("at most that heap's figure"),
        "{text}"
    );
}

#[test]
fn a_flagged_series_widens_the_interval_to_its_rounds_and_is_named() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/report-results.json"
    );
    let mut r = RunResults::read(std::path::Path::new(path)).unwrap();
    let settled = Slopes::from_results(&r);
    assert!(settled.flagged.is_empty(), "{:?}", settled.flagged);
    assert!(settled.fork.len() >= 2);
    let heap = r
        .experiments
        .iter_mut()
        .find(|e| e.name == "spawn.heap")
        .unwrap();
    // Flag the first fork series the slopes use, its rounds spread wide.
    let m = heap
        .metrics
        .iter_mut()
        .find(|m| {
            m.name == "parent_return_ns"
                && m.label("method") == Some("fork")
                && m.label("call").is_none()
                && m.label("thp") != Some("on")
        })
        .unwrap();
    let (lo, hi) = (m.summary.ci95_lo, m.summary.ci95_hi);
    m.summary.unstable = true;
    m.summary.round_medians = vec![lo * 0.5, m.summary.median, hi * 2.0];
    let flagged = Slopes::from_results(&r);
    assert_eq!(flagged.fork.len(), settled.fork.len(), "still used");
    assert_eq!(flagged.flagged.len(), 1, "{:?}", flagged.flagged);
    let widened = flagged
        .fork
        .iter()
        .find(|(_, x)| x.lo == lo * 0.5)
        .expect("the flagged series' interval spans its rounds");
    assert_eq!(widened.1.hi, hi * 2.0);
    let p = predict(&flagged, &process(1 << 20), 10.0).unwrap();
    assert_eq!(p.flagged, flagged.flagged);
    assert!(render(&process(1 << 20), &p, "a test").contains("did not settle"));
}

#[test]
fn the_interval_is_exact_between_heaps_and_on_the_lines_the_intervals_allow_beyond() {
    let s = fixture();
    // Halfway between 100 and 1,000 KiB of page tables: halfway between
    // the two heaps' figures, each end of the interval alike.
    let mid = predict(&s, &process(550), 10.0).unwrap().parent_return_ns;
    let near = |a: f64, b: f64| (a - b).abs() < 1e-6 * b.abs().max(1.0);
    assert!(near(mid.median, (60e3 + 500e3) / 2.0), "{mid:?}");
    assert!(near(mid.lo, (54e3 + 450e3) / 2.0), "{mid:?}");
    assert!(near(mid.hi, (66e3 + 550e3) / 2.0), "{mid:?}");
    // A quarter of the way from 1,000 to 8,000 KiB.
    let q = predict(&s, &process(2_750), 10.0).unwrap().parent_return_ns;
    assert!(near(q.median, 500e3 + (4e6 - 500e3) / 4.0), "{q:?}");
    // Beyond the largest heap: the median on from its figure along the
    // least-squares slope of all three heaps; the high end along the
    // steepest line through the largest heap's high end and another's low
    // end, the low end along the shallowest through its low end and
    // another's high end.
    let xs = [100.0, 1_000.0, 8_000.0];
    let ys = [60e3, 500e3, 4e6];
    let (mx, my) = (xs.iter().sum::<f64>() / 3.0, ys.iter().sum::<f64>() / 3.0);
    let num: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let slope = num / den;
    let far = predict(&s, &process(16_000), 10.0).unwrap();
    assert!(far.extrapolated);
    let f = far.parent_return_ns;
    let dx = 16_000.0 - 8_000.0;
    assert!(near(f.median, 4e6 + slope * dx), "{f:?}");
    let steep = ((4.4e6 - 54e3) / 7_900.0_f64).max((4.4e6 - 450e3) / 7_000.0);
    let shallow = ((3.6e6 - 66e3) / 7_900.0_f64).min((3.6e6 - 550e3) / 7_000.0);
    assert!(near(f.hi, 4.4e6 + steep.max(slope) * dx), "{f:?}");
    assert!(near(f.lo, 3.6e6 + shallow.min(slope) * dx), "{f:?}");
    assert!(f.lo < f.median && f.median < f.hi, "{f:?}");
}

#[test]
fn a_single_fork_spread_is_on_the_percentiles_lines_and_holds_the_median() {
    let s = fixture();
    let near = |a: f64, b: f64| (a - b).abs() < 1e-6 * b.abs().max(1.0);
    // At a heap measured: that heap's 10th and 90th percentiles.
    let at = predict(&s, &process(1_000), 10.0).unwrap();
    assert_eq!(
        at.single_fork_ns,
        Some(Spread {
            p10: 420e3,
            p90: 650e3
        })
    );
    // Halfway between two heaps: halfway between their percentiles.
    let mid = predict(&s, &process(550), 10.0).unwrap();
    let one = mid.single_fork_ns.unwrap();
    assert!(near(one.p10, (50e3 + 420e3) / 2.0), "{one:?}");
    assert!(near(one.p90, (80e3 + 650e3) / 2.0), "{one:?}");
    // Below, at, between and beyond the heaps: the median fork's figure
    // lies within one fork's spread, which is wider than the median's
    // interval wherever the fixture's percentiles are.
    for pte in [40, 100, 550, 2_750, 8_000, 16_000, 64_000] {
        let p = predict(&s, &process(pte), 10.0).unwrap();
        let (m, one) = (p.parent_return_ns, p.single_fork_ns.unwrap());
        assert!(
            one.p10 <= m.median && m.median <= one.p90,
            "{pte}: {m:?} {one:?}"
        );
        assert!(one.p10 <= m.lo && m.hi <= one.p90, "{pte}: {m:?} {one:?}");
    }
    // The mappings and descriptors beyond the worker's add their
    // interval's ends: 1,000 more mappings at 1,710 to 2,090 ns, 1,000 more
    // descriptors at -5 to 45 ns.
    let p = Process {
        vmas: 1_100,
        fds: 1_010,
        ..process(1_000)
    };
    let one = predict(&with_image(), &p, 10.0)
        .unwrap()
        .single_fork_ns
        .unwrap();
    assert!(near(one.p10, 420e3 + 1_710e3 - 5e3), "{one:?}");
    assert!(near(one.p90, 650e3 + 2_090e3 + 45e3), "{one:?}");
    // Both named as such.
    let text = render(&process(550), &mid, "a fixture");
    assert!(
        text.contains("the median fork and its 95% interval"),
        "{text}"
    );
    assert!(
        text.contains(
            "a single fork (what one fork sees): 235 µs to 365 µs, the 10th to 90th percentile"
        ),
        "{text}"
    );
    // Percentile lines whose slopes cross beyond the largest heap (a p10
    // steeper than the median): the spread still holds the median, above 0.
    let crossing = Slopes {
        fork_single: vec![
            (100.0, spread(60e3, 10e3, 80e3)),
            (1_000.0, spread(500e3, 20e3, 650e3)),
            (8_000.0, spread(4e6, 3.9e6, 5e6)),
        ],
        ..fixture()
    };
    for pte in [16_000, 64_000] {
        let p = predict(&crossing, &process(pte), 10.0).unwrap();
        let (m, one) = (p.parent_return_ns.median, p.single_fork_ns.unwrap());
        assert!(
            0.0 <= one.p10 && one.p10 <= m && m <= one.p90,
            "{pte}: {m} {one:?}"
        );
    }
    // Slopes without the percentiles (built by hand): no spread, none said.
    let bare = Slopes {
        fork_single: vec![],
        ..fixture()
    };
    let p = predict(&bare, &process(550), 10.0).unwrap();
    assert_eq!(p.single_fork_ns, None);
    assert!(!render(&process(550), &p, "a fixture").contains("a single fork"));
}

#[test]
fn the_single_fork_spread_is_read_from_the_fork_series_samples() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/report-results.json"
    );
    let r = RunResults::read(std::path::Path::new(path)).unwrap();
    let s = Slopes::from_results(&r);
    assert_eq!(s.fork_single.len(), s.fork.len());
    let heap = r
        .experiments
        .iter()
        .find(|e| e.name == "spawn.heap")
        .unwrap();
    for ((pte, m), (pte1, one)) in s.fork.iter().zip(&s.fork_single) {
        assert_eq!(pte, pte1);
        assert_eq!(m.median, one.median);
        // The series it comes from: the same median, its p10 and p90.
        let series = heap
            .metrics
            .iter()
            .find(|x| {
                x.name == "parent_return_ns"
                    && x.label("method") == Some("fork")
                    && x.label("call").is_none()
                    && x.summary.median == m.median
            })
            .unwrap();
        // Its forks' spread, as few or many as they are.
        let (lo, hi) = spread_of(&series.samples).unwrap();
        assert_eq!(one.lo, lo.min(m.median));
        assert_eq!(one.hi, hi.max(m.median));
        assert!(one.lo <= one.median && one.median <= one.hi);
    }
}

#[test]
fn a_cold_fork_is_priced_on_the_paused_series_and_named_apart() {
    let near = |a: f64, b: f64| (a - b).abs() < 1e-6 * b.abs().max(1.0);
    // Without paused forks: no cold figure, and the warm ones said to be warm.
    let warm = predict(&fixture(), &process(550), 10.0).unwrap();
    assert_eq!(warm.cold_fork, None);
    let text = render(&process(550), &warm, "a fixture");
    assert!(
        text.contains("these are warm forks, timed back to back"),
        "{text}"
    );
    assert!(!text.contains("a cold fork"), "{text}");
    // With them: the same construction on their own lines, the warm
    // figures unchanged.
    let s = with_cold();
    let p = predict(&s, &process(550), 10.0).unwrap();
    assert_eq!(p.parent_return_ns, warm.parent_return_ns);
    assert_eq!(p.single_fork_ns, warm.single_fork_ns);
    let c = p.cold_fork.unwrap();
    assert_eq!(c.pause_ms, Some(300.0));
    assert!(
        near(c.parent_return_ns.median, (180e3 + 1.5e6) / 2.0),
        "{c:?}"
    );
    assert!(near(c.single_fork_ns.p10, (120e3 + 1.0e6) / 2.0), "{c:?}");
    assert!(near(c.single_fork_ns.p90, (400e3 + 3.0e6) / 2.0), "{c:?}");
    assert!(!c.extrapolated && !c.below_smallest);
    // Below, between and beyond the heaps: the median cold fork lies in
    // its interval and its interval in the single cold forks' spread.
    for pte in [40, 100, 550, 8_000, 64_000] {
        let c = predict(&s, &process(pte), 10.0).unwrap().cold_fork.unwrap();
        let (m, one) = (c.parent_return_ns, c.single_fork_ns);
        assert!(m.lo <= m.median && m.median <= m.hi, "{pte}: {m:?}");
        assert!(one.p10 <= m.median && m.median <= one.p90, "{pte}: {c:?}");
        assert_eq!(c.extrapolated, pte > 8_000);
        assert_eq!(c.below_smallest, pte < 100);
    }
    // The mappings and descriptors beyond the worker's are added alike.
    let proc_ = Process {
        vmas: 1_100,
        fds: 1_010,
        ..process(1_000)
    };
    let both = Slopes {
        per_mapping: with_image().per_mapping,
        per_fd: with_image().per_fd,
        ..with_cold()
    };
    let c = predict(&both, &proc_, 10.0).unwrap().cold_fork.unwrap();
    assert!(
        near(c.parent_return_ns.median, 1.5e6 + 1_900e3 + 20e3),
        "{c:?}"
    );
    // Named as such, with which to read.
    let text = render(&process(550), &p, "a fixture");
    assert!(text.contains("a cold fork, after a 300 ms pause"), "{text}");
    assert!(
        text.contains("the median cold fork and its 95% interval"),
        "{text}"
    );
    assert!(
        text.contains("a single cold fork: 560 µs to 1.70 ms, the 10th to 90th percentile"),
        "{text}"
    );
    assert!(text.contains("should read the cold ones"), "{text}");
    // One heap after a pause is no line: no cold figure.
    let one_heap = Slopes {
        fork_paused: with_cold().fork_paused[..1].to_vec(),
        fork_paused_single: with_cold().fork_paused_single[..1].to_vec(),
        ..with_cold()
    };
    assert_eq!(
        predict(&one_heap, &process(550), 10.0).unwrap().cold_fork,
        None
    );
    // In --json, beside the warm figures.
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v["cold_fork"]["pause_ms"], 300.0);
    for key in ["parent_return_ns", "single_fork_ns"] {
        assert!(v["cold_fork"][key].is_object(), "{v}");
        assert!(v[key].is_object(), "{v}");
    }
}

#[test]
fn the_cold_fork_is_read_from_spawn_heaps_paused_series() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/report-results.json"
    );
    let mut r = RunResults::read(std::path::Path::new(path)).unwrap();
    let warm = Slopes::from_results(&r);
    assert!(warm.fork_paused.is_empty() && warm.pause_ms.is_none());
    // The warm fork series copied as paused ones, three times as slow, as
    // a run with -p paused_forks=2 -p pause_ms=250 records them.
    let heap = r
        .experiments
        .iter_mut()
        .find(|e| e.name == "spawn.heap")
        .unwrap();
    let paused: Vec<_> = heap
        .metrics
        .iter()
        .filter(|m| {
            m.name == "parent_return_ns"
                && m.label("method") == Some("fork")
                && m.label("call").is_none()
                && m.label("thp") != Some("on")
        })
        .map(|m| {
            let mut m = m.clone();
            m.labels.insert("call".into(), "paused".into());
            let s = &mut m.summary;
            for v in [
                &mut s.median,
                &mut s.ci95_lo,
                &mut s.ci95_hi,
                &mut s.p10,
                &mut s.p90,
            ] {
                *v *= 3.0;
            }
            m
        })
        .collect();
    assert!(paused.len() >= 2);
    heap.metrics.extend(paused);
    heap.params
        .insert("pause_ms".into(), serde_json::json!(250));
    let s = Slopes::from_results(&r);
    // The warm lines unchanged; the cold ones three times them.
    assert_eq!(s.fork, warm.fork);
    assert_eq!(s.fork_single, warm.fork_single);
    assert_eq!(s.pause_ms, Some(250.0));
    assert_eq!(s.fork_paused.len(), s.fork.len());
    for ((pte, w), (pte1, c)) in s.fork.iter().zip(&s.fork_paused) {
        assert_eq!(pte, pte1);
        assert_eq!(c.median, w.median * 3.0);
    }
    let p = predict(&s, &process(300), 10.0).unwrap();
    assert!(p.cold_fork.unwrap().parent_return_ns.median > p.parent_return_ns.median);
}

#[test]
fn an_extrapolated_prediction_from_the_short_run_says_why() {
    let mut p = predict(&with_cold(), &process(16_000), 10.0).unwrap();
    assert!(p.extrapolated && p.cold_fork.unwrap().extrapolated);
    // From a results file: the line says it is extrapolated, no more.
    let text = render(&process(16_000), &p, "a fixture");
    assert!(text.contains("the line is extrapolated"), "{text}");
    assert!(!text.contains("(extrapolated:"), "{text}");
    assert!(serde_json::to_value(&p)
        .unwrap()
        .get("extrapolated_why")
        .is_none());
    // From its own run: why its heaps did not reach the process.
    p.extrapolated_why = Some("only 3 GiB fits here".into());
    let text = render(&process(16_000), &p, "a short run");
    assert!(
        text.contains("  (extrapolated: only 3 GiB fits here)\n"),
        "{text}"
    );
    assert_eq!(
        serde_json::to_value(&p).unwrap()["extrapolated_why"],
        "only 3 GiB fits here"
    );
}

/// The process's fork is a run of its own: each median's interval holds
/// the slopes' run-to-run noise once more, the single forks' spread the
/// same offset, and both only widen: zero noise gives the heaps' intervals
/// as they are, more noise contains less, the median never moves, and
/// slopes that record none take the floor.
#[test]
fn the_run_to_run_noise_widens_the_medians_interval_and_never_moves_it() {
    let with = |tau: Option<f64>| Slopes {
        run_noise: tau.map(|t| vec![(100.0, t)]).unwrap_or_default(),
        paused_run_noise: tau
            .map(|t| vec![(100.0, t), (8_000.0, t)])
            .unwrap_or_default(),
        ..with_cold()
    };
    let holds = |a: Range, b: Range| a.lo <= b.lo && b.hi <= a.hi && a.median == b.median;
    for pte in [40, 100, 550, 8_000, 64_000] {
        let at = |tau| predict(&with(tau), &process(pte), 10.0).unwrap();
        let plain = at(Some(0.0));
        let mut last = plain.clone();
        for tau in [0.005, 0.02, 0.1] {
            let p = at(Some(tau));
            assert_eq!(p.run_noise, tau);
            let (c, c0) = (p.cold_fork.unwrap(), last.cold_fork.unwrap());
            for (wide, narrow) in [
                (p.parent_return_ns, last.parent_return_ns),
                (c.parent_return_ns, c0.parent_return_ns),
            ] {
                assert!(holds(wide, narrow), "{pte} {tau}: {wide:?} {narrow:?}");
                assert!(wide.hi - wide.lo > narrow.hi - narrow.lo, "{pte} {tau}");
            }
            for (one, narrow, m) in [
                (
                    p.single_fork_ns.unwrap(),
                    last.single_fork_ns.unwrap(),
                    p.parent_return_ns,
                ),
                (c.single_fork_ns, c0.single_fork_ns, c.parent_return_ns),
            ] {
                assert!(
                    one.p10 <= narrow.p10 && narrow.p90 <= one.p90,
                    "{pte} {tau}"
                );
                assert!(
                    one.p10 <= m.lo && m.hi <= one.p90,
                    "{pte} {tau}: {one:?} {m:?}"
                );
            }
            last = p;
        }
        // Where the heaps' intervals are narrow, the noise sets the width:
        // at least ±1.96 τ in logs, once.
        let p = at(Some(0.1));
        let r = p.parent_return_ns;
        if r.lo > 0.0 {
            assert!((r.hi / r.median).ln() >= 1.96 * 0.1 - 1e-9, "{pte}: {r:?}");
            assert!((r.median / r.lo).ln() >= 1.96 * 0.1 - 1e-9, "{pte}: {r:?}");
        }
        // Slopes that record no run-to-run noise (a file from before it
        // was recorded) take the floor every interval holds.
        let floor = at(Some(crate::stats::noise::FLOOR));
        assert_eq!(at(None), floor);
        assert_eq!(floor.run_noise, crate::stats::noise::FLOOR);
    }
    let p = predict(&with(Some(0.02)), &process(550), 10.0).unwrap();
    let text = render(&process(550), &p, "a fixture");
    assert!(text.contains("τ warm 2.0%, cold 2.0% (sd)"), "{text}");
}

/// The run-to-run noise at the process's page tables is the heaps': on
/// the line between the two either side, the nearest beyond them, the
/// floor when no heap records any.
#[test]
fn the_run_to_run_noise_is_read_at_the_process_as_the_figures_are() {
    let v = [(100.0, 0.02), (1_000.0, 0.04), (8_000.0, 0.01)];
    assert_eq!(super::range::tau_at(&v, 50.0), 0.02);
    assert_eq!(super::range::tau_at(&v, 100.0), 0.02);
    assert!((super::range::tau_at(&v, 550.0) - 0.03).abs() < 1e-12);
    assert_eq!(super::range::tau_at(&v, 64_000.0), 0.01);
    for x in [50.0, 550.0, 4_000.0, 64_000.0] {
        let t = super::range::tau_at(&v, x);
        assert!((0.01..=0.04).contains(&t), "{x}: {t}");
    }
    assert_eq!(super::range::tau_at(&[], 550.0), crate::stats::noise::FLOOR);
}
