//! The machine as it is now: the files below `/` plus the facts that need
//! system calls (affinity, CPUID's hypervisor leaf, rlimits, `uname`).

use super::Env;
use crate::sys;
use std::path::Path;

/// The environment of this process, read now.
pub fn probe() -> Env {
    let (kernel, arch) = sys::uname();
    let mut e = Env::read_from(Path::new("/"), kernel, arch);
    e.cpus_allowed = sys::allowed_cpus().unwrap_or_default();
    if let Some(vendor) = sys::hypervisor_vendor() {
        let name = match vendor.as_str() {
            "KVMKVMKVM" => "kvm".to_string(),
            "Microsoft Hv" => "hyper-v".to_string(),
            "VMwareVMware" => "vmware".to_string(),
            "XenVMMXenVMM" => "xen".to_string(),
            "TCGTCGTCGTCG" => "qemu (tcg)".to_string(),
            other => other.to_string(),
        };
        if e.virtualization
            .as_deref()
            .is_none_or(|v| v.contains("unknown"))
        {
            e.virtualization = Some(name);
        }
    }
    e.limits.rlimit_nproc = sys::rlimit(sys::Resource::Nproc).ok().and_then(|l| l.0);
    e.limits.rlimit_stack = sys::rlimit(sys::Resource::Stack).ok().and_then(|l| l.0);
    e.limits.rlimit_as = sys::rlimit(sys::Resource::AddressSpace)
        .ok()
        .and_then(|l| l.0);
    e.fingerprint = Some(super::Fingerprint::of(&e));
    e
}
