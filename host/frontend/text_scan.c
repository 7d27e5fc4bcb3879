/* The parts of the text scanner too long to inline (text_scan.h). */
#include "frontend/frontend_int.h"

bool trn_scan_skip(trn_scan *sc) {
    trn_scan_ws(sc);
    int depth = 0;
    while (sc->i < sc->n) {
        char ch = sc->s[sc->i++];
        if (ch == '"') {
            while (sc->i < sc->n && sc->s[sc->i] != '"') sc->i += sc->s[sc->i] == '\\' ? 2 : 1;
            if (sc->i++ >= sc->n) return false;
        } else if (ch == '[' || ch == '{') {
            ++depth;
        } else if (ch == ']' || ch == '}') {
            if (--depth < 0) return false;
        }
        if (depth == 0) return true;
    }
    return false;
}

/* A scalar as scanned here: an integer, a plain string, true, false. */
static json_t *scalar(trn_scan *sc) {
    int64_t x;
    const char *s;
    size_t len;
    char ch = sc->s[sc->i];
    if (trn_scan_int(sc, &x)) return json_integer(x);
    /* plain: no escapes, control bytes or UTF-8, so jansson's check has nothing to find */
    if (ch == '"' && trn_scan_str(sc, &s, &len)) return json_stringn_nocheck(s, len);
    if (sc->n - sc->i >= 4 && !memcmp(sc->s + sc->i, "true", 4)) {
        sc->i += 4;
        return json_true();
    }
    if (sc->n - sc->i >= 5 && !memcmp(sc->s + sc->i, "false", 5)) {
        sc->i += 5;
        return json_false();
    }
    return NULL;
}

#define BUILT_DEPTH 8

/* A container of scalars and containers as above, no key repeated, built
 * here: the value jansson gives for it, without jansson's lexer (most of
 * the time of a BIR file's allocations). NULL for anything else. */
static json_t *built(trn_scan *sc, int depth) {
    trn_scan_ws(sc);
    if (sc->i >= sc->n) return NULL;
    char open = sc->s[sc->i];
    if (open != '{' && open != '[') return scalar(sc);
    bool object = open == '{';
    json_t *v = depth < BUILT_DEPTH ? (object ? json_object() : json_array()) : NULL;
    if (!v) return NULL;
    sc->i++;
    if (trn_scan_lit(sc, object ? '}' : ']')) return v;
    do {
        const char *k = NULL;
        size_t kl = 0;
        if (object &&
            (!trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':') || json_object_getn(v, k, kl)))
            break;
        json_t *x = built(sc, depth + 1);
        /* the setters take x's reference even when they fail */
        if (!x ||
            (object ? json_object_setn_new_nocheck(v, k, kl, x) : json_array_append_new(v, x)))
            break;
        if (trn_scan_lit(sc, object ? '}' : ']')) return v;
    } while (trn_scan_lit(sc, ','));
    json_decref(v);
    return NULL;
}

json_t *trn_scan_value(trn_scan *sc) {
    trn_scan_ws(sc);
    if (sc->i >= sc->n) return NULL;
    size_t at = sc->i;
    json_t *v = built(sc, 0);
    if (v || (sc->s[at] != '{' && sc->s[at] != '[')) return v;
    json_error_t je;
    sc->i = at;
    v = json_loadb(sc->s + at, sc->n - at, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
    if (v) sc->i += (size_t)je.position;
    return v;
}
