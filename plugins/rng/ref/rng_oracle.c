/* Scalar oracle (see rng_oracle.h). Each routine is the reference's or the
 * published reference's code, one step at a time, deliberately plain. */
#include "rng_oracle.h"

#include <string.h>

uint32_t orc_lfsr(uint32_t *state) {
    uint32_t s = *state;
    uint32_t b = (s >> 31) ^ (s >> 21) ^ (s >> 1) ^ (s >> 0); /* tap-1 bit index */
    s = (s << 1) | (b & 1);
    *state = s;
    return s; /* output = state */
}

uint32_t orc_pcg32(uint64_t *state, uint64_t inc) {
    uint64_t oldstate = *state;
    *state = oldstate * 0x5851F42D4C957F2DULL + inc;
    uint32_t xorshifted = (uint32_t)(((oldstate >> 18) ^ oldstate) >> 27);
    uint32_t rot = (uint32_t)(oldstate >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

/* Random123 philox.h: _philox4x32round, _philox4x32bumpkey, philox4x32_R. */
static uint32_t mulhilo32(uint32_t a, uint32_t b, uint32_t *hip) {
    uint64_t product = (uint64_t)a * (uint64_t)b;
    *hip = (uint32_t)(product >> 32);
    return (uint32_t)product;
}

static void philox_round(uint32_t ctr[4], const uint32_t key[2]) {
    uint32_t hi0, hi1;
    uint32_t lo0 = mulhilo32(0xD2511F53u, ctr[0], &hi0);
    uint32_t lo1 = mulhilo32(0xCD9E8D57u, ctr[2], &hi1);
    uint32_t out[4] = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    memcpy(ctr, out, sizeof out);
}

void orc_philox(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4]) {
    uint32_t ctr[4], key[2];
    memcpy(ctr, ctr_in, sizeof ctr);
    memcpy(key, key_in, sizeof key);
    philox_round(ctr, key); /* round 1 */
    for (int r = 1; r < 10; ++r) {
        key[0] += 0x9E3779B9u; /* bumpkey */
        key[1] += 0xBB67AE85u;
        philox_round(ctr, key);
    }
    memcpy(out, ctr, sizeof ctr);
}

uint32_t orc_xorwow(uint32_t s[6]) {
    uint32_t t = s[0] ^ (s[0] >> 2);
    s[0] = s[1];
    s[1] = s[2];
    s[2] = s[3];
    s[3] = s[4];
    s[4] = (s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1));
    s[5] += 362437u;
    return s[5] + s[4];
}

float orc_xorwow_step(uint32_t s[6], float lo, float hi) {
    uint32_t r = orc_xorwow(s);
    uint32_t bits = (r & 0x7FFFFF) | 0x3F800000;
    float f;
    memcpy(&f, &bits, 4);
    float u = f - 1.0f;
    return lo + (hi - lo) * u;
}

/* mt19937-64.c, Nishimura & Matsumoto. */
#define NN       312
#define MM       156
#define MATRIX_A 0xB5026F5AA96619E9ULL
#define UM       0xFFFFFFFF80000000ULL
#define LM       0x7FFFFFFFULL

void orc_mt_init(orc_mt *m, uint64_t seed) {
    m->mt[0] = seed;
    uint64_t st = seed;
    for (int i = 1; i < NN; ++i) {
        m->mt[i] = 0x5851F42D4C957F2DULL * (st ^ (st >> 62)) + (uint64_t)i;
        st = m->mt[i];
    }
    m->mti = NN;
}

void orc_mt_init_by_array(orc_mt *m, const uint64_t init_key[], size_t key_length) {
    uint64_t i, j, k;
    uint64_t *mt = m->mt;
    orc_mt_init(m, 19650218ULL);
    i = 1;
    j = 0;
    k = (NN > key_length ? NN : key_length);
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 62)) * 3935559000370003845ULL)) + init_key[j] +
                j; /* non linear */
        i++;
        j++;
        if (i >= NN) {
            mt[0] = mt[NN - 1];
            i = 1;
        }
        if (j >= key_length) j = 0;
    }
    for (k = NN - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 62)) * 2862933555777941757ULL)) -
                i; /* non linear */
        i++;
        if (i >= NN) {
            mt[0] = mt[NN - 1];
            i = 1;
        }
    }
    mt[0] = 1ULL << 63; /* MSB is 1; assuring non-zero initial array */
}

uint64_t orc_mt_next(orc_mt *m) {
    int i;
    uint64_t x;
    static const uint64_t mag01[2] = {0ULL, MATRIX_A};
    uint64_t *mt = m->mt;
    if (m->mti >= NN) { /* generate NN words at one time */
        if (m->mti == NN + 1) orc_mt_init(m, 5489ULL);
        for (i = 0; i < NN - MM; i++) {
            x = (mt[i] & UM) | (mt[i + 1] & LM);
            mt[i] = mt[i + MM] ^ (x >> 1) ^ mag01[(int)(x & 1ULL)];
        }
        for (; i < NN - 1; i++) {
            x = (mt[i] & UM) | (mt[i + 1] & LM);
            mt[i] = mt[i + (MM - NN)] ^ (x >> 1) ^ mag01[(int)(x & 1ULL)];
        }
        x = (mt[NN - 1] & UM) | (mt[0] & LM);
        mt[NN - 1] = mt[MM - 1] ^ (x >> 1) ^ mag01[(int)(x & 1ULL)];
        m->mti = 0;
    }
    x = mt[m->mti++];
    x ^= (x >> 29) & 0x5555555555555555ULL;
    x ^= (x << 17) & 0x71D67FFFEDA60000ULL;
    x ^= (x << 37) & 0xFFF7EEE000000000ULL;
    x ^= (x >> 43);
    return x;
}

/* docs/rng.md, "Gen-1 state mapping", element by element. */
void orc_rand(int alg, uint32_t w[6], uint32_t *out, size_t n) {
    if (alg == 0) {
        for (size_t j = 0; j < n; ++j) out[j] = orc_lfsr(&w[0]);
    } else if (alg == 1) {
        uint64_t s = (uint64_t)w[0] | ((uint64_t)w[1] << 32);
        for (size_t j = 0; j < n; ++j) out[j] = orc_pcg32(&s, 0x14057B7EF767814FULL);
        w[0] = (uint32_t)s;
        w[1] = (uint32_t)(s >> 32);
    } else {
        uint32_t key[2] = {w[4], w[5]}, blk[4];
        for (size_t j = 0; j < n; ++j) {
            if (j % 4 == 0) orc_philox(w, key, blk);
            out[j] = blk[j % 4];
            if (j % 4 == 3 || j == n - 1) { /* the block is used up: counter + 1, carry upward */
                for (int k = 0; k < 4; ++k)
                    if (++w[k] != 0) break;
            }
        }
    }
}

void orc_rand2(uint32_t lanes[24], unsigned nlanes, float lo, float hi, float *out, size_t n) {
    for (size_t j = 0; j < n; ++j) out[j] = orc_xorwow_step(lanes + 6 * (j % nlanes), lo, hi);
}
