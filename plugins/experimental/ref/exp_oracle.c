/* The oracle (exp_oracle.h): plain loops, no tricks. */
#include "exp_oracle.h"

void oracle_nonzero_row(const float *x, size_t n, int64_t index_offset, int64_t pad, int32_t *out) {
    size_t count = 0; /* never more than i: out[count] is free to take the next index */
    for (size_t i = 0; i < n; ++i) {
        int is_zero = x[i] == 0.0f; /* +0.0 and -0.0; NaN compares unequal */
        if (!is_zero) out[count++] = (int32_t)(index_offset + (int64_t)i);
    }
    for (size_t k = count; k < n; ++k) out[k] = (int32_t)pad;
    out[n] = (int32_t)count;
}

uint32_t oracle_xorwow(uint32_t s[6]) {
    uint32_t t = s[0] ^ (s[0] >> 2);
    s[0] = s[1];
    s[1] = s[2];
    s[2] = s[3];
    s[3] = s[4];
    s[4] = (s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1));
    s[5] += 362437u;
    return s[5] + s[4];
}

void oracle_mt_seed(oracle_mt *m, uint64_t seed) {
    m->mt[0] = seed;
    uint64_t st = seed;
    for (int i = 1; i < 312; ++i) {
        m->mt[i] = 0x5851F42D4C957F2DULL * (st ^ (st >> 62)) + (uint64_t)i;
        st = m->mt[i];
    }
    m->mti = 312;
}

uint64_t oracle_mt_next(oracle_mt *m) {
    static const uint64_t mag01[2] = {0ULL, 0xB5026F5AA96619E9ULL};
    const uint64_t um = 0xFFFFFFFF80000000ULL, lm = 0x7FFFFFFFULL;
    if (m->mti >= 312) {
        int i;
        for (i = 0; i < 312 - 156; i++) {
            uint64_t x = (m->mt[i] & um) | (m->mt[i + 1] & lm);
            m->mt[i] = m->mt[i + 156] ^ (x >> 1) ^ mag01[(int)(x & 1ULL)];
        }
        for (; i < 311; i++) {
            uint64_t x = (m->mt[i] & um) | (m->mt[i + 1] & lm);
            m->mt[i] = m->mt[i + (156 - 312)] ^ (x >> 1) ^ mag01[(int)(x & 1ULL)];
        }
        uint64_t x = (m->mt[311] & um) | (m->mt[0] & lm);
        m->mt[311] = m->mt[155] ^ (x >> 1) ^ mag01[(int)(x & 1ULL)];
        m->mti = 0;
    }
    uint64_t x = m->mt[m->mti++];
    x ^= (x >> 29) & 0x5555555555555555ULL;
    x ^= (x << 17) & 0x71D67FFFEDA60000ULL;
    x ^= (x << 37) & 0xFFF7EEE000000000ULL;
    x ^= (x >> 43);
    return x;
}

int64_t oracle_truncate(uint32_t bits, unsigned width, int is_signed) {
    unsigned nbits = 8 * width;
    uint64_t mask = nbits == 32 ? 0xFFFFFFFFULL : ((1ULL << nbits) - 1);
    uint64_t v = bits & mask;
    if (is_signed && (v >> (nbits - 1))) return (int64_t)v - (int64_t)(1ULL << nbits);
    return (int64_t)v;
}
