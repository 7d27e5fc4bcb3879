/* Search family benchmark: iterative TopK-64 over [128 x N] fp32 for N =
 * 1024, 4096 and 16384 (the size; --quick: 128, 512, 2048), 8
 * rounds of Max + MaxIndexAndMatchReplace (imm -inf), through the real host
 * (program -> dispatch -> trnsim-search -> memory), against the scalar
 * oracle of tests/search (the reference transliterated, dense buffers, no host)
 * in the same run. The host's values and indices, and those of the module's
 * kernels run without the host, are checked against the oracle bit for bit
 * before and after timing, so a fast wrong kernel cannot post a number. The
 * oracle and the kernels each have their own buffers, so alternating them
 * leaves both results to check.
 *
 * Round 0 reads x and writes the struck-out copy to y; rounds 1-7 work on y
 * in place. x is never modified, so every timed run does the same work.
 * bench/topk_numpy.py times numpy's argpartition top-64 on the same data
 * (splitmix64 below, --cols N) and prints the same checksum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The scalar oracle itself, and the module's kernels for a no-host line. */
#include "../plugins/search/search_kernels.c"
#include "../plugins/search/ref/search_oracle.c"

#define TOPK   64
#define ROUNDS (TOPK / 8)

static const char search_config[] =
    "plugins = ( { family = \"search\"; module = \"trnsim-search\"; } );";

typedef struct topk_bench {
    size_t P, N;
    float *x, *y;      /* data, struck-out copy */
    float *vals;       /* [P][64] */
    uint32_t *idx;     /* [P][64] */
    float *round_vals; /* [P][8] of the current round */
    uint32_t *round_idx;
} topk_bench;

/* Element j is splitmix64(j + 1)'s top 24 bits as a fraction of 1 (the
 * formula bench/topk_numpy.py vectorises). */
static void fill_splitmix(float *x, size_t n) {
    for (size_t j = 0; j < n; ++j) {
        uint64_t z = (j + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[j] = (float)(z >> 40) * 0x1p-24f;
    }
}

static void keep_round(topk_bench *b, int r) {
    for (size_t p = 0; p < b->P; ++p) {
        memcpy(b->vals + p * TOPK + r * 8, b->round_vals + p * 8, 8 * sizeof(float));
        memcpy(b->idx + p * TOPK + r * 8, b->round_idx + p * 8, 8 * sizeof(uint32_t));
    }
}

/* The reference's order: each instruction runs over every row. */
static void oracle_topk(void *arg) {
    topk_bench *b = arg;
    for (int r = 0; r < ROUNDS; ++r) {
        const float *src = r == 0 ? b->x : b->y;
        for (size_t p = 0; p < b->P; ++p) oracle_max8(src + p * b->N, b->N, b->round_vals + p * 8);
        for (size_t p = 0; p < b->P; ++p)
            oracle_match_replace(src + p * b->N, b->N, b->round_vals + p * 8, -INFINITY, 0,
                                 b->y + p * b->N, b->round_idx + p * 8);
        keep_round(b, r);
    }
}

/* The module's kernels on dense buffers, in the same order: what the host
 * adds on top is the difference. */
static void kernels_topk(void *arg) {
    topk_bench *b = arg;
    for (int r = 0; r < ROUNDS; ++r) {
        if (r == 0) memcpy(b->y, b->x, b->P * b->N * sizeof(float));
        for (size_t p = 0; p < b->P; ++p)
            search_max8_row(b->y + p * b->N, b->N, b->round_vals + p * 8);
        for (size_t p = 0; p < b->P; ++p) {
            search_find8_row(b->y + p * b->N, b->N, b->round_vals + p * 8, SEARCH_ASCENDING,
                             b->round_idx + p * 8);
            search_replace8_row(b->y + p * b->N, b->round_idx + p * 8, -INFINITY);
        }
        keep_round(b, r);
    }
}

static void topk_program(char *buf, size_t len, size_t P, size_t N) {
    int n = snprintf(
        buf, len,
        "{\"tensors\": ["
        "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]},"
        "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]},"
        "{\"name\": \"vals\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %d]},"
        "{\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": [%zu, %d]}],"
        " \"instructions\": [",
        P, N, P, N, P, TOPK, P, TOPK);
    for (int r = 0; r < ROUNDS; ++r)
        n += snprintf(
            buf + n, len - (size_t)n,
            "%s{\"opcode\": \"Max\", \"inputs\": [\"%s\"], \"outputs\": [{\"tensor\": \"vals\", "
            "\"offset\": %d,"
            " \"ap\": [[1, 8]]}]},"
            "{\"opcode\": \"MaxIndexAndMatchReplace\", \"imm_value\": \"-inf\","
            " \"inputs\": [{\"tensor\": \"vals\", \"offset\": %d, \"ap\": [[1, 8]]}, \"%s\"],"
            " \"outputs\": [\"y\", {\"tensor\": \"idx\", \"offset\": %d, \"ap\": [[1, 8]]}]}",
            r ? "," : "", r ? "y" : "x", 8 * r, 8 * r, r ? "y" : "x", 8 * r);
    snprintf(buf + n, len - (size_t)n, "]}");
}

