/* The compiler's own float16 conversion, the independent reference of
 * the fp16 tests. GCC (and clang >= 15) have _Float16; clang 14 on x86 has
 * only the storage type __fp16, whose conversions are the same IEEE RNE. */
#ifndef TRNSIM_TESTS_ARITH_CC_F16_H
#define TRNSIM_TESTS_ARITH_CC_F16_H

#include "arith_test_util.h"

#ifdef __FLT16_MAX__
typedef _Float16 cc_half;
#else
typedef __fp16 cc_half;
#endif

/* The compiler's fp32 -> fp16 conversion, (_Float16)v. GCC lowers it to
 * libgcc's soft-float __truncsfhf2 (about 60 ns) unless F16C is enabled,
 * when it emits vcvtps2ph (about 1 ns); both are the compiler's conversion
 * and arith_f16 checks that they agree. cc_f16 picks F16C when the CPU has
 * it (compiled per function, so the binary still runs without it). */
static inline uint16_t cc_f16_soft(float v) {
    cc_half h = (cc_half)v;
    uint16_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

__attribute__((target("f16c"))) static inline uint16_t cc_f16_hw(float v) {
    cc_half h = (cc_half)v;
    uint16_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}
static inline bool cc_f16_have_hw(void) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}
#else
static inline uint16_t cc_f16_hw(float v) { return cc_f16_soft(v); }
static inline bool cc_f16_have_hw(void) { return false; }
#endif

static inline uint16_t cc_f16(float v) {
    static int hw = -1; /* test-local cache of the CPU check */
    if (hw < 0) hw = cc_f16_have_hw();
    return hw ? cc_f16_hw(v) : cc_f16_soft(v);
}

/* (float) of a half code, by the compiler. */
static inline float cc_f16_to_f32(uint16_t c) {
    cc_half h;
    memcpy(&h, &c, sizeof h);
    return (float)h;
}

#endif
