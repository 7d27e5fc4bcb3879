/* trnsim-bench: kernels timed through the real host (program -> dispatch ->
 * plugin -> memory), each printed with its throughput and its ratio to a
 * baseline timed in the same run. A benchmark, never a test: nothing here
 * fails on a time.
 *
 * How a ratio is measured (bench_compare): the kernel and its baselines run
 * in alternating rounds, one call of each per round, and the ratio is the
 * median over the rounds of (baseline time / kernel time) within a round.
 * Machine load that comes and goes then hits both sides of a pair alike
 * instead of skewing a best-of-each. Each case checks the kernel's result
 * bit for bit against its reference before timing and again after timing,
 * and prints no number when either check fails.
 *
 * A bench file (bench/bench_<family>.c) defines cases with BENCH_CASE; they
 * run in link order. `trnsim-bench [FILTER] [--quick] [--cpu-time]` runs the
 * cases whose name contains FILTER; --quick shrinks sizes (bench_quick());
 * --cpu-time times each call by its thread's CPU time instead of the wall
 * clock (for a loaded machine; a case whose work runs in other threads or
 * processes reads low). */
#ifndef TRNSIM_BENCH_H
#define TRNSIM_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "exec/exec.h"

typedef void (*bench_fn)(void);
void bench_register(const char *name, bench_fn fn);

#define BENCH_CASE(name)                                                                           \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void bench_reg_##name(void) {                              \
        bench_register(#name, name);                                                               \
    }                                                                                              \
    static void name(void)

/* 1 under --quick: use smaller sizes. */
int bench_quick(void);

/* A sim from config text (NULL: the embedded default), modules found beside
 * the bench binary. Exits the bench on error (this is main's code path). */
trn_sim *bench_open(const char *config_text);
/* Load a program from JSON text; fills tensors with data via
 * trn_sim_set_tensor yourself. */
void bench_load(trn_sim *s, const char *program_json);
void bench_set(trn_sim *s, const char *tensor, const void *data, size_t bytes);
void bench_get(trn_sim *s, const char *tensor, void *data, size_t bytes);
/* One trn_sim_run (exits the bench on error). */
void bench_run(trn_sim *s);

/* Something to time: fn(arg). */
typedef struct bench_job {
    void (*fn)(void *);
    void *arg;
} bench_job;

/* A job that runs trn_sim_run(s). */
bench_job bench_run_job(trn_sim *s);

#define BENCH_MAX_BASELINES 4

/* One kernel-against-baseline result. */
typedef struct bench_paired {
    int rounds;                       /* pairs measured */
    double t, t_base;                 /* median seconds per call: the kernel, the baseline */
    double ratio, ratio_q1, ratio_q3; /* median and quartiles of the paired ratios t_base / t */
} bench_paired;

/* Time job against each of baselines[0..n_base-1] (n_base <=
 * BENCH_MAX_BASELINES): one warm-up call of each, then rounds in which
 * every one is called once, the order rotating from round to round, until
 * at least min_seconds have passed in all (at least 7 rounds, at most
 * 100000). Every job is called the same number of times, so jobs that
 * accumulate (scatter-add) stay comparable afterwards. res[k] pairs job
 * with baselines[k]. */
void bench_compare(bench_job job, const bench_job *baselines, int n_base, double min_seconds,
                   bench_paired *res);

/* One result line: `work` units per call of the kernel; the baseline does
 * the same work. ratio = baseline time / kernel time (> 1: faster than the
 * baseline), the median of the pairs, with their quartiles. */
void bench_report(const char *kernel, const char *size, double work, const char *unit,
                  const char *baseline, const bench_paired *p);

/* The check after timing failed: say so (the case then reports nothing). */
void bench_mismatch_after(const char *what);

/* Deterministic data. */
void bench_fill_f32(float *x, size_t n, uint64_t seed, float lo, float hi);

#endif
