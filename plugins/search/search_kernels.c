/* DVE search family kernels: fast, and bit-exact to the reference's loops.
 *
 * Both kernels scan a row in blocks of SEARCH_BLOCK elements and skip a block
 * with one vectorisable test when no element of it can change anything; the
 * elements of a block that may matter are picked by a bit mask, in index
 * order, and go through the reference's exact loop. The tests are comparisons
 * only (no arithmetic), so they cannot change a bit.
 */
#include "search_kernels.h"

#include <stdatomic.h>
#include <stdbool.h>

/* SSE's packed compares are the C comparisons element by element (ordered:
 * false on NaN), so the masks below are the same either way; the plain
 * loops are the portable fallback (tests build it with -DSEARCH_NO_SIMD). */
#if defined(__SSE__) && !defined(SEARCH_NO_SIMD)
#include <xmmintrin.h>
#define SEARCH_SSE 1
#endif

/* Eight lanes where the CPU has AVX, chosen per call (the module is built
 * for baseline x86-64). _CMP_GT_OQ, _GE_OQ and _LE_OQ are the C
 * comparisons too (false on NaN), so either width picks the same elements;
 * the tests run this path, the SSE one (SEARCH_NO_AVX) and the plain one. */
#if defined(SEARCH_SSE) && defined(__x86_64__) && defined(__GNUC__) && !defined(SEARCH_NO_AVX)
#include <immintrin.h>
#define SEARCH_AVX    1
#define SEARCH_AVX_FN __attribute__((target("avx")))
#else
#define SEARCH_AVX 0
#endif
#define SEARCH_INLINE static inline __attribute__((always_inline))

/* 32 fp32 = two cache lines: long enough to amortise the branch, short
 * enough that a block holding a rare candidate costs little. */
#define SEARCH_BLOCK 32
_Static_assert(SEARCH_BLOCK <= 32 && SEARCH_BLOCK % 4 == 0,
               "block masks are uint32_t, built 4 lanes at a time");

/* ---- Max (IT 88) --------------------------------------------------------- */

/* The reference's insertion of one element while the slots fill: cascade
 * through the `filled` valid slots with a strict '>', the demoted value
 * carrying on, and land in the first empty slot. The swap is written as
 * max8_insert writes it (below): the same bits as the branchy loop, with no
 * mispredicted branch per slot, which for short rows is most of the time. */
static void max8_fill(float slot[SEARCH_K], int filled, float carry) {
    for (int k = 0; k < filled; ++k) {
        float s = slot[k];
        slot[k] = carry > s ? carry : s;
        carry = carry > s ? s : carry;
    }
    slot[filled] = carry;
}

/* The same loop once every slot is valid. It is not a plain shift: a
 * demoted +0.0 does not displace a following -0.0 (equal, not greater), so
 * it carries on and may land further down. Running the whole cascade keeps
 * those bits exactly where the reference puts them.
 *
 * Written without branches: `carry > s ? carry : s` and `carry > s ? s :
 * carry` are the reference's swap taken or not, word for word (they are
 * also exactly SSE maxss / minss, which the compiler may use), so NaN and
 * signed zeros behave as in the branchy loop, without a mispredicted
 * branch per slot. */
static void max8_insert(float slot[SEARCH_K], float carry) {
    for (int k = 0; k < SEARCH_K; ++k) {
        float s = slot[k];
        slot[k] = carry > s ? carry : s;
        carry = carry > s ? s : carry;
    }
}

/* True when some element of the block is > thr (NaN elements are not). */
static inline bool block_any_gt(const float *x, float thr) {
    int any = 0;
    for (int j = 0; j < SEARCH_BLOCK; ++j) any |= x[j] > thr;
    return any != 0;
}

/* Bit j set when x[j] > thr: the elements of a block worth a closer look. */
static inline uint32_t block_mask_gt(const float *x, float thr) {
    uint32_t m = 0;
#ifdef SEARCH_SSE
    const __m128 t = _mm_set1_ps(thr);
    for (int j = 0; j < SEARCH_BLOCK; j += 4)
        m |= (uint32_t)_mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x + j), t)) << j;
#else
    for (int j = 0; j < SEARCH_BLOCK; ++j) m |= (uint32_t)(x[j] > thr) << j;
#endif
    return m;
}

#if SEARCH_AVX
SEARCH_AVX_FN static inline bool block_any_gt_avx(const float *x, float thr) {
    const __m256 t = _mm256_set1_ps(thr);
    __m256 any = _mm256_cmp_ps(_mm256_loadu_ps(x), t, _CMP_GT_OQ);
    for (int j = 8; j < SEARCH_BLOCK; j += 8)
        any = _mm256_or_ps(any, _mm256_cmp_ps(_mm256_loadu_ps(x + j), t, _CMP_GT_OQ));
    return _mm256_movemask_ps(any) != 0;
}

