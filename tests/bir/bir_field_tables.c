/* docs/bir.md's field tables, generated from what the BIR reader reads
 * them through: each stock module's ABI 2 schema (bir_name, enum aliases)
 * and the reader's BIR-only table (host/frontend/bir/bir_maps.c). The
 * block between the BEGIN / END marker lines must be exactly the generated
 * one; with --write it is rewritten.
 *
 *   bir_field_tables MODULE_DIR docs/bir.md [--write]
 *
 * Exit 1 with a diff hint when the page differs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_int.h"
#include "exec/exec_test.h"

#define BEGIN                                                                                      \
    "<!-- BEGIN BIR field tables: generated from the schemas and bir_maps.c by "                   \
    "tests/bir/bir_field_tables --write; do not edit -->"
#define END "<!-- END BIR field tables -->"

static const char *const families[] = {"search", "bn", "rng", "collective", "dma", NULL};

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)k + 1 > t->cap) {
        t->cap = (t->n + (size_t)k + 1) * 2;
        if (!(t->p = realloc(t->p, t->cap))) exit(2);
    }
    memcpy(t->p + t->n, buf, (size_t)k + 1);
    t->n += (size_t)k;
}

static void types_text(const trn_attr_desc *a, text *t) {
    if (a->types & TRN_ATTR_ENUM) {
        for (uint32_t i = 0; i < a->n_enums; ++i) {
            char sp[200];
            bir_enum_spellings(&a->enums[i], sp, sizeof sp);
            put(t, "%s`%s` %lld", i ? ", " : "", sp, (long long)a->enums[i].value);
        }
        if (a->types & TRN_ATTR_INT) put(t, ", or the number");
        return;
    }
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{TRN_ATTR_BOOL, "bool"},       {TRN_ATTR_INT, "integer"},
                 {TRN_ATTR_FLOAT, "number"},    {TRN_ATTR_STRING, "string"},
                 {TRN_ATTR_LIST, "a list"},     {TRN_ATTR_NESTED_LIST, "a list of lists"},
                 {TRN_ATTR_OBJECT, "an object"}};
    int k = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (a->types & names[i].bit) put(t, "%s%s", k++ ? " or " : "", names[i].name);
}

static int immediate_index(const bir_opcode_extra *x, const char *attr) {
    for (int i = 0; x && x->immediates && x->immediates[i]; ++i)
        if (!strcmp(x->immediates[i], attr)) return i;
    return -1;
}

/* The rows of one opcode (without the opcode column). */
static void opcode_rows(const trn_opcode_desc *op, text *t) {
    const bir_opcode_extra *x = bir_opcode_extra_lookup(op->name);
    size_t start = t->n;
    for (uint32_t i = 0; i < op->n_attrs; ++i) {
        const trn_attr_desc *a = &op->attrs[i];
        const char *field = a->bir_name ? a->bir_name : a->name;
        if (!bir_attr_readable(a) || bir_field_class(op, x, field) != BIR_FIELD_SCHEMA)
            continue; /* a special's */
        put(t, "| `%s` | `%s` | ", a->bir_name ? a->bir_name : a->name, a->name);
        types_text(a, t);
        if (x && x->default_field && !strcmp(x->default_field, a->bir_name ? a->bir_name : a->name))
            put(t,
                x->default_value == bir_default_number ? " (BIR's default when absent: %s)"
                                                       : " (BIR's default when absent: `%s`)",
                x->default_value);
        int k = immediate_index(x, a->name);
        if (k >= 0)
            put(t, "; immediate argument %d (`imm_value` / `imm_array`) gives it too", k + 1);
        put(t, " |\n");
    }
    for (const bir_special *f = x ? x->special : NULL; f && f->bir_name; ++f) {
        put(t, "| `%s` | `%s` | %s", f->bir_name, f->native_name, f->help);
        for (const bir_enum *v = f->values; v && v->bir; ++v)
            put(t, "%s`%s`", v == f->values ? "; all: " : ", ", v->bir);
        put(t, " |\n");
    }
    for (const char *const *n = x ? x->ignored : NULL; n && *n; ++n)
        put(t, "| `%s` | ignored | not modelled |\n", *n);
    if (t->n == start) put(t, "| (none) | | |\n");
}

