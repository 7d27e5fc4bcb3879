/* DMA kernels against the scalar oracle (bit for bit) and known answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dma_kernels.h"
#include "dma_oracle.h"

/* ---- helpers ---------------------------------------------------------------- */

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float fbits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* xorshift64*: deterministic test data */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Mostly small values, with the specials the SSE rules are about: NaNs with
 * distinct payloads and signs, both zeros, infinities, exact repeats. */
static float rnd_special(void) {
    uint64_t r = rnd();
    switch (r % 16) {
        case 0: return fbits(0x7FC00000u | (uint32_t)(r >> 40 & 0x3FFFFF)); /* qNaN, payload */
        case 1: return fbits(0xFF800001u | (uint32_t)(r >> 40 & 0x1FFFFF)); /* -sNaN, payload */
        case 2: return 0.0f;
        case 3: return -0.0f;
        case 4: return (r >> 20 & 1) ? fbits(0x7F800000u) : fbits(0xFF800000u);
        case 5: return 1.5f; /* a value that repeats: ties between sources */
        default: return (float)((int64_t)(r >> 33) - (1ll << 30)) / 1048576.0f;
    }
}

static void assert_bits_equal(const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (bits(a[i]) != bits(b[i]))
            print_error("element %zu: 0x%08x != 0x%08x\n", i, bits(a[i]), bits(b[i]));
        assert_int_equal(bits(a[i]), bits(b[i]));
    }
}

/* ---- the SSE step itself -------------------------------------------------------- */

static void test_addss_nan_rule(void **st) {
    (void)st;
    float a = fbits(0x7FC00001u), b = fbits(0x7FC00002u), sa = fbits(0x7F800003u);
    /* two NaNs: the first operand (the accumulator) wins, quieted */
    assert_int_equal(bits(dma_addss(a, b)), 0x7FC00001u);
    assert_int_equal(bits(dma_addss(b, a)), 0x7FC00002u);
    assert_int_equal(bits(dma_addss(sa, b)), 0x7FC00003u);
    assert_int_equal(bits(dma_addss(1.0f, sa)), 0x7FC00003u);
    assert_int_equal(bits(dma_addss(-0.0f, -0.0f)), 0x80000000u);
    assert_int_equal(bits(dma_addss(0.0f, -0.0f)), 0x00000000u);
    /* and the oracle's real addss agrees */
    assert_int_equal(bits(oracle_addss(a, b)), 0x7FC00001u);
    assert_int_equal(bits(oracle_addss(sa, b)), 0x7FC00003u);
    for (int i = 0; i < 20000; ++i) {
        float x = rnd_special(), y = rnd_special();
        assert_int_equal(bits(dma_addss(x, y)), bits(oracle_addss(x, y)));
    }
}

static void test_maxss_minss_operand_order(void **st) {
    (void)st;
    float nan = fbits(0x7FC00000u);
    /* the accumulator (second operand) wins on NaN and on ties */
    assert_int_equal(bits(oracle_maxss(nan, 2.0f)), bits(2.0f));
    assert_int_equal(bits(oracle_maxss(2.0f, nan)), 0x7FC00000u);
    assert_int_equal(bits(oracle_maxss(-0.0f, 0.0f)), 0x00000000u);
    assert_int_equal(bits(oracle_maxss(0.0f, -0.0f)), 0x80000000u);
    assert_int_equal(bits(oracle_minss(0.0f, -0.0f)), 0x80000000u);
    assert_int_equal(bits(oracle_minss(nan, -3.0f)), bits(-3.0f));
}

/* ---- CCE ---------------------------------------------------------------------- */

static void cce_case(int op, dma_cce_init init, size_t nsrc, size_t n) {
    float **src = calloc(nsrc, sizeof *src);
    for (size_t s = 0; s < nsrc; ++s) {
        src[s] = malloc(n * sizeof(float));
        for (size_t i = 0; i < n; ++i) src[s][i] = rnd_special();
    }
    float *fast = malloc(n * sizeof(float)), *ref = malloc(n * sizeof(float));
    dma_cce_fold(op, init, (const float *const *)src, nsrc, n, fast);
    oracle_cce(op, init == DMA_CCE_INIT_FIRST, (const float *const *)src, nsrc, n, ref);
    assert_bits_equal(fast, ref, n);
    for (size_t s = 0; s < nsrc; ++s) free(src[s]);
    free(src);
    free(fast);
    free(ref);
}

