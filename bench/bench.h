/* trnsim-bench: kernels timed through the real host (program -> dispatch ->
 * plugin -> memory), each printed with its throughput and its ratio to a
 * baseline timed in the same run. A benchmark, never a test: nothing here
 * fails on a time.
 *
 * A bench file (bench/bench_<family>.c) defines cases with BENCH_CASE; they
 * run in link order. `trnsim-bench [FILTER] [--quick]` runs the cases whose
 * name contains FILTER; --quick shrinks sizes (bench_quick()). */
#ifndef TRNSIM_BENCH_H
#define TRNSIM_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/sim.h"

typedef void (*bench_fn)(void);
void bench_register(const char *name, bench_fn fn);

#define BENCH_CASE(name)                                                                                              \
    static void name(void);                                                                                           \
    __attribute__((constructor)) static void bench_reg_##name(void) { bench_register(#name, name); }                  \
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

/* Best seconds per call over repeated calls lasting at least min_seconds
 * in total (and at least 3 calls). */
double bench_time(void (*fn)(void *), void *arg, double min_seconds);
/* The same for trn_sim_run(s). */
double bench_time_run(trn_sim *s, double min_seconds);

/* One result line: `work` units were processed in `seconds`; `baseline`
 * took `baseline_seconds` for the same work. ratio = baseline_seconds /
 * seconds (> 1: faster than the baseline). */
void bench_report(const char *kernel, const char *size, double work, const char *unit, double seconds,
                  const char *baseline, double baseline_seconds);

/* Deterministic data. */
void bench_fill_f32(float *x, size_t n, uint64_t seed, float lo, float hi);

#endif
