use super::*;
use crate::sys::{allowed_cpus, pin_current_thread};

/// A CLONE_VM child that waits until its parent has moved it, then stamps.
extern "C" fn wait_then_stamp(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: arg is the &SharedPage the test passes; it outlives the child,
    // which the test waits for.
    let page = unsafe { &*(arg as *const SharedPage) };
    while page.i32(2).load(Ordering::Acquire) == 0 {
        // SAFETY: sched_yield takes no arguments and touches no memory.
        unsafe { libc::sched_yield() };
    }
    stamp_without_tls(page);
    0
}

fn set_affinity(pid: i32, cpu: usize) {
    // SAFETY: cpu_set_t is plain data; zeroed is its empty state, cpu is
    // below CPU_SETSIZE (it came from the allowed set).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size passed.
    let r = unsafe { libc::sched_setaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    assert_eq!(r, 0, "{}", io::Error::last_os_error());
}

#[test]
fn a_clone_vm_child_on_the_other_cpu_reports_that_cpu() {
    let allowed = allowed_cpus().unwrap();
    if allowed.len() < 2 {
        eprintln!("skipped: needs two CPUs");
        return;
    }
    let (here, there) = (allowed[0], allowed[1]);
    pin_current_thread(&[here]).unwrap();
    let page = SharedPage::new().unwrap();
    page.i32(0).store(-1, Ordering::Relaxed);
    let stack = CloneStack::new(64 << 10).unwrap();
    // SAFETY: the child runs wait_then_stamp on its own stack, which lives
    // until the child is reaped below; it touches only the shared page.
    let pid = check(unsafe {
        libc::clone(
            wait_then_stamp,
            stack.top(),
            CloneKind::SharedVm.flags(),
            &page as *const SharedPage as *mut libc::c_void,
        )
    })
    .unwrap();
    set_affinity(pid, there);
    page.i32(2).store(1, Ordering::Release);
    Child { pid }.wait().unwrap();
    pin_current_thread(&allowed).unwrap();
    // The parent stayed on `here`; its rseq area says so. The child, which
    // shares that memory, must report where it ran itself.
    assert_eq!(page.i32(0).load(Ordering::Acquire), there as i32);
}