static void test_cce_fold_matches_oracle(void **st) {
    (void)st;
    const int ops[3] = {DMA_ALU_ADD, DMA_ALU_MAX, DMA_ALU_MIN};
    const size_t ns[5] = {1, 7, 64, 1000, 4099};
    for (int o = 0; o < 3; ++o)
        for (size_t nsrc = 1; nsrc <= 5; ++nsrc)
            for (int k = 0; k < 5; ++k) {
                cce_case(ops[o], DMA_CCE_INIT_ZERO, nsrc, ns[k]);
                cce_case(ops[o], DMA_CCE_INIT_FIRST, nsrc, ns[k]);
            }
}

/* Sequential fp32 sums of finite values, against float64 rounded each step
 * (exact: a double holds the sum of two floats before the one rounding). */
static void test_cce_add_against_double(void **st) {
    (void)st;
    enum { N = 512, S = 4 };
    static float a[S][N];
    const float *src[S];
    for (int s = 0; s < S; ++s) {
        for (int i = 0; i < N; ++i) a[s][i] = (float)((int64_t)(rnd() >> 33) - (1ll << 30)) / 3.0f;
        src[s] = a[s];
    }
    float out[N];
    dma_cce_fold(DMA_ALU_ADD, DMA_CCE_INIT_ZERO, src, S, N, out);
    for (int i = 0; i < N; ++i) {
        float acc = 0.0f;
        for (int s = 0; s < S; ++s) acc = (float)((double)acc + (double)a[s][i]);
        assert_int_equal(bits(out[i]), bits(acc));
    }
}

/* QUIRK dma.cce_zeroed_accumulator: max of all-negative inputs is +0 and min
 * of all-positive inputs is +0, because the fp32 accumulator starts at zero
 * and is folded with every source. */
static void test_cce_zeroed_accumulator_quirk(void **st) {
    (void)st;
    const float a[3] = {-1.0f, -5.0f, -0.25f}, b[3] = {-2.0f, -0.5f, -8.0f};
    const float *src[2] = {a, b};
    float out[3];
    dma_cce_fold(DMA_ALU_MAX, DMA_CCE_INIT_ZERO, src, 2, 3, out);
    for (int i = 0; i < 3; ++i) assert_int_equal(bits(out[i]), 0x00000000u);
    /* with the accumulator seeded from the first source: the true maximum */
    dma_cce_fold(DMA_ALU_MAX, DMA_CCE_INIT_FIRST, src, 2, 3, out);
    assert_int_equal(bits(out[0]), bits(-1.0f));
    assert_int_equal(bits(out[1]), bits(-0.5f));
    assert_int_equal(bits(out[2]), bits(-0.25f));

    const float p[2] = {3.0f, 0.5f}, q[2] = {2.0f, 7.0f};
    const float *pos[2] = {p, q};
    dma_cce_fold(DMA_ALU_MIN, DMA_CCE_INIT_ZERO, pos, 2, 2, out);
    assert_int_equal(bits(out[0]), 0u);
    assert_int_equal(bits(out[1]), 0u);
    dma_cce_fold(DMA_ALU_MIN, DMA_CCE_INIT_FIRST, pos, 2, 2, out);
    assert_int_equal(bits(out[0]), bits(2.0f));
    assert_int_equal(bits(out[1]), bits(0.5f));

    /* add: the zero start turns -0 + -0 into +0 (0 + -0 = +0 in RNE) */
    const float nz[1] = {-0.0f};
    const float *zz[2] = {nz, nz};
    dma_cce_fold(DMA_ALU_ADD, DMA_CCE_INIT_ZERO, zz, 2, 1, out);
    assert_int_equal(bits(out[0]), 0x00000000u);
    dma_cce_fold(DMA_ALU_ADD, DMA_CCE_INIT_FIRST, zz, 2, 1, out);
    assert_int_equal(bits(out[0]), 0x80000000u);
}

