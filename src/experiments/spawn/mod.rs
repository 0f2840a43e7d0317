//! Creation: what it costs to start a task, every way Linux offers.
//!
//! Reproduces Bendersky's launch benchmark (`000_…`: fork 35 µs vs thread
//! 5 µs at a 2 MB heap, fork growing with the heap, averaged over 10,000
//! launches) and Sysel's single calls (`004_…`: fork 34–94 µs to the parent,
//! 60–170 µs to the child; pthread_create 49–143 / 94–260 µs; 4 GB fork
//! ≈ 20 ms; fork+exec ≈ 700 µs).
//!
//! - [`table`]: the creation methods, one row each.
//! - [`engine`]: the launcher that creates and times one task.
//! - [`placement`]: pinned to one CPU, or free and filed by where the child
//!   started.
//! - [`methods`] (spawn.methods), [`launch`] (spawn.launch, the seed's own
//!   protocol), [`cold`] (spawn.cold), [`heap`] (spawn.heap), [`cow`]
//!   (spawn.cow): one experiment each.

pub mod cold;
pub mod cow;
pub mod engine;
pub mod heap;
pub mod heap_fit;
pub mod heap_image;
pub mod heap_placed;
pub mod heap_untouched;
pub mod launch;
pub mod launch_why;
pub mod methods;
pub mod placement;
pub mod table;

/// advise sizes its heap points with the same margin as spawn.heap.
pub use heap::heap_margin;
