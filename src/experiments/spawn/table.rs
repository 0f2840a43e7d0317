//! The creation methods: one row each, the only list of them. `-p methods=`
//! (`ParamKind::Names`), `tasklab list` and the launcher's dispatch all read
//! it. The methods are those of Bendersky's launch benchmark (seed 000) and
//! Sysel's Table 1 (seed 004), plus the variants Linux offers between them.

use crate::measure::params::{choice_column, Choice, Row};
use crate::sys::CloneKind;

/// How the launcher creates a task of a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Fork,
    Vfork,
    /// clone3() with no flags: fork through the newer call.
    Clone3Fork,
    /// clone3() with pthread_create's flags, a stack and a TLS block.
    Clone3Thread,
    /// Raw clone() with these flags, on the launcher's stack.
    Clone(CloneKind),
    Pthread,
    StdThread,
    /// Starts a program: how, and which one.
    Exec(Start, Program),
}

/// How a program is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    PosixSpawn,
    ForkExec,
    VforkExec,
}

/// Which program is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// The tiny static program.
    Static,
    /// The tiny dynamically linked program.
    Dynamic,
    /// `/bin/sh -c` the tiny static program.
    ThroughSh,
}

/// One creation method: what `-p methods=` and `tasklab list` show, and what
/// the launcher dispatches on.
#[derive(Clone, Copy, Debug)]
pub struct Method {
    pub choice: Choice,
    pub kind: Kind,
}

impl Method {
    /// The row's name, in const contexts (labels in statics).
    pub const fn name(&self) -> &'static str {
        self.choice.name
    }

    /// Whether a launch starts a process (a task with its own pid), not a
    /// thread of the launcher's: under `run --why` its windows need the
    /// kernel's fork and exit records (`why::Scope::threads` otherwise).
    pub fn starts_process(&self) -> bool {
        !matches!(
            self.kind,
            Kind::Pthread
                | Kind::StdThread
                | Kind::Clone3Thread
                | Kind::Clone(CloneKind::ThreadFlags)
        )
    }

    /// The `run --why` scope of this method's series (`labels`): one that
    /// asks for the fork and exit records where a launch starts a process.
    pub fn why_scope(&self, labels: &crate::results::Labels) -> crate::measure::why::Scope {
        match self.starts_process() {
            true => crate::measure::why::Scope::enter(labels),
            false => crate::measure::why::Scope::threads(labels),
        }
    }
}

impl Row for Method {
    fn choice(&self) -> Choice {
        self.choice
    }
}

const fn row(name: &'static str, about: &'static str, kind: Kind) -> Method {
    Method {
        choice: Choice::new(name, about),
        kind,
    }
}

const fn needing(m: Method, needs: &'static str) -> Method {
    Method {
        choice: m.choice.needing(needs),
        kind: m.kind,
    }
}

/// The static program is built only when the C compiler finds a static libc.
const STATIC_LIBC: &str = "a static libc when tasklab is built";

pub const FORK: Method = row("fork", "fork(); the child _exits at once", Kind::Fork);
pub const VFORK: Method = row(
    "vfork",
    "vfork(); the parent sleeps until the child exits",
    Kind::Vfork,
);
pub const POSIX_SPAWN: Method = needing(
    row(
        "posix_spawn",
        "posix_spawn() of a tiny static program",
        Kind::Exec(Start::PosixSpawn, Program::Static),
    ),
    STATIC_LIBC,
);
pub const FORK_EXEC_STATIC: Method = needing(
    row(
        "fork_exec_static",
        "fork() + execve() of a tiny static program",
        Kind::Exec(Start::ForkExec, Program::Static),
    ),
    STATIC_LIBC,
);
pub const VFORK_EXEC_STATIC: Method = needing(
    row(
        "vfork_exec_static",
        "vfork() + execve() of the tiny static program",
        Kind::Exec(Start::VforkExec, Program::Static),
    ),
    STATIC_LIBC,
);
pub const PTHREAD_CREATE: Method = row(
    "pthread_create",
    "pthread_create() + pthread_join(), default attributes",
    Kind::Pthread,
);

/// Every creation method, in the order they are measured.
pub const METHODS: &[Method] = &[
    FORK,
    VFORK,
    row(
        "clone_vfork",
        "clone(CLONE_VM|CLONE_VFORK|SIGCHLD), what posix_spawn does inside",
        Kind::Clone(CloneKind::VforkVm),
    ),
    POSIX_SPAWN,
    FORK_EXEC_STATIC,
    needing(
        row(
            "fork_exec_dynamic",
            "fork() + execve() of a tiny dynamically linked program",
            Kind::Exec(Start::ForkExec, Program::Dynamic),
        ),
        "a C compiler when tasklab is built",
    ),
    VFORK_EXEC_STATIC,
    needing(
        row(
            "sh_c",
            "fork() + execve(\"/bin/sh -c prog\"): what system() costs",
            Kind::Exec(Start::ForkExec, Program::ThroughSh),
        ),
        "/bin/sh, and a static libc when tasklab is built",
    ),
    row(
        "clone_process",
        "raw clone() with SIGCHLD only: a process",
        Kind::Clone(CloneKind::Process),
    ),
    row(
        "clone_vm",
        "raw clone(CLONE_VM|SIGCHLD): a process sharing memory",
        Kind::Clone(CloneKind::SharedVm),
    ),
    row(
        "clone_thread_flags",
        "raw clone() with pthread_create's flags (less CLONE_SETTLS)",
        Kind::Clone(CloneKind::ThreadFlags),
    ),
    PTHREAD_CREATE,
    row(
        "std_thread",
        "Rust std::thread::spawn() + join()",
        Kind::StdThread,
    ),
    needing(
        row(
            "clone3_fork",
            "clone3() with no flags: fork through the newer system call",
            Kind::Clone3Fork,
        ),
        "clone3 (Linux 5.3+)",
    ),
    needing(
        row(
            "clone3_thread",
            "clone3() with pthread_create's flags, a stack and a TLS block, without the library's other work",
            Kind::Clone3Thread,
        ),
        "clone3 (Linux 5.3+) on x86-64",
    ),
];

/// The table's rows as `ParamKind::Names` takes them, derived at compile
/// time so there is no second list to keep in step.
pub const CHOICES: &[Choice] = choice_column!(METHODS);

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
