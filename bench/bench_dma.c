/* DMA family benchmarks through the real host (program -> dispatch ->
 * trnsim-dma -> memory). Each case checks the host's result against a
 * reference computed here (bit for bit) before and after timing it against a
 * baseline in the same run: memcpy of the same bytes for the copies, the plain scalar
 * loop for scatter-add and the scalar oracle of tests/dma for the transpose
 * and CCE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The scalar oracle itself, not a copy. */
#include "../plugins/dma/ref/dma_oracle.c"

static const char dma_config[] = "machine = { hbm_bytes = 268435456; };\n"
                                 "plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; } );\n";

typedef struct copy_arg {
    void *dst;
    const void *src;
    size_t bytes;
} copy_arg;

static void do_memcpy(void *arg) {
    copy_arg *c = arg;
    memcpy(c->dst, c->src, c->bytes);
}

/* Two buffers, both touched, so the baseline does not pay page faults. */
static copy_arg memcpy_baseline(size_t bytes) {
    copy_arg c = {malloc(bytes), malloc(bytes), bytes};
    memset(c.dst, 1, bytes);
    memset((void *)c.src, 2, bytes);
    return c;
}

static void free_copy(copy_arg *c) {
    free(c->dst);
    free((void *)c->src);
}

static int check(const void *got, const void *want, size_t bytes, const char *what) {
    if (memcmp(got, want, bytes) == 0) return 1;
    printf("MISMATCH: %s differs from the reference; not timing it\n", what);
    return 0;
}

/* After timing: the sim's tensor still equals want, bit for bit. */
static int still(trn_sim *s, const char *tensor, const void *want, size_t bytes, const char *what) {
    void *got = malloc(bytes);
    bench_get(s, tensor, got, bytes);
    const int ok = memcmp(got, want, bytes) == 0;
    free(got);
    if (!ok) bench_mismatch_after(what);
    return ok;
}

/* The sim against one baseline. */
static bench_paired versus(trn_sim *s, void (*fn)(void *), void *arg, double min_seconds) {
    const bench_job base = {fn, arg};
    bench_paired r;
    bench_compare(bench_run_job(s), &base, 1, min_seconds, &r);
    return r;
}

/* Three sizes per case so the growth of the cost with the work shows: the
 * issue's size (64 MiB for the contiguous copy; the old single size for the
 * others) and x1/4, x1/16 of it. --quick takes smaller sizes and shortens
 * every timing. */
#define DMA_SIZES 3

static size_t pick(int k, const size_t full[DMA_SIZES], const size_t quick[DMA_SIZES]) {
    return bench_quick() ? quick[k] : full[k];
}

static double min_s(double full) { return bench_quick() ? full / 10 : full; }

/* "256 KiB" or "64 MiB". */
static void bytes_label(char *buf, size_t len, size_t bytes, const char *what) {
    if (bytes >= (1u << 20))
        snprintf(buf, len, "%zu MiB %s", bytes >> 20, what);
    else
        snprintf(buf, len, "%zu KiB %s", bytes >> 10, what);
}

static trn_sim *open_with(const char *prog) {
    trn_sim *s = bench_open(dma_config);
    bench_load(s, prog);
    return s;
}

/* ---- contiguous copy, >= 64 MiB ---- */

static void copy_contiguous_at(size_t n) {
    const size_t bytes = n * sizeof(float);
    char prog[512], size[48];
    snprintf(prog, sizeof prog,
             "{\"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": \"float32\", "
             "\"shape\": [%zu]},"
             " {\"name\": \"y\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [%zu]}],"
             " \"instructions\": [{\"opcode\": \"TensorCopy\", \"inputs\": [\"x\"], \"outputs\": "
             "[\"y\"]}]}",
             n, n);
    trn_sim *s = open_with(prog);
    float *x = malloc(bytes), *got = malloc(bytes);
    bench_fill_f32(x, n, 7, -1.0f, 1.0f);
    bench_set(s, "x", x, bytes);
    bench_run(s);
    bench_get(s, "y", got, bytes);
    if (check(got, x, bytes, "TensorCopy")) {
        copy_arg base = memcpy_baseline(bytes);
        const bench_paired r = versus(s, do_memcpy, &base, min_s(2.0));
        bytes_label(size, sizeof size, bytes, "fp32");
        if (still(s, "y", x, bytes, "TensorCopy"))
            bench_report("TensorCopy hbm->hbm", size, (double)bytes, "B", "memcpy", &r);
        free_copy(&base);
    }
    free(x);
    free(got);
    trn_sim_close(s);
}

