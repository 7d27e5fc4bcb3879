#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "exec/exec.h"

#define MAX_CASES 128

static struct {
    const char *name;
    bench_fn fn;
} cases[MAX_CASES];
static int n_cases, quick, cpu_clock;

void bench_register(const char *name, bench_fn fn) {
    if (n_cases < MAX_CASES) cases[n_cases++] = (typeof(cases[0])){name, fn};
}

int bench_quick(void) { return quick; }

static void die(const char *what, const trn_error *e) {
    fprintf(stderr, "trnsim-bench: %s: %s\n", what, e->msg);
    exit(1);
}

trn_sim *bench_open(const char *config_text) {
    static char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    trn_sim_opts o = {.config_text = config_text, .exe_dir = dir};
    trn_sim *s;
    trn_error e;
    if (trn_sim_open(&s, &o, &e)) die("open", &e);
    return s;
}

void bench_load(trn_sim *s, const char *json) {
    trn_error e;
    if (trn_sim_load_program_text(s, json, "<bench program>", &e)) die("load", &e);
}

void bench_set(trn_sim *s, const char *t, const void *d, size_t b) {
    trn_error e;
    if (trn_sim_set_tensor(s, t, -1, d, b, &e)) die("set", &e);
}

void bench_get(trn_sim *s, const char *t, void *d, size_t b) {
    trn_error e;
    if (trn_sim_get_tensor(s, t, 0, d, b, &e)) die("get", &e);
}

void bench_run(trn_sim *s) {
    trn_error e;
    if (trn_sim_run(s, &e)) die("run", &e);
}

static void run_once(void *arg) { bench_run(arg); }

bench_job bench_run_job(trn_sim *s) { return (bench_job){run_once, s}; }

/* Seconds of this thread's CPU time (--cpu-time): on a shared machine the
 * time a job was runnable but not running does not count. */
static double thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double call_timed(const bench_job *j) {
    const double t0 = cpu_clock ? thread_seconds() : trn_now();
    j->fn(j->arg);
    return (cpu_clock ? thread_seconds() : trn_now()) - t0;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of v[0..n-1] (sorted in place), by linear interpolation. */
static double quantile(double *v, int n, double q) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    const double pos = q * (n - 1);
    const int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

static void *grow(void *p, size_t bytes) {
    void *q = realloc(p, bytes);
    if (!q) {
        fprintf(stderr, "trnsim-bench: out of memory for %zu bytes of timings\n", bytes);
        exit(1);
    }
    return q;
}

#define MIN_ROUNDS 7
#define MAX_ROUNDS 100000

void bench_compare(bench_job job, const bench_job *baselines, int n_base, double min_seconds,
                   bench_paired *res) {
    if (n_base < 1 || n_base > BENCH_MAX_BASELINES) {
        fprintf(stderr, "trnsim-bench: bench_compare takes 1 to %d baselines, found %d\n",
                BENCH_MAX_BASELINES, n_base);
        exit(1);
    }
    const int n_jobs = 1 + n_base;
    bench_job jobs[1 + BENCH_MAX_BASELINES];
    jobs[0] = job;
    for (int k = 0; k < n_base; ++k) jobs[1 + k] = baselines[k];
    for (int k = 0; k < n_jobs; ++k)
        call_timed(&jobs[k]); /* warm-up: pages, caches, branch history */
    size_t cap = 64;
    double *times = grow(NULL, cap * n_jobs * sizeof *times); /* times[round * n_jobs + job] */
    double total = 0;
    int r = 0;
    for (; r < MIN_ROUNDS || (total < min_seconds && r < MAX_ROUNDS); ++r) {
        if ((size_t)r == cap) times = grow(times, (cap *= 2) * n_jobs * sizeof *times);
        for (int i = 0; i < n_jobs;
             ++i) { /* rotate who goes first: no side always runs on a warm cache */
            const int k = (r + i) % n_jobs;
            const double dt = call_timed(&jobs[k]);
            times[(size_t)r * n_jobs + k] = dt;
            total += dt;
        }
    }
    double *a = grow(NULL, r * sizeof *a), *b = grow(NULL, r * sizeof *b);
    for (int k = 0; k < n_base; ++k) {
        for (int i = 0; i < r; ++i)
            a[i] = times[(size_t)i * n_jobs + 1 + k] / times[(size_t)i * n_jobs];
        res[k].rounds = r;
        res[k].ratio_q1 = quantile(a, r, 0.25);
        res[k].ratio = quantile(a, r, 0.5);
        res[k].ratio_q3 = quantile(a, r, 0.75);
        for (int i = 0; i < r; ++i)
            a[i] = times[(size_t)i * n_jobs], b[i] = times[(size_t)i * n_jobs + 1 + k];
        res[k].t = quantile(a, r, 0.5);
        res[k].t_base = quantile(b, r, 0.5);
    }
    free(a);
    free(b);
    free(times);
}

static void human(double v, char *buf, size_t len) {
    const char *suffix[] = {"", "K", "M", "G", "T"};
    int k = 0;
    while (v >= 1000 && k < 4) v /= 1000, ++k;
    snprintf(buf, len, "%.2f %s", v, suffix[k]);
}

void bench_report(const char *kernel, const char *size, double work, const char *unit,
                  const char *baseline, const bench_paired *p) {
    char rate[32], brate[32];
    human(work / p->t, rate, sizeof rate);
    human(work / p->t_base, brate, sizeof brate);
    printf("%-34s %-16s %12s%s/s   vs %-38s %12s%s/s   ratio %.2fx (IQR %.2f-%.2f, %d pairs)\n",
           kernel, size, rate, unit, baseline, brate, unit, p->ratio, p->ratio_q1, p->ratio_q3,
           p->rounds);
    fflush(stdout);
}

void bench_mismatch_after(const char *what) {
    printf("MISMATCH after timing: %s differs from its reference; its numbers are not reported\n",
           what);
    fflush(stdout);
}

void bench_fill_f32(float *x, size_t n, uint64_t seed, float lo, float hi) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = lo + (hi - lo) * (float)((s >> 40) * (1.0 / 16777216.0));
    }
}

