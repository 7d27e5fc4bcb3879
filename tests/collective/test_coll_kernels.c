/* The collective kernels against the scalar oracle (bit for bit) and
 * known answers: the reducer's fold order, SSE NaN / tie rules, the SCALE
 * branch, the lazy "Unsupported OP type", the routing kinds, and the
 * participation rules (groups, pairs, LNC, ring). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll_group.h"
#include "coll_oracle.h"
#include "coll_reduce.h"
#include "coll_route.h"

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Values that exercise the corners: NaNs with payloads (quiet and
 * signalling, both signs), infinities, signed zeros, denormals, ties, and
 * ordinary numbers of mixed magnitude. */
static float special(void) {
    static const uint32_t pool[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u,
                                    0x7fa00000u, 0x7f800000u, 0xff800000u, 0x00000000u,
                                    0x80000000u, 0x00000001u, 0x80000003u, 0x3f800000u,
                                    0xbf800000u, 0x4cbebc20u, 0x7f7fffffu};
    uint32_t r = rnd();
    if (r % 4 == 0) return u2f(pool[(r >> 8) % (sizeof pool / sizeof pool[0])]);
    if (r % 4 == 1) return (float)((int)(r >> 8) % 7 - 3); /* small ints: many ties */
    return u2f(rnd());                                     /* any bit pattern */
}

static float **make_inputs(size_t n_ins, size_t n) {
    float **ins = calloc(n_ins, sizeof *ins);
    for (size_t k = 0; k < n_ins; ++k) {
        ins[k] = malloc(n * sizeof **ins);
        for (size_t i = 0; i < n; ++i) ins[k][i] = special();
    }
    return ins;
}

static void free_inputs(float **ins, size_t n_ins) {
    for (size_t k = 0; k < n_ins; ++k) free(ins[k]);
    free(ins);
}

static void assert_bits_equal(const float *a, const float *b, size_t n, const char *what) {
    for (size_t i = 0; i < n; ++i) {
        if (f2u(a[i]) != f2u(b[i]))
            fail_msg("%s: element %zu: kernel 0x%08x, oracle 0x%08x", what, i, f2u(a[i]),
                     f2u(b[i]));
    }
}

/* ---- the reducer against the oracle ---------------------------------- */

static void check_fold(int64_t op, bool has_scale, float scale) {
    /* sizes around the kernel's block of 1024 */
    static const size_t sizes[] = {0, 1, 7, 1023, 1024, 1025, 3001};
    for (size_t n_ins = 1; n_ins <= 8; ++n_ins) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            size_t n = sizes[s];
            float **ins = make_inputs(n_ins, n);
            float *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
            assert_int_equal(oracle_do_reduction(op, (const float *const *)ins, n_ins, n, has_scale,
                                                 scale, want),
                             0);
            coll_reduce(op, (const float *const *)ins, n_ins, n, has_scale, scale, got);
            assert_bits_equal(got, want, n, "fold");
            /* in place: res aliases ins[0] */
            coll_reduce(op, (const float *const *)ins, n_ins, n, has_scale, scale, ins[0]);
            assert_bits_equal(ins[0], want, n, "fold in place");
            free(got);
            free(want);
            free_inputs(ins, n_ins);
        }
    }
}

static void test_fold_add_matches_oracle(void **st) {
    (void)st;
    check_fold(COLL_OP_ADD, false, 0.0f);
}
static void test_fold_max_matches_oracle(void **st) {
    (void)st;
    check_fold(COLL_OP_MAX, false, 0.0f);
}
static void test_fold_min_matches_oracle(void **st) {
    (void)st;
    check_fold(COLL_OP_MIN, false, 0.0f);
}
static void test_scale_matches_oracle(void **st) {
    (void)st;
    check_fold(COLL_OP_ADD, true, 8.0f);
    check_fold(COLL_OP_ADD, true, 0.1f);
    check_fold(COLL_OP_ADD, true, u2f(0x7fc00123u)); /* a NaN scale */
    /* scale with max / min: the FOLD branch, scale ignored */
    check_fold(COLL_OP_MAX, true, 3.0f);
}

/* ---- known answers ---------------------------------------------------- */

static float reduce2(int64_t op, float a, float b) {
    const float *ins[2] = {&a, &b};
    float r;
    coll_reduce(op, ins, 2, 1, false, 0.0f, &r);
    return r;
}

/* The reference's instruction (movss (x); maxss (acc) at 0x1b3af4) makes the running
 * result the second SSE operand: NaN or tie keeps the accumulator, which is
 * ins[0] for two inputs. Seed 000's prose writes maxss(res, x); where the
 * prose and the instruction disagree the instruction wins, and this test
 * pins the difference. */
