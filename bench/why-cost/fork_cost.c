/* Where fork+reap's sampling cost goes (docs/WHY.md, "Where fork's cost went").
 *
 *   fork_cost HEAP_MIB ROUNDS LAUNCHES CONFIG...
 *
 * Touches a heap of HEAP_MIB MiB (MADV_NOHUGEPAGE), then runs ROUNDS rounds;
 * in each round one block per CONFIG (the order rotated by round and
 * reversed in odd rounds), a block being: the events of CONFIG opened on
 * every CPU as `tasklab run --why` opens them CPU-wide, rings mapped,
 * enabled; one warm-up launch; LAUNCHES fork+waitpid timed one by one
 * (the child stamps a shared page and _exits, as tasklab's fork does);
 * the events disabled, the rings read (samples and task records counted),
 * unmapped and closed. A block's figure is the median launch. For each
 * config the paired change against `none` (same round): the mean of the
 * rounds' log ratios and its 95% t interval; printed with each round's
 * ratios to a file for pooling.
 *
 * CONFIG: none | none2 (A/A) | samp (cpu-clock, kernel chain, tasklab's
 * flags) | sampu (kernel and user chains) | sampnc (no chain) | sampnr
 * (samp, no ring mapped: the kernel writes nothing, the timer fires) |
 * dummy (the task-records event alone, its own ring) | both (samp + dummy
 * into samp's ring: tasklab's) | bothu | samp10 | samp1k (samp at 10 Hz,
 * 1000 Hz) | both10 | comm (dummy with comm records too) | ringoff
 * (samp's events opened and rings mapped, never enabled) | dontfork,
 * dontfork8 (no event: one or eight MAP_SHARED regions of a ring's size a
 * CPU, MADV_DONTFORK, as a ring is VM_DONTCOPY). The process is pinned to
 * CPU 0, its children with it, as spawn.heap's worker. Needs root (or
 * kernel.perf_event_paranoid <= 0). Build: gcc -O2 fork_cost.c -o fork_cost -lm
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 256 /* 512 pages over 2 CPUs, as tasklab */
#define MAXCPU 64
#define MAXCFG 16

static uint64_t now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct cfg {
    const char *name;
    long hz;   /* 0: no sampling event */
    int chain; /* 0 none, 1 kernel, 2 kernel and user */
    int ring;  /* the sampling event's ring mapped */
    int task;  /* the dummy records event */
    int comm;
    int off;      /* the events opened (and rings mapped) but never enabled */
    int dontfork; /* no event: two MAP_SHARED regions of the rings' size, MADV_DONTFORK */
};

static const struct cfg CFGS[] = {
    {"none", 0, 0, 0, 0, 0},   {"none2", 0, 0, 0, 0, 0},  {"samp", 250, 1, 1, 0, 0},
    {"sampu", 250, 2, 1, 0, 0}, {"sampnc", 250, 0, 1, 0, 0}, {"sampnr", 250, 1, 0, 0, 0},
    {"dummy", 0, 0, 0, 1, 0},  {"both", 250, 1, 1, 1, 0},  {"bothu", 250, 2, 1, 1, 0},
    {"samp10", 10, 1, 1, 0, 0}, {"samp1k", 1000, 1, 1, 0, 0}, {"both10", 10, 1, 1, 1, 0},
    {"comm", 0, 0, 0, 1, 1},
    {"ringoff", 250, 1, 1, 0, 0, 1, 0},
    {"dontfork", 0, 0, 0, 0, 0, 0, 1},
    {"dontfork8", 0, 0, 0, 0, 0, 0, 8},
};

static int perf_open(struct perf_event_attr *a, int cpu) {
    int fd = (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        perror("perf_event_open");
        exit(1);
    }
    return fd;
}

static void base_attr(struct perf_event_attr *a) {
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    a->disabled = 1;
    a->exclude_hv = 1;
    a->exclude_idle = 1;
    a->sample_id_all = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
}

struct open_block {
    int n;
    int nextra;
    char *extra[64];
    int samp[MAXCPU], task[MAXCPU];
    char *ring[MAXCPU];
};

