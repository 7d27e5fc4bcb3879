/* Gen-2 generator of Rand2 (IT 97): cuRAND XORWOW and the [min, max)
 * float conversion. Pure functions; no host API here.
 *
 * A lane state is six uint32 words s[0..4] = cuRAND's v[0..4] (Marsaglia's
 * x, y, z, w, v) and s[5] = the Weyl counter d. A partition holds
 * RNG_XORWOW_LANES lanes, stored lane-major: lanes[lane * 6 + word]. */
#ifndef TRNSIM_RNG_XORWOW_H
#define TRNSIM_RNG_XORWOW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RNG_XORWOW_WORDS 6u
#define RNG_XORWOW_LANES 4u
#define RNG_GEN2_WORDS   (RNG_XORWOW_WORDS * RNG_XORWOW_LANES) /* 24 */
#define RNG_XORWOW_WEYL  362437u

/* generateXorwowRandom: shifts 2 / 1 / 4, Weyl 362437. */
static inline uint32_t rng_xorwow_next(uint32_t s[RNG_XORWOW_WORDS]) {
    uint32_t t = s[0] ^ (s[0] >> 2);
    s[0] = s[1];
    s[1] = s[2];
    s[2] = s[3];
    s[3] = s[4];
    s[4] = (s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1));
    s[5] += RNG_XORWOW_WEYL;
    return s[5] + s[4];
}

/* The mantissa trick: bits((r & 0x7FFFFF) | 0x3F800000) - 1, in [0, 1). */
static inline float rng_xorwow_unit(uint32_t r) {
    uint32_t bits = (r & 0x7FFFFFu) | 0x3F800000u;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f - 1.0f;
}

/* xorwowStep's affine map, in fp32 and in the reference's order. */
static inline float rng_xorwow_affine(float lo, float hi, float u) { return lo + (hi - lo) * u; }

/* Lanes a Rand2 uses: column j (the element index within a partition, in
 * AP order) is driven by lane j % nlanes. nlanes is 1 (no flag), 2 (2x1p or
 * 2x2p) or 4 (4x2p); see docs/rng.md. */
static inline int rng_xorwow_nlanes_ok(unsigned nlanes) {
    return nlanes == 1 || nlanes == 2 || nlanes == 4;
}

/* out[p * n + j] = lo + (hi - lo) * unit(next(lane j % nlanes of partition
 * p)) for p < np, j < n; lanes is [np][RNG_GEN2_WORDS] and is advanced
 * (only the lanes that drive a column move). Partitions run side by side
 * (vectorised); the result equals the one-element-at-a-time definition. */
void rng_xorwow_fill(uint32_t *lanes, size_t np, unsigned nlanes, float lo, float hi, float *out,
                     size_t n);

/* The same streams as raw uint32 (no conversion): for tests and tracing. */
void rng_xorwow_fill_bits(uint32_t *lanes, size_t np, unsigned nlanes, uint32_t *out, size_t n);

#endif
