/* BN family benchmarks: the forward statistics (BNStats + BNStatsAggregate)
 * and the backward pair (BNGradients, BNBackprop) through the real host
 * (program -> dispatch -> trnsim-bn -> memory), each against the scalar
 * oracle of tests/bn (the reference transliterated, on a dense buffer, no host)
 * and against memcpy of the bytes the instruction reads, in the same run.
 * The host results are checked against the oracle bit for bit before and
 * after timing, so a fast wrong kernel cannot post a number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The scalar oracle itself, not a copy (plain C, no test framework). */
#include "../plugins/bn/ref/bn_oracle.c"
/* The BNStats kernels themselves, to time each vector path without the
 * host (built here at the bench's -O2; the plugin uses -O3, which the
 * kernels do not need: their lane loops carry unroll pragmas). */
#include "../plugins/bn/bn_stats.c"
#include "../plugins/bn/bn_stats_avx.c"
#include "../plugins/bn/bn_stats_v4.c"

static const char bn_config[] = "plugins = ( { family = \"bn\"; module = \"trnsim-bn\"; } );";

typedef struct bn_bench {
    size_t P, N;
    float *x, *dy, *st, *mv, *g, *dx, *mean, *vf, *a, *bc, *scale;
    void *copy_dst;
} bn_bench;

static void oracle_forward(void *arg) {
    bn_bench *b = arg;
    oracle_bn_stats(b->x, b->P, b->N, 0, b->st);
    oracle_bn_aggregate(b->st, b->P, 6, b->mv);
}

static void oracle_gradients_run(void *arg) {
    bn_bench *b = arg;
    oracle_bn_gradients(b->x, b->dy, b->mean, b->vf, b->P, b->N, b->g);
}

static void oracle_backprop_run(void *arg) {
    bn_bench *b = arg;
    for (size_t p = 0; p < b->P; ++p)
        for (size_t i = 0; i < b->N; ++i) {
            const size_t k = p * b->N + i;
            b->dx[k] = oracle_bn_backprop_elem(b->x[k], b->dy[k], b->mean[p], b->a[p], b->bc[p],
                                               b->scale[p], (float)b->N);
        }
}

/* memcpy of the bytes one pass reads: x, or x and dy. */
static void copy_x(void *arg) {
    bn_bench *b = arg;
    memcpy(b->copy_dst, b->x, b->P * b->N * sizeof(float));
}

static void copy_x_dy(void *arg) {
    bn_bench *b = arg;
    const size_t n = b->P * b->N;
    memcpy(b->copy_dst, b->x, n * sizeof(float));
    memcpy((float *)b->copy_dst + n, b->dy, n * sizeof(float));
}

static int same_bits(const float *a, const float *b, size_t n, const char *what) {
    if (memcmp(a, b, n * sizeof(float)) == 0) return 1;
    printf("MISMATCH: %s differs from the scalar oracle; not timing it\n", what);
    return 0;
}

/* The sim's tensor equals want, bit for bit (quietly). */
static int tensor_is(trn_sim *s, const char *tensor, const float *want, size_t n) {
    float *got = malloc(n * sizeof(float));
    bench_get(s, tensor, got, n * sizeof(float));
    const int ok = memcmp(got, want, n * sizeof(float)) == 0;
    free(got);
    return ok;
}

static bn_bench *bench_make(size_t P, size_t N) {
    bn_bench *b = calloc(1, sizeof *b);
    const size_t n = P * N;
    b->P = P, b->N = N;
    b->x = malloc(n * sizeof(float)), b->dy = malloc(n * sizeof(float)),
    b->dx = malloc(n * sizeof(float));
    b->st = malloc(P * 6 * sizeof(float)), b->mv = malloc(P * 2 * sizeof(float)),
    b->g = malloc(P * 3 * sizeof(float));
    b->mean = malloc(P * sizeof(float)), b->vf = malloc(P * sizeof(float)),
    b->a = malloc(P * sizeof(float));
    b->bc = malloc(P * sizeof(float)), b->scale = malloc(P * sizeof(float));
    b->copy_dst = malloc(2 * n * sizeof(float));
    bench_fill_f32(b->x, n, 34, -3.0f, 5.0f);
    bench_fill_f32(b->dy, n, 36, -1.0f, 1.0f);
    bench_fill_f32(b->mean, P, 1, 0.5f, 1.5f);
    bench_fill_f32(b->vf, P, 2, 0.5f, 2.0f);
    bench_fill_f32(b->a, P, 3, -1.0f, 1.0f);
    bench_fill_f32(b->bc, P, 4, -1.0f, 1.0f);
    bench_fill_f32(b->scale, P, 5, 0.001f, 0.01f);
    memset(b->copy_dst, 1, 2 * n * sizeof(float));
    return b;
}

