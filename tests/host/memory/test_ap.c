/* AP walks, bounds, the uninitialised-read guard, accumulate and indirect
 * transfers, against hand-computed expectations. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "memory/memory.h"
#include "arith/arith.h"
#include "host/test_util.h"

static trn_core_state core;
static trn_ap_env env;

static int setup(void **st) {
    trn_machine m = {128, 4096, 1024, 1 << 16, 8, 0, 0};
    trn_error e;
    assert_int_equal(trn_core_state_init(&core, &m, &e), 0);
    env = (trn_ap_env){.cores = &core, .ncores = 1, .allow_uninit = false};
    return 0;
}

static int teardown(void **st) {
    trn_core_state_free(&core);
    return 0;
}

static trn_ap sbuf_ap(trn_dtype dt, uint32_t p0, uint32_t np, int64_t off, int nd,
                      const int64_t (*dims)[2]) {
    trn_ap ap = {.core = 0,
                 .mem = TRN_MEM_SBUF,
                 .dtype = dt,
                 .part_start = p0,
                 .part_count = np,
                 .part_step = 1,
                 .offset = off,
                 .ndims = (uint32_t)nd};
    for (int d = 0; d < nd; ++d) ap.dims[d].step = dims[d][0], ap.dims[d].num = dims[d][1];
    return ap;
}

/* Partition p, element i of float32 SBUF holds 1000*p + i. */
static void fill_iota(uint32_t parts, int64_t n) {
    float *buf = malloc((size_t)(parts * n) * sizeof(float));
    for (uint32_t p = 0; p < parts; ++p)
        for (int64_t i = 0; i < n; ++i) buf[p * n + i] = (float)(1000 * p + i);
    int64_t d[1][2] = {{1, n}};
    trn_ap ap = sbuf_ap(TRN_DT_FP32, 0, parts, 0, 1, d);
    trn_error e;
    assert_int_equal(trn_ap_write_raw(&env, &ap, buf, &e), 0);
    free(buf);
}

static void strided_4d_walk(void **st) {
    fill_iota(4, 256);
    int64_t d[4][2] = {{64, 2}, {16, 2}, {4, 2}, {1, 2}};
    trn_ap ap = sbuf_ap(TRN_DT_FP32, 1, 2, 3, 4, d);
    ap.part_step = 2; /* partitions 1 and 3 */
    float got[32];
    trn_error e;
    assert_int_equal(trn_ap_read_f32(&env, &ap, got, &e), 0);
    int k = 0;
    for (int p = 1; p <= 3; p += 2)
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b)
                for (int c = 0; c < 2; ++c)
                    for (int x = 0; x < 2; ++x)
                        assert_true(got[k++] ==
                                    (float)(1000 * p + 3 + 64 * a + 16 * b + 4 * c + x));
}

static void negative_step_and_merge(void **st) {
    fill_iota(1, 64);
    int64_t d[2][2] = {{-8, 3}, {1, 8}}; /* rows 5, 4, 3 of an 8-wide row-major block */
    trn_ap ap = sbuf_ap(TRN_DT_FP32, 0, 1, 40, 2, d);
    float got[24];
    trn_error e;
    assert_int_equal(trn_ap_read_f32(&env, &ap, got, &e), 0);
    for (int r = 0; r < 3; ++r)
        for (int i = 0; i < 8; ++i) assert_true(got[r * 8 + i] == (float)(40 - 8 * r + i));
}