BENCH_CASE(dma_copy_contiguous) {
    /* float32 elements: 4, 16, 64 MiB (quick: 256 KiB, 1, 4 MiB) */
    static const size_t full[DMA_SIZES] = {1u << 20, 4u << 20, 16u << 20};
    static const size_t quick[DMA_SIZES] = {1u << 16, 1u << 18, 1u << 20};
    for (int k = 0; k < DMA_SIZES; ++k) copy_contiguous_at(pick(k, full, quick));
}

/* ---- strided: every other element of each SBUF partition ---- */

static void copy_strided_at(size_t N) { /* dst N/2 per partition */
    const size_t P = 128;
    char prog[768], size[48];
    snprintf(
        prog, sizeof prog,
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[%zu, %zu]},"
        " {\"name\": \"y\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]}],"
        " \"instructions\": [{\"opcode\": \"Save\", \"inputs\": [{\"tensor\": \"x\", \"ap\": [[2, "
        "%zu]]}],"
        " \"outputs\": [\"y\"]}]}",
        P, N, P, N / 2, N / 2);
    trn_sim *s = open_with(prog);
    float *x = malloc(P * N * sizeof(float)), *got = malloc(P * N / 2 * sizeof(float)),
          *want = malloc(P * N / 2 * sizeof(float));
    bench_fill_f32(x, P * N, 8, -1.0f, 1.0f);
    for (size_t i = 0; i < P * N / 2; ++i) want[i] = x[2 * i];
    bench_set(s, "x", x, P * N * sizeof(float));
    bench_run(s);
    bench_get(s, "y", got, P * N / 2 * sizeof(float));
    if (check(got, want, P * N / 2 * sizeof(float), "strided Save")) {
        copy_arg base = memcpy_baseline(P * N / 2 * sizeof(float));
        const bench_paired r = versus(s, do_memcpy, &base, min_s(1.0));
        snprintf(size, sizeof size, "128x%zu step 2", N);
        if (still(s, "y", want, P * N / 2 * sizeof(float), "strided Save"))
            bench_report("Save sbuf->hbm strided", size, (double)(P * N / 2 * sizeof(float)), "B",
                         "memcpy (dst bytes)", &r);
        free_copy(&base);
    }
    free(x);
    free(got);
    free(want);
    trn_sim_close(s);
}

BENCH_CASE(dma_copy_strided) {
    static const size_t full[DMA_SIZES] = {1024, 4096, 16384}, quick[DMA_SIZES] = {256, 1024, 4096};
    for (int k = 0; k < DMA_SIZES; ++k) copy_strided_at(pick(k, full, quick));
}

/* ---- cast: fp32 -> bf16 ---- */

static uint16_t bf16_rne(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); /* finite inputs only */
}

static void copy_cast_bf16_at(size_t n) {
    char prog[512], size[48];
    snprintf(prog, sizeof prog,
             "{\"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": \"float32\", "
             "\"shape\": [%zu]},"
             " {\"name\": \"y\", \"memory\": \"hbm\", \"dtype\": \"bfloat16\", \"shape\": [%zu]}],"
             " \"instructions\": [{\"opcode\": \"TensorCopy\", \"inputs\": [\"x\"], \"outputs\": "
             "[\"y\"]}]}",
             n, n);
    trn_sim *s = open_with(prog);
    float *x = malloc(n * sizeof(float));
    uint16_t *got = malloc(n * 2), *want = malloc(n * 2);
    bench_fill_f32(x, n, 9, -100.0f, 100.0f);
    for (size_t i = 0; i < n; ++i) want[i] = bf16_rne(x[i]);
    bench_set(s, "x", x, n * sizeof(float));
    bench_run(s);
    bench_get(s, "y", got, n * 2);
    if (check(got, want, n * 2, "fp32 -> bf16 TensorCopy")) {
        copy_arg base = memcpy_baseline(n * sizeof(float));
        const bench_paired r = versus(s, do_memcpy, &base, min_s(1.0));
        if (n >= (1u << 20))
            snprintf(size, sizeof size, "%zuM fp32->bf16", n >> 20);
        else
            snprintf(size, sizeof size, "%zuK fp32->bf16", n >> 10);
        if (still(s, "y", want, n * 2, "fp32 -> bf16 TensorCopy"))
            bench_report("TensorCopy cast", size, (double)(n * sizeof(float)), "B",
                         "memcpy (src bytes)", &r);
        free_copy(&base);
    }
    free(x);
    free(got);
    free(want);
    trn_sim_close(s);
}