static void bench_free(bn_bench *b) {
    float *ptrs[] = {b->x, b->dy, b->dx, b->st, b->mv, b->g, b->mean, b->vf, b->a, b->bc, b->scale};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; ++i) free(ptrs[i]);
    free(b->copy_dst);
    free(b);
}

/* Three sizes per case so the growth of the cost with the work shows: the
 * issue's [128 x 16384] and x1/4, x1/16 of it (x1/8 of each under --quick,
 * which also shortens every timing). */
#define BN_SIZES 3

static size_t bench_cols(int k) {
    static const size_t full[BN_SIZES] = {1024, 4096, 16384}, quick[BN_SIZES] = {128, 512, 2048};
    return bench_quick() ? quick[k] : full[k];
}

static double min_s(double full) { return bench_quick() ? full / 10 : full; }

/* The BNStats + BNStatsAggregate program over an SBUF [P x N] fp32 input. */
static void stats_aggregate_program(char *prog, size_t len, size_t P, size_t N) {
    snprintf(
        prog, len,
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[%zu, %zu]},"
        " {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 6]},"
        " {\"name\": \"mv\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 2]}],"
        " \"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], \"outputs\": [\"st\"]},"
        " {\"opcode\": \"BNStatsAggregate\", \"inputs\": [\"st\"], \"outputs\": [\"mv\"]}]}",
        P, N, P, P);
}

static void stats_aggregate_at(size_t N) {
    const size_t P = 128;
    bn_bench *b = bench_make(P, N);
    char prog[1024], size[48];
    stats_aggregate_program(prog, sizeof prog, P, N);
    trn_sim *s = bench_open(bn_config);
    bench_load(s, prog);
    bench_set(s, "x", b->x, P * N * sizeof(float));
    float *got = malloc(P * 6 * sizeof(float));
    bench_run(s);
    oracle_forward(b);
    bench_get(s, "st", got, P * 6 * sizeof(float));
    int ok = same_bits(got, b->st, P * 6, "BNStats");
    bench_get(s, "mv", got, P * 2 * sizeof(float));
    ok = ok && same_bits(got, b->mv, P * 2, "BNStatsAggregate");
    if (ok) {
        const bench_job base[2] = {{oracle_forward, b}, {copy_x, b}};
        bench_paired r[2];
        bench_compare(bench_run_job(s), base, 2, min_s(1.5), r);
        snprintf(size, sizeof size, "%zu x %zu fp32", P, N);
        if (!tensor_is(s, "st", b->st, P * 6) || !tensor_is(s, "mv", b->mv, P * 2)) {
            bench_mismatch_after("BNStats+BNStatsAggregate");
        } else {
            bench_report("BNStats+BNStatsAggregate (host)", size, (double)(P * N), "elem",
                         "scalar oracle", &r[0]);
            bench_report("BNStats+BNStatsAggregate (host)", size, (double)(P * N * 4), "B",
                         "memcpy of x", &r[1]);
            printf(
                "  median times: host %.3f ms, scalar oracle %.3f ms, memcpy %.3f ms (%.1f MiB)\n",
                r[0].t * 1e3, r[0].t_base * 1e3, r[1].t_base * 1e3, P * N * 4 / 1048576.0);
        }
    }
    free(got);
    trn_sim_close(s);
    bench_free(b);
}

BENCH_CASE(bn_stats_aggregate) {
    for (int k = 0; k < BN_SIZES; ++k) stats_aggregate_at(bench_cols(k));
}

/* One BNStats path on a dense buffer: bn_stats_f32_isa with the weight
 * table built once (as a handler does per instruction). */
typedef struct kernel_run {
    bn_bench *b;
    bn_isa isa;
    float *w, *out;
} kernel_run;

static void kernel_stats_run(void *arg) {
    kernel_run *k = arg;
    bn_stats_f32_isa(k->isa, k->b->x, k->b->P, k->b->N, k->w, k->out);
}

static void oracle_stats_run(void *arg) {
    bn_bench *b = arg;
    oracle_bn_stats(b->x, b->P, b->N, 0, b->st);
}

/* The BNStats kernel alone, each path this CPU runs, against the oracle
 * and memcpy of x: where the host case's time goes besides the read. */
