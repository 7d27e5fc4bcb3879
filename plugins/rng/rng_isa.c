#include "rng_isa.h"

rng_isa rng_isa_best(void) {
#if RNG_HAVE_AVX2_KERNELS
    /* Idempotent, and right even before libgcc's own constructor ran.
     * "avx2" includes the OS check that YMM registers are saved. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return RNG_ISA_AVX2;
#endif
    return RNG_ISA_PORTABLE;
}

const char *rng_isa_name(rng_isa isa) { return isa == RNG_ISA_AVX2 ? "avx2" : "portable"; }