static void test_max_min_nan_and_ties_keep_accumulator(void **st) {
    (void)st;
    float qnan = u2f(0x7fc00000u), one = 1.0f;
    /* [1, NaN]: x = NaN > 1 is false -> acc (1). The prose order would give NaN. */
    assert_int_equal(f2u(reduce2(COLL_OP_MAX, one, qnan)), f2u(one));
    assert_int_equal(f2u(reduce2(COLL_OP_MIN, one, qnan)), f2u(one));
    /* [NaN, 1]: acc = NaN; 1 > NaN is false -> NaN stays (libm fmaxf would give 1). */
    assert_int_equal(f2u(reduce2(COLL_OP_MAX, qnan, one)), 0x7fc00000u);
    assert_int_equal(f2u(reduce2(COLL_OP_MIN, qnan, one)), 0x7fc00000u);
    assert_int_equal(f2u(fmaxf(qnan, one)),
                     f2u(one)); /* the libm behaviour the reference rules out */
    /* signed zero ties: the accumulator (first input) wins */
    assert_int_equal(f2u(reduce2(COLL_OP_MAX, 0.0f, -0.0f)), 0x00000000u);
    assert_int_equal(f2u(reduce2(COLL_OP_MAX, -0.0f, 0.0f)), 0x80000000u);
    assert_int_equal(f2u(reduce2(COLL_OP_MIN, 0.0f, -0.0f)), 0x00000000u);
    assert_int_equal(f2u(reduce2(COLL_OP_MIN, -0.0f, 0.0f)), 0x80000000u);
    /* ordinary values */
    assert_true(reduce2(COLL_OP_MAX, 2.0f, 3.0f) == 3.0f);
    assert_true(reduce2(COLL_OP_MIN, 2.0f, 3.0f) == 2.0f);
    /* a signalling NaN first input is copied, not quietened, when nothing folds */
    const float *one_in[1] = {(const float[]){u2f(0x7fa00001u)}};
    float r;
    coll_reduce(COLL_OP_MAX, one_in, 1, 1, false, 0.0f, &r);
    assert_int_equal(f2u(r), 0x7fa00001u);
}

/* add: the first SSE operand is x (the folded input), so with two NaNs the
 * result carries x's payload, quietened. */
static void test_add_nan_payload_comes_from_x(void **st) {
    (void)st;
    float acc = u2f(0x7fc00aaau), x = u2f(0xff800bbbu); /* x is a signalling NaN */
    assert_int_equal(f2u(reduce2(COLL_OP_ADD, acc, x)), 0xffc00bbbu);
    assert_int_equal(f2u(oracle_addss(x, acc)), 0xffc00bbbu);
    /* only the accumulator NaN: it comes back quietened */
    assert_int_equal(f2u(reduce2(COLL_OP_ADD, u2f(0x7f800005u), 1.0f)), 0x7fc00005u);
    /* inf + -inf: the default NaN of x86 */
    assert_int_equal(f2u(reduce2(COLL_OP_ADD, INFINITY, -INFINITY)), 0xffc00000u);
}

/* float64 reference of a left fold in the order given: every step is a
 * double add of two floats rounded once to float, which is the correctly
 * rounded float add. */
static float fold_ref(const float *v, size_t n) {
    float acc = v[0];
    for (size_t k = 1; k < n; ++k) acc = (float)((double)v[k] + (double)acc);
    return acc;
}

/* ins[0] then 1..N-1: the fp32 sum whose bits depend on that order. */
static void test_fold_order_visible_in_fp32_sum(void **st) {
    (void)st;
    const float v[4] = {1e8f, 1.0f, -1e8f, 1.0f};
    const float rev[4] = {1.0f, -1e8f, 1.0f, 1e8f};
    const float *ins[4] = {&v[0], &v[1], &v[2], &v[3]};
    float r;
    coll_reduce(COLL_OP_ADD, ins, 4, 1, false, 0.0f, &r);
    assert_true(r == 1.0f);                /* ((1e8 + 1) + -1e8) + 1: 1e8+1 rounds to 1e8 */
    assert_true(fold_ref(v, 4) == 1.0f);   /* the float64 reference agrees */
    assert_true(fold_ref(rev, 4) == 0.0f); /* the reverse order gives another number */
    /* and in exact arithmetic the sum is 2 */
    double exact = 0;
    for (int k = 0; k < 4; ++k) exact += v[k];
    assert_true(exact == 2.0);
}