/* One table per family; opcodes with the same rows share one group. */
static void family_table(const trn_sim *s, const char *family, text *out) {
    put(out, "\n#### %s\n\n| opcode | BIR field | native attribute | values |\n|---|---|---|---|\n",
        family);
    char *prev_rows = NULL;
    text names = {0};
    for (uint32_t it = 0; it <= TRN_IT_MAX + 1; ++it) {
        const trn_slot *sl = it <= TRN_IT_MAX ? &s->reg.table[it] : NULL;
        bool mine = sl && sl->op && !strcmp(sl->owner->desc->family, family);
        if (sl && !mine) continue; /* another family's, or no opcode: groups run over it */
        text rows = {0};
        if (mine) opcode_rows(sl->op, &rows);
        if (prev_rows && (!mine || strcmp(rows.p, prev_rows))) { /* flush the group */
            for (char *line = prev_rows; *line;) {
                char *nl = strchr(line, '\n');
                put(out, "| %s %.*s\n", names.p, (int)(nl - line), line);
                line = nl + 1;
            }
            free(prev_rows);
            prev_rows = NULL;
            names.n = 0;
        }
        if (!mine) {
            free(rows.p);
            continue;
        }
        put(&names, "%s%s", names.n ? ", " : "", sl->op->name);
        if (prev_rows)
            free(rows.p);
        else
            prev_rows = rows.p;
    }
    free(names.p);
}

static void generate(const trn_sim *s, text *out) {
    put(out,
        "%s\n**On every instruction**: `%s` is the host's `allow_uninit_read` (bool). Not "
        "modelled, accepted "
        "and ignored, as the reference ignores them, unless the opcode's row below reads the "
        "field:",
        BEGIN, bir_uninit_field);
    for (const char *const *k = bir_ignored_fields; *k; ++k)
        put(out, "%s `%s`", k == bir_ignored_fields ? "" : ",", *k);
    put(out, ".\n");
    for (const char *const *f = families; *f; ++f) family_table(s, *f, out);
    put(out, "%s\n", END);
}

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

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bir_field_tables MODULE_DIR docs/bir.md [--write]\n");
        return 2;
    }
    bool write = argc > 3 && !strcmp(argv[3], "--write");
    text cfg = {0};
    put(&cfg, "plugins = (");
    for (const char *const *f = families; *f; ++f)
        put(&cfg, "%s{ family = \"%s\"; module = \"trnsim-%s\"; }", f == families ? "" : ", ", *f,
            *f);
    put(&cfg, ");");
    trn_sim_opts o = {.config_text = cfg.p, .module_dir = argv[1]};
    trn_sim *s;
    trn_error e;
    if (trn_sim_open(&s, &o, &e)) {
        fprintf(stderr, "bir_field_tables: %s\n", e.msg);
        return 2;
    }
    text gen = {0};
    generate(s, &gen);
    trn_sim_close(s);
    free(cfg.p);
    char *doc = slurp(argv[2]);
    char *b = doc ? strstr(doc, BEGIN) : NULL, *en = b ? strstr(b, END) : NULL;
    if (!b || !en) {
        fprintf(stderr, "bir_field_tables: %s has no BEGIN / END marker lines\n", argv[2]);
        free(doc);
        free(gen.p);
        return 1;
    }
    en += strlen(END) + 1;
    size_t have = (size_t)(en - b);
    int rc = 0;
    if (have == gen.n && !memcmp(b, gen.p, gen.n)) {
        printf("%s: the BIR field tables match the schemas and bir_maps.c\n", argv[2]);
        goto done;
    }
    if (!write) {
        size_t i = 0;
        while (i < have && i < gen.n && b[i] == gen.p[i]) ++i;
        size_t line = 1;
        for (const char *c = doc; c < b + i; ++c) line += *c == '\n';
        printf("MISMATCH: %s:%zu differs from the generated tables (run bir_field_tables %s %s "
               "--write); generated "
               "there: %.120s\n",
               argv[2], line, argv[1], argv[2], gen.p + i);
        rc = 1;
        goto done;
    }
    FILE *f = fopen(argv[2], "wb");
    if (!f) {
        rc = 2;
        goto done;
    }
    fwrite(doc, 1, (size_t)(b - doc), f);
    fwrite(gen.p, 1, gen.n, f);
    fputs(en, f);
    fclose(f);
    printf("%s: BIR field tables written\n", argv[2]);
done:
    free(doc);
    free(gen.p);
    return rc;
}
