/* trn_accumulate_scatter (the hoisted fast path of indirect writes, with
 * the fp32 add as the addss instruction and table prefetches) against the
 * per-element reference trn_cast_copy_or_accumulate, bit for bit, with
 * repeated offsets, NaN payloads (quiet and signalling, either sign) on
 * either side, Inf, signed zeros, denormals and ties, for every reducing
 * dtype and every length around the prefetch distance. */
#include <stdlib.h>

#include "arith_test_util.h"

#define TABLE 64
#define N     4096

static void scatter_vs_elements(trn_dtype dt, trn_acc_op op, uint64_t seed) {
    test_rng r = {seed};
    uint32_t w = trn_dtype_width(dt);
    uint8_t fast[TABLE * 8], slow[TABLE * 8], src[N * 8];
    uint64_t off[N];
    for (size_t i = 0; i < sizeof fast; ++i) fast[i] = slow[i] = (uint8_t)rng_next(&r);
    for (size_t j = 0; j < N; ++j) {
        off[j] = (rng_next(&r) % TABLE) * w; /* about 64 updates per element */
        for (uint32_t b = 0; b < w; ++b) src[j * w + b] = (uint8_t)rng_next(&r);
        if (dt == TRN_DT_FP32 && j % 7 == 0) { /* specials: NaN, Inf, zeros, ties */
            static const uint32_t sp[] = {0x7fc00001u, 0xff800000u, 0x80000000u, 0x00000000u,
                                          0x3f800000u};
            memcpy(src + j * w, &sp[j % 5], 4);
        }
    }
    assert_int_equal(trn_accumulate_scatter(op, fast, off, src, dt, N, NULL), 0);
    for (size_t j = 0; j < N; ++j)
        assert_int_equal(trn_cast_copy_or_accumulate(op, slow + off[j], src + j * w, dt, NULL), 0);
    assert_memory_equal(fast, slow, TABLE * w);
}

/* fp32 bits for either side: rng_f32_bits' mix plus denormals of both
 * signs and exact halves (ties of the rounding). */
static uint32_t special_f32(test_rng *r) {
    uint32_t u = rng_u32(r);
    switch (u % 8) {
        case 0: return (u & 0x80000000u) | (rng_u32(r) & 0x007fffffu); /* denormal (or zero) */
        case 1: return (u & 0x80000000u) | 0x00800000u;                /* the smallest normal */
        case 2: return (u & 0x80000000u) | 0x7fbfffffu; /* a signalling NaN's largest payload */
        default: return rng_f32_bits(r);
    }
}

/* n updates into a table of `table` elements of dt, both sides drawn from
 * special_f32 for the float dtypes (raw bits otherwise), offsets repeating. */
static void scatter_case(trn_dtype dt, trn_acc_op op, size_t table, size_t n, uint64_t seed) {
    test_rng r = {seed};
    uint32_t w = trn_dtype_width(dt);
    uint8_t *fast = malloc(table * w), *slow = malloc(table * w), *src = malloc((n ? n : 1) * w);
    uint64_t *off = malloc((n ? n : 1) * sizeof *off);
    bool f32 = dt == TRN_DT_FP32;
    for (size_t i = 0; i < table; ++i) {
        uint32_t v = f32 ? special_f32(&r) : rng_u32(&r);
        memcpy(fast + i * w, &v, w < 4 ? w : 4);
        if (w == 8) memcpy(fast + i * w + 4, &(uint32_t){rng_u32(&r)}, 4);
    }
    memcpy(slow, fast, table * w);
    for (size_t j = 0; j < n; ++j) {
        off[j] = (rng_next(&r) % table) * w;
        uint32_t v = f32 ? special_f32(&r) : rng_u32(&r);
        memcpy(src + j * w, &v, w < 4 ? w : 4);
        if (w == 8) memcpy(src + j * w + 4, &(uint32_t){rng_u32(&r)}, 4);
    }
    assert_int_equal(trn_accumulate_scatter(op, fast, off, src, dt, n, NULL), 0);
    for (size_t j = 0; j < n; ++j)
        assert_int_equal(trn_cast_copy_or_accumulate(op, slow + off[j], src + j * w, dt, NULL), 0);
    if (memcmp(fast, slow, table * w) != 0)
        fail_msg("scatter %s op %d: %zu updates into %zu elements differ from the per-element "
                 "accumulate",
                 trn_dtype_name(dt), (int)op, n, table);
    free(fast);
    free(slow);
    free(src);
    free(off);
}

/* Every length around the prefetch distance (32) and chunk-sized ones, into
 * a table small enough to repeat offsets often and one of 64K elements. */
