//! The copy yardstick: a memcpy of `size` bytes between the page-aligned
//! halves of one buffer, the destination moved `shift` bytes on. One
//! protocol for yardstick.memcpy and for switch.pingpong's seed yardstick
//! ("a context switch is a bit quicker than copying 64 KiB"), so the two
//! figures are one quantity.

use super::sampler::{per_op, Budget};
pub use crate::metric::key::{BYTES, SIZE};
use crate::metric::{Kind, LabelKey, MetricSpec};
use crate::units::{Better, Unit};
use std::hint::black_box;

/// One memcpy of a size and layout.
pub const COPY_NS: MetricSpec = MetricSpec::new(
    "copy_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Copy,
    "one memcpy of `size` bytes, the destination page-aligned or 16 bytes on (`layout`)",
);

/// Where the destination sits: `aligned` or `dst+16`.
pub const LAYOUT: LabelKey = "layout";

const PAGE_BYTES: usize = 4096;

/// ns per copy of `size_bytes`, one sample per batch (see [`per_op`]);
/// `shift` 0 is "aligned", 16 is "dst+16" (where two malloc'd neighbours
/// land, each block having a 16-byte header).
pub fn copy_samples(
    budget: &Budget,
    loop_overhead_ns: f64,
    size_bytes: usize,
    shift: usize,
) -> Vec<f64> {
    let gap_bytes = size_bytes.div_ceil(PAGE_BYTES) * PAGE_BYTES;
    let mut buf = vec![1u8; 2 * gap_bytes + 2 * PAGE_BYTES];
    let start = buf.as_ptr().align_offset(PAGE_BYTES);
    let (head, tail) = buf[start..].split_at_mut(gap_bytes);
    let src = &head[..size_bytes];
    let dst = &mut tail[shift..shift + size_bytes];
    per_op(budget, loop_overhead_ns, || {
        dst.copy_from_slice(black_box(src));
        black_box(&mut *dst);
    })
}

#[cfg(test)]
#[path = "copy_tests.rs"]
mod tests;