BENCH_CASE(dma_copy_cast_bf16) {
    static const size_t full[DMA_SIZES] = {1u << 20, 4u << 20, 16u << 20};
    static const size_t quick[DMA_SIZES] = {1u << 17, 1u << 19, 2u << 20};
    for (int k = 0; k < DMA_SIZES; ++k) copy_cast_bf16_at(pick(k, full, quick));
}

/* ---- transpose: SBUF [128, N] -> HBM [N, 128] ---- */

typedef struct tr_arg {
    const float *src;
    float *dst;
    int64_t shape[4];
    int perm[4];
} tr_arg;

static void oracle_tr(void *arg) {
    tr_arg *a = arg;
    oracle_transpose(a->src, a->dst, 4, a->shape, a->perm);
}

static void transpose_at(size_t N) {
    const size_t P = 128;
    char prog[768], size[48];
    snprintf(
        prog, sizeof prog,
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[%zu, %zu]},"
        " {\"name\": \"y\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]}],"
        " \"instructions\": [{\"opcode\": \"DMACopy\", \"mode\": 1, \"perm\": [0, 1, 3, 2],"
        " \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}",
        P, N, N, P);
    trn_sim *s = open_with(prog);
    const size_t bytes = P * N * sizeof(float);
    float *x = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
    bench_fill_f32(x, P * N, 10, -1.0f, 1.0f);
    tr_arg ta = {x, want, {1, 1, (int64_t)P, (int64_t)N}, {0, 1, 3, 2}};
    oracle_tr(&ta);
    bench_set(s, "x", x, bytes);
    bench_run(s);
    bench_get(s, "y", got, bytes);
    if (check(got, want, bytes, "DMACopy transpose")) {
        copy_arg base = memcpy_baseline(bytes);
        const bench_job bases[2] = {{do_memcpy, &base}, {oracle_tr, &ta}};
        bench_paired r[2];
        bench_compare(bench_run_job(s), bases, 2, min_s(1.5), r);
        snprintf(size, sizeof size, "128x%zu fp32", N);
        if (still(s, "y", want, bytes, "DMACopy transpose")) {
            bench_report("DMACopy transpose", size, (double)bytes, "B", "memcpy", &r[0]);
            bench_report("DMACopy transpose", size, (double)bytes, "B", "scalar oracle (no host)",
                         &r[1]);
        }
        free_copy(&base);
    }
    free(x);
    free(got);
    free(want);
    trn_sim_close(s);
}

BENCH_CASE(dma_transpose) {
    static const size_t full[DMA_SIZES] = {512, 2048, 8192}, quick[DMA_SIZES] = {64, 256, 1024};
    for (int k = 0; k < DMA_SIZES; ++k) transpose_at(pick(k, full, quick));
}

/* ---- scatter-add: random indices with repeats ---- */

typedef struct sc_arg {
    float *table;
    const float *src;
    const int32_t *idx;
    size_t n;
} sc_arg;

static void scalar_scatter_add(void *arg) {
    sc_arg *a = arg;
    for (size_t j = 0; j < a->n; ++j) a->table[a->idx[j]] += a->src[j];
}

/* n updates into a fixed table of T = 1M floats: the work grows, the
 * table (and so the cache behaviour of the targets) does not. */
