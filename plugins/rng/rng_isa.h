/* Which vector instruction set an RNG kernel may use, chosen at run time.
 *
 * The build needs no -march: a kernel for a wider set is compiled for it
 * alone (a target attribute) and only runs where rng_isa_best() says the
 * CPU and the OS support it. Every path gives the same bits (integer work
 * only); tests/rng runs each path this CPU has against the scalar oracle. */
#ifndef TRNSIM_RNG_ISA_H
#define TRNSIM_RNG_ISA_H

typedef enum rng_isa {
    RNG_ISA_PORTABLE = 0, /* plain C (SSE2 on x86-64 through the compiler) */
    RNG_ISA_AVX2 = 1,     /* 256-bit integer vectors */
} rng_isa;

/* The AVX2 kernels exist on x86 with GNU C (gcc, clang). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define RNG_HAVE_AVX2_KERNELS 1
#else
#define RNG_HAVE_AVX2_KERNELS 0
#endif

/* The widest set this CPU runs. */
rng_isa rng_isa_best(void);

/* "portable" or "avx2". */
const char *rng_isa_name(rng_isa isa);

#endif