static void stats_kernel_at(size_t N) {
    const size_t P = 128;
    bn_bench *b = bench_make(P, N);
    kernel_run k = {b, BN_ISA_V4, malloc(bn_stats_weights_len(N) * sizeof(float)),
                    malloc(P * 6 * sizeof(float))};
    char size[48];
    snprintf(size, sizeof size, "%zu x %zu fp32", P, N);
    bn_stats_weights(N, k.w);
    oracle_stats_run(b);
    const bench_job base[2] = {{oracle_stats_run, b}, {copy_x, b}};
    const bn_isa isas[] = {BN_ISA_V4, BN_ISA_AVX};
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; ++i) {
        if (isas[i] == BN_ISA_AVX && bn_isa_best() != BN_ISA_AVX) {
            printf("  (no AVX on this CPU: the AVX path is not timed)\n");
            continue;
        }
        k.isa = isas[i];
        memset(k.out, 0, P * 6 * sizeof(float));
        kernel_stats_run(&k);
        const char *name = isas[i] == BN_ISA_AVX ? "BNStats kernel, AVX" : "BNStats kernel, 4-lane";
        if (!same_bits(k.out, b->st, P * 6, name)) continue;
        bench_paired r[2];
        bench_compare((bench_job){kernel_stats_run, &k}, base, 2, min_s(1.5), r);
        if (memcmp(k.out, b->st, P * 6 * sizeof(float))) {
            bench_mismatch_after(name);
            continue;
        }
        bench_report(name, size, (double)(P * N), "elem", "scalar oracle", &r[0]);
        bench_report(name, size, (double)(P * N * 4), "B", "memcpy of x", &r[1]);
        printf("  median times: kernel %.3f ms, scalar oracle %.3f ms, memcpy %.3f ms%s\n",
               r[0].t * 1e3, r[0].t_base * 1e3, r[1].t_base * 1e3,
               bn_isa_best() == isas[i] ? " (the path the plugin picks here)" : "");
    }
    free(k.w);
    free(k.out);
    bench_free(b);
}

BENCH_CASE(bn_stats_kernel) {
    for (int k = 0; k < BN_SIZES; ++k) stats_kernel_at(bench_cols(k));
}

/* Half the forward's columns: each pass reads x and dy. */
static void backward_at(size_t N) {
    const size_t P = 128;
    bn_bench *b = bench_make(P, N);
    char prog[2048], size[48];
    snprintf(
        prog, sizeof prog,
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[%zu, %zu]},"
        " {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]},"
        " {\"name\": \"dx\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]},"
        " {\"name\": \"m\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 1]},"
        " {\"name\": \"vf\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 1]},"
        " {\"name\": \"ab\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 2]},"
        " {\"name\": \"scale\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 1]},"
        " {\"name\": \"g\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 3]}],"
        " \"instructions\": [{\"opcode\": \"BNGradients\", \"inputs\": [\"x\", \"dy\", \"m\", "
        "\"vf\"],"
        " \"outputs\": [\"g\"]}]}",
        P, N, P, N, P, N, P, P, P, P, P);
    /* Two programs over the same tensors: one per opcode, timed apart. */
    char prog2[2048];
    snprintf(prog2, sizeof prog2,
             "%.*s\"instructions\": [{\"opcode\": \"BNBackprop2\", \"inputs\": [\"x\", \"dy\","
             " \"m\", \"ab\", \"scale\"], \"outputs\": [\"dx\"], \"total_elements\": %zu}]}",
             (int)(strstr(prog, "\"instructions\"") - prog), prog, N);
    float *ab = malloc(P * 2 * sizeof(float)), *got = malloc(P * N * sizeof(float));
    for (size_t p = 0; p < P; ++p) ab[2 * p] = b->a[p], ab[2 * p + 1] = b->bc[p];
    trn_sim *sims[2] = {bench_open(bn_config), bench_open(bn_config)};
    bench_load(sims[0], prog);
    bench_load(sims[1], prog2);
    for (int k = 0; k < 2; ++k) {
        bench_set(sims[k], "x", b->x, P * N * sizeof(float));
        bench_set(sims[k], "dy", b->dy, P * N * sizeof(float));
        bench_set(sims[k], "m", b->mean, P * sizeof(float));
        bench_set(sims[k], "vf", b->vf, P * sizeof(float));
        bench_set(sims[k], "ab", ab, P * 2 * sizeof(float));
        bench_set(sims[k], "scale", b->scale, P * sizeof(float));
        bench_run(sims[k]);
    }
    oracle_gradients_run(b);
    oracle_backprop_run(b);
    bench_get(sims[0], "g", got, P * 3 * sizeof(float));
    int ok = same_bits(got, b->g, P * 3, "BNGradients");
    bench_get(sims[1], "dx", got, P * N * sizeof(float));
    ok = ok && same_bits(got, b->dx, P * N, "BNBackprop2");
    snprintf(size, sizeof size, "%zu x %zu fp32", P, N);
    if (ok) {
        const bench_job gbase[2] = {{oracle_gradients_run, b}, {copy_x_dy, b}};
        const bench_job bbase[2] = {{oracle_backprop_run, b}, {copy_x_dy, b}};
        bench_paired rg[2], rb[2];
        bench_compare(bench_run_job(sims[0]), gbase, 2, min_s(1.5), rg);
        bench_compare(bench_run_job(sims[1]), bbase, 2, min_s(1.5), rb);
        if (!tensor_is(sims[0], "g", b->g, P * 3)) {
            bench_mismatch_after("BNGradients");
        } else {
            bench_report("BNGradients (host)", size, (double)(P * N), "elem", "scalar oracle",
                         &rg[0]);
            bench_report("BNGradients (host)", size, (double)(P * N * 8), "B", "memcpy of x, dy",
                         &rg[1]);
        }
        if (!tensor_is(sims[1], "dx", b->dx, P * N)) {
            bench_mismatch_after("BNBackprop2");
        } else {
            bench_report("BNBackprop2 (host)", size, (double)(P * N), "elem", "scalar oracle",
                         &rb[0]);
            bench_report("BNBackprop2 (host)", size, (double)(P * N * 8), "B", "memcpy of x, dy",
                         &rb[1]);
        }
    }
    free(ab);
    free(got);
    trn_sim_close(sims[0]);
    trn_sim_close(sims[1]);
    bench_free(b);
}

