/* Gen-1 kernels: LFSR, PCG32, Philox4x32-10 over many partition streams.
 *
 * Each partition is an independent stream and the output is partition-major
 * (one row of n columns per partition).
 *  - LFSR: one vector holds 4 partitions' registers; 4 steps make a 4 x 4
 *    block, transposed into 4 columns per partition; two such groups run
 *    side by side.
 *  - PCG32: jump-ahead chains inside each partition, on AVX2 where the CPU
 *    has it (rng_pcg32.c, rng_pcg32_avx2.c).
 *  - Philox: counter-based, so the blocks of one partition are independent:
 *    4 blocks per vector (one vector per counter word), two vectors side by
 *    side, the 32 x 32 -> 64 products by SSE2 pmuludq where available.
 * Tails (columns past the last whole block, partitions past the last group)
 * take the one-element-at-a-time definition. tests/rng/rng_test_kernels.c
 * checks every path against a scalar oracle. */
#include "rng_gen1.h"

#include "rng_pcg32.h"
#include "rng_simd.h"

#if defined(__SSE2__) && !defined(RNG_NO_SSE2)
#include <emmintrin.h>
#define RNG_HAVE_SSE2 1
#endif

typedef rng_v4u v4u;

/* ---- LFSR ---------------------------------------------------------------- */

static inline v4u lfsr_vstep(v4u *s) {
    v4u x = *s;
    v4u b = (x >> 31) ^ (x >> 21) ^ (x >> 1) ^ x;
    x = (x << 1) | (b & 1u);
    *s = x;
    return x;
}

static inline void lfsr_vblock(v4u *s, v4u c[4]) {
    v4u r0 = lfsr_vstep(s);
    v4u r1 = lfsr_vstep(s);
    v4u r2 = lfsr_vstep(s);
    v4u r3 = lfsr_vstep(s);
    rng_transpose4(r0, r1, r2, r3, c);
}

static v4u lfsr_vload(const uint32_t *st) {
    return (v4u){st[0], st[RNG_GEN1_WORDS], st[2 * RNG_GEN1_WORDS], st[3 * RNG_GEN1_WORDS]};
}

static void lfsr_vsave(v4u s, uint32_t *st) {
    for (unsigned i = 0; i < 4; ++i) st[i * RNG_GEN1_WORDS] = s[i];
}

static void lfsr_one(uint32_t *st, uint32_t *out, size_t j0, size_t n) {
    uint32_t s = st[0];
    for (size_t j = j0; j < n; ++j) out[j] = rng_lfsr_step(&s);
    st[0] = s;
}

/* 8 partitions: two vectors of 4. */
static void lfsr_group(uint32_t *st, uint32_t *out, size_t n) {
    v4u s0 = lfsr_vload(st), s1 = lfsr_vload(st + 4 * RNG_GEN1_WORDS);
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        v4u c0[4], c1[4];
        lfsr_vblock(&s0, c0);
        lfsr_vblock(&s1, c1);
        for (unsigned i = 0; i < 4; ++i) {
            rng_vstore(out + i * n + j, c0[i]);
            rng_vstore(out + (4 + i) * n + j, c1[i]);
        }
    }
    lfsr_vsave(s0, st);
    lfsr_vsave(s1, st + 4 * RNG_GEN1_WORDS);
    for (unsigned i = 0; i < 8; ++i) lfsr_one(st + i * RNG_GEN1_WORDS, out + i * n, j, n);
}

static void lfsr_single(uint32_t *st, uint32_t *out, size_t n) { lfsr_one(st, out, 0, n); }

/* ---- Philox4x32-10 ------------------------------------------------------- */

void rng_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < RNG_PHILOX_ROUNDS; ++r) {
        if (r > 0) { /* bumpkey before rounds 2..10 */
            k0 += RNG_PHILOX_W0;
            k1 += RNG_PHILOX_W1;
        }
        uint64_t p0 = (uint64_t)RNG_PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)RNG_PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c0 = n0;
        c1 = (uint32_t)p1;
        c2 = n2;
        c3 = (uint32_t)p0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void rng_philox_ctr_add(uint32_t ctr[4], uint64_t blocks) {
    uint64_t lo = (uint64_t)ctr[0] | ((uint64_t)ctr[1] << 32);
    uint64_t hi = (uint64_t)ctr[2] | ((uint64_t)ctr[3] << 32);
    uint64_t nlo = lo + blocks;
    hi += (nlo < lo);
    ctr[0] = (uint32_t)nlo;
    ctr[1] = (uint32_t)(nlo >> 32);
    ctr[2] = (uint32_t)hi;
    ctr[3] = (uint32_t)(hi >> 32);
}

