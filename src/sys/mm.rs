//! Memory mappings: the shared page children stamp into, a touched heap that
//! sets the parent's memory image, and stacks for raw `clone`.

use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI32, AtomicU64};

pub const PAGE: usize = 4096;
pub const HUGE_PAGE: usize = 2 << 20;

/// An anonymous mapping, unmapped on drop.
struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a Mapping is plain memory owned by this process; sharing the pointer
// between threads is as safe as sharing any heap allocation.
unsafe impl Send for Mapping {}
// SAFETY: see Send; the users of Mapping only reach it through atomics or `&mut`.
unsafe impl Sync for Mapping {}

/// `len` bytes of fresh readable, writable anonymous memory (`flags` adds
/// to `MAP_ANONYMOUS`), at an address the kernel picks. The caller owns it
/// and unmaps it.
pub(super) fn map_anonymous(len: usize, flags: libc::c_int) -> io::Result<NonNull<u8>> {
    // SAFETY: an anonymous mapping at an address the kernel picks aliases no
    // existing Rust object; the result is checked for MAP_FAILED.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(NonNull::new(p.cast()).expect("mmap returned null"))
}

impl Mapping {
    fn new(len: usize, flags: libc::c_int) -> io::Result<Self> {
        Ok(Mapping {
            ptr: map_anonymous(len, flags)?,
            len,
        })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr/len are exactly what mmap returned, unmapped once.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// One page mapped `MAP_SHARED`: it stays shared with every child created
/// after it, with or without `CLONE_VM`, so a child can hand the parent its
/// start time and CPU.
pub struct SharedPage {
    map: Mapping,
}

impl SharedPage {
    pub fn new() -> io::Result<Self> {
        Ok(SharedPage {
            map: Mapping::new(PAGE, libc::MAP_SHARED)?,
        })
    }

    /// Slot `i` (of 256) as an atomic u64.
    pub fn u64(&self, i: usize) -> &AtomicU64 {
        assert!(i < PAGE / 16);
        // SAFETY: the page is 4096 bytes, aligned, zero-initialised and lives as
        // long as &self; slots 0..256 of u64 occupy the first half, are aligned,
        // and are only accessed atomically.
        unsafe { &*(self.map.ptr.as_ptr().cast::<AtomicU64>().add(i)) }
    }

    /// Slot `i` (of 512) in the page's second half as an atomic i32.
    pub fn i32(&self, i: usize) -> &AtomicI32 {
        assert!(i < PAGE / 8);
        // SAFETY: as for u64(); the i32 slots live in bytes 2048..4096, disjoint
        // from the u64 slots.
        unsafe {
            &*(self
                .map
                .ptr
                .as_ptr()
                .add(PAGE / 2)
                .cast::<AtomicI32>()
                .add(i))
        }
    }

    pub(crate) fn u64_ptr(&self, i: usize) -> *mut u64 {
        self.u64(i).as_ptr()
    }

    pub(crate) fn i32_ptr(&self, i: usize) -> *mut i32 {
        self.i32(i).as_ptr()
    }
}

/// Transparent huge pages for a heap: asked for, refused, or left to the
/// system's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Thp {
    On,
    Off,
    Default,
}

/// A private anonymous heap of `len` bytes: the parent's memory image.
/// Touched (every page written once, resident, with page-table entries fork
/// must copy) or untouched (mapped only).
pub struct Heap {
    /// Held only to be unmapped when the heap is dropped.
    _map: Option<Mapping>,
    start: usize,
    len: usize,
}

impl Heap {
    /// A heap whose every page is written once: resident, with page-table
    /// entries for fork to copy.
    pub fn touched(len: usize, thp: Thp) -> io::Result<Self> {
        let heap = Heap::untouched(len, thp)?;
        heap.touch();
        Ok(heap)
    }

