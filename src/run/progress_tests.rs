use super::*;
use serde_json::json;

#[test]
fn points_read_as_words_never_as_json() {
    assert_eq!(words(&json!([0, 1])), "0,1");
    assert_eq!(words(&json!("same_cpu")), "same_cpu");
    assert_eq!(
        words(&json!({"method": "futex", "cpus": [0, 1]})),
        "cpus=0,1 method=futex"
    );
    for v in [json!({"a": {"b": [1, 2]}}), json!([{"x": "y"}])] {
        let w = words(&v);
        assert!(!w.contains(['{', '[', '"']), "{w}");
    }
}

#[test]
fn clock_reads_in_minutes_and_seconds() {
    assert_eq!(fmt_clock(0.4), "0s");
    assert_eq!(fmt_clock(42.0), "42s");
    assert_eq!(fmt_clock(185.0), "3m 05s");
}

#[test]
fn the_estimate_starts_from_the_prior_and_never_goes_negative() {
    let p = Pace::new(10, 1.0);
    let left = p.left_s();
    assert!(left > 9.0 && left <= 10.5, "{left}");
    let done = Pace { done: 10, ..p };
    assert_eq!(done.left_s(), 0.0);
}

#[test]
fn sizes_read_in_units_and_counts_grouped() {
    assert_eq!(
        words(&json!({"heap": 1073741824u64, "pages": "4k"})),
        "heap=1 GiB pages=4k"
    );
    assert_eq!(
        words(&json!({"working_sets": [65536, 2097152]})),
        "working_sets=64 KiB,2 MiB"
    );
    assert_eq!(words(&json!({"n": 55256000})), "n=55,256,000");
    assert_eq!(words(&json!({"threads": 500})), "threads=500");
    assert_eq!(point_words(&json!(null)), "");
    assert_eq!(point_words(&json!({"heap": 1073741824u64})), "heap=1 GiB");
}

#[test]
fn the_line_fits_the_width_and_cuts_the_job_at_a_word() {
    let msg = "spawn.heap · heap 1 GiB · method fork_exec_static · round 3/8";
    for width in [30, 40, 60, 80, 100, 120, 200] {
        let l = line(width, 15, 48, "1m 05s", "about 3m 20s left", msg);
        assert!(l.chars().count() < width, "{width}: {l}");
        // The job's words are whole, or cut after a whole word.
        if let Some(job) = l.split_once(" left · ").map(|(_, j)| j) {
            let job = job.trim_end_matches('…');
            assert!(msg.starts_with(job), "{width}: {l}");
            let next = msg[job.len()..].chars().next();
            assert!(matches!(next, None | Some(' ')), "{width}: {l}");
        }
    }
    let wide = line(200, 15, 48, "1m 05s", "about 3m 20s left", msg);
    assert!(wide.ends_with(msg) && wide.contains('█'), "{wide}");
    // A narrow terminal drops the bar before the job.
    let narrow = line(70, 15, 48, "1m 05s", "about 3m 20s left", msg);
    assert!(
        !narrow.contains('█') && narrow.contains("spawn.heap"),
        "{narrow}"
    );
}

/// The seconds the line shows, when it shows a number.
fn shown_s(text: &str) -> Option<f64> {
    let t = text.strip_prefix("about ")?.strip_suffix(" left")?;
    let (m, s) = match t.split_once("m ") {
        Some((m, s)) => (m.parse::<f64>().ok()?, s),
        None => (0.0, t),
    };
    Some(60.0 * m + s.trim_end_matches('s').parse::<f64>().ok()?)
}

#[test]
fn the_time_left_never_goes_up_once_shown() {
    // Jobs that take longer and longer than the prior said: the estimate
    // rises; what the line shows does not.
    let mut p = Pace::new(20, 1.0);
    let mut last = f64::INFINITY;
    let mut behind = false;
    for k in 0..20 {
        let now = Instant::now();
        // The run started long ago, the last job ended a while ago.
        p.started = now - Duration::from_secs_f64(2.0 * (k * k) as f64 + 1.0);
        p.last_end = now - Duration::from_secs_f64(k as f64);
        p.done = k;
        let text = p.left_text();
        match shown_s(&text) {
            Some(s) => {
                assert!(s <= last + 0.5, "{text} after {last}");
                last = s;
            }
            None => {
                assert_eq!(text, "slower than estimated");
                behind = true;
            }
        }
    }
    assert!(behind, "the estimate never ran past the time shown");
    // Adaptive rounds are a phase of their own, said as such.
    p.adaptive = true;
    p.shown = None;
    assert!(p.left_text().starts_with("adaptive rounds, "));
}

#[test]
fn the_runs_own_estimate_counts_down_through_the_job_never_below_what_follows() {
    let mut p = Pace::new(10, 1.0);
    // 60 s after this job, which should take 2 s and started 0.5 s ago.
    p.told = Some((60.0, 2.0, Instant::now() - Duration::from_millis(500)));
    let left = p.left_s();
    assert!(left > 61.0 && left <= 61.5, "{left}");
    // The job runs past its 2 s: what follows it is still to come.
    p.told = Some((60.0, 2.0, Instant::now() - Duration::from_secs(9)));
    assert_eq!(p.left_s(), 60.0);
    // The pace of jobs done has no say once the run gave its own.
    p.done = 9;
    assert_eq!(p.left_s(), 60.0);
}

#[test]
fn the_estimate_may_go_up_until_every_experiment_has_run_a_job() {
    // The plan's prior said 20 s; the first jobs measure 60 s.
    let mut p = Pace::new(40, 1.0);
    p.settled = false;
    p.told = Some((20.0, 0.0, Instant::now()));
    assert_eq!(shown_s(&p.left_text()), Some(20.0));
    p.told = Some((60.0, 0.0, Instant::now()));
    assert_eq!(shown_s(&p.left_text()), Some(60.0));
    // Settled: now it holds.
    p.settled = true;
    p.told = Some((90.0, 0.0, Instant::now()));
    assert_eq!(shown_s(&p.left_text()), Some(60.0));
}