static void scatter_add_at(size_t n) {
    const size_t T = 1u << 20;
    char prog[1024], size[48];
    snprintf(
        prog, sizeof prog,
        "{\"tensors\": [{\"name\": \"t\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": "
        "[%zu]},"
        " {\"name\": \"s\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [%zu]},"
        " {\"name\": \"i\", \"memory\": \"hbm\", \"dtype\": \"int32\", \"shape\": [%zu]}],"
        " \"instructions\": [{\"opcode\": \"DMACopy\", \"indirect\": \"scatter\", \"reduce_op\": 4,"
        " \"inputs\": [\"s\", \"i\"], \"outputs\": [\"t\"]}]}",
        T, n, n);
    trn_sim *s = open_with(prog);
    float *table = calloc(T, sizeof(float)), *src = malloc(n * sizeof(float)),
          *got = malloc(T * sizeof(float));
    int32_t *idx = malloc(n * sizeof(int32_t));
    bench_fill_f32(src, n, 11, -1.0f, 1.0f);
    uint64_t r = 12345;
    for (size_t j = 0; j < n; ++j) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        idx[j] = (int32_t)(r % T);
    }
    /* One run from a zero table, compared with the scalar loop. */
    bench_set(s, "t", table, T * sizeof(float));
    bench_set(s, "s", src, n * sizeof(float));
    bench_set(s, "i", idx, n * sizeof(int32_t));
    trn_error e;
    const int ran = trn_sim_run(s, &e) == 0; /* exactly one run: scatter-add is not idempotent */
    sc_arg sa = {table, src, idx, n};
    if (ran) {
        bench_get(s, "t", got, T * sizeof(float));
        scalar_scatter_add(&sa);
    } else {
        printf("run failed: %s\n", e.msg);
    }
    if (ran && check(got, table, T * sizeof(float), "scatter-add")) {
        /* Both sides run the same number of times (bench_compare), each
         * adding the same updates in the same order to equal tables, so the
         * tables must still be equal afterwards. */
        const bench_paired res = versus(s, scalar_scatter_add, &sa, min_s(1.0));
        snprintf(size, sizeof size, "%zuK into %zuK", n >> 10, T >> 10);
        if (still(s, "t", table, T * sizeof(float), "scatter-add"))
            bench_report("DMACopy scatter-add fp32", size, (double)n, "elem", "scalar loop", &res);
    }
    free(table);
    free(src);
    free(got);
    free(idx);
    trn_sim_close(s);
}

BENCH_CASE(dma_scatter_add) {
    static const size_t full[DMA_SIZES] = {1u << 17, 1u << 19, 1u << 21};
    static const size_t quick[DMA_SIZES] = {1u << 14, 1u << 16, 1u << 18};
    for (int k = 0; k < DMA_SIZES; ++k) scatter_add_at(pick(k, full, quick));
}

/* ---- CCE: four sources folded with add ---- */

typedef struct cce_arg {
    const float *srcs[4];
    float *out;
    size_t n;
} cce_arg;

static void oracle_cce_run(void *arg) {
    cce_arg *a = arg;
    oracle_cce(4, 0, a->srcs, 4, a->n, a->out);
}

static void cce_add_at(size_t N) {
    const size_t P = 128, n = P * N;
    char prog[1024], size[48];
    snprintf(
        prog, sizeof prog,
        "{\"tensors\": [{\"name\": \"a\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": "
        "[4, %zu]},"
        " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]}],"
        " \"instructions\": [{\"opcode\": \"DMACopy\", \"mode\": 2, \"reduce_op\": 4, \"inputs\": ["
        "{\"tensor\": \"a\", \"offset\": 0, \"ap\": [[1, %zu]]}, {\"tensor\": \"a\", \"offset\": "
        "%zu, \"ap\": [[1, %zu]]},"
        "{\"tensor\": \"a\", \"offset\": %zu, \"ap\": [[1, %zu]]}, {\"tensor\": \"a\", \"offset\": "
        "%zu, \"ap\": [[1, %zu]]}],"
        " \"outputs\": [\"y\"]}]}",
        n, P, N, n, n, n, 2 * n, n, 3 * n, n);
    trn_sim *s = open_with(prog);
    float *a = malloc(4 * n * sizeof(float)), *got = malloc(n * sizeof(float)),
          *want = malloc(n * sizeof(float));
    bench_fill_f32(a, 4 * n, 12, -10.0f, 10.0f);
    cce_arg ca = {{a, a + n, a + 2 * n, a + 3 * n}, want, n};
    oracle_cce_run(&ca);
    bench_set(s, "a", a, 4 * n * sizeof(float));
    bench_run(s);
    bench_get(s, "y", got, n * sizeof(float));
    if (check(got, want, n * sizeof(float), "CCE add")) {
        const bench_paired r = versus(s, oracle_cce_run, &ca, min_s(1.0));
        snprintf(size, sizeof size, "4 x 128x%zu", N);
        if (still(s, "y", want, n * sizeof(float), "CCE add"))
            bench_report("DMACopy CCE add", size, (double)n, "elem", "scalar oracle (no host)", &r);
    }
    free(a);
    free(got);
    free(want);
    trn_sim_close(s);
}

BENCH_CASE(dma_cce_add) {
    static const size_t full[DMA_SIZES] = {512, 2048, 8192}, quick[DMA_SIZES] = {64, 256, 1024};
    for (int k = 0; k < DMA_SIZES; ++k) cce_add_at(pick(k, full, quick));
}
