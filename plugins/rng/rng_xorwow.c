/* Gen-2 kernels: XORWOW over many partition streams.
 *
 * Every lane of every partition is an independent stream; the output is
 * partition-major (a row of columns per partition, column j driven by lane
 * j % nlanes). Two SIMD layouts, both 4 x uint32 (GCC/Clang vector
 * extensions: one SSE2 register, generic code elsewhere):
 *
 *  - nlanes 4: one vector holds the 4 lanes of one partition, so one step
 *    yields 4 consecutive columns; two partitions run side by side.
 *  - nlanes 1 or 2: one vector holds the same lane of 4 partitions; four
 *    steps give a 4 x 4 block that is transposed to 4 columns per partition
 *    (nlanes 2: the blocks of lanes 0 and 1 are interleaved into 8).
 *
 * Columns past the last whole block and partitions past the last group of
 * 4 take the element-by-element path. The float conversion is the
 * reference's fp32 expression per element; packed mul/add round exactly as
 * the scalar ones (IEEE, no contraction under -ffp-contract=off).
 * tests/rng/rng_test_kernels.c compares every path with a scalar oracle bit
 * for bit. */
#include "rng_xorwow.h"

#include "rng_simd.h"

typedef rng_v4u v4u;
typedef rng_v4f v4f;

#define LANE_WORDS RNG_XORWOW_WORDS
#define ROW_WORDS  RNG_GEN2_WORDS

typedef struct conv {
    int as_float;
    float lo, hi;
} conv;

/* ---- element by element --------------------------------------------------- */