/* hi:lo = a * m per lane. */
static inline void mulhilo4(v4u a, uint32_t m, v4u *hi, v4u *lo) {
#ifdef RNG_HAVE_SSE2
    __m128i vm = _mm_set1_epi32((int)m);
    v4u e = (v4u)_mm_mul_epu32((__m128i)a, vm);                     /* lanes 0, 2 */
    v4u o = (v4u)_mm_mul_epu32(_mm_srli_epi64((__m128i)a, 32), vm); /* lanes 1, 3 */
    *lo = __builtin_shufflevector(e, o, 0, 4, 2, 6);
    *hi = __builtin_shufflevector(e, o, 1, 5, 3, 7);
#else
    uint64_t p[4];
    for (unsigned i = 0; i < 4; ++i) p[i] = (uint64_t)a[i] * m;
    *lo = (v4u){(uint32_t)p[0], (uint32_t)p[1], (uint32_t)p[2], (uint32_t)p[3]};
    *hi = (v4u){(uint32_t)(p[0] >> 32), (uint32_t)(p[1] >> 32), (uint32_t)(p[2] >> 32),
                (uint32_t)(p[3] >> 32)};
#endif
}

/* One counter word per vector, 4 blocks per vector. */
typedef struct philox4 {
    v4u c0, c1, c2, c3;
} philox4;

static inline void philox4_round(philox4 *x, uint32_t k0, uint32_t k1) {
    v4u hi0, lo0, hi1, lo1;
    mulhilo4(x->c0, RNG_PHILOX_M0, &hi0, &lo0);
    mulhilo4(x->c2, RNG_PHILOX_M1, &hi1, &lo1);
    x->c0 = hi1 ^ x->c1 ^ k0;
    x->c1 = lo1;
    x->c2 = hi0 ^ x->c3 ^ k1;
    x->c3 = lo0;
}

/* Blocks ctr + first .. ctr + first + 3 into x. Without a carry out of
 * word 0 (the usual case) only word 0 differs between the blocks. */
static void philox4_load(philox4 *x, const uint32_t ctr[4], uint32_t first) {
    if (ctr[0] <= UINT32_MAX - first - 3u) {
        uint32_t b = ctr[0] + first;
        x->c0 = (v4u){b, b + 1u, b + 2u, b + 3u};
        x->c1 = (v4u){ctr[1], ctr[1], ctr[1], ctr[1]};
        x->c2 = (v4u){ctr[2], ctr[2], ctr[2], ctr[2]};
        x->c3 = (v4u){ctr[3], ctr[3], ctr[3], ctr[3]};
        return;
    }
    uint32_t w[4][4];
    for (unsigned i = 0; i < 4; ++i) {
        uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
        rng_philox_ctr_add(c, first + i);
        for (unsigned k = 0; k < 4; ++k) w[k][i] = c[k];
    }
    memcpy(&x->c0, w[0], 16);
    memcpy(&x->c1, w[1], 16);
    memcpy(&x->c2, w[2], 16);
    memcpy(&x->c3, w[3], 16);
}

/* Eight blocks, ctr .. ctr + 7, as 32 outputs in block order. */
static void philox8(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t *out) {
    philox4 a, b;
    philox4_load(&a, ctr, 0);
    philox4_load(&b, ctr, 4);
    for (int r = 0; r < RNG_PHILOX_ROUNDS; ++r) {
        uint32_t rk0 = k0 + (uint32_t)r * RNG_PHILOX_W0, rk1 = k1 + (uint32_t)r * RNG_PHILOX_W1;
        philox4_round(&a, rk0, rk1);
        philox4_round(&b, rk0, rk1);
    }
    v4u ca[4], cb[4];
    rng_transpose4(a.c0, a.c1, a.c2, a.c3, ca); /* word-major -> block-major */
    rng_transpose4(b.c0, b.c1, b.c2, b.c3, cb);
    for (unsigned i = 0; i < 4; ++i) {
        rng_vstore(out + 4 * i, ca[i]);
        rng_vstore(out + 16 + 4 * i, cb[i]);
    }
}

static void philox_single(uint32_t *st, uint32_t *out, size_t n) {
    uint32_t ctr[4] = {st[0], st[1], st[2], st[3]};
    size_t j = 0;
    for (; j + 32 <= n; j += 32) {
        philox8(ctr, st[4], st[5], out + j);
        rng_philox_ctr_add(ctr, 8);
    }
    const uint32_t key[2] = {st[4], st[5]};
    for (; j < n; j += 4) { /* the last blocks; a partial block's rest is dropped */
        uint32_t blk[4];
        rng_philox4x32_10(ctr, key, blk);
        for (size_t k = 0; k < 4 && j + k < n; ++k) out[j + k] = blk[k];
        rng_philox_ctr_add(ctr, 1);
    }
    memcpy(st, ctr, sizeof ctr); /* ceil(n / 4) blocks on */
}

/* ---- dispatch ------------------------------------------------------------ */

typedef void (*fill_fn)(uint32_t *st, uint32_t *out, size_t n);

void rng_gen1_fill(enum rng_algorithm alg, uint32_t *states, size_t np, uint32_t *out, size_t n) {
    fill_fn group = NULL, one = NULL;
    switch (alg) {
        case RNG_ALG_LFSR: group = lfsr_group, one = lfsr_single; break;
        case RNG_ALG_PCG32: rng_pcg32_fill(rng_isa_best(), states, np, out, n); return;
        case RNG_ALG_PHILOX: one = philox_single; break; /* block-parallel within a partition */
    }
    if (!one) return;
    size_t p = 0;
    if (group)
        for (; p + 8 <= np; p += 8) group(states + p * RNG_GEN1_WORDS, out + p * n, n);
    for (; p < np; ++p) one(states + p * RNG_GEN1_WORDS, out + p * n, n);
}