static void test_scale_uses_only_first_input(void **st) {
    (void)st;
    const float a[3] = {1.5f, -2.0f, 3.0f}, b[3] = {100.0f, 100.0f, 100.0f};
    const float *ins[2] = {a, b};
    float r[3];
    coll_reduce(COLL_OP_ADD, ins, 2, 3, true, 4.0f, r);
    assert_true(r[0] == 6.0f && r[1] == -8.0f && r[2] == 12.0f);
    /* 0.1f * 3 rounds: the product is the fp32 one */
    const float c[1] = {0.1f};
    const float *one[1] = {c};
    coll_reduce(COLL_OP_ADD, one, 1, 1, true, 3.0f, r);
    assert_int_equal(f2u(r[0]), f2u((float)((double)0.1f * 3.0)));
}

/* The fold checks op inside its loop: an unsupported op is an error only
 * when at least one input is folded into a non-empty result. */
static void test_unsupported_op_only_when_the_fold_runs(void **st) {
    (void)st;
    assert_true(coll_reduce_rejects(0, 2, 5, false));
    assert_true(coll_reduce_rejects(5, 8, 1, false));
    assert_true(coll_reduce_rejects(8 + 1 + 1, 2, 1, true)); /* scale only rescues add */
    assert_false(coll_reduce_rejects(5, 1, 5, false));       /* one input: nothing folds */
    assert_false(coll_reduce_rejects(5, 4, 0, false));       /* no elements */
    assert_false(coll_reduce_rejects(COLL_OP_ADD, 4, 5, true));
    assert_false(coll_reduce_rejects(COLL_OP_MAX, 4, 5, false));
    /* the oracle throws exactly there */
    float a[2] = {1, 2}, b[2] = {3, 4}, r[2];
    const float *ins[2] = {a, b};
    assert_int_equal(oracle_do_reduction(5, ins, 2, 2, false, 0, r), -1);
    assert_int_equal(oracle_do_reduction(5, ins, 1, 2, false, 0, r), 0);
    assert_int_equal(oracle_do_reduction(5, ins, 2, 0, false, 0, r), 0);
}

/* ---- routing against the oracle --------------------------------------- */

static void test_routes_match_oracle(void **st) {
    (void)st;
    static const size_t ns[] = {1, 2, 4, 8};
    for (size_t t = 0; t < 4; ++t) {
        size_t n = ns[t], parts = 3, f = 5, e = parts * f;
        float **src = make_inputs(n, e * n);
        float *got = malloc(n * n * e * sizeof *got), *want = malloc(n * n * e * sizeof *want);
        coll_gather_flat(got, (const void *const *)src, n, e, 4);
        oracle_gather_flat(want, (const void *const *)src, n, e, 4);
        assert_memory_equal(got, want, n * e * 4);
        coll_gather_rows(got, (const void *const *)src, n, parts, f, 4);
        oracle_gather_rows(want, (const void *const *)src, n, parts, f, 4);
        assert_memory_equal(got, want, n * e * 4);
        for (size_t j = 0; j < n; ++j) { /* each member's AllToAll output (n*e elements each) */
            coll_alltoall_one(got, (const void *const *)src, n, j, e, 4);
            oracle_alltoall(want, (const void *const *)src, n, j, n * e, 4);
            assert_memory_equal(got, want, n * e * 4);
        }
        /* AllToAllV: counts[i][k] = (i + 2k) % 4, row sums are within each src */
        int64_t *counts = malloc(n * n * sizeof *counts);
        for (size_t i = 0; i < n; ++i)
            for (size_t k = 0; k < n; ++k) counts[i * n + k] = (int64_t)((i + 2 * k) % 4);
        for (size_t j = 0; j < n; ++j) {
            size_t m = 0;
            for (size_t i = 0; i < n; ++i) m += (size_t)counts[i * n + j];
            memset(got, 0, m * 4 + 4);
            coll_alltoallv_one(got, (const void *const *)src, n, j, counts, 4);
            oracle_alltoallv(want, (const void *const *)src, n, j, counts, 4);
            assert_memory_equal(got, want, m * 4);
        }
        free(counts);
        free(got);
        free(want);
        free_inputs(src, n);
    }
}

/* Raw routing with 2-byte elements keeps every bit (the same-dtype path). */
static void test_route_raw_width2(void **st) {
    (void)st;
    uint16_t a[4] = {0x7fc1, 0x0001, 0xffff, 0x8000}, b[4] = {1, 2, 3, 4}, d[8];
    const void *srcs[2] = {a, b};
    coll_gather_flat(d, srcs, 2, 4, 2);
    const uint16_t want[8] = {0x7fc1, 0x0001, 0xffff, 0x8000, 1, 2, 3, 4};
    assert_memory_equal(d, want, sizeof want);
    coll_alltoall_one(d, srcs, 2, 1, 2, 2); /* member 1 gets a[2..4) then b[2..4) */
    const uint16_t want2[4] = {0xffff, 0x8000, 3, 4};
    assert_memory_equal(d, want2, sizeof want2);
}