    /// A heap the kernel faults in whole at once (`MADV_POPULATE_WRITE`):
    /// every page resident and written, with the page-table entries fork
    /// must copy, as [`Heap::touched`] leaves it, allocated in the same
    /// address order, without a page-fault exception per page (on a KVM
    /// guest a 1 GiB heap took 25-40% less time: 1.5 against 2.1 µs a page
    /// on memory the host still backed, 3.3-4.9 against 5.3-6.5 µs on
    /// memory it had taken back). Where the kernel does not know the
    /// advice (before Linux 5.14), touched page by page.
    pub fn populated(len: usize, thp: Thp) -> io::Result<Self> {
        let heap = Heap::untouched(len, thp)?;
        if heap.len == 0 {
            return Ok(heap);
        }
        // SAFETY: [start, start+len) lies inside the mapping this heap
        // owns, private, anonymous and writable; populating only faults in
        // its pages, zero-filled, and no Rust reference points into it.
        let r = unsafe {
            libc::madvise(
                heap.start as *mut libc::c_void,
                heap.len,
                libc::MADV_POPULATE_WRITE,
            )
        };
        if r != 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINVAL) {
                return Err(e);
            }
            heap.touch();
        }
        Ok(heap)
    }

    /// Pages of the heap resident now (mincore), of [`Heap::pages`]: what
    /// the tests hold a populated heap to.
    #[cfg(test)]
    pub fn resident_pages(&self) -> io::Result<usize> {
        if self.len == 0 {
            return Ok(0);
        }
        let mut vec = vec![0u8; self.pages()];
        // SAFETY: start is page-aligned (2 MiB-aligned) inside the mapping
        // this heap owns, [start, start+len) is mapped, and vec holds one
        // byte per page of it, as mincore writes.
        let r =
            unsafe { libc::mincore(self.start as *mut libc::c_void, self.len, vec.as_mut_ptr()) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(vec.iter().filter(|&&b| b & 1 == 1).count())
    }

    /// A heap mapped but never written: no page is resident and the mapping
    /// has no page tables yet, so fork has nothing of it to copy (what a
    /// `malloc` of gigabytes is until the program writes it).
    pub fn untouched(len: usize, thp: Thp) -> io::Result<Self> {
        if len == 0 {
            return Ok(Heap {
                _map: None,
                start: 0,
                len: 0,
            });
        }
        // Over-allocate by one huge page so the heap can start on a 2 MiB
        // boundary, where the kernel can back it with huge pages.
        let map = Mapping::new(len + HUGE_PAGE, libc::MAP_PRIVATE | libc::MAP_NORESERVE)?;
        let base = map.ptr.as_ptr() as usize;
        let start = (base + HUGE_PAGE - 1) & !(HUGE_PAGE - 1);
        let advice = match thp {
            Thp::On => Some(libc::MADV_HUGEPAGE),
            Thp::Off => Some(libc::MADV_NOHUGEPAGE),
            Thp::Default => None,
        };
        if let Some(advice) = advice {
            // SAFETY: [start, start+len) lies inside the mapping just made;
            // madvise only changes how the kernel backs it.
            let r = unsafe { libc::madvise(start as *mut libc::c_void, len, advice) };
            if r != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(Heap {
            _map: Some(map),
            start,
            len,
        })
    }

    /// Writes one byte per page so every page is resident.
    fn touch(&self) {
        for i in 0..self.pages() {
            self.write_page(i);
        }
    }

    /// Drops every page of the heap (MADV_DONTNEED) and faults them in
    /// again in a shuffled order (`seed`): the same heap, its pages now
    /// physically scattered as a long-running program's often are, where a
    /// heap written front to back tends to get frames in a row.
    pub fn refault_shuffled(&self, seed: u64) -> io::Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        // SAFETY: [start, start+len) lies inside the mapping this heap
        // owns, private and anonymous, and no Rust reference points into
        // it: dropping its pages only makes them read as zero again.
        let r = unsafe {
            libc::madvise(
                self.start as *mut libc::c_void,
                self.len,
                libc::MADV_DONTNEED,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut order: Vec<usize> = (0..self.pages()).collect();
        let mut x = seed | 1;
        for i in (1..order.len()).rev() {
            // xorshift64: enough to scatter the faults.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        for i in order {
            self.write_page(i);
        }
        Ok(())
    }

    /// Drops every page of the heap and faults it in again as transparent
    /// huge pages (MADV_HUGEPAGE: each a physically contiguous 2 MiB
    /// block), then splits each into 512 pages of 4 KiB: MADV_COLD over all
    /// of a huge page but its first 4 KiB makes the kernel split the folio
    /// itself (a partial `mprotect` or `munmap` would split only its
    /// mapping, leaving a large folio that fork copies in batches, another
    /// path), and MADV_NOHUGEPAGE keeps khugepaged from collapsing them
    /// again. The same heap on order-0 pages, as a program without huge
    /// pages has, its frames in a row 511 times in 512: the most contiguous
    /// placement a program's 4 KiB pages get. Where huge pages are refused
    /// (THP `never`, no free 2 MiB block) the pages are faulted front to
    /// back instead; [`super::procfs::frames_adjacent_pct`] and
    /// [`super::procfs::large_folio_pct`] of [`Heap::frames`] say what it got.
    /// Returns the share of its pages that were on huge pages before the
    /// split, percent (None: the frames or their flags cannot be read, as
    /// without CAP_SYS_ADMIN).
    pub fn refault_contiguous(&self) -> io::Result<Option<f64>> {
        if self.len == 0 {
            return Ok(None);
        }
        self.advise(0, self.len, libc::MADV_DONTNEED)?;
        self.fault_huge_and_split(self.len, |h| {
            h.frames().and_then(|f| super::procfs::large_folio_pct(&f))
        })
    }

    /// The first `len` bytes faulted in as transparent huge pages
    /// (MADV_HUGEPAGE; THP `never` refuses the advice, and the pages then
    /// come in order as they come), `read` called on the heap so faulted,
    /// then each huge page split into 4 KiB pages by MADV_COLD over all of
    /// it but its first 4 KiB, and MADV_NOHUGEPAGE so that khugepaged does
    /// not collapse them again ([`Heap::refault_contiguous`] says why).
    /// The heap starts on a 2 MiB boundary ([`Heap::untouched`]).
    fn fault_huge_and_split<T>(&self, len: usize, read: impl FnOnce(&Heap) -> T) -> io::Result<T> {
        let _ = self.advise(0, len, libc::MADV_HUGEPAGE);
        for i in 0..len.div_ceil(PAGE) {
            self.write_page(i);
        }
        let got = read(self);
        for at in (0..len).step_by(HUGE_PAGE) {
            let end = (at + HUGE_PAGE).min(len);
            if end > at + PAGE {
                self.advise(at + PAGE, end - at - PAGE, libc::MADV_COLD)?;
            }
        }
        let _ = self.advise(0, len, libc::MADV_NOHUGEPAGE);
        Ok(got)
    }

    /// Moves the heap's pages within aligned windows of `window` pages, each
    /// window's pages to places shuffled by `seed` (userfaultfd's
    /// `UFFDIO_MOVE`, [`super::uffd::permute_within`]): every page keeps its
    /// frame, so a heap laid in a row by [`Heap::refault_contiguous`] gets
    /// each page's frame within `window` frames of the page before's, next
    /// to it only by chance. Where a move fails (Linux before 6.8, no
    /// userfaultfd for this user) the error is returned and the heap is
    /// faulted in again front to back, every page present.
    pub fn permute_within(&self, window: usize, seed: u64) -> io::Result<()> {
        let scratch = Heap::untouched(window.min(self.pages()) * PAGE, Thp::Off)?;
        let r = super::uffd::permute_within(
            self.start,
            self.pages(),
            PAGE,
            scratch.start,
            window,
            seed,
        );
        if r.is_err() {
            // Pages left in the scratch mapping go with it: the heap's holes
            // are faulted in again.
            drop(scratch);
            self.touch();
        }
        r
    }

    /// `advice` over the `len` bytes from byte `at` of the heap.
    fn advise(&self, at: usize, len: usize, advice: libc::c_int) -> io::Result<()> {
        assert!(at + len <= self.len, "advice beyond the heap");
        if len == 0 {
            return Ok(());
        }
        // SAFETY: [start+at, start+at+len) lies inside the mapping this
        // heap owns (checked above), private and anonymous, aliased by no
        // Rust reference: dropping its pages makes them read as zero, and
        // the other advice only changes how the kernel backs them.
        let r = unsafe { libc::madvise((self.start + at) as *mut libc::c_void, len, advice) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Lays the heap's pages out in another process's frame layout
    /// (`tasklab predict`'s replay): `blocks` holds, per block of 2 MiB of
    /// that process's frames, the heap pages whose frames lay in it and
    /// each one's offset in the block (0 to 511). Each block gets a fresh
    /// transparent huge page of ours, split into 4 KiB pages as
    /// [`Heap::refault_contiguous`] splits them, and each of its heap
    /// pages is moved there from that offset (userfaultfd's `UFFDIO_MOVE`,
    /// frame kept): runs, distances within a block and which blocks are
    /// revisited are the process's, the blocks' own places wherever the
    /// huge pages came from. Every other page of the heap is dropped; the
    /// huge pages' unused pages are freed. Needs root or
    /// `vm.unprivileged_userfaultfd` and Linux 6.8; on an error the heap is
    /// left part laid (drop it).
    pub fn replay(&self, blocks: &[Vec<(usize, u16)>]) -> io::Result<Replayed> {
        self.advise(0, self.len, libc::MADV_DONTNEED)?;
        self.advise(0, self.len, libc::MADV_NOHUGEPAGE)?;
        let mut fd = super::uffd::Fd::open()?;
        fd.register(self.start, self.len)?;
        let scratch = Heap::untouched(REPLAY_BATCH_BLOCKS * HUGE_PAGE, Thp::On)?;
        let mut done = Replayed {
            blocks: blocks.len(),
            ..Replayed::default()
        };
        let mut missing = Vec::new();
        for batch in blocks.chunks(REPLAY_BATCH_BLOCKS) {
            let len = batch.len() * HUGE_PAGE;
            done.whole += scratch.huge_split(len)?;
            fd.register(scratch.start, len)?;
            for (j, moves) in batch.iter().enumerate() {
                for &(page, off) in moves {
                    assert!(page < self.pages() && usize::from(off) < HUGE_PAGE / PAGE);
                    let src = scratch.start + j * HUGE_PAGE + usize::from(off) * PAGE;
                    match fd.move_pages(self.start + page * PAGE, src, PAGE) {
                        Ok(()) => {}
                        // Its source page is gone (moved already): placed below.
                        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => missing.push(page),
                        Err(e) => {
                            return Err(io::Error::new(
                                e.kind(),
                                format!("page {page}, from offset {off} of a block: {e}"),
                            ))
                        }
                    }
                }
            }
            fd.unregister(scratch.start, len)?;
            scratch.advise(0, len, libc::MADV_DONTNEED)?;
        }
        drop(fd);
        done.missing = missing.len();
        for page in missing {
            self.write_page(page);
        }
        Ok(done)
    }

    /// The first `len` bytes (whole huge pages) faulted in as huge pages
    /// and each split into 4 KiB pages ([`Heap::refault_contiguous`]'s
    /// way); returns how many came as a whole huge page (512 frames in a
    /// row; 0 when the frames cannot be read).
    fn huge_split(&self, len: usize) -> io::Result<usize> {
        self.fault_huge_and_split(len, |_| ())?;
        let per = HUGE_PAGE / PAGE;
        let frames = super::procfs::page_frames(self.start / PAGE, len / PAGE).unwrap_or_default();
        Ok(frames
            .chunks_exact(per)
            .filter(|f| f[0] != 0 && f.iter().enumerate().all(|(q, &x)| x == f[0] + q as u64))
            .count())
    }

    /// 4 KiB pages in the heap.
    pub fn pages(&self) -> usize {
        self.len.div_ceil(PAGE)
    }

    /// Writes one byte into page `i`: enough for the kernel to fault the
    /// page in, or to copy it when it is shared copy-on-write after a fork.
    pub fn write_page(&self, i: usize) {
        assert!(i < self.pages(), "page {i} is outside the heap");
        // SAFETY: start + i*PAGE is inside the mapping (checked above), which
        // is writable and not aliased by any Rust reference; a volatile write
        // of one byte is always sound there.
        unsafe { std::ptr::write_volatile((self.start + i * PAGE) as *mut u8, 1) };
    }

    /// The physical frame behind each page ([`super::procfs::page_frames`]):
    /// 0 for a page not touched yet, and for all of them without
    /// CAP_SYS_ADMIN.
    pub fn frames(&self) -> Option<Vec<u64>> {
        super::procfs::page_frames(self.start / PAGE, self.pages())
    }
}

/// Blocks of frames [`Heap::replay`] lays at a time: the huge pages of
/// scratch it holds at once (128 MiB).
pub const REPLAY_BATCH_BLOCKS: usize = 64;

/// What [`Heap::replay`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Replayed {
    /// Blocks of 2 MiB of the process's frames laid.
    pub blocks: usize,
    /// Those whose huge page of ours came whole (512 frames in a row).
    pub whole: usize,
    /// Pages whose source page was gone when moved, faulted in afterwards
    /// wherever the free lists put them.
    pub missing: usize,
}

/// A stack for a task started with raw `clone`, with a guard page below it.
pub struct CloneStack {
    map: Mapping,
}

impl CloneStack {
    pub fn new(len: usize) -> io::Result<Self> {
        let map = Mapping::new(len + PAGE, libc::MAP_PRIVATE | libc::MAP_STACK)?;
        // SAFETY: the first page of our own mapping becomes a guard page.
        let r = unsafe { libc::mprotect(map.ptr.as_ptr().cast(), PAGE, libc::PROT_NONE) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(CloneStack { map })
    }

    /// The top of the stack (stacks grow down on every Linux architecture we
    /// build for), 16-byte aligned.
    pub(crate) fn top(&self) -> *mut libc::c_void {
        let top = self.map.ptr.as_ptr() as usize + self.map.len;
        (top & !15) as *mut libc::c_void
    }

    /// The usable stack as `clone3` takes it: its lowest address (above the
    /// guard page) and its length, both page-aligned.
    pub(crate) fn span(&self) -> (u64, u64) {
        let base = self.map.ptr.as_ptr() as u64 + PAGE as u64;
        (base, (self.map.len - PAGE) as u64)
    }
}

/// `count` one-page private anonymous mappings, each written once, with an
/// unmapped page between neighbours so the kernel cannot merge them: `count`
/// more mappings (VMAs) for fork to copy one by one, and for the child's
/// exit to tear down. Unmapped page by page on drop (never the holes, where
/// another thread's mapping may have landed since).
pub struct ScatteredPages {
    base: usize,
    count: usize,
}

impl ScatteredPages {
    pub fn new(count: usize) -> io::Result<Self> {
        if count == 0 {
            return Ok(ScatteredPages { base: 0, count: 0 });
        }
        // Not a `Mapping`: once holes are punched, only the pages left may
        // be unmapped.
        let p = map_anonymous(2 * count * PAGE, libc::MAP_PRIVATE | libc::MAP_NORESERVE)?;
        let pages = ScatteredPages {
            base: p.as_ptr() as usize,
            count,
        };
        for i in 0..count {
            let hole = pages.base + (2 * i + 1) * PAGE;
            // SAFETY: the hole lies inside the mapping just made, which no
            // Rust object refers to.
            if unsafe { libc::munmap(hole as *mut libc::c_void, PAGE) } != 0 {
                let e = io::Error::last_os_error();
                // The odd pages from here on are still ours: unmap them too
                // (drop unmaps the even ones).
                for j in i..count {
                    // SAFETY: page 2j+1 is still part of our mapping.
                    unsafe { libc::munmap((pages.base + (2 * j + 1) * PAGE) as *mut _, PAGE) };
                }
                return Err(e);
            }
        }
        for i in 0..count {
            // SAFETY: page 2i is one of our writable mappings, aliased by no
            // Rust reference; a volatile write of one byte is sound there.
            unsafe { std::ptr::write_volatile((pages.base + 2 * i * PAGE) as *mut u8, 1) };
        }
        Ok(pages)
    }
}

impl Drop for ScatteredPages {
    fn drop(&mut self) {
        for i in 0..self.count {
            // SAFETY: page 2i is exactly one of the one-page mappings this
            // value owns, unmapped once.
            unsafe { libc::munmap((self.base + 2 * i * PAGE) as *mut libc::c_void, PAGE) };
        }
    }
}

#[cfg(test)]
#[path = "mm_tests.rs"]
mod tests;