/* NaN and ties under the SSE rule, hand-computed. */
static void test_cce_nan_and_ties(void **st) {
    (void)st;
    const float nan1 = fbits(0x7FC00011u), nan2 = fbits(0xFFC00022u);
    const float a[4] = {nan1, 2.0f, -0.0f, nan1};
    const float b[4] = {3.0f, nan2, 0.0f, nan2};
    const float *src[2] = {a, b};
    float out[4];
    /* max from +0: NaN is skipped (acc kept); -0 vs +0 is a tie: acc (+0) */
    dma_cce_fold(DMA_ALU_MAX, DMA_CCE_INIT_ZERO, src, 2, 4, out);
    assert_int_equal(bits(out[0]), bits(3.0f));
    assert_int_equal(bits(out[1]), bits(2.0f));
    assert_int_equal(bits(out[2]), 0u);
    assert_int_equal(bits(out[3]), 0u);
    /* min from +0: everything above 0 loses to the accumulator */
    dma_cce_fold(DMA_ALU_MIN, DMA_CCE_INIT_ZERO, src, 2, 4, out);
    for (int i = 0; i < 4; ++i) assert_int_equal(bits(out[i]), 0u);
    /* add: a NaN enters and stays; with two NaNs the earlier one's payload */
    dma_cce_fold(DMA_ALU_ADD, DMA_CCE_INIT_ZERO, src, 2, 4, out);
    assert_int_equal(bits(out[0]), 0x7FC00011u);
    assert_int_equal(bits(out[1]), 0xFFC00022u);
    assert_int_equal(bits(out[2]), 0u);
    assert_int_equal(bits(out[3]), 0x7FC00011u);
    /* first-source seed: a NaN accumulator is sticky under max */
    dma_cce_fold(DMA_ALU_MAX, DMA_CCE_INIT_FIRST, src, 2, 4, out);
    assert_int_equal(bits(out[0]), 0x7FC00011u);
    assert_int_equal(bits(out[1]), bits(2.0f));
    assert_int_equal(bits(out[2]), 0x80000000u); /* tie: acc (-0) kept */
}

/* ---- transpose ----------------------------------------------------------------- */

static void test_transpose_known_2x3(void **st) {
    (void)st;
    const float src[6] = {1, 2, 3, 4, 5, 6}; /* [[1,2,3],[4,5,6]] */
    float dst[6];
    const int64_t shape[4] = {1, 1, 2, 3};
    const int perm[4] = {0, 1, 3, 2};
    dma_transpose(src, dst, 4, shape, perm);
    const float want[6] = {1, 4, 2, 5, 3, 6}; /* [[1,4],[2,5],[3,6]] */
    assert_memory_equal(dst, want, sizeof want);
}

/* Every tile set this CPU runs: the portable one, and AVX2 where the CPU
 * has it (said once, so a run without it is visible in the log). */
static size_t transpose_isas(dma_isa isas[2]) {
    static int told;
    size_t k = 0;
    isas[k++] = DMA_ISA_PORTABLE;
    if (dma_isa_best() == DMA_ISA_AVX2) isas[k++] = DMA_ISA_AVX2;
    if (!told) {
        print_message("transpose tiles tested on this CPU: portable%s\n",
                      k == 2 ? ", avx2" : " (no AVX2 here: the AVX2 tiles are not exercised)");
        told = 1;
    }
    return k;
}

static void test_transpose_isa_matches_cpu(void **st) {
    (void)st;
#if DMA_HAVE_AVX2_KERNELS
    __builtin_cpu_init();
    assert_int_equal(dma_isa_best(),
                     __builtin_cpu_supports("avx2") ? DMA_ISA_AVX2 : DMA_ISA_PORTABLE);
#else
    assert_int_equal(dma_isa_best(), DMA_ISA_PORTABLE);
#endif
    assert_string_equal(dma_isa_name(DMA_ISA_AVX2), "avx2");
    assert_string_equal(dma_isa_name(DMA_ISA_PORTABLE), "portable");
}