/* ---- participation ----------------------------------------------------- */

static void test_groups_valid_and_find(void **st) {
    (void)st;
    char err[256];
    coll_groups g;
    const int64_t flat[] = {3, 2, 1, 0, 4, 5, 6, 7};
    const size_t lens[] = {4, 4};
    assert_int_equal(coll_groups_make(&g, flat, lens, 2, 8, err, sizeof err), 0);
    const uint32_t *m;
    uint32_t pos;
    assert_true(coll_groups_find(&g, 1, &m, &pos));
    assert_int_equal(pos, 2); /* listed order (the ring / peer kinds); see test_sort_members */
    assert_int_equal(m[0], 3);
    assert_true(coll_groups_find(&g, 6, &m, &pos));
    assert_int_equal(pos, 2);
    assert_int_equal(m[0], 4);
    coll_groups_free(&g);
    /* empty list: one group of every core */
    assert_int_equal(coll_groups_make(&g, NULL, NULL, 0, 4, err, sizeof err), 0);
    assert_true(g.all && g.size == 4 && g.n_groups == 1);
    assert_true(coll_groups_find(&g, 3, &m, &pos) && pos == 3);
    coll_groups_free(&g);
    /* a core in no group */
    const int64_t part[] = {0, 1};
    const size_t plen[] = {2};
    assert_int_equal(coll_groups_make(&g, part, plen, 1, 4, err, sizeof err), 0);
    assert_false(coll_groups_find(&g, 2, &m, &pos));
    coll_groups_free(&g);
}

