#include "modules/modules_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan {
    const char *file, *p, *end;
    int line;
    size_t joined; /* length of the current run of adjacent string literals */
    trn_error *e;
} scan;

static void skip_to_eol(scan *s) {
    while (s->p < s->end && *s->p != '\n') s->p++;
}

static void skip_block_comment(scan *s) {
    for (s->p += 2; s->p + 1 < s->end && !(s->p[0] == '*' && s->p[1] == '/'); s->p++)
        if (*s->p == '\n') s->line++;
    s->p = s->p + 1 < s->end ? s->p + 2 : s->end;
}

static int string_literal(scan *s) {
    int start_line = s->line;
    size_t len = 0;
    for (s->p++; s->p < s->end && *s->p != '"'; s->p++, len++) {
        if (*s->p == '\\' && s->p + 1 < s->end) s->p++;
        if (*s->p == '\n') s->line++;
    }
    if (s->p < s->end) s->p++;
    s->joined += len;
    if (s->joined > TRN_CONFIG_MAX_STRING)
        return trn_errorf(
            s->e, "%s:%d: a string of more than %u bytes (the most a config string may hold)",
            s->file, start_line, TRN_CONFIG_MAX_STRING);
    return 0;
}

/* One number token as written; integers are checked against the type
 * libconfig gives them. */
static int number(scan *s) {
    const char *t = s->p;
    if (*s->p == '-' || *s->p == '+') s->p++;
    bool hex = s->p + 1 < s->end && s->p[0] == '0' && (s->p[1] == 'x' || s->p[1] == 'X');
    bool is_float = false;
    if (hex) s->p += 2;
    while (s->p < s->end &&
           (isxdigit((unsigned char)*s->p) || *s->p == '.' ||
            (!hex && (*s->p == 'e' || *s->p == 'E')) ||
            ((*s->p == '-' || *s->p == '+') && !hex && (s->p[-1] == 'e' || s->p[-1] == 'E')))) {
        if (!hex && !isdigit((unsigned char)*s->p)) is_float = true;
        s->p++;
    }
    const char *digits_end = s->p;
    int longs = 0;
    while (s->p < s->end && (*s->p == 'L' || *s->p == 'l') && longs < 2) s->p++, longs++;
    if (is_float) return 0;
    char text[80];
    int n = (int)(s->p - t) < (int)sizeof text - 1 ? (int)(s->p - t) : (int)sizeof text - 1;
    snprintf(text, sizeof text, "%.*s", n, t);
    char digits[80];
    snprintf(digits, sizeof digits, "%.*s", (int)(digits_end - t) < 79 ? (int)(digits_end - t) : 79,
             t);
    errno = 0;
    char *end;
    bool ok;
    /* a literal wider than 32 bits is read whole (config_tree.c adds the
     * L libconfig needs); one past 64 bits libconfig would silently clamp */
    (void)strtoll(digits, &end, hex ? 16 : 10);
    ok = errno == 0;
    if (ok) return 0;
    return trn_errorf(s->e, "%s:%d: integer %s is outside the 64-bit range [-2^63, 2^63-1]",
                      s->file, s->line, text);
}

int trn_config_prescan(const char *file, const char *text, size_t len, trn_error *e) {
    if (len > TRN_CONFIG_MAX_BYTES)
        return trn_errorf(e, "%s: the config is more than %u bytes (at most %u)", file,
                          TRN_CONFIG_MAX_BYTES, TRN_CONFIG_MAX_BYTES);
    scan s = {.file = file, .p = text, .end = text + len, .line = 1, .e = e};
    while (s.p < s.end) {
        char c = *s.p;
        if (c == '"') {
            if (string_literal(&s)) return -1;
            continue;
        }
        if (!isspace((unsigned char)c))
            s.joined = 0; /* adjacent literals join across white space only */
        if (c == '\n')
            s.line++, s.p++;
        else if (c == '#' || (c == '/' && s.p + 1 < s.end && s.p[1] == '/'))
            skip_to_eol(&s);
        else if (c == '/' && s.p + 1 < s.end && s.p[1] == '*')
            skip_block_comment(&s);
        else if (isalpha((unsigned char)c) || c == '_' || c == '*' || c == '@') {
            while (s.p < s.end && (isalnum((unsigned char)*s.p) || *s.p == '_' || *s.p == '-' ||
                                   *s.p == '*' || *s.p == '@'))
                s.p++;
        } else if (isdigit((unsigned char)c) ||
                   ((c == '-' || c == '+') && s.p + 1 < s.end && isdigit((unsigned char)s.p[1]))) {
            if (number(&s)) return -1;
        } else
            s.p++;
    }
    return 0;
}

int trn_config_read_bounded(const char *path, char **text, size_t *len, trn_error *e) {
    FILE *f = fopen(path, "r");
    if (!f) return trn_errorf(e, "%s: cannot open config: %s", path, strerror(errno));
    char *buf = malloc(TRN_CONFIG_MAX_BYTES + 2);
    if (!buf) {
        fclose(f);
        return trn_errorf(e, "out of memory");
    }
    size_t n = fread(buf, 1, TRN_CONFIG_MAX_BYTES + 1, f);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) {
        free(buf);
        return trn_errorf(e, "%s: cannot read config: %s", path, strerror(err));
    }
    if (n > TRN_CONFIG_MAX_BYTES) {
        free(buf);
        return trn_errorf(e, "%s: the config is more than %u bytes (at most %u)", path,
                          TRN_CONFIG_MAX_BYTES, TRN_CONFIG_MAX_BYTES);
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return 0;
}