SEARCH_AVX_FN static inline uint32_t block_mask_gt_avx(const float *x, float thr) {
    const __m256 t = _mm256_set1_ps(thr);
    uint32_t m = 0;
    for (int j = 0; j < SEARCH_BLOCK; j += 8)
        m |= (uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + j), t, _CMP_GT_OQ))
             << j;
    return m;
}
#endif

/* The last slot holding a non-NaN value, or -1.
 *
 * Why one compare against it rejects exactly: a NaN can only land in a slot
 * while the slots fill (afterwards a NaN carry never displaces and a NaN in
 * a slot is never displaced), and the non-NaN slots stay sorted
 * non-increasing (insertion skips NaN slots: x > NaN is false). So when
 * !(x > slot[t]), x is NaN or <= every non-NaN slot and the cascade would
 * swap nothing. */
static int max8_threshold_slot(const float slot[SEARCH_K]) {
    for (int k = SEARCH_K - 1; k >= 0; --k)
        if (slot[k] == slot[k]) return k;
    return -1;
}

#if SEARCH_AVX
#define ANY_GT(x, t)  (avx ? block_any_gt_avx(x, t) : block_any_gt(x, t))
#define MASK_GT(x, t) (avx ? block_mask_gt_avx(x, t) : block_mask_gt(x, t))
#else
#define ANY_GT(x, t)  block_any_gt(x, t)
#define MASK_GT(x, t) block_mask_gt(x, t)
#endif

/* The row kernel for either block width (avx a constant where inlined). */
SEARCH_INLINE void max8_row(const float *data, size_t n, float out[SEARCH_K], bool avx) {
    (void)avx;
    size_t i = 0;
    for (; i < n && i < SEARCH_K; ++i) max8_fill(out, (int)i, data[i]);
    int t = max8_threshold_slot(out);
    if (t < 0) return; /* all 8 slots NaN: nothing can ever displace them */

    for (; i + SEARCH_BLOCK <= n; i += SEARCH_BLOCK) {
        if (!ANY_GT(data + i, out[t])) continue;
        /* in index order; the threshold may rise as elements go in, so
         * each is compared again against the current one */
        for (uint32_t m = MASK_GT(data + i, out[t]); m; m &= m - 1) {
            float x = data[i + (size_t)__builtin_ctz(m)];
            if (x > out[t]) max8_insert(out, x);
        }
    }
    for (; i < n; ++i)
        if (data[i] > out[t]) max8_insert(out, data[i]);
}

/* Whether this CPU runs the AVX blocks. cpu_init is idempotent and makes
 * the answer right even before libgcc's constructor has run. */
#if SEARCH_AVX || defined(SEARCH_SSE)
static bool use_avx(void) {
#if SEARCH_AVX
    /* every thread stores the same answer; atomic (relaxed: a plain load on
     * x86) so that handles in parallel threads are race-free (TSan) */
    static _Atomic int have = -1;
    int h = atomic_load_explicit(&have, memory_order_relaxed);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx") ? 1 : 0;
        atomic_store_explicit(&have, h, memory_order_relaxed);
    }
    return h == 1;
#else
    return false;
#endif
}
#endif

const char *search_kernel_blocks(void) {
#ifdef SEARCH_SSE
    return use_avx() ? "avx" : "sse";
#else
    return "plain";
#endif
}

#if SEARCH_AVX
SEARCH_AVX_FN static void max8_row_avx(const float *data, size_t n, float out[SEARCH_K]) {
    max8_row(data, n, out, true);
}
#endif

void search_max8_row(const float *data, size_t n, float out[SEARCH_K]) {
#if SEARCH_AVX
    if (use_avx()) {
        max8_row_avx(data, n, out);
        return;
    }
#endif
    max8_row(data, n, out, false);
}

/* ---- one-to-one match (IT 89-91) ------------------------------------------ */

typedef struct matcher {
    float vals[SEARCH_K];
    bool done[SEARCH_K]; /* matched, or NaN (can never match) */
    int live;            /* slots still open */
    float lo, hi;        /* range of the open values when the scan started */
    search_order order;
} matcher;

/* The reference's inner loop for element i: the first open slot (in the chosen
 * order) whose value == d takes it. Returns true on a match. */
static bool match_one(matcher *m, float d, uint32_t i, uint32_t idx[SEARCH_K]) {
    for (int s = 0; s < SEARCH_K; ++s) {
        int k = m->order == SEARCH_ASCENDING ? s : SEARCH_K - 1 - s;
        if (m->done[k]) continue;
        if (d == m->vals[k]) {
            idx[k] = i;
            m->done[k] = true;
            m->live--;
            return true;
        }
    }
    return false;
}

/* An element can match only if lo <= d <= hi (value order, so -0.0 and
 * +0.0 both pass for either; NaN never passes). */
static inline bool block_any_in(const float *x, float lo, float hi) {
    int any = 0;
    for (int j = 0; j < SEARCH_BLOCK; ++j) any |= (x[j] >= lo) & (x[j] <= hi);
    return any != 0;
}

