/* What one cpu-clock sample costs the sampled task (docs/WHY.md, "What a
 * sample costs"). Events as `run --why` opens them CPU-wide: software
 * cpu-clock, pid -1, one per CPU, exclude_idle, exclude_hv, fork and exit
 * records, kernel call chains only.
 *
 *   sample_cost gaps HZ CHAIN RING SECONDS
 *     Spins on the CPU it runs on reading CLOCK_MONOTONIC, with every
 *     CPU's event at HZ (0: no event); CHAIN 0 leaves the call chain out,
 *     RING 0 maps no ring (the kernel then writes no sample: the timer
 *     interrupt alone). Prints the gaps above 10 us per second, their mean,
 *     and the share of the time they took.
 *   sample_cost batch HZ ROUND_TRIPS BATCHES
 *     A same-CPU pipe ping-pong between two threads pinned to CPU 0, timed
 *     in batches of ROUND_TRIPS, with CPU 0's event at HZ always on; each
 *     batch's samples counted from the ring. Prints the median batch with
 *     no sample and with one: the cost of a sample inside a batch.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGES 256
static uint64_t now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int open_event(long hz, int chain, int cpu) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = 1000000000u / (uint64_t)hz;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | (chain ? PERF_SAMPLE_CALLCHAIN : 0);
    a.disabled = 1;
    a.exclude_hv = 1;
    a.exclude_idle = 1;
    a.task = 1;
    a.exclude_callchain_user = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        perror("perf_event_open (needs root or kernel.perf_event_paranoid <= 0)");
        exit(1);
    }
    return fd;
}

static char *map_ring(int fd) {
    char *r = mmap(NULL, (PAGES + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return r;
}

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static int gaps(long hz, int chain, int ring, double seconds) {
    int n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int cpu = 0; hz > 0 && cpu < n; cpu++) {
        int fd = open_event(hz, chain, cpu);
        if (ring)
            map_ring(fd);
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    }
    uint64_t end = now() + (uint64_t)(seconds * 1e9), prev = now(), count = 0, lost = 0;
    for (;;) {
        uint64_t t = now(), d = t - prev;
        prev = t;
        if (d > 10000) {
            count++;
            lost += d;
        }
        if (t > end)
            break;
    }
    printf("hz %ld chain %d ring %d: gaps over 10 us %.0f/s, mean %.1f us, %.2f%% of the time\n", hz,
           chain, ring, count / seconds, count ? lost / 1e3 / count : 0, 100.0 * lost / (seconds * 1e9));
    return 0;
}

static int ping[2], pong[2];
static void *partner(void *arg) {
    (void)arg;
    char c;
    pin(0);
    while (read(ping[0], &c, 1) == 1)
        if (write(pong[1], &c, 1) != 1)
            break;
    return NULL;
}

static int by_value(const void *x, const void *y) {
    double p = *(const double *)x, q = *(const double *)y;
    return p < q ? -1 : p > q;
}

static int batch(long hz, int trips, int batches) {
    pin(0);
    if (pipe(ping) || pipe(pong))
        return 1;
    pthread_t t;
    pthread_create(&t, NULL, partner, NULL);
    int fd = open_event(hz, 1, 0);
    char *ring = map_ring(fd);
    volatile struct perf_event_mmap_page *meta = (void *)ring;
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    double *took = calloc((size_t)batches, sizeof *took);
    int *samples = calloc((size_t)batches, sizeof *samples);
    char c = 0;
    for (int j = -100; j < batches; j++) {
        uint64_t h0 = meta->data_head;
        __sync_synchronize();
        uint64_t t0 = now();
        for (int k = 0; k < trips; k++)
            if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
                return 1;
        double dt = (double)(now() - t0);
        uint64_t h1 = meta->data_head;
        __sync_synchronize();
        int got = 0;
        for (uint64_t at = h0; at < h1;) {
            struct perf_event_header h;
            for (size_t q = 0; q < sizeof h; q++)
                ((char *)&h)[q] = ring[4096 + (at + q) % (PAGES * 4096)];
            if (h.size < sizeof h)
                break;
            got += h.type == PERF_RECORD_SAMPLE;
            at += h.size;
        }
        meta->data_tail = h1;
        if (j >= 0) {
            took[j] = dt;
            samples[j] = got;
        }
    }
    double *v = calloc((size_t)batches, sizeof *v);
    for (int k = 0; k <= 1; k++) {
        int m = 0;
        for (int j = 0; j < batches; j++)
            if (samples[j] == k)
                v[m++] = took[j];
        if (!m)
            continue;
        qsort(v, (size_t)m, sizeof *v, by_value);
        printf("hz %ld, batches of %d round trips with %d sample%s: %d, median %.1f us\n", hz, trips, k,
               k == 1 ? "" : "s", m, v[m / 2] / 1e3);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 6 && !strcmp(argv[1], "gaps"))
        return gaps(atol(argv[2]), atoi(argv[3]), atoi(argv[4]), atof(argv[5]));
    if (argc == 5 && !strcmp(argv[1], "batch"))
        return batch(atol(argv[2]), atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "usage: sample_cost gaps HZ CHAIN RING SECONDS | batch HZ ROUND_TRIPS BATCHES\n");
    return 2;
}
