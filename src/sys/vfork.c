/* vfork cannot be called from Rust: the child borrows the parent's stack and
 * returns twice, which Rust's code generation does not model. This shim keeps
 * the whole child side in C: stamp the clock (and the CPU) into shared memory,
 * then _exit. The parent resumes only after the child has exited. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int tasklab_vfork_stamp(volatile uint64_t *stamp_ns, volatile int32_t *cpu) {
    pid_t pid = vfork();
    if (pid == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        *stamp_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        /* getcpu through the kernel: the child shares the parent's memory
         * and TLS, so glibc's sched_getcpu would read the parent's rseq area. */
        unsigned int c = 0;
        *cpu = syscall(SYS_getcpu, &c, (void *)0, (void *)0) == 0 ? (int32_t)c : -1;
        _exit(0);
    }
    return pid; /* -1 with errno set on failure */
}

/* vfork + exec: everything the child touches was prepared by the caller. */
int tasklab_vfork_exec(const char *path, char *const argv[], char *const envp[],
                       int stamp_fd, int devnull_fd) {
    pid_t pid = vfork();
    if (pid == 0) {
        if (stamp_fd != 3) dup2(stamp_fd, 3);
        dup2(devnull_fd, 1);
        execve(path, argv, envp);
        _exit(127);
    }
    return pid;
}
