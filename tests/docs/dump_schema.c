/* Prints the opcode schemas of module files, one tab-separated record per
 * line, for tests/docs/family_tables.py (the family pages' operand and
 * attribute tables are generated from, and checked against, this):
 *   op       FAMILY IT NAME
 *   operand  NAME INDEX in|out ROLE optional|repeated|- HELP
 *   attr     NAME KEY TYPES required|DEFAULT|- HELP
 * Usage: dump_schema MODULE.so...   Reads only the descriptor (no init). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "trnsim/plugin.h"

static const char *text(const char *s) { return s && *s ? s : "-"; }

static void types(uint32_t t, uint32_t elem, char *buf, size_t len) {
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {
        {TRN_ATTR_BOOL, "bool"},
        {TRN_ATTR_INT, "int"},
        {TRN_ATTR_FLOAT, "number"},
        {TRN_ATTR_STRING, "string"},
        {TRN_ATTR_ENUM, "enum"},
        {TRN_ATTR_LIST, "list"},
        {TRN_ATTR_NESTED_LIST, "list of lists"},
        {TRN_ATTR_OBJECT, "object"},
        {TRN_ATTR_INSTRUCTIONS, "instructions"},
    };
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (t & names[i].bit)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " or " : "",
                     names[i].name);
    if ((t & (TRN_ATTR_LIST | TRN_ATTR_NESTED_LIST)) && elem) {
        char e[128];
        types(elem, 0, e, sizeof e);
        snprintf(buf + strlen(buf), len - strlen(buf), " of %s", e);
    }
}

static void enums(const trn_attr_desc *a, char *buf, size_t len) {
    buf[0] = 0;
    for (uint32_t i = 0; i < a->n_enums; ++i)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", a->enums[i].name);
}

static int dump(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dump_schema: %s\n", dlerror());
        return 1;
    }
    const trn_plugin_desc *d = dlsym(h, TRN_PLUGIN_SYMBOL);
    if (!d || d->abi_version < 2) {
        fprintf(stderr, "dump_schema: %s: no ABI 2 descriptor\n", path);
        return 1;
    }
    for (uint32_t i = 0; i < d->n_ops; ++i) {
        const trn_opcode_desc *o = (const void *)((const char *)d->ops + (size_t)i * d->op_size);
        printf("op\t%s\t%u\t%s\n", d->family, o->it, o->name);
        for (uint32_t k = 0; k < o->n_operands; ++k) {
            const trn_operand_desc *p = &o->operands[k];
            printf("operand\t%s\t%u\t%s\t%s\t%s\t%s\n", o->name, k,
                   p->dir == TRN_OUT ? "out" : "in", text(p->name),
                   p->flags & TRN_OPERANDF_REPEATED   ? "repeated"
                   : p->flags & TRN_OPERANDF_OPTIONAL ? "optional"
                                                      : "-",
                   text(p->help));
        }
        for (uint32_t k = 0; k < o->n_attrs; ++k) {
            const trn_attr_desc *a = &o->attrs[k];
            char t[256], e[1024];
            types(a->types, a->elem, t, sizeof t);
            enums(a, e, sizeof e);
            printf("attr\t%s\t%s\t%s\t%s\t%s\t%s\n", o->name, a->name, t,
                   a->flags & TRN_ATTRF_REQUIRED ? "required" : text(a->def), text(e),
                   text(a->help));
        }
        if (!o->n_attrs)
            printf("noattr\t%s\t%s\n", o->name, o->flags & TRN_OPF_NO_ATTRS ? "none" : "unchecked");
    }
    return 0;
}

int main(int argc, char **argv) {
    int rc = 0;
    for (int i = 1; i < argc; ++i) rc |= dump(argv[i]);
    return rc;
}
