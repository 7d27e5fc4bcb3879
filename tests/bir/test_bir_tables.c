/* docs/bir.md against the mapping tables of host/frontend/bir/bir_maps.c:
 * every (opcode, BIR field, native attribute) has a table row naming all
 * three (or "ignored"), with every accepted enum spelling; every field the
 * reader ignores on all instructions is listed. Exit 1 naming each miss. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_internal.h"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) == (size_t)n) b[n] = 0;
    fclose(f);
    return b;
}

/* A table row (a line starting with '|') containing each of the needles. */
static int has_row(const char *doc, const char *const *needles, int n) {
    for (const char *line = doc; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (line[0] == '|') {
            char buf[2048];
            snprintf(buf, sizeof buf, "%.*s", (int)len, line);
            int ok = 1;
            for (int i = 0; i < n && ok; ++i) ok = strstr(buf, needles[i]) != NULL;
            if (ok) return 1;
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

int main(int argc, char **argv) {
    char *doc = argc > 1 ? slurp(argv[1]) : NULL;
    if (!doc) {
        fprintf(stderr, "usage: test_bir_tables docs/bir.md\n");
        return 2;
    }
    int misses = 0, rows = 0;
    for (const bir_opcode_map *const *t = bir_family_tables; *t; ++t)
        for (const bir_opcode_map *m = *t; m->opcode; ++m)
            for (const bir_field *f = m->fields; f->bir_name; ++f) {
                char bir[128], native[128];
                snprintf(bir, sizeof bir, "`%s`", f->bir_name);
                snprintf(native, sizeof native, f->use == BIR_IGNORE ? "ignored" : "`%s`",
                         f->native_name ? f->native_name : "");
                const char *need[40] = {m->opcode, bir, native};
                int n = 3;
                char vals[32][64];
                for (const bir_enum *v = f->values; v && v->bir && n < 35; ++v, ++n) {
                    snprintf(vals[n - 3], sizeof vals[0], "`%s`", v->bir);
                    need[n] = vals[n - 3];
                }
                ++rows;
                if (!has_row(doc, need, n)) {
                    printf("MISSING: no row of docs/bir.md names %s, %s -> %s%s\n", m->opcode, bir, native,
                           f->values ? " and all its values" : "");
                    ++misses;
                }
            }
    for (const char *const *k = bir_ignored_fields; *k; ++k) {
        char want[128];
        snprintf(want, sizeof want, "`%s`", *k);
        if (!strstr(doc, want)) {
            printf("MISSING: the ignored field %s is not listed in docs/bir.md\n", want);
            ++misses;
        }
    }
    printf("%d table rows checked, %d missing\n", rows, misses);
    free(doc);
    return misses ? 1 : 0;
}