BENCH_CASE(bn_backward) {
    for (int k = 0; k < BN_SIZES; ++k) backward_at(bench_cols(k) / 2);
}

/* ---- BNStats + BNStatsAggregate at 512 MiB ------------------------------ */

/* The large size, [128 x 1048576] fp32 (512 MiB; 32 MiB under
 * --quick), in an SBUF whose partitions hold it, against memcpy of x (the
 * bytes the pair must read). Only x, its copy and the sim's memory are
 * allocated: 1.5 GiB in all. The oracle runs once, for the checks before
 * and after timing, and is not timed at this size (about a second a call). */
typedef struct big_copy {
    void *dst;
    const void *src;
    size_t bytes;
} big_copy;

static void copy_big(void *arg) {
    big_copy *c = arg;
    memcpy(c->dst, c->src, c->bytes);
}

BENCH_CASE(bn_stats_aggregate_512m) {
    const size_t P = 128, N = bench_quick() ? 65536 : 1048576, n = P * N;
    char cfg[256], prog[1024], size[48];
    snprintf(cfg, sizeof cfg,
             "machine = { sbuf_partition_bytes = %zu; };\n"
             "plugins = ( { family = \"bn\"; module = \"trnsim-bn\"; } );",
             N * sizeof(float) + 128);
    stats_aggregate_program(prog, sizeof prog, P, N);
    float *x = malloc(n * sizeof(float)), st[128 * 6], mv[128 * 2], got[128 * 6];
    void *dst = malloc(n * sizeof(float));
    if (!x || !dst) {
        printf("out of memory for 2 x %zu MiB: not timing it\n", n * sizeof(float) >> 20);
        free(x);
        free(dst);
        return;
    }
    bench_fill_f32(x, n, 34, -3.0f, 5.0f);
    memset(dst, 1, n * sizeof(float));
    oracle_bn_stats(x, P, N, 0, st);
    oracle_bn_aggregate(st, P, 6, mv);
    trn_sim *s = bench_open(cfg);
    bench_load(s, prog);
    bench_set(s, "x", x, n * sizeof(float));
    bench_run(s);
    bench_get(s, "st", got, sizeof st);
    int ok = same_bits(got, st, P * 6, "BNStats");
    bench_get(s, "mv", got, sizeof mv);
    ok = ok && same_bits(got, mv, P * 2, "BNStatsAggregate");
    if (ok) {
        big_copy c = {dst, x, n * sizeof(float)};
        const bench_job base = {copy_big, &c};
        bench_paired r;
        bench_compare(bench_run_job(s), &base, 1, min_s(6.0), &r);
        snprintf(size, sizeof size, "%zu x %zu fp32", P, N);
        if (!tensor_is(s, "st", st, P * 6) || !tensor_is(s, "mv", mv, P * 2)) {
            bench_mismatch_after("BNStats+BNStatsAggregate");
        } else {
            bench_report("BNStats+BNStatsAggregate (host)", size, (double)(n * 4), "B",
                         "memcpy of x", &r);
            printf("  median times: host %.1f ms, memcpy %.1f ms (%zu MiB)\n", r.t * 1e3,
                   r.t_base * 1e3, n * sizeof(float) >> 20);
        }
    }
    trn_sim_close(s);
    free(x);
    free(dst);
}
