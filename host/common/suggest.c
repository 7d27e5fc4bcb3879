#include "common/common.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define SUGGEST_MAX_LEN 64 /* longer names are not typos worth a guess */

static size_t min3(size_t a, size_t b, size_t c) {
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

static int same(char a, char b) { return tolower((unsigned char)a) == tolower((unsigned char)b); }

/* Edits (insert, delete, substitute, swap of neighbours) from a to b. */
static size_t distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
    for (size_t i = 0; i <= la; ++i) d[i][0] = i;
    for (size_t j = 0; j <= lb; ++j) d[0][j] = j;
    for (size_t i = 1; i <= la; ++i)
        for (size_t j = 1; j <= lb; ++j) {
            size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[la][lb];
}

const char *trn_suggest(const char *word, const char *const *cands, size_t n) {
    size_t lw = strlen(word);
    if (lw == 0 || lw > SUGGEST_MAX_LEN) return NULL;
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; ++i) {
        const char *c = cands[i];
        if (!c || strlen(c) > SUGGEST_MAX_LEN || strcmp(c, word) == 0) continue;
        size_t longer = strlen(c) > lw ? strlen(c) : lw;
        size_t limit = longer <= 4 ? 1 : longer / 3;
        size_t d = distance(word, c);
        if (d <= limit && d < best_d) {
            best = c;
            best_d = d;
        }
    }
    return best;
}

const char *trn_suggest_text(const char *word, const char *const *cands, size_t n, char *buf,
                             size_t len) {
    const char *s = trn_suggest(word, cands, n);
    if (s)
        snprintf(buf, len, "; did you mean '%s'?", s);
    else if (len)
        buf[0] = 0;
    return buf;
}
