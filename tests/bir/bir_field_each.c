/* Field by field, generated from the BIR reader's own tables: for every
 * stock opcode and every field its tables name (the schema's readable
 * attributes by BIR name, the BIR-only specials, the opcode's and every
 * instruction's ignored fields, can_read_uninit, each immediate argument),
 * one instruction with only that field changed is read (both the document
 * reader and the text fast path) and written as a native instruction:
 *   - a read field must change exactly its documented native attribute to
 *     the documented value (an enum spelling -> its entry, transpose
 *     letters -> axis numbers, block names -> DMABlocks);
 *   - an ignored field must change nothing;
 *   - an enum or special given a wrong value must be refused naming the
 *     field, with "did you mean".
 * A field read in two places (set by its row, then overwritten, as
 * DMATrigger's trigger was, or dropped by the ignored list, as the RNG
 * opcodes' engine was) fails the first check; a type the test has no
 * value for fails loudly; the tables must not name a field twice.
 *
 *   bir_field_each MODULE_DIR
 *
 * Prints one line per failure and a count of the fields covered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_int.h"
#include "modules/modules.h"
#include "exec/exec_test.h"

static const char *const families[] = {"search", "bn", "rng", "collective", "dma", NULL};

static int failures, covered, fields_read, fields_ignored; /* cases; (opcode, field) pairs */

static const trn_opcode_desc *schema_of(void *arg, uint32_t it) {
    return ((trn_sim *)arg)->reg.table[it].op;
}

/* A one-instruction BIR file (plus a descriptor block 'd' for dma_blocks). */
static char *bir_text(json_t *inst) {
    json_t *desc = json_pack("{s:s, s:s}", "opcode", "DMADescriptorCopy", "name", "dd");
    json_t *doc = json_pack("{s:i, s:[{s:s, s:[], s:[{s:s, s:[O]}, {s:s, s:[o]}]}]}", "version", 2,
                            "functions", "name", "f", "allocations", "blocks", "name", "b",
                            "instructions", inst, "name", "d", "instructions", desc);
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return text;
}

/* The native form of the file's one instruction, or NULL with the error in e. */
static json_t *read_one(trn_sim *s, json_t *inst, bool document, trn_error *e) {
    char families_buf[256];
    trn_load_opts o = {.machine = &s->cfg.machine,
                       .default_cores = s->cfg.cores,
                       .max_executions = s->cfg.max_executions,
                       .unknown_skip = s->cfg.unknown_skip,
                       .families = trn_loader_families(&s->reg, families_buf, sizeof families_buf),
                       .resolve = trn_dispatch_resolve_name,
                       .handled = trn_dispatch_handled,
                       .schema = schema_of,
                       .arg = s,
                       .document_only = document};
    char *text = bir_text(inst);
    trn_program p;
    json_t *out = NULL;
    if (!trn_program_load(&p, "field.bir.json", text, &o, e)) {
        out = trn_inst_to_json(&p, &p.insts[0]);
        trn_program_free(&p);
    }
    free(text);
    return out;
}

static void fail(const char *op, const char *field, const char *fmt, const char *detail) {
    printf("FAIL: %s field '%s': ", op, field);
    printf(fmt, detail);
    printf("\n");
    failures++;
}

/* Both readers: the same native instruction (or the same refusal). */
static json_t *read_both(trn_sim *s, json_t *inst, trn_error *e, const char *op,
                         const char *field) {
    trn_error e2;
    json_t *a = read_one(s, inst, true, e), *b = read_one(s, inst, false, &e2);
    if ((a == NULL) != (b == NULL) || (a && !json_equal(a, b)) || (!a && strcmp(e->msg, e2.msg)))
        fail(op, field, "the document reader and the fast path differ (%s)", a ? "values" : e->msg);
    json_decref(b);
    return a;
}

static char *dump(json_t *v) {
    return v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("(absent)");
}

/* base with `key` changed must equal base with the attributes of want
 * (NULL or empty: unchanged). Steals value and want. */
static void expect_attrs(trn_sim *s, const char *op, json_t *base_inst, const char *key,
                         json_t *value, json_t *want) {
    json_t *inst = json_deep_copy(base_inst);
    json_object_set_new(inst, key, value);
    trn_error e;
    json_t *base = read_both(s, base_inst, &e, op, "(none)");
    json_t *got = base ? read_both(s, inst, &e, op, key) : NULL;
    if (!got) {
        fail(op, key, "refused: %s", e.msg);
    } else {
        json_t *exp = json_deep_copy(base);
        if (want) json_object_update(exp, want);
        if (!json_equal(got, exp)) {
            char *g = dump(got), *x = dump(exp);
            char msg[2048];
            snprintf(msg, sizeof msg, "read as %.900s, documented %.900s", g, x);
            fail(op, key, "%s", msg);
            free(g);
            free(x);
        } else if (json_object_size(want) && json_equal(got, base)) {
            fail(op, key, "%s", "changing it changed nothing (pick another value)");
        }
        json_decref(exp);
    }
    covered++;
    json_decref(inst);
    json_decref(base);
    json_decref(got);
    json_decref(want);
}

