/* Rng truncation and the rng_seed setting (exp_rng.h). */
#include "exp_rng.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef TRNSIM_REF_MODULE /* the reference module packs with the oracle (ref/) */
void exp_rng_pack(const uint32_t *bits, size_t n, unsigned width, void *dst) {
    switch (width) {
        case 1: {
            uint8_t *d = dst;
            for (size_t j = 0; j < n; ++j) d[j] = (uint8_t)bits[j];
            break;
        }
        case 2: {
            uint16_t *d = dst;
            for (size_t j = 0; j < n; ++j) d[j] = (uint16_t)bits[j];
            break;
        }
        default: memcpy(dst, bits, n * sizeof *bits); break;
    }
}
#endif

int exp_parse_seed(const char *text, int *seeded, uint64_t *seed) {
    *seeded = 0;
    *seed = 0;
    if (!text || !*text) return 0;
    /* decimal, or 0x hex; never octal, signs or spaces (strtoull would take them) */
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const char *digits = hex ? text + 2 : text;
    for (const char *c = digits; *c; ++c)
        if (!(hex ? isxdigit((unsigned char)*c) : isdigit((unsigned char)*c))) return -1;
    if (!*digits) return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (errno || *end) return -1;
    *seeded = 1;
    *seed = (uint64_t)v;
    return 0;
}
