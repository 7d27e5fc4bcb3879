#ifndef TRNSIM_HOST_FRONTEND_FRONTEND_INT_H
#define TRNSIM_HOST_FRONTEND_FRONTEND_INT_H

/* Field checks shared by the program readers: unknown keys (with the
 * closest known one named), bounded integers. */

#include <jansson.h>
#include <stdint.h>

#include "common/common.h"

/* keys: a NULL-terminated list. The closest known key within a small edit
 * distance, or NULL. */
const char *trn_closest_key(const char *key, const char *const *keys);
int trn_key_known(const char *key, const char *const *keys);
/* Every member of obj must be one of keys; otherwise an error
 * "WHERE: unknown key 'K' (did you mean 'X'?)". */
int trn_check_keys(json_t *obj, const char *const *keys, const char *where, trn_error *e);
/* An optional integer member in [min, max], def when absent. */
int trn_get_int(json_t *obj, const char *key, int64_t def, int64_t min, int64_t max, int64_t *out,
                const char *where, trn_error *e);

/* Scanning JSON text in place, for the front ends' fast paths (native_fast.c,
 * bir_fast.c): whitespace, punctuation, plain strings and integers, and
 * skipping or parsing one value. Each step only accepts the simple form of
 * what it reads and answers false on anything else (an escape, a fraction, a
 * non-ASCII byte ...): the caller then reads that part, or the whole file,
 * with jansson, whose messages are the ones a user sees. */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct trn_scan {
    const char *s;
    size_t n, i;
} trn_scan;

static inline void trn_scan_ws(trn_scan *sc) {
    while (sc->i < sc->n && (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\n' || sc->s[sc->i] == '\t' ||
                             sc->s[sc->i] == '\r'))
        sc->i++;
}

/* Past c (after whitespace) when it is next. */
static inline bool trn_scan_lit(trn_scan *sc, char c) {
    trn_scan_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == c) {
        sc->i++;
        return true;
    }
    return false;
}

static inline bool trn_scan_peek(trn_scan *sc, char c) {
    trn_scan_ws(sc);
    return sc->i < sc->n && sc->s[sc->i] == c;
}

/* A string without escapes, control bytes or UTF-8 (those: false). */
static inline bool trn_scan_str(trn_scan *sc, const char **out, size_t *len) {
    if (!trn_scan_lit(sc, '"')) return false;
    size_t start = sc->i;
    while (sc->i < sc->n) {
        unsigned char ch = (unsigned char)sc->s[sc->i];
        if (ch == '"') {
            *out = sc->s + start;
            *len = sc->i - start;
            sc->i++;
            return true;
        }
        if (ch == '\\' || ch < 0x20 || ch >= 0x80) return false;
        sc->i++;
    }
    return false;
}

/* A JSON integer that fits int64 (a fraction or exponent: false). */
static inline bool trn_scan_int(trn_scan *sc, int64_t *out) {
    trn_scan_ws(sc);
    size_t i = sc->i;
    bool neg = i < sc->n && sc->s[i] == '-';
    if (neg) ++i;
    size_t first = i;
    uint64_t v = 0;
    while (i < sc->n && sc->s[i] >= '0' && sc->s[i] <= '9') {
        uint64_t d = (uint64_t)(sc->s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
        ++i;
    }
    if (i == first || (sc->s[first] == '0' && i - first > 1)) return false;
    if (i < sc->n && (sc->s[i] == '.' || sc->s[i] == 'e' || sc->s[i] == 'E')) return false;
    if (v > (uint64_t)INT64_MAX + neg) return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    sc->i = i;
    return true;
}

static inline bool trn_scan_key_is(const char *k, size_t len, const char *want) {
    return strlen(want) == len && !memcmp(k, want, len);
}

/* Past one value without checking it (strings with escapes, nesting): for a
 * part that is scanned again later. False when it does not end. */
bool trn_scan_skip(trn_scan *sc);

/* One value as jansson reads it (a container) or as scanned here (an
 * integer, a plain string, true, false); NULL when neither reads it. */
json_t *trn_scan_value(trn_scan *sc);

#endif
