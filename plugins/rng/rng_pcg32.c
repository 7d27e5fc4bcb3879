/* PCG32 kernels: the jump-ahead map, the portable row kernel and the
 * per-row dispatch. The AVX2 row kernel is rng_pcg32_avx2.c. */
#include "rng_pcg32.h"

#include "rng_gen1.h"

void rng_pcg32_jump(uint64_t k, uint64_t *mul, uint64_t *inc) {
    /* Binary powering of the affine map x -> a x + c: (a, c) composed with
     * itself is (a^2, (a + 1) c). */
    uint64_t a = RNG_PCG32_MUL, c = RNG_PCG32_INC, acc_a = 1, acc_c = 0;
    for (; k; k >>= 1) {
        if (k & 1) {
            acc_a *= a;
            acc_c = acc_c * a + c;
        }
        c *= a + 1;
        a *= a;
    }
    *mul = acc_a;
    *inc = acc_c;
}

static inline uint32_t xsh_rr(uint64_t old) {
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

/* Eight chains in scalar registers: the multiplies of the chains overlap
 * instead of waiting on each other. */
#define PORTABLE_CHAINS 8

static size_t row_portable(uint64_t *state, uint32_t *out, size_t n) {
    if (n < 2 * PORTABLE_CHAINS) return 0;
    uint64_t mul, inc, c[PORTABLE_CHAINS], s = *state;
    rng_pcg32_jump(PORTABLE_CHAINS, &mul, &inc);
    for (size_t i = 0; i < PORTABLE_CHAINS; ++i) {
        c[i] = s;
        s = s * RNG_PCG32_MUL + RNG_PCG32_INC;
    }
    size_t j = 0;
    for (; j + PORTABLE_CHAINS <= n; j += PORTABLE_CHAINS)
        _Pragma("GCC unroll 8") /* the chains live in registers at any -O level */
            for (size_t i = 0; i < PORTABLE_CHAINS; ++i) {
            out[j + i] = xsh_rr(c[i]);
            c[i] = c[i] * mul + inc;
        }
    *state = c[0];
    return j;
}

static void row(rng_isa isa, uint32_t *st, uint32_t *out, size_t n) {
    uint64_t s = (uint64_t)st[0] | ((uint64_t)st[1] << 32);
    size_t j;
#if RNG_HAVE_AVX2_KERNELS
    if (isa == RNG_ISA_AVX2)
        j = rng_pcg32_row_avx2(&s, out, n);
    else
#endif
        j = row_portable(&s, out, n);
    (void)isa;
    for (; j < n; ++j) out[j] = rng_pcg32_step_inc(&s, RNG_PCG32_INC);
    st[0] = (uint32_t)s;
    st[1] = (uint32_t)(s >> 32);
}

void rng_pcg32_fill(rng_isa isa, uint32_t *states, size_t np, uint32_t *out, size_t n) {
    for (size_t p = 0; p < np; ++p) row(isa, states + p * RNG_GEN1_WORDS, out + p * n, n);
}
