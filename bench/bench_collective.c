/* Collective benchmarks: AllReduce (add) of fp32 across R cores through the
 * host (program -> dispatch -> registry -> the last arrival reads the R
 * inputs, folds, writes the R outputs), against
 *   1. a plain loop that sums the same R buffers in the reference's order (one
 *      result), and
 *   2. that loop plus copying its result to R output buffers: the bytes an
 *      AllReduce has to move (R inputs read, R outputs written), and
 *   3. memmove of each of the R inputs to an output buffer: the same
 *      traffic with no arithmetic.
 * Work = bytes reduced (R inputs x bytes per rank). Every core's result is
 * checked against the loop bit for bit before and after timing, so a fast
 * wrong answer cannot post a number.
 *
 * Two sweeps meet at the size, 8 cores x 4 MiB per rank: the bytes
 * per rank at 8 cores (256 KiB, 1 MiB, 4 MiB), and the core count at 4 MiB
 * per rank (2, 4, 8). --quick divides the bytes by 8 and shortens every
 * timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MAX_RANKS  8
#define COLL_SIZES 3

static const char coll_config[] =
    "machine = { hbm_bytes = 1048576; };\n"
    "plugins = ( { family = \"collective\"; module = \"trnsim-collective\"; } );";

typedef struct sum_arg {
    int ranks;
    const float *in[MAX_RANKS];
    float *out;
    float *copies[MAX_RANKS];
    size_t n;
} sum_arg;

/* The baseline: one pass, each element folded ins[0] + 1 + ... + R-1 in
 * order (the same bits as the collective). */
static void plain_sum(void *arg) {
    sum_arg *a = arg;
    for (size_t i = 0; i < a->n; ++i) {
        float s = a->in[0][i];
        for (int r = 1; r < a->ranks; ++r) s = a->in[r][i] + s;
        a->out[i] = s;
    }
}

static void plain_sum_and_copy(void *arg) {
    sum_arg *a = arg;
    plain_sum(a);
    for (int r = 0; r < a->ranks; ++r) memcpy(a->copies[r], a->out, a->n * sizeof(float));
}

/* The traffic alone: each input memmoved to its own output (R reads, R
 * writes, no arithmetic), the floor an AllReduce is held against. */
static void memmove_traffic(void *arg) {
    sum_arg *a = arg;
    for (int r = 0; r < a->ranks; ++r) memmove(a->copies[r], a->in[r], a->n * sizeof(float));
}

static void die(const char *what, const trn_error *e) {
    fprintf(stderr, "bench_collective: %s: %s\n", what, e->msg);
    exit(1);
}

static double min_s(double full) { return bench_quick() ? full / 10 : full; }

/* Free elements per partition for 4 MiB per rank (128 partitions x 4 B),
 * divided by `div`; /8 under --quick. */
static size_t free_elems(size_t div) { return (bench_quick() ? 1024 : 8192) / div; }

/* The first core whose output differs from the loop's, bit for bit, or -1. */
static int first_bad_core(trn_sim *s, const sum_arg *a, size_t bytes) {
    float *got = malloc(bytes);
    int bad = -1;
    for (int r = 0; r < a->ranks && bad < 0; ++r) {
        trn_error e;
        if (trn_sim_get_tensor(s, "y", r, got, bytes, &e)) die("get", &e);
        if (memcmp(got, a->out, bytes)) bad = r;
    }
    free(got);
    return bad;
}

static void allreduce_at(int ranks, size_t fe) {
    size_t n = 128 * fe, bytes = n * sizeof(float);
    char prog[512];
    snprintf(
        prog, sizeof prog,
        "{\"cores\": %d, \"tensors\": ["
        "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [128, %zu]},"
        "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [128, %zu]}],"
        " \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllReduce\", "
        "\"reduce_op\": \"add\","
        " \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}",
        ranks, fe, fe);
    trn_sim *s = bench_open(coll_config);
    bench_load(s, prog);
    sum_arg a = {.ranks = ranks, .n = n, .out = malloc(bytes)};
    for (int r = 0; r < ranks; ++r) {
        float *buf = malloc(bytes);
        bench_fill_f32(buf, n, 1000 + (uint64_t)r, -1e3f, 1e3f);
        trn_error e;
        if (trn_sim_set_tensor(s, "x", r, buf, bytes, &e)) die("set", &e);
        a.in[r] = buf;
        a.copies[r] = calloc(1, bytes);
    }
    bench_run(s);
    plain_sum(&a);
    const int bad = first_bad_core(s, &a, bytes);
    if (bad >= 0) {
        printf("MISMATCH: core %d's AllReduce differs from the loop; not timing it\n", bad);
    } else {
        const bench_job base[3] = {
            {plain_sum, &a}, {plain_sum_and_copy, &a}, {memmove_traffic, &a}};
        bench_paired res[3];
        bench_compare(bench_run_job(s), base, 3, min_s(3.0), res);
        char kernel[48], size[48], name[48];
        snprintf(kernel, sizeof kernel, "AllReduce add, %d cores (host)", ranks);
        if (bytes >= (1u << 20))
            snprintf(size, sizeof size, "%d x %zu MiB", ranks, bytes >> 20);
        else
            snprintf(size, sizeof size, "%d x %zu KiB", ranks, bytes >> 10);
        if (first_bad_core(s, &a, bytes) >= 0) {
            bench_mismatch_after(kernel);
        } else {
            snprintf(name, sizeof name, "plain loop summing %d buffers", ranks);
            bench_report(kernel, size, (double)ranks * (double)bytes, "B", name, &res[0]);
            snprintf(name, sizeof name, "same loop + result copied to %d outputs", ranks);
            bench_report(kernel, size, (double)ranks * (double)bytes, "B", name, &res[1]);
            snprintf(name, sizeof name, "memmove of each input to an output");
            bench_report(kernel, size, (double)ranks * (double)bytes, "B", name, &res[2]);
        }
    }
    for (int r = 0; r < ranks; ++r) {
        free((void *)a.in[r]);
        free(a.copies[r]);
    }
    free(a.out);
    trn_sim_close(s);
}

/* 8 cores; 256 KiB, 1 MiB, 4 MiB per rank (quick: 32, 128, 512 KiB). */
BENCH_CASE(collective_allreduce_bytes) {
    static const size_t div[COLL_SIZES] = {16, 4, 1};
    for (int k = 0; k < COLL_SIZES; ++k) allreduce_at(MAX_RANKS, free_elems(div[k]));
}

/* 4 MiB per rank (quick: 512 KiB); 2, 4, 8 cores. */
BENCH_CASE(collective_allreduce_cores) {
    static const int ranks[COLL_SIZES] = {2, 4, 8};
    for (int k = 0; k < COLL_SIZES; ++k) allreduce_at(ranks[k], free_elems(1));
}
