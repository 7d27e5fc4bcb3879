/* Deterministic test inputs and bit comparison for the BN tests. */
#ifndef TRNSIM_TESTS_BN_TESTDATA_H
#define TRNSIM_TESTS_BN_TESTDATA_H

#include <stddef.h>
#include <stdint.h>

#include "bn_kernels.h"

typedef enum bn_kind {
    BN_KIND_RANDOM = 0, /* uniform in [-1, 1) times a per-row power of two */
    BN_KIND_CONSTANT,   /* one value per row */
    BN_KIND_HUGE,       /* 1e6 + uniform noise in [-1, 1) */
    BN_KIND_SUBNORMAL,  /* subnormals mixed with tiny normals and zeros */
    BN_KIND_INF,        /* random with +-Inf sprinkled in */
    BN_KIND_NAN,        /* random with NaNs of several payloads sprinkled in */
    BN_KIND_COUNT
} bn_kind;

const char *bn_kind_name(bn_kind k);

/* splitmix64 stream. */
typedef struct bn_rng {
    uint64_t s;
} bn_rng;
uint64_t bn_rng_next(bn_rng *r);
/* Uniform in [-1, 1), 24 random bits. */
float bn_rng_unit(bn_rng *r);

/* Fill v[rows][cols] with inputs of kind k (row-dependent where it says so). */
void bn_fill(float *v, size_t rows, size_t cols, bn_kind k, bn_rng *r);

uint32_t bn_bits(float f);
float bn_from_bits(uint32_t u);

/* Index of the first element whose bit pattern differs, or n if all match.
 * NaN-aware: a NaN matches any NaN (which operand's payload and sign an SSE
 * op propagates depends on the register order the compiler picks for a
 * commutative op, and the reference does not pin it); every other value, zeros'
 * signs, Infs and subnormals included, must match bit for bit. */
size_t bn_first_bit_diff(const float *a, const float *b, size_t n);

/* cmocka assertion: a and b have the same bits; on failure prints what,
 * the index and both values. */
#define assert_same_bits(a, b, n, what)                                                            \
    bn_assert_same_bits_impl((a), (b), (n), (what), __FILE__, __LINE__)
void bn_assert_same_bits_impl(const float *a, const float *b, size_t n, const char *what,
                              const char *file, int line);

/* bn_stats_f32 over all rows in one call, with its weight table. */
void bn_stats_whole(const float *x, size_t parts, size_t n, float *out);
/* The same on one vector path (bn_stats_f32_isa). */
void bn_stats_whole_isa(bn_isa isa, const float *x, size_t parts, size_t n, float *out);
/* The BNStats paths this CPU can run, BN_ISA_V4 first; returns how many
 * (1 or 2). The first call prints which ones the tests exercise. */
size_t bn_test_isas(bn_isa isas[2]);
const char *bn_isa_name(bn_isa isa);

#endif