static topk_bench *topk_make(size_t P, size_t N) {
    topk_bench *b = calloc(1, sizeof *b);
    b->P = P, b->N = N;
    b->x = malloc(P * N * sizeof(float));
    b->y = malloc(P * N * sizeof(float));
    b->vals = malloc(P * TOPK * sizeof(float));
    b->idx = malloc(P * TOPK * sizeof(uint32_t));
    b->round_vals = malloc(P * 8 * sizeof(float));
    b->round_idx = malloc(P * 8 * sizeof(uint32_t));
    fill_splitmix(b->x, P * N);
    return b;
}

static void topk_free(topk_bench *b) {
    free(b->x), free(b->y), free(b->vals), free(b->idx), free(b->round_vals), free(b->round_idx);
    free(b);
}

/* The first of the host's and the kernels' values and indices that differs
 * from the oracle's, bit for bit, or NULL. */
static const char *topk_mismatch(trn_sim *s, const topk_bench *oracle, const topk_bench *kernels) {
    const size_t nv = oracle->P * TOPK * sizeof(float), ni = oracle->P * TOPK * sizeof(uint32_t);
    float *got_v = malloc(nv);
    uint32_t *got_i = malloc(ni);
    bench_get(s, "vals", got_v, nv);
    bench_get(s, "idx", got_i, ni);
    const char *bad = memcmp(got_v, oracle->vals, nv)           ? "TopK-64 values (host)"
                      : memcmp(got_i, oracle->idx, ni)          ? "TopK-64 indices (host)"
                      : memcmp(kernels->vals, oracle->vals, nv) ? "TopK-64 values (kernels only)"
                      : memcmp(kernels->idx, oracle->idx, ni)   ? "TopK-64 indices (kernels only)"
                                                                : NULL;
    free(got_v);
    free(got_i);
    return bad;
}

#define SEARCH_SIZES 3

static double min_s(double full) { return bench_quick() ? full / 10 : full; }

static void topk64_at(size_t N) {
    const size_t P = 128;
    topk_bench *bo = topk_make(P, N), *bk = topk_make(P, N); /* the oracle's, the kernels' */
    char prog[8192], size[48];
    topk_program(prog, sizeof prog, P, N);
    trn_sim *s = bench_open(search_config);
    bench_load(s, prog);
    bench_set(s, "x", bo->x, P * N * sizeof(float));
    bench_run(s);
    oracle_topk(bo);
    kernels_topk(bk);
    const char *bad = topk_mismatch(s, bo, bk);
    double sum = 0;
    for (size_t k = 0; k < P * TOPK; ++k) sum += bo->vals[k];
    printf("  checksum: values sum %.6f, first row top %.8f at %u (bench/topk_numpy.py --cols %zu "
           "prints the same)\n",
           sum, (double)bo->vals[0], bo->idx[0], N);
    if (bad) {
        printf("MISMATCH: %s differs from the scalar oracle; not timing it\n", bad);
    } else {
        const bench_job oracle = {oracle_topk, bo};
        bench_paired rh, rk;
        bench_compare(bench_run_job(s), &oracle, 1, min_s(2.0), &rh);
        bench_compare((bench_job){kernels_topk, bk}, &oracle, 1, min_s(2.0), &rk);
        snprintf(size, sizeof size, "%zu x %zu fp32", P, N);
        if ((bad = topk_mismatch(s, bo, bk)) != NULL) {
            bench_mismatch_after(bad);
        } else {
            bench_report("TopK-64 Max+MaxIdxMR x8 (host)", size, (double)(P * N), "row-elem",
                         "scalar oracle", &rh);
            bench_report("TopK-64 kernels only (no host)", size, (double)(P * N), "row-elem",
                         "scalar oracle", &rk);
            printf("  median times: host %.3f ms, kernels without host %.3f ms, scalar oracle %.3f "
                   "ms\n",
                   rh.t * 1e3, rk.t * 1e3, rh.t_base * 1e3);
        }
    }
    trn_sim_close(s);
    topk_free(bo);
    topk_free(bk);
}

BENCH_CASE(search_topk64) {
    static const size_t full[SEARCH_SIZES] = {1024, 4096, 16384},
                        quick[SEARCH_SIZES] = {128, 512, 2048};
    for (int k = 0; k < SEARCH_SIZES; ++k) topk64_at(bench_quick() ? quick[k] : full[k]);
}
