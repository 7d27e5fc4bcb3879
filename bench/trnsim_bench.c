#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "runtime/stats.h"

#define MAX_CASES 128

static struct {
    const char *name;
    bench_fn fn;
} cases[MAX_CASES];
static int n_cases, quick;

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

double bench_time(void (*fn)(void *), void *arg, double min_seconds) {
    double best = 1e30, total = 0;
    for (int i = 0; i < 3 || total < min_seconds; ++i) {
        double t0 = trn_now();
        fn(arg);
        double dt = trn_now() - t0;
        total += dt;
        if (dt < best) best = dt;
        if (i > 100000) break;
    }
    return best;
}

static void run_once(void *arg) {
    trn_error e;
    if (trn_sim_run(arg, &e)) die("run", &e);
}

double bench_time_run(trn_sim *s, double min_seconds) { return bench_time(run_once, s, min_seconds); }

static void human(double v, char *buf, size_t len) {
    const char *suffix[] = {"", "K", "M", "G", "T"};
    int k = 0;
    while (v >= 1000 && k < 4) v /= 1000, ++k;
    snprintf(buf, len, "%.2f %s", v, suffix[k]);
}

void bench_report(const char *kernel, const char *size, double work, const char *unit, double seconds,
                  const char *baseline, double baseline_seconds) {
    char rate[32], brate[32];
    human(work / seconds, rate, sizeof rate);
    human(work / baseline_seconds, brate, sizeof brate);
    printf("%-34s %-16s %12s%s/s   vs %-22s %12s%s/s   ratio %.2fx\n", kernel, size, rate, unit, baseline, brate, unit,
           baseline_seconds / seconds);
    fflush(stdout);
}

void bench_fill_f32(float *x, size_t n, uint64_t seed, float lo, float hi) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = lo + (hi - lo) * (float)((s >> 40) * (1.0 / 16777216.0));
    }
}

int main(int argc, char **argv) {
    const char *filter = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else filter = argv[i];
    }
    printf("trnsim-bench: %d cases%s; ratio = baseline time / trnsim time (> 1 is faster than the baseline)\n",
           n_cases, quick ? " (quick sizes)" : "");
    for (int i = 0; i < n_cases; ++i) {
        if (filter && !strstr(cases[i].name, filter)) continue;
        printf("\n# %s\n", cases[i].name);
        fflush(stdout);
        cases[i].fn();
    }
    return 0;
}