static uint32_t convert1(const conv *c, uint32_t r) {
    if (!c->as_float) return r;
    float f = rng_xorwow_affine(c->lo, c->hi, rng_xorwow_unit(r));
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Columns j0..n-1 of one partition, one element at a time. */
static void xorwow_cols(uint32_t *lanes, unsigned nlanes, const conv *c, uint32_t *row, size_t j0,
                        size_t n) {
    for (size_t j = j0; j < n; ++j)
        row[j] = convert1(c, rng_xorwow_next(lanes + (j % nlanes) * LANE_WORDS));
}

/* ---- vector helpers ------------------------------------------------------------ */

typedef struct vstate {
    v4u a, b, c, d, v, w;
} vstate;

static inline v4u vstep(vstate *s) {
    v4u t = s->a ^ (s->a >> 2);
    s->a = s->b;
    s->b = s->c;
    s->c = s->d;
    s->d = s->v;
    s->v = (s->v ^ (s->v << 4)) ^ (t ^ (t << 1));
    s->w += RNG_XORWOW_WEYL;
    return s->w + s->v;
}

static inline v4u vconvert(const conv *c, v4u r) {
    if (!c->as_float) return r;
    const v4f lo = {c->lo, c->lo, c->lo, c->lo};
    const v4f hi = {c->hi, c->hi, c->hi, c->hi};
    v4f u = (v4f)((r & 0x7FFFFFu) | 0x3F800000u) - 1.0f;
    return (v4u)(lo + (hi - lo) * u);
}

/* Vector element i takes the lane state at p0 + i * pstride: pstride
 * ROW_WORDS walks 4 partitions (one lane each), LANE_WORDS the 4 lanes of
 * one partition. */
static v4u vword(const uint32_t *p0, size_t pstride, unsigned w) {
    return (v4u){p0[w], p0[pstride + w], p0[2 * pstride + w], p0[3 * pstride + w]};
}

static void vload(vstate *s, const uint32_t *p0, size_t pstride) {
    s->a = vword(p0, pstride, 0);
    s->b = vword(p0, pstride, 1);
    s->c = vword(p0, pstride, 2);
    s->d = vword(p0, pstride, 3);
    s->v = vword(p0, pstride, 4);
    s->w = vword(p0, pstride, 5);
}

static void vsave(const vstate *s, uint32_t *p0, size_t pstride) {
    const v4u *src[LANE_WORDS] = {&s->a, &s->b, &s->c, &s->d, &s->v, &s->w};
    for (unsigned w = 0; w < LANE_WORDS; ++w)
        for (unsigned i = 0; i < 4; ++i) p0[i * pstride + w] = (*src[w])[i];
}

/* Four steps of one lane of 4 partitions, as 4 columns per partition. */
static inline void vblock(vstate *s, const conv *cv, v4u c[4]) {
    v4u r0 = vconvert(cv, vstep(s));
    v4u r1 = vconvert(cv, vstep(s));
    v4u r2 = vconvert(cv, vstep(s));
    v4u r3 = vconvert(cv, vstep(s));
    rng_transpose4(r0, r1, r2, r3, c);
}

/* ---- nlanes 1 and 2: 4 partitions per vector ------------------------------------ */

static void group4(uint32_t *lanes, unsigned nlanes, const conv *cv, uint32_t *out, size_t n) {
    vstate s0, s1 = {0};
    vload(&s0, lanes, ROW_WORDS);
    if (nlanes == 2) vload(&s1, lanes + LANE_WORDS, ROW_WORDS);
    size_t per = 4 * nlanes, j = 0;
    for (; j + per <= n; j += per) {
        v4u c0[4], c1[4];
        vblock(&s0, cv, c0);
        if (nlanes == 1) {
            for (unsigned i = 0; i < 4; ++i) rng_vstore(out + i * n + j, c0[i]);
        } else {
            vblock(&s1, cv, c1);
            for (unsigned i = 0; i < 4; ++i) {
                rng_vstore(out + i * n + j, __builtin_shufflevector(c0[i], c1[i], 0, 4, 1, 5));
                rng_vstore(out + i * n + j + 4, __builtin_shufflevector(c0[i], c1[i], 2, 6, 3, 7));
            }
        }
    }
    vsave(&s0, lanes, ROW_WORDS);
    if (nlanes == 2) vsave(&s1, lanes + LANE_WORDS, ROW_WORDS);
    for (unsigned i = 0; i < 4; ++i)
        xorwow_cols(lanes + i * ROW_WORDS, nlanes, cv, out + i * n, j, n);
}

/* ---- nlanes 4: the 4 lanes of a partition per vector ---------------------------- */

static void lanes4_pair(uint32_t *lanes, const conv *cv, uint32_t *out, size_t n, int two) {
    vstate s0, s1 = {0};
    vload(&s0, lanes, LANE_WORDS);
    if (two) vload(&s1, lanes + ROW_WORDS, LANE_WORDS);
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        rng_vstore(out + j, vconvert(cv, vstep(&s0)));
        if (two) rng_vstore(out + n + j, vconvert(cv, vstep(&s1)));
    }
    vsave(&s0, lanes, LANE_WORDS);
    xorwow_cols(lanes, 4, cv, out, j, n);
    if (two) {
        vsave(&s1, lanes + ROW_WORDS, LANE_WORDS);
        xorwow_cols(lanes + ROW_WORDS, 4, cv, out + n, j, n);
    }
}

/* ---- dispatch -------------------------------------------------------------------- */

/* outv receives uint32 words: raw bits, or the bits of the floats. */
static void xorwow_fill_any(uint32_t *lanes, size_t np, unsigned nlanes, const conv *cv, void *outv,
                            size_t n) {
    uint32_t *out = outv;
    if (!rng_xorwow_nlanes_ok(nlanes)) return;
    size_t p = 0;
    if (nlanes == 4) {
        for (; p < np; p += 2) lanes4_pair(lanes + p * ROW_WORDS, cv, out + p * n, n, p + 1 < np);
        return;
    }
    for (; p + 4 <= np; p += 4) group4(lanes + p * ROW_WORDS, nlanes, cv, out + p * n, n);
    for (; p < np; ++p) xorwow_cols(lanes + p * ROW_WORDS, nlanes, cv, out + p * n, 0, n);
}

void rng_xorwow_fill(uint32_t *lanes, size_t np, unsigned nlanes, float lo, float hi, float *out,
                     size_t n) {
    conv cv = {1, lo, hi};
    xorwow_fill_any(lanes, np, nlanes, &cv, out, n);
}

void rng_xorwow_fill_bits(uint32_t *lanes, size_t np, unsigned nlanes, uint32_t *out, size_t n) {
    conv cv = {0, 0.0f, 0.0f};
    xorwow_fill_any(lanes, np, nlanes, &cv, out, n);
}