/* One attribute: native[attr] = want (want NULL: nothing changes). Steals value and want. */
static void expect(trn_sim *s, const char *op, json_t *base_inst, const char *key, json_t *value,
                   const char *attr, json_t *want) {
    json_t *w = json_object();
    if (want) json_object_set_new(w, attr, want);
    expect_attrs(s, op, base_inst, key, value, w);
}

/* The field with a wrong value: refused, naming the field, with "did you mean". */
static void expect_refusal(trn_sim *s, const char *op, json_t *base_inst, const char *key,
                           const char *bad) {
    json_t *inst = json_deep_copy(base_inst);
    json_object_set_new(inst, key, json_string(bad));
    trn_error e;
    json_t *got = read_both(s, inst, &e, op, key);
    char needle[200];
    snprintf(needle, sizeof needle, "field '%s'", key);
    if (got)
        fail(op, key, "the wrong value '%s' was accepted", bad);
    else if (!strstr(e.msg, needle) || !strstr(e.msg, "did you mean"))
        fail(op, key,
             "refusal lacks the field or a "
             "suggestion: %s",
             e.msg);
    json_decref(got);
    json_decref(inst);
}

/* A value of the attribute's type other than its default, and what the
 * native attribute then holds (NULL: no value for this type). */
static json_t *value_for(const trn_attr_desc *a, json_t **native, const bir_opcode_extra *x,
                         const char *field) {
    if (a->types & TRN_ATTR_ENUM) {
        for (uint32_t i = a->n_enums; i-- > 0;) { /* the last entry: rarely a default */
            const trn_enum_desc *en = &a->enums[i];
            char spelling[200];
            bir_enum_spellings(en, spelling, sizeof spelling);
            char *comma = strchr(spelling, ',');
            if (comma) *comma = 0;
            if ((a->def && !strcmp(a->def, en->name)) ||
                (x && x->default_field && !strcmp(x->default_field, field) &&
                 !strcmp(x->default_value, spelling)))
                continue;
            *native = json_string(en->name);
            return json_string(spelling);
        }
    }
    json_t *v = NULL;
    if (a->types & TRN_ATTR_INT)
        v = json_integer(a->def && !strcmp(a->def, "3") ? 4 : 3);
    else if (a->types & TRN_ATTR_FLOAT)
        v = json_real(2.5);
    else if (a->types & TRN_ATTR_BOOL)
        v = a->def && !strcmp(a->def, "true") ? json_false() : json_true();
    else if (a->types & TRN_ATTR_STRING)
        v = json_string("x1");
    else if (a->types & TRN_ATTR_NESTED_LIST)
        v = json_pack("[[i, i]]", 0, 1);
    else if (a->types & TRN_ATTR_LIST)
        v = json_pack("[i, i]", 1, 2);
    *native = v ? json_incref(v) : NULL;
    return v;
}

static void special_cases(trn_sim *s, const char *op, json_t *base, const bir_special *f) {
    if (f->use == BIR_PERM) {
        expect(s, op, base, f->bir_name, json_string("WXZY"), f->native_name,
               json_pack("[i, i, i, i]", 0, 3, 1, 2));
        expect_refusal(s, op, base, f->bir_name, "WXZZ");
    } else if (f->use == BIR_ENGINE) {
        expect(s, op, base, f->bir_name, json_integer(5), f->native_name, json_integer(5));
        expect(s, op, base, f->bir_name, json_string("act"), f->native_name,
               NULL); /* the issuing engine */
        expect_refusal(s, op, base, f->bir_name, "pol");
    } else { /* BIR_BLOCKS: block 'd' becomes one DMABlock of its descriptor */
        json_t *inst = json_deep_copy(base);
        json_object_set_new(inst, f->bir_name, json_pack("[s]", "d"));
        trn_error e;
        json_t *got = read_both(s, inst, &e, op, f->bir_name);
        json_t *blocks = got ? json_object_get(got, f->native_name) : NULL;
        json_t *d0 = json_object_get(
            json_array_get(json_object_get(json_array_get(blocks, 0), "descriptors"), 0), "opcode");
        if (!got || json_array_size(blocks) != 1 || !json_is_string(d0) ||
            strcmp(json_string_value(d0), "DMADescriptorCopy"))
            fail(op, f->bir_name, "%s",
                 got ? "block 'd' did not become one DMABlock of DMADescriptorCopy" : e.msg);
        covered++;
        json_decref(got);
        json_decref(inst);
    }
}

