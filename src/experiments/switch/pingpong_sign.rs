//! sign: split from pingpong.rs (the 800-line limit).

/// The direction of the spinner variant across methods, in words: every
/// method counted, a direction claimed only by those whose interval of the
/// difference excludes no change.
pub(super) fn awake_lead(n: usize, faster: usize, slower: usize, noise: usize) -> String {
    let what = "with SCHED_IDLE spinners keeping both CPUs awake (two_cpus_awake)";
    let of = |k: usize| {
        if k == n {
            format!("every method ({n} of {n})")
        } else {
            format!("{k} of {n} methods")
        }
    };
    let mut said = Vec::new();
    if faster > 0 {
        said.push(format!("faster in {}", of(faster)));
    }
    if slower > 0 {
        said.push(format!("slower in {}", of(slower)));
    }
    if noise > 0 {
        said.push(format!("the same within noise in {}", of(noise)));
    }
    format!("{what} the hand-off was {}", said.join(", "))
}

/// The direction of the medians across methods, each method measured in
/// a worker of its own: how many moved each way, and how likely so many
/// would agree were there no effect (a two-sided sign test). A direction is
/// said to hold across methods only when that chance is below 5%.
pub(super) fn by_median(diffs: &[f64]) -> String {
    let n = diffs.len();
    let down = diffs.iter().filter(|d| **d < 0.0).count();
    let up = diffs.iter().filter(|d| **d > 0.0).count();
    if down + up == 0 {
        return format!("by the median, no change in any of {n}");
    }
    let p = sign_test(down.max(up), down + up);
    let way = if down >= up { "faster" } else { "slower" };
    let held = if p < 0.05 {
        format!(
            ", so across methods the hand-off on the kept-awake control's kernel path (a remote enqueue and RES) is {way} here than on the halted peer's (the wake list and CAL): another path, which bounds nothing about leaving idle"
        )
    } else {
        ", too few to claim a direction across methods".to_string()
    };
    format!(
        "by the median, faster in {down} and slower in {up} of {n}: were there no effect, {} of {} would agree with probability {:.0}%{held}",
        down.max(up),
        down + up,
        p * 100.0
    )
}

/// The two-sided sign test: the chance that at least `k` of `n` fair coin
/// tosses fall one way or the other.
pub fn sign_test(k: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let mut choose = 1.0f64; // C(n, 0)
    let mut tail = 0.0;
    for i in 0..=n {
        if i >= k {
            tail += choose;
        }
        choose = choose * (n - i) as f64 / (i + 1) as f64;
    }
    (2.0 * tail / 2f64.powi(n as i32)).min(1.0)
}
