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

json_t *trn_scan_value(trn_scan *sc) {
    trn_scan_ws(sc);
    if (sc->i >= sc->n) return NULL;
    char ch = sc->s[sc->i];
    if (ch == '{' || ch == '[') {
        json_error_t je;
        json_t *v = json_loadb(sc->s + sc->i, sc->n - sc->i,
                               JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
        if (v) sc->i += (size_t)je.position;
        return v;
    }
    int64_t x;
    const char *s;
    size_t len;
    if (trn_scan_int(sc, &x)) return json_integer(x);
    if (ch == '"' && trn_scan_str(sc, &s, &len)) return json_stringn(s, len);
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
