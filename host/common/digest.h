/* A 64-bit digest of a byte stream: XXH64 with seed 0 (the xxHash
 * project's 64-bit hash, written here from its published algorithm), so a
 * trace's digests can be checked with any xxHash implementation. Bytes may
 * come in pieces of any size; the digest is that of their concatenation. */
#ifndef TRNSIM_HOST_DIGEST_H
#define TRNSIM_HOST_DIGEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct trn_digest {
    uint64_t acc[4];
    uint64_t total;      /* bytes so far */
    uint8_t tail[32];    /* a stripe not yet full */
    uint32_t tail_len;
} trn_digest;

void trn_digest_init(trn_digest *d);
void trn_digest_update(trn_digest *d, const void *bytes, size_t n);
uint64_t trn_digest_final(const trn_digest *d);
/* The digest of one buffer. */
uint64_t trn_digest_bytes(const void *bytes, size_t n);

#endif
