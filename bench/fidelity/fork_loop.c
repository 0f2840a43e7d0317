/* Fidelity check for tasklab's figures: the plain C loop a reader would
 * write (gcc -O2). Prints the mean and median ns per launch of create +
 * reap (fork) or create + join (thread), per clock_gettime call (clock),
 * per 64 KiB memcpy (memcpy64k, memcpy64k+16), over N iterations, or per
 * pipe round trip (pipe, pipe_threads), over N batches. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

/* "fork_big": the same fork loop from a process image like a tasklab
 * worker's (about 11 more mappings and 200 KiB more anonymous memory), to
 * tell the image's cost from the harness's. */
static void grow_image(void) {
    for (int i = 0; i < 11; i++) {
        char *p = mmap(0, 48 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;
        munmap(p + (24 << 10), 24 << 10); /* a gap, so the kernel cannot merge the mappings */
        memset(p, 1, 20 << 10);
    }
}

/* "fork_like MAPPINGS ANON_KIB N": the fork loop from an image grown to a
 * tasklab worker's as it recorded it (spawn.methods' worker_mappings and
 * worker_anon_kib readings), with mappings of the same kinds as the
 * worker's. The loop maps libc and the loader as the worker does (which
 * since session 10 maps no libm or libgcc_s); it adds two shared anonymous
 * pages (the worker's shared words), then guard-page-and-stack pairs (std's
 * signal stack, the raw-clone stack) until /proc/self/maps has MAPPINGS
 * lines, then anonymous memory
 * touched until RssAnon reaches ANON_KIB. Against this loop the ratio
 * isolates the harness from the image. */
static long self_maps(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    if (!f) return -1;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}
static long self_anon_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld", &kib) == 1) break;
    fclose(f);
    return kib;
}
static void grow_to(long maps, long anon_kib) {
    for (int i = 0; i < 2 && self_maps() < maps; i++) {
        char *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;
        p[0] = 1;
    }
    while (self_maps() >= 0 && self_maps() < maps) {
        if (self_maps() + 1 == maps) { /* one left: a single page, a gap after it */
            char *p = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) return;
            munmap(p + 4096, 4096);
            p[0] = 1;
            break;
        }
        /* a guard page below a touched two-page stack, a gap above it */
        char *p = mmap(0, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;
        munmap(p + 3 * 4096, 4096);
        mprotect(p, 4096, PROT_NONE);
        memset(p + 4096, 1, 2 * 4096);
    }
    long more = anon_kib - self_anon_kib();
    if (more > 0) {
        char *p = mmap(0, more << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) memset(p, 1, more << 10);
    }
    fprintf(stderr, "fork_like: %ld mappings, %ld KiB anonymous\n", self_maps(), self_anon_kib());
}

static long long now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}
static void *thr(void *a) { return a; }

/* "pipe N" and "pipe_threads N": N batches of PIPE_BATCH round trips of a
 * 4-byte message over two pipes between two processes (or two threads) on
 * the CPU taskset gives, as switch.pingpong's pipe_processes and
 * pipe_threads do; a sample is one batch's mean, so the median is that of
 * about 1 ms batches, as tasklab's. */
#define PIPE_BATCH 200
static int to_b[2], to_a[2];
static void serve(void) {
    int x;
    while (read(to_b[0], &x, sizeof x) == sizeof x && x >= 0)
        if (write(to_a[1], &x, sizeof x) != sizeof x) break;
}
static void *serve_thr(void *a) { serve(); return a; }
static void round_trip(int x) {
    if (write(to_b[1], &x, sizeof x) != sizeof x || read(to_a[0], &x, sizeof x) != sizeof x) {
        perror("pipe round trip");
        exit(1);
    }
}
static int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "fork";
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    if (n < 1) { fprintf(stderr, "N must be a positive count\n"); return 2; }
    long long *v = malloc(sizeof(long long) * n);
    if (!strcmp(what, "fork_big")) { grow_image(); what = "fork"; }
    if (!strcmp(what, "fork_like")) {
        if (argc < 5) { fprintf(stderr, "usage: fork_like MAPPINGS ANON_KIB N\n"); return 2; }
        n = atoi(argv[4]);
        if (n < 1) { fprintf(stderr, "N must be a positive count\n"); return 2; }
        free(v);
        v = malloc(sizeof(long long) * n);
        grow_to(atol(argv[2]), atol(argv[3]));
        what = "fork";
    }
    int piped = !strcmp(what, "pipe") || !strcmp(what, "pipe_threads");
    pid_t partner = 0;
    pthread_t partner_thr;
    if (piped) {
        if (pipe(to_b) || pipe(to_a)) { perror("pipe"); return 1; }
        if (!strcmp(what, "pipe")) {
            partner = fork();
            if (partner < 0) { perror("fork"); return 1; }
            if (partner == 0) { /* the partner keeps only its own ends */
                close(to_b[1]);
                close(to_a[0]);
                serve();
                _exit(0);
            }
            close(to_b[0]); /* so the partner sees EOF if this process dies */
            close(to_a[1]);
        } else if (pthread_create(&partner_thr, 0, serve_thr, 0)) {
            perror("pthread_create");
            return 1;
        }
        for (int w = 0; w < 3; w++) round_trip(w); /* the partner is up and warm */
    }
    for (int w = 0; w < 5 && !piped; w++) { /* warm-up, as tasklab does */
        if (!strcmp(what, "fork")) { pid_t p = fork(); if (!p) _exit(0); waitpid(p, 0, 0); }
        else if (!strcmp(what, "thread")) { pthread_t t; pthread_create(&t, 0, thr, 0); pthread_join(t, 0); }
    }
    long long start = now();
    for (int i = 0; i < n; i++) {
        long long t0 = now();
        if (!strcmp(what, "fork")) {
            pid_t p = fork();
            if (p == 0) _exit(0);
            waitpid(p, 0, 0);
        } else if (piped) {
            for (int k = 0; k < PIPE_BATCH; k++) round_trip(k);
        } else if (!strncmp(what, "memcpy64k", 9)) {
            /* memcpy64k: page-aligned; memcpy64k+16: the destination 16 bytes
             * further on, where two malloc'd neighbours land */
            static char buf[4 * 65536] __attribute__((aligned(4096)));
            char *dst = buf + 2 * 65536 + (strchr(what, '+') ? 16 : 0);
            memcpy(dst, buf, 65536);
            __asm__ volatile("" ::"r"(dst) : "memory");
        } else if (!strcmp(what, "clock")) {
            for (int k = 0; k < 1000; k++) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); __asm__ volatile("" ::"r"(&t) : "memory"); }
        } else {
            pthread_t t;
            pthread_create(&t, 0, thr, 0);
            pthread_join(t, 0);
        }
        v[i] = now() - t0;
    }
    long long total = now() - start;
    qsort(v, n, sizeof *v, cmp);
    if (piped) { /* -1 stops the partner */
        int stop = -1;
        if (write(to_b[1], &stop, sizeof stop) != sizeof stop) perror("stop");
        if (partner > 0) waitpid(partner, 0, 0);
        else pthread_join(partner_thr, 0);
    }
    double div = !strcmp(what, "clock") ? 1000.0 : piped ? PIPE_BATCH : 1.0;
    printf("%s mean_ns %.1f median_ns %.1f n %d\n", what, total / (double)n / div, v[n / 2] / div, n);
    return 0;
}
