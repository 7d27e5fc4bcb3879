/* `trnsim describe OPCODE` and `trnsim opcodes --attrs`: an opcode's
 * operands and attributes as its module's ABI 2 schema declares them, so
 * what a user reads is what the loader enforces. */
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "observers/observers.h"

static void type_names(uint32_t t, uint32_t elem, char *buf, size_t len) {
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
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < len; ++i)
        if (t & names[i].bit)
            used +=
                (size_t)snprintf(buf + used, len - used, "%s%s", used ? " or " : "", names[i].name);
    if ((t & (TRN_ATTR_LIST | TRN_ATTR_NESTED_LIST)) && elem && used < len) {
        char inner[128];
        type_names(elem, 0, inner, sizeof inner);
        snprintf(buf + used, len - used, " of %s", inner);
    }
}

static void print_attr(FILE *out, const trn_attr_desc *a) {
    char types[256];
    type_names(a->types, a->elem, types, sizeof types);
    fprintf(out, "  %-22s %s", a->name, types);
    if (a->flags & TRN_ATTRF_REQUIRED)
        fputs(", required", out);
    else if (a->def)
        fprintf(out, ", default %s", a->def);
    else
        fputs(", optional", out);
    if (a->min < a->max) fprintf(out, ", range [%.17g, %.17g]", a->min, a->max);
    if (a->bir_name) fprintf(out, ", BIR field '%s'", a->bir_name);
    fprintf(out, "\n      %s\n", a->help ? a->help : "");
    for (uint32_t i = 0; i < a->n_enums; ++i)
        fprintf(out, "      %-20s = %lld%s%s\n", a->enums[i].name, (long long)a->enums[i].value,
                a->enums[i].aliases ? "  (also: " : "",
                a->enums[i].aliases ? a->enums[i].aliases : "");
}

static void print_one(FILE *out, const trn_slot *sl, uint32_t it) {
    const trn_opcode_desc *op = sl->op;
    fprintf(out, "%s (IT %u): family %s, module %s (%s)\n", op->name, it, sl->owner->desc->family,
            sl->owner->desc->name, sl->owner->path);
    if (op->n_operands) fputs("operands:\n", out);
    for (uint32_t i = 0; i < op->n_operands; ++i) {
        const trn_operand_desc *o = &op->operands[i];
        const char *tag = (o->flags & TRN_OPERANDF_REPEATED)   ? " (repeated)"
                          : (o->flags & TRN_OPERANDF_OPTIONAL) ? " (optional)"
                                                               : "";
        fprintf(out, "  %-7s %-14s %s%s\n", o->dir == TRN_OUT ? "output" : "input", o->name,
                o->help ? o->help : "", tag);
    }
    if (op->n_attrs) fputs("attributes:\n", out);
    for (uint32_t i = 0; i < op->n_attrs; ++i) print_attr(out, &op->attrs[i]);
    if (!op->n_attrs)
        fputs(op->flags & TRN_OPF_NO_ATTRS
                  ? "attributes: none (any attribute is an error)\n"
                  : "attributes: no schema (the module declares none; they are not checked)\n",
              out);
}

int trn_sim_describe(const trn_sim *s, const char *name, FILE *out, trn_error *e) {
    const char *names[TRN_IT_MAX + 1];
    for (uint32_t it = 0; it <= TRN_IT_MAX; ++it) {
        names[it] =
            trn_sim_registry(s)->table[it].op ? trn_sim_registry(s)->table[it].op->name : NULL;
        if (names[it] && !strcmp(names[it], name)) {
            print_one(out, &trn_sim_registry(s)->table[it], it);
            return 0;
        }
    }
    char hint[128];
    return trn_errorf(
        e, "describe: no loaded module handles an opcode named '%s'%s (trnsim opcodes lists them)",
        name, trn_suggest_text(name, names, TRN_IT_MAX + 1, hint, sizeof hint));
}

void trn_sim_print_opcode_attrs(const trn_sim *s, FILE *out) {
    for (uint32_t it = 0; it <= TRN_IT_MAX; ++it)
        if (trn_sim_registry(s)->table[it].op) {
            print_one(out, &trn_sim_registry(s)->table[it], it);
            fputc('\n', out);
        }
}
