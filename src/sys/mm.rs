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

impl Mapping {
    fn new(len: usize, flags: libc::c_int) -> io::Result<Self> {
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
        Ok(Mapping {
            ptr: NonNull::new(p.cast()).expect("mmap returned null"),
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

/// A private anonymous heap of `len` bytes, every page written once so it is
/// resident and has page-table entries: the parent's memory image that fork
/// must copy the page tables of.
pub struct Heap {
    map: Option<Mapping>,
    start: usize,
    len: usize,
}

impl Heap {
    pub fn touched(len: usize, thp: Thp) -> io::Result<Self> {
        if len == 0 {
            return Ok(Heap {
                map: None,
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
        let heap = Heap {
            map: Some(map),
            start,
            len,
        };
        heap.touch();
        Ok(heap)
    }

    /// Writes one byte per page so every page is resident.
    fn touch(&self) {
        let mut off = 0;
        while off < self.len {
            // SAFETY: start+off is inside the mapping, which is writable and
            // not aliased by any Rust reference.
            unsafe { std::ptr::write_volatile((self.start + off) as *mut u8, 1) };
            off += PAGE;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_none()
    }
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