/* No field named twice by the opcode's own tables; a special over a schema
 * attribute fills that attribute (a value form, not a second reader). */
static void check_tables(const trn_opcode_desc *d, const bir_opcode_extra *x) {
    for (const char *const *n = x ? x->ignored : NULL; n && *n; ++n)
        if (bir_field_class(d, x, *n) != BIR_FIELD_OPCODE_IGNORED)
            fail(d->name, *n, "%s", "listed as ignored but read by another table");
    for (const bir_special *f = x ? x->special : NULL; f && f->bir_name; ++f) {
        const trn_attr_desc *a = bir_schema_field(d, f->bir_name);
        if (a && strcmp(a->name, f->native_name))
            fail(d->name, f->bir_name, "%s", "a special and a schema attribute");
    }
    for (const char *const *n = x ? x->immediates : NULL; n && *n; ++n)
        if (!trn_schema_find(d, *n))
            fail(d->name, *n, "%s", "an immediate fills no schema attribute");
}

static void one_opcode(trn_sim *s, const trn_opcode_desc *d) {
    const bir_opcode_extra *x = bir_opcode_extra_lookup(d->name);
    json_t *base = json_pack("{s:s, s:s}", "opcode", d->name, "name", "i");
    check_tables(d, x);
    for (uint32_t i = 0; i < d->n_attrs; ++i) {
        const trn_attr_desc *a = &d->attrs[i];
        const char *field = a->bir_name ? a->bir_name : a->name;
        if (!bir_attr_readable(a) || bir_field_class(d, x, field) != BIR_FIELD_SCHEMA) continue;
        json_t *native, *v = value_for(a, &native, x, field);
        if (!v) {
            fail(d->name, field, "%s",
                 "no test value for this attribute's type: add one to value_for");
            continue;
        }
        char bad[200];
        snprintf(bad, sizeof bad, "%sx", json_is_string(v) ? json_string_value(v) : "Nope");
        fields_read++;
        expect(s, d->name, base, field, v, a->name, native);
        if ((a->types & TRN_ATTR_ENUM) && !(a->types & TRN_ATTR_STRING))
            expect_refusal(s, d->name, base, field, bad);
    }
    for (const bir_special *f = x ? x->special : NULL; f && f->bir_name; ++f, ++fields_read)
        special_cases(s, d->name, base, f);
    for (const char *const *n = x ? x->ignored : NULL; n && *n; ++n, ++fields_ignored)
        expect(s, d->name, base, *n, json_string("pool"), NULL, NULL);
    for (const char *const *n = bir_ignored_fields; *n; ++n)
        if (bir_field_class(d, x, *n) == BIR_FIELD_IGNORED) {
            expect(s, d->name, base, *n, json_string("q1"), NULL, NULL);
            fields_ignored++;
        }
    expect(s, d->name, base, bir_uninit_field, json_true(), "allow_uninit_read", json_true());
    fields_read++;
    /* immediate k: the k-th imm_value argument */
    for (int k = 0; x && x->immediates && x->immediates[k]; ++k, ++fields_read) {
        json_t *ins = json_array(), *want = json_object();
        for (int j = 0; j <= k; ++j) {
            json_array_append_new(ins, json_pack("{s:s, s:s, s:f}", "kind", "imm_value", "dtype",
                                                 "float32", "value", 1.5 + j));
            json_object_set_new(want, x->immediates[j], json_real(1.5 + j));
        }
        expect_attrs(s, d->name, base, "ins", ins, want);
    }
    json_decref(base);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bir_field_each MODULE_DIR\n");
        return 2;
    }
    char cfg[1024] = "plugins = (";
    for (const char *const *f = families; *f; ++f)
        snprintf(cfg + strlen(cfg), sizeof cfg - strlen(cfg),
                 "%s{ family = \"%s\"; module = \"trnsim-%s\"; }", f == families ? "" : ", ", *f,
                 *f);
    strcat(cfg, ");");
    trn_sim_opts o = {.config_text = cfg, .module_dir = argv[1]};
    trn_sim *s;
    trn_error e;
    if (trn_sim_open(&s, &o, &e)) {
        fprintf(stderr, "bir_field_each: %s\n", e.msg);
        return 2;
    }
    int opcodes = 0;
    for (uint32_t it = 0; it <= TRN_IT_MAX; ++it)
        if (s->reg.table[it].op) {
            one_opcode(s, s->reg.table[it].op);
            opcodes++;
        }
    trn_sim_close(s);
    printf("%s: %d read and %d ignored fields of %d opcodes, %d cases, %d failing\n",
           failures ? "FAIL" : "ok", fields_read, fields_ignored, opcodes, covered, failures);
    return failures ? 1 : 0;
}