static void test_groups_errors(void **st) {
    (void)st;
    char err[256];
    coll_groups g;
    const int64_t bad_id[] = {0, 1, 2, 9};
    const size_t l4[] = {4};
    assert_int_equal(coll_groups_make(&g, bad_id, l4, 1, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "replica_groups[0][3] = 9 names a rank that does not exist"));
    const int64_t dup[] = {0, 1, 1, 2};
    const size_t l22[] = {2, 2};
    assert_int_equal(coll_groups_make(&g, dup, l22, 2, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 1 appears twice in replica_groups ([0][1] and [1][0])"));
    const int64_t uneven[] = {0, 1, 2};
    const size_t l21[] = {2, 1};
    assert_int_equal(coll_groups_make(&g, uneven, l21, 2, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "replica_groups[1] has 1 ranks but replica_groups[0] has 2"));
    const size_t l0[] = {0};
    assert_int_equal(coll_groups_make(&g, uneven, l0, 1, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "replica_groups[0] is empty"));
    const int64_t neg[] = {-1};
    const size_t l1[] = {1};
    assert_int_equal(coll_groups_make(&g, neg, l1, 1, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "= -1 names a rank that does not exist"));
}

static void test_pairs(void **st) {
    (void)st;
    char err[256];
    uint32_t *mem, *src, n;
    const int64_t ring[] = {0, 1, 1, 2, 2, 3, 3, 0};
    assert_int_equal(coll_pairs_make(ring, 4, 4, &mem, &src, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(src[0], 3); /* member 0 receives from 3 */
    assert_int_equal(src[2], 1);
    free(mem);
    free(src);
    const int64_t swap[] = {5, 2, 2, 5}; /* partial: only 2 and 5 take part */
    assert_int_equal(coll_pairs_make(swap, 2, 8, &mem, &src, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(mem[0], 2);
    assert_int_equal(mem[1], 5);
    assert_int_equal(src[0], 5);
    free(mem);
    free(src);
    const int64_t two_src[] = {0, 1, 0, 2};
    assert_int_equal(coll_pairs_make(two_src, 2, 4, &mem, &src, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a permutation: rank 0 is the source of pairs [0] and [1]"));
    const int64_t two_tgt[] = {0, 1, 2, 1};
    assert_int_equal(coll_pairs_make(two_tgt, 2, 4, &mem, &src, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 1 is the target of pairs [0] and [1]"));
    const int64_t open[] = {0, 1, 1, 2};
    assert_int_equal(coll_pairs_make(open, 2, 4, &mem, &src, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 0 is a source but not a target"));
    const int64_t far[] = {0, 4};
    assert_int_equal(coll_pairs_make(far, 1, 4, &mem, &src, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "src_target_pairs[0][1] = 4 names a rank that does not exist"));
}

static void test_single_lnc_rule(void **st) {
    (void)st;
    char err[512];
    coll_groups g;
    assert_int_equal(coll_groups_make(&g, NULL, NULL, 0, 8, err, sizeof err), 0);
    /* 8 cores in one group: one LNC only when cores_per_lnc = 8 */
    assert_int_equal(coll_check_single_lnc(&g, g.ids, 8, 8, "ReduceScatter", err, sizeof err), 0);
    assert_int_equal(coll_check_single_lnc(&g, g.ids, 8, 1, "ReduceScatter", err, sizeof err), -1);
    assert_non_null(strstr(err, "ReduceScatter: multiple LNCs aren't yet supported"));
    coll_groups_free(&g);
    const int64_t two[] = {0, 1, 2, 3};
    const size_t l22[] = {2, 2};
    assert_int_equal(coll_groups_make(&g, two, l22, 2, 4, err, sizeof err), 0);
    assert_int_equal(coll_check_single_lnc(&g, g.ids, 2, 2, "SendRecv", err, sizeof err),
                     -1); /* 2 groups */
    coll_groups_free(&g);
    const int64_t straddle[] = {1, 2};
    const size_t l2[] = {2};
    assert_int_equal(coll_groups_make(&g, straddle, l2, 1, 4, err, sizeof err), 0);
    assert_int_equal(coll_check_single_lnc(&g, g.ids, 2, 2, "SendRecv", err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 1 is in LNC 0 but rank 2 is in LNC 1"));
    coll_groups_free(&g);
}

/* The gathering kinds take a group's members in ascending core order. */
static void test_sort_members(void **st) {
    (void)st;
    uint32_t m[] = {6, 0, 4, 2}, one[] = {5}, sorted[] = {1, 3, 5, 7};
    coll_sort_members(m, 4);
    assert_int_equal(m[0], 0);
    assert_int_equal(m[1], 2);
    assert_int_equal(m[2], 4);
    assert_int_equal(m[3], 6);
    coll_sort_members(one, 1);
    assert_int_equal(one[0], 5);
    coll_sort_members(sorted, 4);
    assert_int_equal(sorted[0], 1);
    assert_int_equal(sorted[3], 7);
    uint32_t rev[8];
    for (uint32_t i = 0; i < 8; ++i) rev[i] = 7 - i;
    coll_sort_members(rev, 8);
    for (uint32_t i = 0; i < 8; ++i) assert_int_equal(rev[i], i);
}

static void test_ring_and_processing_rank(void **st) {
    (void)st;
    assert_int_equal(coll_ring_pred(0, 4), 3);
    assert_int_equal(coll_ring_pred(3, 4), 2);
    assert_int_equal(coll_ring_pred(0, 1), 0);
    /* iteration 0 processes its own data; then the predecessors in turn */
    assert_int_equal(coll_cur_processing_pos(2, 4, 0, NULL), 2);
    assert_int_equal(coll_cur_processing_pos(2, 4, 1, NULL), 1);
    assert_int_equal(coll_cur_processing_pos(2, 4, 3, NULL), 3);
    assert_int_equal(coll_cur_processing_pos(0, 4, 1, NULL), 3);
    const int64_t table[] = {3, 1, 0, 2};
    assert_int_equal(coll_cur_processing_pos(2, 4, 1, table), 1);
    assert_int_equal(coll_cur_processing_pos(2, 4, 0, table), 0);
    assert_true(coll_is_permutation(table, 4));
    const int64_t notperm[] = {0, 0, 1};
    assert_false(coll_is_permutation(notperm, 3));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_add_matches_oracle),
        cmocka_unit_test(test_fold_max_matches_oracle),
        cmocka_unit_test(test_fold_min_matches_oracle),
        cmocka_unit_test(test_scale_matches_oracle),
        cmocka_unit_test(test_max_min_nan_and_ties_keep_accumulator),
        cmocka_unit_test(test_add_nan_payload_comes_from_x),
        cmocka_unit_test(test_fold_order_visible_in_fp32_sum),
        cmocka_unit_test(test_scale_uses_only_first_input),
        cmocka_unit_test(test_unsupported_op_only_when_the_fold_runs),
        cmocka_unit_test(test_routes_match_oracle),
        cmocka_unit_test(test_route_raw_width2),
        cmocka_unit_test(test_groups_valid_and_find),
        cmocka_unit_test(test_groups_errors),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_single_lnc_rule),
        cmocka_unit_test(test_sort_members),
        cmocka_unit_test(test_ring_and_processing_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