static void test_transpose_all_perms_match_oracle(void **st) {
    (void)st;
    /* the last ones also take the row-block path past one block of columns */
    const int64_t shapes[7][4] = {{2, 3, 5, 7},   {1, 33, 1, 70}, {3, 1, 65, 40}, {1, 1, 128, 96},
                                  {2, 1, 9, 530}, {1, 3, 600, 2}, {2, 2, 24, 17}};
    const size_t widths[4] = {1, 2, 4, 8};
    int perms[24][4], np = 0;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 4; ++c)
                for (int d = 0; d < 4; ++d)
                    if (a != b && a != c && a != d && b != c && b != d && c != d) {
                        perms[np][0] = a, perms[np][1] = b, perms[np][2] = c, perms[np][3] = d;
                        ++np;
                    }
    assert_int_equal(np, 24);
    dma_isa isas[2];
    size_t ni = transpose_isas(isas);
    for (int si = 0; si < 7; ++si) {
        const int64_t *sh = shapes[si];
        size_t n = (size_t)(sh[0] * sh[1] * sh[2] * sh[3]);
        int64_t stride[4] = {sh[1] * sh[2] * sh[3], sh[2] * sh[3], sh[3], 1};
        for (int wi = 0; wi < 4; ++wi) {
            size_t w = widths[wi];
            unsigned char *src = malloc(n * w), *fast = malloc(n * w), *ref = malloc(n * w);
            for (size_t i = 0; i < n * w; ++i) src[i] = (unsigned char)rnd();
            for (int p = 0; p < np; ++p) {
                int64_t p64[4] = {perms[p][0], perms[p][1], perms[p][2], perms[p][3]};
                assert_true(dma_perm_valid(p64));
                oracle_transpose(src, ref, w, sh, perms[p]);
                dma_transpose(src, fast, w, sh, perms[p]);
                assert_memory_equal(fast, ref, n * w);
                for (size_t i = 0; i < ni; ++i) {
                    memset(fast, 0xa5, n * w);
                    dma_transpose_strided_isa(isas[i], src, stride, fast, w, sh, perms[p]);
                    assert_memory_equal(fast, ref, n * w);
                }
            }
            free(src);
            free(fast);
            free(ref);
        }
    }
}

/* The 2-D case (destination rows are source columns) over many shapes,
 * with the source rows padded apart (as partitions are) and the
 * destination off by one element from its allocation or not: every plane
 * size around the register blocks (4 x 4 to 16 x 16) and the tiles
 * (whole, edge blocks, edges under a block wide), several planes, every width, against the oracle
 * on the dense source, with nothing written outside the destination. */
static void transpose_2d_case(dma_isa isa, size_t w, int64_t outer, int64_t P, int64_t N,
                              int64_t pad, int off) {
    const int64_t PS = N + pad; /* source row stride, elements */
    size_t n = (size_t)(outer * P * N), sn = (size_t)(outer * P * PS);
    unsigned char *src = malloc(sn * w), *dense = malloc(n * w), *ref = malloc(n * w);
    unsigned char *fast = malloc((n + 2) * w);
    for (size_t i = 0; i < sn * w; ++i) src[i] = (unsigned char)rnd();
    for (int64_t r = 0; r < outer * P; ++r)
        memcpy(dense + (size_t)(r * N) * w, src + (size_t)(r * PS) * w, (size_t)N * w);
    const int64_t shape[4] = {1, outer, P, N}, stride[4] = {outer * P * PS, P * PS, PS, 1};
    const int perm[4] = {0, 1, 3, 2};
    oracle_transpose(dense, ref, w, shape, perm);
    memset(fast, 0xee, (n + 2) * w);
    dma_transpose_strided_isa(isa, src, stride, fast + (size_t)off * w, w, shape, perm);
    if (memcmp(fast + (size_t)off * w, ref, n * w) != 0)
        fail_msg("%s 2-D transpose differs from the oracle: width %zu, %lld planes of %lld source "
                 "rows x %lld, "
                 "row pad %lld, destination offset %d",
                 dma_isa_name(isa), w, (long long)outer, (long long)P, (long long)N, (long long)pad,
                 off);
    for (size_t b = 0; b < (size_t)off * w; ++b)
        assert_int_equal(fast[b], 0xee); /* nothing before */
    for (size_t b = (n + (size_t)off) * w; b < (n + 2) * w; ++b)
        assert_int_equal(fast[b], 0xee); /* or after */
    free(src);
    free(dense);
    free(ref);
    free(fast);
}

static void test_transpose_2d_shapes(void **st) {
    (void)st;
    const int64_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 40, 47, 64, 65};
    const size_t ns = sizeof sizes / sizeof *sizes;
    const size_t widths[4] = {4, 1, 2, 8};
    dma_isa isas[2];
    size_t ni = transpose_isas(isas);
    int cases = 0;
    for (size_t i = 0; i < ni; ++i)
        for (size_t wi = 0; wi < 4; ++wi)
            for (size_t a = 0; a < ns; ++a)
                for (size_t b = 0; b < ns; ++b) {
                    /* pads: none, odd (unaligned rows), a cache-set-sized step */
                    int64_t pad = (int64_t)((a + b) % 3 == 0 ? 0 : (a + b) % 3 == 1 ? 3 : 1021);
                    int64_t outer = (a * ns + b) % 5 == 0 ? 2 : 1;
                    transpose_2d_case(isas[i], widths[wi], outer, sizes[a], sizes[b], pad,
                                      (int)((a ^ b) & 1));
                    ++cases;
                }
    assert_int_equal(cases, (int)(ni * 4 * ns * ns));
}