/* The machine, as docs/benchmarks.md names it: the CPU model and the
 * vector extensions the kernels choose between (from /proc/cpuinfo, as
 * lscpu shows them), and the CPU count. */
static void print_machine(void) {
    char line[8192], model[256] = "unknown CPU", flags[8192] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *v = colon + 1 + (colon[1] == ' ');
        v[strcspn(v, "\n")] = 0;
        if (!strncmp(line, "model name", 10) && !strcmp(model, "unknown CPU"))
            snprintf(model, sizeof model, "%s", v);
        if (!strncmp(line, "flags", 5) && !flags[0]) snprintf(flags, sizeof flags, " %s ", v);
    }
    if (f) fclose(f);
    static const char *const wanted[] = {"sse2",    "avx",      "avx2",    "fma",
                                         "avx512f", "avx512dq", "avx512bw"};
    printf("machine: %s, %ld CPUs online; vector flags:", model, sysconf(_SC_NPROCESSORS_ONLN));
    for (size_t k = 0; k < sizeof wanted / sizeof wanted[0]; ++k) {
        char word[32];
        snprintf(word, sizeof word, " %s ", wanted[k]);
        printf(" %s%s", strstr(flags, word) ? "" : "no-", wanted[k]);
    }
    printf("\n");
}

/* The 1-minute load average: how busy the machine was while timing. */
static void print_load(const char *when) {
    double load = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &load) != 1) load = -1;
    if (f) fclose(f);
    if (load >= 0) printf("load average (1 min) %s: %.2f\n", when, load);
}

int main(int argc, char **argv) {
    const char *filter = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--cpu-time"))
            cpu_clock = 1;
        else
            filter = argv[i];
    }
    printf("trnsim-bench: %d cases%s; ratio = baseline time / trnsim time (> 1 is faster than the "
           "baseline),\n"
           "the median over rounds that alternate the two, with its interquartile range%s\n",
           n_cases, quick ? " (quick sizes)" : "", cpu_clock ? "; times are thread CPU time" : "");
    print_machine();
    for (int i = 0; i < n_cases; ++i) {
        if (filter && !strstr(cases[i].name, filter)) continue;
        printf("\n# %s\n", cases[i].name);
        print_load("at the start");
        fflush(stdout);
        cases[i].fn();
    }
    printf("\n");
    print_load("at the end");
    return 0;
}
