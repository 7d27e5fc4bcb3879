/* The collectives besides AllReduce through the host, 8 cores x 128
 * partitions, against the data movement they must do at least, written as
 * plain loops of memcpy (the sum loop for ReduceScatter) into one output
 * buffer per rank:
 *   AllGather (cc_dim 1)  [128 x 1024] per rank -> [128 x 8192] on every rank
 *   AllToAll              [128 x 8192] per rank, 1/8 to each rank
 *   PermuteImplicit       [128 x 8192] per rank to its ring successor
 *   ReduceScatter add     [128 x 8192] per rank -> its [128 x 1024] part
 * Work = bytes written to the outputs. Every rank's output is checked
 * against the loop's bit for bit before and after timing. --quick divides
 * the sizes by 8 and shortens the timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RANKS 8
#define PARTS 128

static const char routes_config[] =
    "machine = { hbm_bytes = 1048576; };\n"
    "plugins = ( { family = \"collective\"; module = \"trnsim-collective\"; "
    "settings = { multi_lnc = \"allow\"; }; } );";

typedef struct route_arg {
    size_t in_n, out_n; /* elements per rank */
    const float *in[RANKS];
    float *out[RANKS];
} route_arg;

static void gather_rows(void *arg) {
    route_arg *a = arg;
    size_t f = a->in_n / PARTS;
    for (int o = 0; o < RANKS; ++o)
        for (size_t p = 0; p < PARTS; ++p)
            for (int j = 0; j < RANKS; ++j)
                memcpy(a->out[o] + (p * RANKS + (size_t)j) * f, a->in[j] + p * f, f * 4);
}

static void all_to_all(void *arg) {
    route_arg *a = arg;
    size_t c = a->in_n / RANKS;
    for (int j = 0; j < RANKS; ++j)
        for (int i = 0; i < RANKS; ++i)
            memcpy(a->out[j] + (size_t)i * c, a->in[i] + (size_t)j * c, c * 4);
}

static void ring_shift(void *arg) {
    route_arg *a = arg;
    for (int j = 0; j < RANKS; ++j) memcpy(a->out[j], a->in[(j + RANKS - 1) % RANKS], a->in_n * 4);
}

/* Each element folded in rank order, as the collective does (finite
 * inputs: no NaN to pick). */
static void reduce_scatter(void *arg) {
    route_arg *a = arg;
    for (int j = 0; j < RANKS; ++j)
        for (size_t t = 0; t < a->out_n; ++t) {
            size_t i = (size_t)j * a->out_n + t;
            float s = a->in[0][i];
            for (int r = 1; r < RANKS; ++r) s = a->in[r][i] + s;
            a->out[j][t] = s;
        }
}

static int outputs_match(trn_sim *s, const route_arg *a) {
    size_t bytes = a->out_n * 4;
    float *got = malloc(bytes);
    int ok = 1;
    for (int r = 0; r < RANKS && ok; ++r) {
        trn_error e;
        ok = trn_sim_get_tensor(s, "y", (uint32_t)r, got, bytes, &e) == 0 &&
             memcmp(got, a->out[r], bytes) == 0;
    }
    free(got);
    return ok;
}

static void route_case(const char *kernel, const char *kind, size_t in_f, size_t out_f,
                       void (*ref)(void *)) {
    char prog[768], size[64];
    snprintf(
        prog, sizeof prog,
        "{\"cores\": %d, \"tensors\": ["
        "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%d, %zu]},"
        "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%d, %zu]}],"
        " \"instructions\": [{\"opcode\": \"CollectiveCompute\", %s, \"inputs\": [\"x\"], "
        "\"outputs\": [\"y\"]}]}",
        RANKS, PARTS, in_f, PARTS, out_f, kind);
    trn_sim *s = bench_open(routes_config);
    bench_load(s, prog);
    route_arg a = {.in_n = PARTS * in_f, .out_n = PARTS * out_f};
    for (int r = 0; r < RANKS; ++r) {
        float *buf = malloc(a.in_n * 4);
        bench_fill_f32(buf, a.in_n, 2000 + (uint64_t)r, -1e3f, 1e3f);
        trn_error e;
        if (trn_sim_set_tensor(s, "x", (uint32_t)r, buf, a.in_n * 4, &e)) {
            fprintf(stderr, "bench_collective_routes: set: %s\n", e.msg);
            exit(1);
        }
        a.in[r] = buf;
        a.out[r] = calloc(a.out_n, 4);
    }
    bench_run(s);
    ref(&a);
    if (!outputs_match(s, &a)) {
        printf("MISMATCH: %s differs from the loop; not timing it\n", kernel);
    } else {
        const bench_job base = {ref, &a};
        bench_paired res;
        bench_compare(bench_run_job(s), &base, 1, bench_quick() ? 0.2 : 2.0, &res);
        snprintf(size, sizeof size, "%d x [%d x %zu] -> [%d x %zu]", RANKS, PARTS, in_f, PARTS,
                 out_f);
        if (!outputs_match(s, &a))
            bench_mismatch_after(kernel);
        else
            bench_report(kernel, size, (double)RANKS * (double)a.out_n * 4, "B",
                         "memcpy loop of the same moves", &res);
    }
    for (int r = 0; r < RANKS; ++r) {
        free((void *)a.in[r]);
        free(a.out[r]);
    }
    trn_sim_close(s);
}

BENCH_CASE(collective_routes) {
    size_t f = bench_quick() ? 1024 : 8192, g = f / RANKS;
    route_case("AllGather cc_dim 1 (host)", "\"kind\": \"AllGather\", \"cc_dim\": 1", g, f,
               gather_rows);
    route_case("AllToAll (host)", "\"kind\": \"AllToAll\"", f, f, all_to_all);
    route_case("PermuteImplicit (host)", "\"kind\": \"PermuteImplicit\"", f, f, ring_shift);
    route_case("ReduceScatter add (host)", "\"kind\": \"ReduceScatter\", \"reduce_op\": \"add\"", f,
               g, reduce_scatter);
}
