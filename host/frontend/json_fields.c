#include "frontend/frontend_int.h"

#include <inttypes.h>
#include <string.h>

int trn_key_known(const char *key, const char *const *keys) {
    for (; *keys; ++keys)
        if (strcmp(key, *keys) == 0) return 1;
    return 0;
}

/* Levenshtein distance, capped: keys are short, 64 bytes is plenty. */
static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; ++j) row[j] = j;
    for (size_t i = 1; i <= la; ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; ++j) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *trn_closest_key(const char *key, const char *const *keys) {
    const char *best = NULL;
    size_t best_d = strlen(key) / 2 + 1; /* further than this is no suggestion */
    for (; *keys; ++keys) {
        size_t d = edit_distance(key, *keys);
        if (d < best_d || (d == best_d && !best)) {
            best = *keys;
            best_d = d;
        }
    }
    return best;
}

int trn_check_keys(json_t *obj, const char *const *keys, const char *where, trn_error *e) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (trn_key_known(key, keys)) continue;
        const char *near = trn_closest_key(key, keys);
        if (near)
            return trn_errorf(e, "%s: unknown key '%s' (did you mean '%s'?)", where, key, near);
        return trn_errorf(e, "%s: unknown key '%s'", where, key);
    }
    return 0;
}

int trn_get_int(json_t *obj, const char *key, int64_t def, int64_t min, int64_t max, int64_t *out,
                const char *where, trn_error *e) {
    json_t *v = json_object_get(obj, key);
    *out = def;
    if (!v) return 0;
    if (!json_is_integer(v)) return trn_errorf(e, "%s: '%s' must be an integer", where, key);
    int64_t x = json_integer_value(v);
    if (x < min || x > max)
        return trn_errorf(e, "%s: '%s' = %" PRId64 " is outside [%" PRId64 ", %" PRId64 "]", where,
                          key, x, min, max);
    *out = x;
    return 0;
}
