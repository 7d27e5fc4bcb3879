/* The x86 SSE scalar instructions the reference executes, for the oracles
 * (shared by the tests and the reference modules). plugins/dma/ref/ and
 * plugins/collective/ref/ each hold this file, identical (a module sees its
 * own folder only; the ctest ref_sse_insn_copies_equal compares them):
 * each returns dst after `OPss src, dst` (AT&T order; Intel's first
 * operand is dst). On a NaN operand or a tie, maxss / minss return src (the
 * second operand); addss / mulss return dst's NaN quieted, else src's.
 * Elsewhere, the Intel SDM's definitions written out. */
#ifndef TRNSIM_PLUGINS_SSE_INSN_H
#define TRNSIM_PLUGINS_SSE_INSN_H

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
static inline float sse_addss(float dst, float src) {
    __asm__("addss %1, %0" : "+x"(dst) : "x"(src));
    return dst;
}
static inline float sse_mulss(float dst, float src) {
    __asm__("mulss %1, %0" : "+x"(dst) : "x"(src));
    return dst;
}
static inline float sse_maxss(float dst, float src) {
    __asm__("maxss %1, %0" : "+x"(dst) : "x"(src));
    return dst;
}
static inline float sse_minss(float dst, float src) {
    __asm__("minss %1, %0" : "+x"(dst) : "x"(src));
    return dst;
}
#else
static inline float sse_quiet(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u |= 0x00400000u;
    memcpy(&f, &u, 4);
    return f;
}
static inline float sse_addss(float dst, float src) {
    if (dst != dst) return sse_quiet(dst);
    if (src != src) return sse_quiet(src);
    return dst + src;
}
static inline float sse_mulss(float dst, float src) {
    if (dst != dst) return sse_quiet(dst);
    if (src != src) return sse_quiet(src);
    return dst * src;
}
static inline float sse_maxss(float dst, float src) { return (dst > src) ? dst : src; }
static inline float sse_minss(float dst, float src) { return (dst < src) ? dst : src; }
#endif

#endif
