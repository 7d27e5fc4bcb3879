/* Collective benchmarks: AllReduce (add) of 4 MiB of fp32 per rank across
 * 8 cores through the host (program -> dispatch -> registry -> the last
 * arrival reads the 8 inputs, folds, writes the 8 outputs), against
 *   1. a plain loop that sums the same 8 buffers in the seed's order (one
 *      4 MiB result), and
 *   2. that loop plus copying its result to 8 output buffers: the bytes an
 *      AllReduce has to move (8 inputs read, 8 outputs written).
 * Work = bytes reduced (8 inputs x 4 MiB). Every core's result is checked
 * against the loop, so a fast wrong answer cannot pass unnoticed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RANKS 8

static const char coll_config[] = "machine = { hbm_bytes = 1048576; };\n"
                                  "plugins = ( { family = \"collective\"; module = \"trnsim-collective\"; } );";

typedef struct sum_arg {
    const float *in[RANKS];
    float *out;
    float *copies[RANKS];
    size_t n;
} sum_arg;

/* The baseline: one pass, each element folded ins[0] + 1 + ... + 7 in
 * order (the same bits as the collective). */
static void plain_sum(void *arg) {
    sum_arg *a = arg;
    for (size_t i = 0; i < a->n; ++i) {
        float s = a->in[0][i];
        for (int r = 1; r < RANKS; ++r) s = a->in[r][i] + s;
        a->out[i] = s;
    }
}

static void plain_sum_and_copy(void *arg) {
    sum_arg *a = arg;
    plain_sum(a);
    for (int r = 0; r < RANKS; ++r) memcpy(a->copies[r], a->out, a->n * sizeof(float));
}

static void die(const char *what, const trn_error *e) {
    fprintf(stderr, "bench_collective: %s: %s\n", what, e->msg);
    exit(1);
}

BENCH_CASE(collective_allreduce_8x4MiB) {
    size_t free_elems = bench_quick() ? 1024 : 8192; /* x 128 partitions x 4 B = 4 MiB */
    size_t n = 128 * free_elems, bytes = n * sizeof(float);
    char prog[512];
    snprintf(prog, sizeof prog,
             "{\"cores\": %d, \"tensors\": ["
             "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [128, %zu]},"
             "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [128, %zu]}],"
             " \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllReduce\", \"reduce_op\": \"add\","
             " \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}",
             RANKS, free_elems, free_elems);
    trn_sim *s = bench_open(coll_config);
    bench_load(s, prog);
    sum_arg a = {.n = n, .out = malloc(bytes)};
    for (int r = 0; r < RANKS; ++r) a.copies[r] = calloc(1, bytes);
    for (int r = 0; r < RANKS; ++r) {
        float *buf = malloc(bytes);
        bench_fill_f32(buf, n, 1000 + (uint64_t)r, -1e3f, 1e3f);
        trn_error e;
        if (trn_sim_set_tensor(s, "x", r, buf, bytes, &e)) die("set", &e);
        a.in[r] = buf;
    }
    double t = bench_time_run(s, 1.0);
    double tb = bench_time(plain_sum, &a, 1.0);
    double tc = bench_time(plain_sum_and_copy, &a, 1.0);
    /* every core's output equals the loop's, bit for bit */
    float *got = malloc(bytes);
    for (int r = 0; r < RANKS; ++r) {
        trn_error e;
        if (trn_sim_get_tensor(s, "y", r, got, bytes, &e)) die("get", &e);
        if (memcmp(got, a.out, bytes)) {
            fprintf(stderr, "bench_collective: core %d's AllReduce differs from the loop\n", r);
            exit(1);
        }
    }
    char size[48];
    snprintf(size, sizeof size, "%d x %zu KiB", RANKS, bytes >> 10);
    bench_report("AllReduce add, 8 cores (host)", size, (double)RANKS * (double)bytes, "B", t,
                 "plain loop summing 8 buffers", tb);
    bench_report("AllReduce add, 8 cores (host)", size, (double)RANKS * (double)bytes, "B", t,
                 "same loop + result copied to 8 outputs", tc);
    free(got);
    for (int r = 0; r < RANKS; ++r) {
        free((void *)a.in[r]);
        free(a.copies[r]);
    }
    free(a.out);
    trn_sim_close(s);
}
