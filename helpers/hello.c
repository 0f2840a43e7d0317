/* The tiny program tasklab execs to time fork+exec, posix_spawn and /bin/sh -c.
 * Like the Sysel paper's HelloWorld it prints one line; before that it stamps
 * CLOCK_MONOTONIC at its first instruction of main and hands it to the parent
 * on fd 3 (a pipe tasklab set up), so "child start" covers the exec and the
 * program's own start-up. Without fd 3 it is a plain hello world. */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    static const char msg[] = "hello, world\n";
    if (write(1, msg, sizeof msg - 1) < 0) { /* stdout closed: nothing to do */ }
    if (write(3, &ns, sizeof ns) < 0) { /* not run by tasklab */ }
    return 0;
}