/* Past 2 MiB the 2-D fp32 transpose streams its stores: against the oracle
 * with the source rows far apart (a partition stride, as in SBUF), with
 * an aligned destination and one off by an element (ordinary stores), and
 * with a last micro-tile that is not whole, on every tile set. */
static void test_transpose_large_strided(void **st) {
    (void)st;
    const int64_t P = 132, N = 4100, PS = 4608; /* source rows PS elements apart */
    uint32_t *src = malloc((size_t)(P * PS) * 4), *dense = malloc((size_t)(P * N) * 4);
    uint32_t *ref = malloc((size_t)(P * N) * 4), *fast = malloc((size_t)(P * N + 4) * 4);
    for (int64_t i = 0; i < P * PS; ++i) src[i] = (uint32_t)rnd();
    for (int64_t p = 0; p < P; ++p) memcpy(dense + p * N, src + p * PS, (size_t)N * 4);
    const int64_t shape[4] = {1, 1, P, N}, stride[4] = {P * PS, P * PS, PS, 1};
    const int perm[4] = {0, 1, 3, 2};
    oracle_transpose(dense, ref, 4, shape, perm);
    dma_isa isas[2];
    size_t ni = transpose_isas(isas);
    for (size_t i = 0; i < ni; ++i)
        for (int off = 0; off < 2; ++off) {
            memset(fast, 0xee, (size_t)(P * N + 4) * 4);
            dma_transpose_strided_isa(isas[i], src, stride, fast + off, 4, shape, perm);
            assert_memory_equal(fast + off, ref, (size_t)(P * N) * 4);
            assert_int_equal(fast[off ? 0 : P * N], 0xeeeeeeeeu); /* nothing past the ends */
        }
    free(src);
    free(dense);
    free(ref);
    free(fast);
}

static void test_perm_valid(void **st) {
    (void)st;
    const int64_t bad[4][4] = {{0, 1, 2, 2}, {0, 1, 2, 4}, {-1, 1, 2, 3}, {3, 3, 3, 3}};
    for (int i = 0; i < 4; ++i) assert_false(dma_perm_valid(bad[i]));
    const int64_t good[4] = {3, 2, 1, 0};
    assert_true(dma_perm_valid(good));
}

/* ---- replicate ------------------------------------------------------------------- */

static void test_replicate(void **st) {
    (void)st;
    const uint16_t src[3] = {0x3f80, 0x4000, 0x7fc1};
    uint16_t fast[3 * 128], ref[3 * 128];
    dma_replicate(src, sizeof src, fast, 128);
    oracle_replicate(src, 3, 2, ref, 128);
    assert_memory_equal(fast, ref, sizeof fast);
    assert_int_equal(fast[3 * 127 + 2], 0x7fc1);
}

/* ---- AluOpType -> MemoryReductionOp ------------------------------------------------ */

static void test_aluop_mapping(void **st) {
    (void)st;
    char err[256];
    trn_acc_op op = TRN_ACC_MAX;
    assert_int_equal(dma_aluop_to_memop(0, false, &op, err, sizeof err), 0);
    assert_int_equal(op, TRN_ACC_COPY);
    assert_int_equal(dma_aluop_to_memop(4, false, &op, err, sizeof err), 0);
    assert_int_equal(op, TRN_ACC_ADD);
    assert_int_equal(dma_aluop_to_memop(8, false, &op, err, sizeof err), -1);
    assert_string_equal(
        err,
        "AluOpType 8 (max) has no MemoryReductionOp: the reference accepts only bypass (0) and "
        "add (4) (setting allow_minmax_reduce = true maps max / min)");
    assert_int_equal(dma_aluop_to_memop(9, false, &op, err, sizeof err), -1);
    assert_non_null(strstr(err, "AluOpType 9 (min) has no MemoryReductionOp"));
    assert_int_equal(dma_aluop_to_memop(5, true, &op, err, sizeof err), -1);
    assert_string_equal(
        err,
        "AluOpType 5 has no MemoryReductionOp: the reference accepts only bypass (0) and add (4)");
    /* opt-in: the compact enum is {copy 0, add 1, MIN 2, MAX 3} */
    assert_int_equal(dma_aluop_to_memop(8, true, &op, err, sizeof err), 0);
    assert_int_equal(op, 3);
    assert_int_equal(dma_aluop_to_memop(9, true, &op, err, sizeof err), 0);
    assert_int_equal(op, 2);
}