static void open_cfg(const struct cfg *c, int ncpu, struct open_block *o) {
    memset(o, 0, sizeof *o);
    o->n = ncpu;
    for (int k = 0; k < c->dontfork * ncpu; k++) {
        char *m = mmap(NULL, (RING_PAGES + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || madvise(m, (RING_PAGES + 1) * 4096, MADV_DONTFORK)) {
            perror("dontfork");
            exit(1);
        }
        m[0] = 1;
        o->extra[o->nextra++] = m;
    }
    for (int cpu = 0; cpu < ncpu; cpu++) {
        o->samp[cpu] = o->task[cpu] = -1;
        o->ring[cpu] = NULL;
        struct perf_event_attr a;
        if (c->hz) {
            base_attr(&a);
            a.config = PERF_COUNT_SW_CPU_CLOCK;
            a.sample_period = 1000000000u / (uint64_t)c->hz;
            if (c->chain)
                a.sample_type |= PERF_SAMPLE_CALLCHAIN;
            a.exclude_callchain_user = c->chain != 2;
            o->samp[cpu] = perf_open(&a, cpu);
            if (c->ring) {
                o->ring[cpu] = mmap(NULL, (RING_PAGES + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
                                    o->samp[cpu], 0);
                if (o->ring[cpu] == MAP_FAILED) {
                    perror("mmap");
                    exit(1);
                }
            }
        }
        if (c->task) {
            base_attr(&a);
            a.config = PERF_COUNT_SW_DUMMY;
            a.sample_period = 4000000;
            a.sample_type |= PERF_SAMPLE_CALLCHAIN;
            a.exclude_callchain_user = 1;
            a.task = 1;
            a.comm = c->comm;
            o->task[cpu] = perf_open(&a, cpu);
            if (o->samp[cpu] >= 0 && o->ring[cpu]) {
                if (ioctl(o->task[cpu], PERF_EVENT_IOC_SET_OUTPUT, o->samp[cpu])) {
                    perror("SET_OUTPUT");
                    exit(1);
                }
            } else {
                o->ring[cpu] = mmap(NULL, (RING_PAGES + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
                                    o->task[cpu], 0);
                if (o->ring[cpu] == MAP_FAILED) {
                    perror("mmap");
                    exit(1);
                }
            }
        }
    }
    /* tasklab: the records' events on first, then the sampling ones. */
    if (c->off)
        return;
    for (int cpu = 0; cpu < ncpu; cpu++)
        if (o->task[cpu] >= 0)
            ioctl(o->task[cpu], PERF_EVENT_IOC_ENABLE, 0);
    for (int cpu = 0; cpu < ncpu; cpu++)
        if (o->samp[cpu] >= 0)
            ioctl(o->samp[cpu], PERF_EVENT_IOC_ENABLE, 0);
}

/* Disables, counts the ring's samples and task records, closes. */
static void close_cfg(struct open_block *o, long *samples, long *records) {
    for (int k = 0; k < o->nextra; k++)
        munmap(o->extra[k], (RING_PAGES + 1) * 4096);
    for (int cpu = 0; cpu < o->n; cpu++) {
        if (o->samp[cpu] >= 0)
            ioctl(o->samp[cpu], PERF_EVENT_IOC_DISABLE, 0);
        if (o->task[cpu] >= 0)
            ioctl(o->task[cpu], PERF_EVENT_IOC_DISABLE, 0);
    }
    for (int cpu = 0; cpu < o->n; cpu++) {
        char *ring = o->ring[cpu];
        if (ring) {
            volatile struct perf_event_mmap_page *meta = (void *)ring;
            uint64_t head = meta->data_head, tail = meta->data_tail;
            __sync_synchronize();
            uint64_t size = RING_PAGES * 4096;
            if (head - tail > size)
                tail = head - size;
            for (uint64_t at = tail; at < head;) {
                struct perf_event_header h;
                for (size_t q = 0; q < sizeof h; q++)
                    ((char *)&h)[q] = ring[4096 + (at + q) % size];
                if (h.size < sizeof h)
                    break;
                *samples += h.type == PERF_RECORD_SAMPLE;
                *records += h.type == PERF_RECORD_FORK || h.type == PERF_RECORD_EXIT ||
                            h.type == PERF_RECORD_COMM;
                at += h.size;
            }
            munmap(ring, (RING_PAGES + 1) * 4096);
        }
        if (o->task[cpu] >= 0)
            close(o->task[cpu]);
        if (o->samp[cpu] >= 0)
            close(o->samp[cpu]);
    }
}

static volatile uint64_t *stamp;

static double launch(void) {
    *stamp = 0;
    uint64_t t0 = now();
    pid_t p = fork();
    if (p == 0) {
        *stamp = now();
        _exit(0);
    }
    if (p < 0) {
        perror("fork");
        exit(1);
    }
    int st;
    if (waitpid(p, &st, 0) != p) {
        perror("waitpid");
        exit(1);
    }
    uint64_t t2 = now();
    if (*stamp < t0) {
        fprintf(stderr, "no stamp\n");
        exit(1);
    }
    return (double)(t2 - t0);
}

static int by_value(const void *x, const void *y) {
    double p = *(const double *)x, q = *(const double *)y;
    return p < q ? -1 : p > q;
}

static double tq975(int df) {
    /* t quantile, 97.5%: close enough beyond 30 df */
    static const double t[] = {0, 12.71, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df <= 30)
        return t[df];
    return 1.96 + 2.4 / df;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: fork_cost HEAP_MIB ROUNDS LAUNCHES CONFIG...\n");
        return 2;
    }
    long heap_mib = atol(argv[1]);
    int rounds = atoi(argv[2]), launches = atoi(argv[3]);
    if (rounds < 2 || launches < 1) {
        fprintf(stderr, "ROUNDS must be 2 or more, LAUNCHES 1 or more\n");
        return 2;
    }
    int nc = argc - 4;
    const struct cfg *cfg[MAXCFG];
    for (int i = 0; i < nc; i++) {
        cfg[i] = NULL;
        for (size_t k = 0; k < sizeof CFGS / sizeof CFGS[0]; k++)
            if (!strcmp(argv[4 + i], CFGS[k].name))
                cfg[i] = &CFGS[k];
        if (!cfg[i]) {
            fprintf(stderr, "unknown config %s\n", argv[4 + i]);
            return 2;
        }
    }
    if (strcmp(cfg[0]->name, "none")) {
        fprintf(stderr, "the first config must be none\n");
        return 2;
    }
    int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    /* As spawn.heap: the worker pinned to one CPU, its children with it. */
    {
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(0, &s);
        if (sched_setaffinity(0, sizeof s, &s)) {
            perror("sched_setaffinity");
            return 1;
        }
    }
    stamp = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (heap_mib > 0) {
        size_t len = (size_t)heap_mib << 20;
        char *h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        madvise(h, len, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < len; i += 4096)
            h[i] = 1;
    }
    double *fig = calloc((size_t)(rounds * nc), sizeof *fig);
    long *samples = calloc((size_t)nc, sizeof *samples), *records = calloc((size_t)nc, sizeof *records);
    double *v = calloc((size_t)launches, sizeof *v);
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < nc; j++) {
            int i = (r % 2 == 0) ? (r / 2 + j) % nc : (r / 2 + nc - 1 - j) % nc;
            struct open_block o;
            open_cfg(cfg[i], ncpu, &o);
            launch();
            for (int k = 0; k < launches; k++)
                v[k] = launch();
            close_cfg(&o, &samples[i], &records[i]);
            qsort(v, (size_t)launches, sizeof *v, by_value);
            fig[r * nc + i] = launches % 2 ? v[launches / 2] : (v[launches / 2 - 1] + v[launches / 2]) / 2;
        }
    }
    double med0 = 0;
    {
        double *m = calloc((size_t)(rounds > 0 ? rounds : 1), sizeof *m);
        for (int r = 0; r < rounds; r++)
            m[r] = fig[r * nc];
        qsort(m, (size_t)rounds, sizeof *m, by_value);
        med0 = m[rounds / 2];
    }
    printf("heap %ld MiB, %d rounds of %d launches, none's median block %.1f us\n", heap_mib, rounds,
           launches, med0 / 1e3);
    for (int i = 1; i < nc; i++) {
        double s = 0, ss = 0;
        printf("ratios %s:", cfg[i]->name);
        for (int r = 0; r < rounds; r++) {
            double d = log(fig[r * nc + i] / fig[r * nc]);
            s += d;
            ss += d * d;
            printf(" %.5f", d);
        }
        printf("\n");
        double m = s / rounds, sd = sqrt((ss - rounds * m * m) / (rounds - 1)), h = tq975(rounds - 1) * sd / sqrt(rounds);
        printf("%-7s %+.2f%% [%+.2f%%, %+.2f%%] sd %.2f%%  samples/block %.1f records/block %.1f\n",
               cfg[i]->name, 100 * (exp(m) - 1), 100 * (exp(m - h) - 1), 100 * (exp(m + h) - 1), 100 * sd,
               (double)samples[i] / rounds, (double)records[i] / rounds);
    }
    return 0;
}