static void bounds_errors(void **st) {
    trn_error e;
    int64_t d[1][2] = {{1, 4}};
    trn_ap ap = sbuf_ap(TRN_DT_FP32, 127, 2, 0, 1, d);
    assert_int_equal(trn_ap_check(&env, &ap, &e), -1);
    assert_contains(e.msg, "partition 128 is outside sbuf (128 partitions)");
    ap = sbuf_ap(TRN_DT_FP32, 0, 1, 1021, 1, d);
    assert_int_equal(trn_ap_check(&env, &ap, &e), -1);
    assert_contains(
        e.msg,
        "element at byte offset 4096 (4 bytes) is past the end of sbuf (4096 bytes per partition)");
    ap = sbuf_ap(TRN_DT_FP32, 0, 1, 1020, 1, d);
    assert_int_equal(trn_ap_check(&env, &ap, &e), 0);
    int64_t neg[1][2] = {{-1, 4}};
    ap = sbuf_ap(TRN_DT_FP32, 0, 1, 2, 1, neg);
    assert_int_equal(trn_ap_check(&env, &ap, &e), -1);
    assert_contains(e.msg, "element at byte offset -4 is before the start of sbuf");
    ap = sbuf_ap(TRN_DT_FP32, 0, 1, 0, 1, d);
    ap.core = 1;
    assert_int_equal(trn_ap_check(&env, &ap, &e), -1);
    assert_contains(e.msg, "AP names core 1, the run has 1");
    int64_t huge[2][2] = {{0, 1 << 20}, {0, 1 << 11}}; /* 2^31 visits of one address */
    ap = sbuf_ap(TRN_DT_FP32, 0, 1, 0, 2, huge);
    assert_int_equal(trn_ap_check(&env, &ap, &e), -1);
    assert_contains(e.msg, "AP visits 2147483648 elements (at most 2^30)");
    /* Nothing is written when any element is out of bounds. */
    float v[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    int64_t d8[1][2] = {{1, 4}};
    fill_iota(2, 1024);
    ap = sbuf_ap(TRN_DT_FP32, 1, 1, 1022, 1, d8);
    assert_int_equal(trn_ap_write_f32(&env, &ap, v, TRN_ACC_COPY, &e), -1);
    float now;
    memcpy(&now, core.mem[TRN_MEM_SBUF].bytes + 4096 + 1022 * 4, 4);
    assert_true(now == 2022.0f);
}

static void uninitialised_reads(void **st) {
    trn_error e;
    int64_t d[1][2] = {{1, 4}};
    trn_ap ap = sbuf_ap(TRN_DT_FP32, 5, 1, 16, 1, d);
    float got[4];
    assert_int_equal(trn_ap_read_f32(&env, &ap, got, &e), -1);
    assert_contains(e.msg, "reads never-written sbuf bytes at partition 5, byte offset 64");
    env.allow_uninit = true;
    assert_int_equal(trn_ap_read_f32(&env, &ap, got, &e), 0);
    env.allow_uninit = false;
    float v[2] = {1, 2};
    int64_t d2[1][2] = {{1, 2}};
    trn_ap half = sbuf_ap(TRN_DT_FP32, 5, 1, 16, 1, d2);
    assert_int_equal(trn_ap_write_f32(&env, &half, v, TRN_ACC_COPY, &e), 0);
    assert_int_equal(trn_ap_read_f32(&env, &ap, got, &e), -1);
    assert_contains(e.msg, "partition 5, byte offset 72");
}

static void narrow_and_accumulate(void **st) {
    trn_error e;
    int64_t d[1][2] = {{1, 2}};
    trn_ap ap = sbuf_ap(TRN_DT_BF16, 9, 1, 0, 1, d);
    float v[2] = {1.00390625f, 1.01171875f}; /* bf16 ties: to even */
    assert_int_equal(trn_ap_write_f32(&env, &ap, v, TRN_ACC_COPY, &e), 0);
    uint16_t bits[2];
    assert_int_equal(trn_ap_read_raw(&env, &ap, bits, &e), 0);
    assert_int_equal(bits[0], 0x3f80);
    assert_int_equal(bits[1], 0x3f82);
    float add[2] = {0.00390625f, 0.0f}; /* 1 + 2^-8 ties to 1.0 again in bf16 */
    assert_int_equal(trn_ap_write_f32(&env, &ap, add, TRN_ACC_ADD, &e), 0);
    assert_int_equal(trn_ap_read_raw(&env, &ap, bits, &e), 0);
    assert_int_equal(bits[0], 0x3f80);
    float mx[2] = {NAN, 0.5f}; /* max keeps the accumulator on NaN and when smaller */
    assert_int_equal(trn_ap_write_f32(&env, &ap, mx, TRN_ACC_MAX, &e), 0);
    assert_int_equal(trn_ap_read_raw(&env, &ap, bits, &e), 0);
    assert_int_equal(bits[0], 0x3f80);
    assert_int_equal(bits[1], 0x3f82);
    trn_ap u8 = sbuf_ap(TRN_DT_UINT8, 9, 1, 64, 1, d);
    assert_int_equal(trn_ap_write_f32(&env, &u8, v, TRN_ACC_ADD, &e), -1);
    assert_string_equal(e.msg, "cast_accumulate: unsupported dtype uint8");
}

static void first_accumulate_copies(void **st) {
    trn_error e;
    int64_t d[1][2] = {{1, 3}};
    trn_ap ap = sbuf_ap(TRN_DT_FP32, 20, 1, 0, 1, d);
    float v[3] = {1, 2, 3}, got[3];
    assert_int_equal(trn_ap_write_f32(&env, &ap, v, TRN_ACC_ADD, &e), 0);
    assert_int_equal(trn_ap_write_f32(&env, &ap, v, TRN_ACC_ADD, &e), 0);
    assert_int_equal(trn_ap_read_f32(&env, &ap, got, &e), 0);
    assert_true(got[0] == 2 && got[1] == 4 && got[2] == 6);
}

static void indirect_repeated_indices_accumulate(void **st) {
    trn_error e;
    int64_t d[1][2] = {{1, 4}};
    trn_ap table = sbuf_ap(TRN_DT_INT32, 30, 2, 0, 1, d); /* 8 elements over 2 partitions */
    int32_t init[8] = {INT32_MAX, 0, 0, 0, 10, 0, 0, 0};
    assert_int_equal(trn_ap_write_raw(&env, &table, init, &e), 0);
    int64_t idx[5] = {0, 4, 4, 5, 4};
    float src[5] = {1, 2, 3, 7, -1};
    assert_int_equal(trn_ap_write_indirect_f32(&env, &table, idx, 5, src, TRN_ACC_ADD, &e), 0);
    int32_t got[8];
    assert_int_equal(trn_ap_read_raw(&env, &table, got, &e), 0);
    assert_int_equal(got[0], INT32_MIN); /* wraps */
    assert_int_equal(got[4], 14);
    assert_int_equal(got[5], 7);
    float g[3];
    int64_t gi[3] = {4, 0, 5};
    assert_int_equal(trn_ap_read_indirect_f32(&env, &table, gi, 3, g, &e), 0);
    assert_true(g[0] == 14.0f && g[1] == -2147483648.0f && g[2] == 7.0f);
    int64_t bad[2] = {1, 8};
    assert_int_equal(trn_ap_read_indirect_f32(&env, &table, bad, 2, g, &e), -1);
    assert_contains(e.msg, "index 1 is 8, outside its table of 8 elements");
}

static uint64_t rs = 0x2545f4914f6cdd1dull;
static uint64_t rnd64(void) {
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return rs;
}

/* Scatter-add into a table written whole (addresses in chunks, no
 * per-element bookkeeping), into one with a never-written hole (element
 * by element: the first update of the hole stores), and with too few
 * updates for the whole-table check: each against the arithmetic core
 * applied element by element in index order. fp32 with NaNs and
 * infinities in a flat HBM table and a strided one; bf16 over SBUF
 * partitions. */
static void scatter_add_paths_agree(void **st) {
    (void)st;
    static const uint32_t special[] = {0x7fc00001u, 0xff800000u, 0x7f800000u, 0x80000000u};
    for (int c = 0; c < 9; ++c) {
        bool bf16 = c % 3 == 2, hole = c >= 3 && c < 6;
        trn_dtype dt = bf16 ? TRN_DT_BF16 : TRN_DT_FP32;
        uint32_t w = bf16 ? 2 : 4;
        int64_t T = bf16 ? 4 * 512 : 4096, step = c % 3 == 1 ? 2 : 1;
        trn_ap table;
        if (bf16) {
            int64_t d[1][2] = {{1, 512}};
            table = sbuf_ap(dt, 64, 4, 8, 1, d);
            table.part_step = 3;
        } else {
            table = (trn_ap){.mem = TRN_MEM_HBM,
                             .dtype = dt,
                             .part_count = 1,
                             .part_step = 1,
                             .offset = 16,
                             .ndims = 1};
            table.dims[0].step = step, table.dims[0].num = T;
        }
        size_t n = c >= 6 ? 20 : 5000; /* 20: fewer than the table's map words / 4 */
        uint8_t *init = malloc((size_t)T * w), *ref = malloc((size_t)T * w),
                *got = malloc((size_t)T * w);
        uint8_t *src = malloc(n * w);
        int64_t *idx = malloc(n * sizeof *idx);
        bool *written = malloc((size_t)T);
        for (int64_t k = 0; k < T; ++k) {
            uint32_t u = rnd64() % 40 == 0 ? special[rnd64() % 4]
                                           : (uint32_t)(rnd64() % 2000) * 0x8000u + 0x3c000000u;
            memcpy(init + k * w, bf16 ? (const uint8_t *)&u + 2 : (const uint8_t *)&u, w);
            written[k] = true;
        }
        for (size_t j = 0; j < n; ++j) {
            uint32_t u = rnd64() % 50 == 0 ? special[rnd64() % 4]
                                           : (uint32_t)(rnd64() % 3000) * 0x4000u + 0x3b000000u;
            memcpy(src + j * w, bf16 ? (const uint8_t *)&u + 2 : (const uint8_t *)&u, w);
            idx[j] = (int64_t)(rnd64() % (uint64_t)(j % 3 ? T : 16)); /* many repeats */
        }
        trn_error e;
        assert_int_equal(trn_ap_write_raw(&env, &table, init, &e), 0);
        int64_t hole_at = 5;
        if (hole) { /* element 5: never written (its bytes hold 0 and get stored) */
            trn_ap one = table;
            one.offset += hole_at * step;
            one.dims[0].num = 1;
            trn_memory *m = &core.mem[table.mem];
            uint64_t a = trn_mem_addr(m, table.part_start, 0) + (uint64_t)(one.offset * (int64_t)w);
            if (!bf16) {
                trn_mem_clear_written(m, a, w);
                written[hole_at] = false;
            }
        }
        memcpy(ref, init, (size_t)T * w);
        for (size_t j = 0; j < n; ++j) {
            uint8_t *dst = ref + idx[j] * w;
            if (written[idx[j]])
                assert_int_equal(trn_cast_copy_or_accumulate(TRN_ACC_ADD, dst, src + j * w, dt, &e),
                                 0);
            else
                memcpy(dst, src + j * w, w), written[idx[j]] = true;
        }
        assert_int_equal(trn_ap_write_indirect_raw(&env, &table, idx, n, src, TRN_ACC_ADD, &e), 0);
        env.allow_uninit =
            true; /* the hole's element is written now; the rest of the map as before */
        assert_int_equal(trn_ap_read_raw(&env, &table, got, &e), 0);
        env.allow_uninit = false;
        for (int64_t k = 0; k < T; ++k)
            if (memcmp(got + k * w, ref + k * w, w))
                fail_msg("case %d: element %" PRId64 " differs", c, k);
        free(init), free(ref), free(got), free(src), free(idx), free(written);
    }
}

static void packed_has_no_f32(void **st) {
    trn_error e;
    int64_t d[1][2] = {{1, 1}};
    trn_ap ap = sbuf_ap(TRN_DT_FP8_E4M3_X4, 40, 1, 0, 1, d);
    uint32_t raw = 0x01020304, back = 0;
    assert_int_equal(trn_ap_write_raw(&env, &ap, &raw, &e), 0);
    assert_int_equal(trn_ap_read_raw(&env, &ap, &back, &e), 0);
    assert_int_equal(back, raw);
    float f;
    assert_int_equal(trn_ap_read_f32(&env, &ap, &f, &e), -1);
    assert_contains(e.msg, "has no fp32 value");
}

static void copy_raw_strided_overlap_and_accumulate(void **st) {
    trn_error e;
    fill_iota(2, 16);
    int64_t every_other[1][2] = {{2, 4}}, dense4[1][2] = {{1, 4}};
    trn_ap src = sbuf_ap(TRN_DT_FP32, 0, 2, 1, 1, every_other); /* 1,3,5,7 and 1001,... */
    trn_ap dst = sbuf_ap(TRN_DT_FP32, 50, 2, 0, 1, dense4);
    assert_int_equal(trn_ap_copy_raw(&env, &dst, &src, TRN_ACC_COPY, &e), 0);
    float got[8];
    assert_int_equal(trn_ap_read_f32(&env, &dst, got, &e), 0);
    for (int i = 0; i < 4; ++i)
        assert_true(got[i] == (float)(1 + 2 * i) && got[4 + i] == (float)(1001 + 2 * i));
    /* Overlap: shifting a row right by one reads the whole source first. */
    int64_t d8[1][2] = {{1, 8}};
    trn_ap a = sbuf_ap(TRN_DT_FP32, 0, 1, 0, 1, d8), b = sbuf_ap(TRN_DT_FP32, 0, 1, 1, 1, d8);
    assert_int_equal(trn_ap_copy_raw(&env, &b, &a, TRN_ACC_COPY, &e), 0);
    float row[9];
    int64_t d9[1][2] = {{1, 9}};
    trn_ap r9 = sbuf_ap(TRN_DT_FP32, 0, 1, 0, 1, d9);
    assert_int_equal(trn_ap_read_f32(&env, &r9, row, &e), 0);
    for (int i = 1; i < 9; ++i) assert_true(row[i] == (float)(i - 1));
    /* Accumulate in the destination dtype: int32 wraps, no trip through fp32. */
    int64_t d2[1][2] = {{1, 2}};
    trn_ap is = sbuf_ap(TRN_DT_INT32, 60, 1, 0, 1, d2), id = sbuf_ap(TRN_DT_INT32, 61, 1, 0, 1, d2);
    int32_t iv[2] = {16777217, 1}, dv[2] = {INT32_MAX, 5};
    assert_int_equal(trn_ap_write_raw(&env, &is, iv, &e), 0);
    assert_int_equal(trn_ap_write_raw(&env, &id, dv, &e), 0);
    assert_int_equal(trn_ap_copy_raw(&env, &id, &is, TRN_ACC_ADD, &e), 0);
    assert_int_equal(trn_ap_read_raw(&env, &id, dv, &e), 0);
    assert_int_equal(dv[0], (int32_t)(INT32_MIN + 16777216));
    assert_int_equal(dv[1], 6);
    /* Refusals, nothing written. */
    trn_ap bf = sbuf_ap(TRN_DT_BF16, 62, 1, 0, 1, d2);
    assert_int_equal(trn_ap_copy_raw(&env, &bf, &is, TRN_ACC_COPY, &e), -1);
    assert_contains(e.msg, "copy_raw needs one dtype, got int32 -> bfloat16");
    assert_int_equal(trn_ap_copy_raw(&env, &dst, &is, TRN_ACC_COPY, &e), -1);
    trn_ap never = sbuf_ap(TRN_DT_INT32, 63, 1, 0, 1, d2);
    assert_int_equal(trn_ap_copy_raw(&env, &id, &never, TRN_ACC_COPY, &e), -1);
    assert_contains(e.msg, "reads never-written sbuf bytes at partition 63");
    assert_int_equal(trn_ap_read_raw(&env, &id, dv, &e), 0);
    assert_int_equal(dv[1], 6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strided_4d_walk),
        cmocka_unit_test(negative_step_and_merge),
        cmocka_unit_test(bounds_errors),
        cmocka_unit_test(uninitialised_reads),
        cmocka_unit_test(narrow_and_accumulate),
        cmocka_unit_test(first_accumulate_copies),
        cmocka_unit_test(indirect_repeated_indices_accumulate),
        cmocka_unit_test(scatter_add_paths_agree),
        cmocka_unit_test(packed_has_no_f32),
        cmocka_unit_test(copy_raw_strided_overlap_and_accumulate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