static void every_reducing_dtype_and_length(void **st) {
    (void)st;
    const trn_dtype dts[] = {TRN_DT_FP32,     TRN_DT_BF16,     TRN_DT_FP16,  TRN_DT_FP8_E3M4,
                             TRN_DT_FP8_E4M3, TRN_DT_FP8_E5M2, TRN_DT_INT32, TRN_DT_INT64};
    const size_t lens[] = {0, 1, 2, 31, 32, 33, 34, 63, 64, 65, 100, 2048, 5000};
    int cases = 0;
    for (size_t d = 0; d < sizeof dts / sizeof *dts; ++d) {
        assert_true(trn_dtype_reduces(dts[d]));
        for (int op = TRN_ACC_COPY; op <= TRN_ACC_MAX; ++op)
            for (size_t l = 0; l < sizeof lens / sizeof *lens; ++l) {
                scatter_case(dts[d], (trn_acc_op)op, 37, lens[l],
                             1000 + d * 97 + (size_t)op * 13 + l);
                scatter_case(dts[d], (trn_acc_op)op, 65536, lens[l],
                             5000 + d * 97 + (size_t)op * 13 + l);
                cases += 2;
            }
    }
    assert_int_equal(cases, 8 * 4 * 13 * 2);
    /* fp32 add at length: many table lines, many prefetches */
    for (uint64_t seed = 1; seed <= 4; ++seed)
        scatter_case(TRN_DT_FP32, TRN_ACC_ADD, 1u << 18, 200000, seed);
}

/* Known answers of the NaN rule, one update each on a fresh table of one
 * element: the accumulator (the table's value, addss's first operand)
 * wins when both are NaN, quieted; a NaN update wins over a number,
 * quieted; Inf - Inf is the default NaN; zeros and denormals add exactly. */
static void fp32_add_known_answers(void **st) {
    (void)st;
    static const uint32_t cases[][3] = {
        /* table, update, result */
        {0x7fc00001u, 0x7fc00002u, 0x7fc00001u}, /* both quiet: the table's */
        {0xff800005u, 0x7fc00002u, 0xffc00005u}, /* signalling table: its own, quieted */
        {0x7fc00002u, 0xff800007u, 0x7fc00002u}, /* signalling update, quiet table: the table's */
        {0x3f800000u, 0x7f800003u,
         0x7fc00003u}, /* a number and a signalling NaN: the NaN quieted */
        {0xff800009u, 0x3f800000u, 0xffc00009u}, /* a signalling table and a number */
        {0x7f800000u, 0xff800000u, 0xffc00000u}, /* Inf + -Inf: the default NaN */
        {0xff800000u, 0x7f800000u, 0xffc00000u},
        {0x80000000u, 0x80000000u, 0x80000000u}, /* -0 + -0 = -0 */
        {0x80000000u, 0x00000000u, 0x00000000u}, /* -0 + +0 = +0 (round to nearest) */
        {0x00000001u, 0x00000001u, 0x00000002u}, /* denormals, exactly */
        {0x807fffffu, 0x00000001u, 0x807ffffeu},
        {0x7f7fffffu, 0x7f7fffffu, 0x7f800000u}, /* overflow to Inf */
        {0x3f800000u, 0x33800000u, 0x3f800000u}, /* 1 + 2^-24: the tie rounds to even */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        uint8_t t[8], s[4];
        memcpy(t + 4, &cases[i][0], 4);
        memcpy(s, &cases[i][1], 4);
        uint64_t off[1] = {4};
        assert_int_equal(trn_accumulate_scatter(TRN_ACC_ADD, t, off, s, TRN_DT_FP32, 1, NULL), 0);
        uint32_t got;
        memcpy(&got, t + 4, 4);
        if (got != cases[i][2])
            fail_msg("case %zu: 0x%08x + 0x%08x gave 0x%08x, expected 0x%08x", i, cases[i][0],
                     cases[i][1], got, cases[i][2]);
        /* the per-element reference agrees */
        memcpy(t + 4, &cases[i][0], 4);
        assert_int_equal(trn_cast_copy_or_accumulate(TRN_ACC_ADD, t + 4, s, TRN_DT_FP32, NULL), 0);
        memcpy(&got, t + 4, 4);
        assert_int_equal(got, cases[i][2]);
    }
}

static void fp32_all_ops(void **st) {
    for (int op = TRN_ACC_ADD; op <= TRN_ACC_MAX; ++op)
        scatter_vs_elements(TRN_DT_FP32, (trn_acc_op)op, 1 + op);
}

static void other_reducing_dtypes(void **st) {
    trn_dtype dts[] = {TRN_DT_BF16, TRN_DT_FP16, TRN_DT_FP8_E4M3, TRN_DT_INT32, TRN_DT_INT64};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; ++i)
        for (int op = TRN_ACC_COPY; op <= TRN_ACC_MAX; ++op)
            scatter_vs_elements(dts[i], (trn_acc_op)op, 100 + i * 4 + op);
}

static void refuses_non_reducing(void **st) {
    uint8_t t[4] = {0}, s[4] = {0};
    uint64_t off[1] = {0};
    trn_error e;
    assert_int_equal(trn_accumulate_scatter(TRN_ACC_ADD, t, off, s, TRN_DT_UINT32, 1, &e), -1);
    assert_string_equal(e.msg, "cast_accumulate: unsupported dtype uint32");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp32_all_ops),           cmocka_unit_test(every_reducing_dtype_and_length),
        cmocka_unit_test(fp32_add_known_answers), cmocka_unit_test(other_reducing_dtypes),
        cmocka_unit_test(refuses_non_reducing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
