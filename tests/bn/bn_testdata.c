#include "bn_testdata.h"

#include <math.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bn_kernels.h"

const char *bn_kind_name(bn_kind k) {
    static const char *const names[BN_KIND_COUNT] = {"random",    "constant", "huge",
                                                     "subnormal", "inf",      "nan"};
    return k < BN_KIND_COUNT ? names[k] : "?";
}

uint64_t bn_rng_next(bn_rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float bn_rng_unit(bn_rng *r) {
    return (float)((int32_t)(bn_rng_next(r) >> 40) - (1 << 23)) * 0x1p-23f;
}

uint32_t bn_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float bn_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float special_value(bn_rng *r, bn_kind k) {
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0x7f800001u,
                                    0xffbfffffu};
    uint64_t u = bn_rng_next(r);
    if (k == BN_KIND_INF) return (u & 1) ? INFINITY : -INFINITY;
    return bn_from_bits(nans[u % (sizeof nans / sizeof nans[0])]);
}

static float one_value(bn_kind k, size_t row, bn_rng *r) {
    switch (k) {
        case BN_KIND_RANDOM: return bn_rng_unit(r) * ldexpf(1.0f, (int)(row % 9) - 4);
        case BN_KIND_HUGE: return 1.0e6f + bn_rng_unit(r);
        case BN_KIND_SUBNORMAL: {
            uint64_t u = bn_rng_next(r);
            if (u % 7 == 0) return 0.0f;
            if (u % 7 == 1) return bn_rng_unit(r) * 0x1p-120f;      /* tiny normal */
            return bn_from_bits((uint32_t)(u >> 20) & 0x807fffffu); /* subnormal, random sign */
        }
        case BN_KIND_INF:
        case BN_KIND_NAN:
            if (bn_rng_next(r) % 17 == 0) return special_value(r, k);
            return bn_rng_unit(r) * 3.0f;
        default: return 0.0f;
    }
}

void bn_fill(float *v, size_t rows, size_t cols, bn_kind k, bn_rng *r) {
    for (size_t i = 0; i < rows; ++i) {
        const float c = bn_rng_unit(r) * 100.0f;
        for (size_t j = 0; j < cols; ++j)
            v[i * cols + j] = k == BN_KIND_CONSTANT ? c : one_value(k, i, r);
    }
}

size_t bn_first_bit_diff(const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (isnan(a[i]) && isnan(b[i])) continue; /* payload not pinned: docs/bn.md */
        if (bn_bits(a[i]) != bn_bits(b[i])) return i;
    }
    return n;
}

void bn_assert_same_bits_impl(const float *a, const float *b, size_t n, const char *what,
                              const char *file, int line) {
    const size_t i = bn_first_bit_diff(a, b, n);
    if (i == n) return;
    print_error("%s: element %zu differs: %a (0x%08x) vs %a (0x%08x)\n", what, i, (double)a[i],
                bn_bits(a[i]), (double)b[i], bn_bits(b[i]));
    _fail(file, line);
}

void bn_stats_whole_isa(bn_isa isa, const float *x, size_t parts, size_t n, float *out) {
    float *w = malloc(bn_stats_weights_len(n) * sizeof *w + sizeof *w);
    assert_non_null(w);
    bn_stats_weights(n, w);
    bn_stats_f32_isa(isa, x, parts, n, w, out);
    free(w);
}

void bn_stats_whole(const float *x, size_t parts, size_t n, float *out) {
    bn_stats_whole_isa(bn_isa_best(), x, parts, n, out);
}

const char *bn_isa_name(bn_isa isa) { return isa == BN_ISA_AVX ? "avx" : "v4"; }

size_t bn_test_isas(bn_isa isas[2]) {
    static int told;
    size_t k = 0;
    isas[k++] = BN_ISA_V4;
    if (bn_isa_best() == BN_ISA_AVX) isas[k++] = BN_ISA_AVX;
    if (!told) {
        print_message("BNStats paths tested on this CPU: v4%s\n",
                      k == 2 ? ", avx" : " (no AVX here: the AVX path is not exercised)");
        told = 1;
    }
    return k;
}
