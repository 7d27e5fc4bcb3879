/* XXH64 (seed 0): four accumulators over 32-byte stripes, then the tail
 * and a final avalanche, as the xxHash specification describes it. */
#include "common/common.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8); /* little-endian hosts only, as the rest of trnsim */
    return v;
}

static inline uint32_t load32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t mix_lane(uint64_t acc, uint64_t lane) {
    return rotl(acc + lane * P2, 31) * P1;
}

static inline uint64_t merge_lane(uint64_t h, uint64_t acc) {
    return (h ^ mix_lane(0, acc)) * P1 + P4;
}

/* Whole stripes of p[0..n); returns the bytes consumed (a multiple of 32). */
static size_t stripes(uint64_t acc[4], const uint8_t *p, size_t n) {
    uint64_t a = acc[0], b = acc[1], c = acc[2], d = acc[3];
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a = mix_lane(a, load64(p + i));
        b = mix_lane(b, load64(p + i + 8));
        c = mix_lane(c, load64(p + i + 16));
        d = mix_lane(d, load64(p + i + 24));
    }
    acc[0] = a, acc[1] = b, acc[2] = c, acc[3] = d;
    return i;
}

void trn_digest_init(trn_digest *d) {
    memset(d, 0, sizeof *d);
    d->acc[0] = P1 + P2;
    d->acc[1] = P2;
    d->acc[2] = 0;
    d->acc[3] = 0 - P1;
}

void trn_digest_update(trn_digest *d, const void *bytes, size_t n) {
    const uint8_t *p = bytes;
    d->total += n;
    if (d->tail_len) { /* finish the stripe begun by the previous piece */
        size_t take = 32 - d->tail_len < n ? 32 - d->tail_len : n;
        memcpy(d->tail + d->tail_len, p, take);
        d->tail_len += (uint32_t)take;
        p += take, n -= take;
        if (d->tail_len < 32) return;
        stripes(d->acc, d->tail, 32);
        d->tail_len = 0;
    }
    size_t used = stripes(d->acc, p, n);
    memcpy(d->tail, p + used, n - used);
    d->tail_len = (uint32_t)(n - used);
}

uint64_t trn_digest_final(const trn_digest *d) {
    uint64_t h;
    if (d->total >= 32) {
        h = rotl(d->acc[0], 1) + rotl(d->acc[1], 7) + rotl(d->acc[2], 12) + rotl(d->acc[3], 18);
        for (int k = 0; k < 4; ++k) h = merge_lane(h, d->acc[k]);
    } else {
        h = P5; /* seed 0 + P5 */
    }
    h += d->total;
    const uint8_t *p = d->tail;
    uint32_t n = d->tail_len;
    for (; n >= 8; p += 8, n -= 8) h = rotl(h ^ mix_lane(0, load64(p)), 27) * P1 + P4;
    if (n >= 4) {
        h = rotl(h ^ (uint64_t)load32(p) * P1, 23) * P2 + P3;
        p += 4, n -= 4;
    }
    for (; n > 0; ++p, --n) h = rotl(h ^ (uint64_t)*p * P5, 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint64_t trn_digest_bytes(const void *bytes, size_t n) {
    trn_digest d;
    trn_digest_init(&d);
    trn_digest_update(&d, bytes, n);
    return trn_digest_final(&d);
}

int trn_digest_fd(int fd, uint64_t size, uint64_t *out) {
    if (size == 0) return *out = trn_digest_bytes("", 0), 0;
    void *map =
        size <= SIZE_MAX ? mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (map != MAP_FAILED) {
        madvise(map, (size_t)size, MADV_SEQUENTIAL);
        *out = trn_digest_bytes(map, (size_t)size);
        munmap(map, (size_t)size);
        return 0;
    }
    size_t chunk = (size_t)1 << 20;
    unsigned char *buf = malloc(chunk);
    if (!buf) return ENOMEM;
    trn_digest d;
    trn_digest_init(&d);
    ssize_t n = 1;
    for (uint64_t at = 0; at < size && n > 0; at += (uint64_t)n) {
        size_t want = size - at < chunk ? (size_t)(size - at) : chunk;
        if ((n = pread(fd, buf, want, (off_t)at)) > 0) trn_digest_update(&d, buf, (size_t)n);
    }
    free(buf);
    if (n < 0) return errno;
    *out = trn_digest_final(&d);
    return 0;
}
