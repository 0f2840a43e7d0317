use super::{labelled_ticks, log_axis, log_range, log_ticks, spread, within, wrap};

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-9 * y.abs())
}

#[test]
fn wrap_breaks_between_words_and_keeps_long_words_whole() {
    assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
    assert_eq!(wrap("abcdefgh x", 4), ["abcdefgh", "x"]);
    assert_eq!(wrap("", 30), [""]);
}

#[test]
fn time_ticks_are_one_two_five_and_thin_to_decades_when_crowded() {
    let t = log_ticks(&(1.0..1000.0), 10.0);
    assert!(
        close(
            &t,
            &[1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        ),
        "{t:?}"
    );
    let t = log_ticks(&(1.0..1e6), 10.0);
    assert!(close(&t, &[1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]), "{t:?}");
}

#[test]
fn size_ticks_are_powers_of_two_thinned_to_at_most_eight() {
    let t = log_ticks(&(1.0..1024.0), 2.0);
    assert!(close(&t, &[1.0, 4.0, 16.0, 64.0, 256.0, 1024.0]), "{t:?}");
}

#[test]
fn log_ranges_skip_what_a_log_axis_cannot_show() {
    let r = log_range([2.0, 8.0, 0.0, -1.0, f64::NAN].into_iter()).expect("values");
    assert!(close(&[r.start, r.end], &[1.25, 12.8]), "{r:?}");
    assert!(log_range([0.0, f64::INFINITY].into_iter()).is_none());
    // The axis starts at a power of the base, so its foot is labelled.
    let r = log_axis([2.0, 8.0].into_iter(), 10.0).expect("values");
    assert!(close(&[r.start, r.end], &[1.0, 12.8]), "{r:?}");
}

#[test]
fn spread_labels_never_overlap_and_keep_their_order() {
    let mut ys = [100, 101, 102, 300];
    spread(&mut ys, 18);
    assert!(ys.windows(2).all(|w| w[1] - w[0] >= 18), "{ys:?}");
    assert_eq!(ys[3], 300, "a label with room stays where it is");
    let mut ys = [5, 50];
    spread(&mut ys, 18);
    assert_eq!(ys, [5, 50]);
}

#[test]
fn crowded_tick_labels_thin_from_the_left_and_keep_the_last() {
    let labels: Vec<String> = ["2 MiB", "1 GiB", "2 GiB", "4 GiB"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let keep = labelled_ticks(&[0, 400, 432, 464], &labels);
    assert_eq!(keep, [true, true, false, true]);
    // Wide apart: every label stays.
    let keep = labelled_ticks(&[0, 200, 400, 600], &labels);
    assert!(keep.iter().all(|k| *k));
    assert!(labelled_ticks(&[], &[]).is_empty());
}

#[test]
fn labels_pushed_past_the_plot_move_back_inside_as_far_as_they_must() {
    let mut ys = [100, 280, 298, 316];
    within(&mut ys, 18, 10, 300);
    assert_eq!(ys, [100, 264, 282, 300], "the top label had room: it stays");
    let mut ys = [0, 18, 200];
    within(&mut ys, 18, 10, 300);
    assert_eq!(ys, [10, 28, 200]);
    let mut ys = [50, 80];
    within(&mut ys, 18, 10, 300);
    assert_eq!(ys, [50, 80], "inside already: untouched");
    // Too many for the rows: the top one stays inside.
    let mut ys = [10, 28, 46];
    within(&mut ys, 18, 10, 40);
    assert_eq!(ys[0], 10);
    assert!(ys.windows(2).all(|w| w[1] - w[0] >= 18), "{ys:?}");
}

#[test]
fn a_line_never_joins_across_a_hollow_point() {
    use super::solid_runs;
    let pts = [
        (1, true),
        (2, true),
        (3, false),
        (4, true),
        (5, true),
        (6, true),
        (7, false),
        (8, true),
    ];
    assert_eq!(solid_runs(&pts), vec![vec![1, 2], vec![4, 5, 6]]);
    assert!(solid_runs(&[(1, true), (2, false), (3, true)]).is_empty());
    assert!(solid_runs::<i32>(&[]).is_empty());
}