/* ---- indices -------------------------------------------------------------------------- */

static void test_expand_indices(void **st) {
    (void)st;
    char err[256];
    int64_t out[12];
    const int32_t idx[3] = {2, 0, 2};
    assert_int_equal(dma_expand_indices(TRN_DT_INT32, idx, 3, 1, 3, out, err, sizeof err), 0);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 0);
    assert_int_equal(out[2], 2);
    assert_int_equal(dma_expand_indices(TRN_DT_INT32, idx, 3, 4, 3, out, err, sizeof err), 0);
    const int64_t want[12] = {8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11};
    assert_memory_equal(out, want, sizeof want);

    const int32_t neg[2] = {1, -1};
    assert_int_equal(dma_expand_indices(TRN_DT_INT32, neg, 2, 1, 8, out, err, sizeof err), -1);
    assert_string_equal(err, "index -1 at position 1 is outside the table of 8 elements");
    const int8_t big[2] = {3, 5};
    assert_int_equal(dma_expand_indices(TRN_DT_INT8, big, 2, 2, 5, out, err, sizeof err), -1);
    assert_string_equal(err, "index 5 at position 1 is outside the table of 5 rows");
    const uint64_t huge[1] = {0xFFFFFFFFFFFFFFFFull};
    assert_int_equal(dma_expand_indices(TRN_DT_UINT64, huge, 1, 1, 5, out, err, sizeof err), -1);
    assert_string_equal(
        err, "index 18446744073709551615 at position 0 is outside the table of 5 elements");
    /* 4-byte indices take a loop of their own: uint32 past INT32_MAX is a
     * large positive index, not a negative one */
    const uint32_t u32[4] = {0x80000000u, 7, 0xFFFFFFFFu, 1};
    assert_int_equal(
        dma_expand_indices(TRN_DT_UINT32, u32, 4, 1, 0x100000000ll, out, err, sizeof err), 0);
    const int64_t want32[4] = {0x80000000ll, 7, 0xFFFFFFFFll, 1};
    assert_memory_equal(out, want32, sizeof want32);
    assert_int_equal(
        dma_expand_indices(TRN_DT_UINT32, u32, 4, 1, 0x80000000ll, out, err, sizeof err), -1);
    assert_string_equal(
        err, "index 2147483648 at position 0 is outside the table of 2147483648 elements");
    const int32_t i32[3] = {5, 6, 9};
    assert_int_equal(dma_expand_indices(TRN_DT_INT32, i32, 3, 1, 9, out, err, sizeof err), -1);
    assert_string_equal(err, "index 9 at position 2 is outside the table of 9 elements");
    const uint16_t u16[2] = {65535, 1};
    assert_int_equal(dma_expand_indices(TRN_DT_UINT16, u16, 2, 1, 65536, out, err, sizeof err), 0);
    assert_int_equal(out[0], 65535);

    assert_true(dma_index_dtype_ok(TRN_DT_INT64));
    assert_false(dma_index_dtype_ok(TRN_DT_FP32));
    assert_false(dma_index_dtype_ok(TRN_DT_BF16));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addss_nan_rule),
        cmocka_unit_test(test_maxss_minss_operand_order),
        cmocka_unit_test(test_cce_fold_matches_oracle),
        cmocka_unit_test(test_cce_add_against_double),
        cmocka_unit_test(test_cce_zeroed_accumulator_quirk),
        cmocka_unit_test(test_cce_nan_and_ties),
        cmocka_unit_test(test_transpose_known_2x3),
        cmocka_unit_test(test_transpose_isa_matches_cpu),
        cmocka_unit_test(test_transpose_all_perms_match_oracle),
        cmocka_unit_test(test_transpose_2d_shapes),
        cmocka_unit_test(test_transpose_large_strided),
        cmocka_unit_test(test_perm_valid),
        cmocka_unit_test(test_replicate),
        cmocka_unit_test(test_aluop_mapping),
        cmocka_unit_test(test_expand_indices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
