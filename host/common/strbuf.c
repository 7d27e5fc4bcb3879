#include "common/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static bool reserve(trn_strbuf *b, size_t more) {
    if (b->failed) return false;
    if (b->len + more + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) cap *= 2;
    char *t = realloc(b->text, cap);
    if (!t) {
        b->failed = true;
        return false;
    }
    b->text = t;
    b->cap = cap;
    return true;
}

void trn_sb_printf(trn_strbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void trn_sb_putc(trn_strbuf *b, char c) {
    if (!reserve(b, 1)) return;
    b->text[b->len++] = c;
    b->text[b->len] = 0;
}

/* Control bytes escaped; other bytes as they are (names come from programs
 * and modules and are UTF-8 or plain ASCII). */
void trn_sb_json_string(trn_strbuf *b, const char *s) {
    if (!s) {
        trn_sb_printf(b, "null");
        return;
    }
    trn_sb_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') {
            trn_sb_putc(b, '\\');
            trn_sb_putc(b, (char)*p);
        } else if (*p == '\n')
            trn_sb_printf(b, "\\n");
        else if (*p < 0x20 || *p == 0x7f)
            trn_sb_printf(b, "\\u%04x", *p);
        else
            trn_sb_putc(b, (char)*p);
    }
    trn_sb_putc(b, '"');
}

void trn_sb_clear(trn_strbuf *b) {
    b->len = 0;
    if (b->text) b->text[0] = 0;
}

void trn_sb_free(trn_strbuf *b) {
    free(b->text);
    *b = (trn_strbuf){0};
}