/* Bit j set when lo <= x[j] <= hi. */
static inline uint32_t block_mask_in(const float *x, float lo, float hi) {
    uint32_t m = 0;
#ifdef SEARCH_SSE
    const __m128 l = _mm_set1_ps(lo), h = _mm_set1_ps(hi);
    for (int j = 0; j < SEARCH_BLOCK; j += 4) {
        __m128 v = _mm_loadu_ps(x + j);
        m |= (uint32_t)_mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(v, l), _mm_cmple_ps(v, h))) << j;
    }
#else
    for (int j = 0; j < SEARCH_BLOCK; ++j) m |= (uint32_t)((x[j] >= lo) & (x[j] <= hi)) << j;
#endif
    return m;
}

#if SEARCH_AVX
SEARCH_AVX_FN static inline bool block_any_in_avx(const float *x, float lo, float hi) {
    const __m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi);
    __m256 any = _mm256_setzero_ps();
    for (int j = 0; j < SEARCH_BLOCK; j += 8) {
        __m256 v = _mm256_loadu_ps(x + j);
        any = _mm256_or_ps(
            any, _mm256_and_ps(_mm256_cmp_ps(v, l, _CMP_GE_OQ), _mm256_cmp_ps(v, h, _CMP_LE_OQ)));
    }
    return _mm256_movemask_ps(any) != 0;
}

SEARCH_AVX_FN static inline uint32_t block_mask_in_avx(const float *x, float lo, float hi) {
    const __m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi);
    uint32_t m = 0;
    for (int j = 0; j < SEARCH_BLOCK; j += 8) {
        __m256 v = _mm256_loadu_ps(x + j);
        m |= (uint32_t)_mm256_movemask_ps(
                 _mm256_and_ps(_mm256_cmp_ps(v, l, _CMP_GE_OQ), _mm256_cmp_ps(v, h, _CMP_LE_OQ)))
             << j;
    }
    return m;
}
#define ANY_IN(x, lo, hi)  (avx ? block_any_in_avx(x, lo, hi) : block_any_in(x, lo, hi))
#define MASK_IN(x, lo, hi) (avx ? block_mask_in_avx(x, lo, hi) : block_mask_in(x, lo, hi))
#else
#define ANY_IN(x, lo, hi)  block_any_in(x, lo, hi)
#define MASK_IN(x, lo, hi) block_mask_in(x, lo, hi)
#endif

static void matcher_init(matcher *m, const float vals[SEARCH_K], search_order order) {
    m->order = order;
    m->live = 0;
    m->lo = 0.0f;
    m->hi = 0.0f;
    for (int k = 0; k < SEARCH_K; ++k) {
        m->vals[k] = vals[k];
        m->done[k] = vals[k] != vals[k];
        if (m->done[k]) continue;
        if (m->live == 0 || vals[k] < m->lo) m->lo = vals[k];
        if (m->live == 0 || vals[k] > m->hi) m->hi = vals[k];
        m->live++;
    }
}

SEARCH_INLINE void find8_row(const float *data, size_t n, const float vals[SEARCH_K],
                             search_order order, uint32_t idx[SEARCH_K], bool avx) {
    (void)avx;
    matcher m;
    matcher_init(&m, vals, order);
    for (int k = 0; k < SEARCH_K; ++k) idx[k] = SEARCH_NOT_FOUND;

    size_t i = 0;
    for (; m.live > 0 && i + SEARCH_BLOCK <= n; i += SEARCH_BLOCK) {
        if (!ANY_IN(data + i, m.lo, m.hi)) continue;
        for (uint32_t b = MASK_IN(data + i, m.lo, m.hi); b && m.live > 0; b &= b - 1) {
            size_t j = i + (size_t)__builtin_ctz(b);
            match_one(&m, data[j], (uint32_t)j, idx);
        }
    }
    for (; m.live > 0 && i < n; ++i) match_one(&m, data[i], (uint32_t)i, idx);
}

#if SEARCH_AVX
SEARCH_AVX_FN static void find8_row_avx(const float *data, size_t n, const float vals[SEARCH_K],
                                        search_order order, uint32_t idx[SEARCH_K]) {
    find8_row(data, n, vals, order, idx, true);
}
#endif

void search_find8_row(const float *data, size_t n, const float vals[SEARCH_K], search_order order,
                      uint32_t idx[SEARCH_K]) {
#if SEARCH_AVX
    if (use_avx()) {
        find8_row_avx(data, n, vals, order, idx);
        return;
    }
#endif
    find8_row(data, n, vals, order, idx, false);
}

void search_replace8_row(float *row, const uint32_t idx[SEARCH_K], float sentinel) {
    for (int k = 0; k < SEARCH_K; ++k)
        if (idx[k] != SEARCH_NOT_FOUND) row[idx[k]] = sentinel;
}
