/* The BIR reader reads straight into the loaded program. This checks, for
 * each hand-written BIR kernel, that the program it loads is the one
 *   1. its own conversion loads (trnsim convert, read back as native), entry
 *      for entry and attribute for attribute, and
 *   2. the conversion the earlier reader wrote loads (programs/NAME.old.json:
 *      that reader translated BIR into a native document and read that), with
 *      attributes compared by meaning: an enum by its entry (the earlier
 *      reader wrote numbers, this one writes names), a descriptor list
 *      instruction by instruction.
 *
 * With --native / --bir CONFIG FILE..., each program is instead read both
 * ways its reader can (the text fast path and the whole-document path, the
 * oracle), and the two loaded programs must be the same, or both refused
 * with the same message. --generated CONFIG N does that for N generated BIR
 * files and mutations of them (bir_generate.c).
 *
 *   bir_load_compare MODULE_DIR tests/bir
 *   bir_load_compare MODULE_DIR --native|--bir CONFIG FILE...
 *   bir_load_compare MODULE_DIR --generated CONFIG N
 *
 * Exit 1 naming the first difference of each case. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bir_generate.h"
#include "modules/modules.h"
#include "exec/exec_test.h"
#include "frontend/frontend.h"

typedef struct kase {
    const char *name, *config;
} kase;

static const kase CASES[] = {
    {"topk64", "../../config/topk.cfg"},     {"bn_tiles", "configs/bn.cfg"},
    {"rng_state", "configs/rng.cfg"},        {"allreduce_scatter", "configs/coll4.cfg"},
    {"dma_trigger", "../../config/dma.cfg"},
};

static char why[1024];

static int differ(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int differ(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return 0;
}

static int same_ap(const trn_ap *a, const trn_ap *b) {
    if (a->mem != b->mem || a->dtype != b->dtype || a->part_start != b->part_start ||
        a->part_count != b->part_count || a->part_step != b->part_step || a->offset != b->offset ||
        a->ndims != b->ndims)
        return 0;
    for (uint32_t d = 0; d < a->ndims; ++d)
        if (a->dims[d].step != b->dims[d].step || a->dims[d].num != b->dims[d].num) return 0;
    return 1;
}

static int same_operands(const trn_operand *a, const trn_operand *b, int n) {
    for (int i = 0; i < n; ++i)
        if (!same_ap(&a[i].ap, &b[i].ap) || a[i].tensor != b[i].tensor ||
            a[i].offset_register != b[i].offset_register || a[i].core != b[i].core ||
            a[i].core_offset != b[i].core_offset)
            return 0;
    return 1;
}

static bool host_key(const char *k) {
    for (const char *const *h = trn_instruction_keys; *h; ++h)
        if (!strcmp(*h, k)) return true;
    return false;
}

static int same_inst(trn_sim *s, const trn_inst *a, const trn_inst *b, bool strict);

/* Two instruction lists (descriptors, blocks), each element parsed as the dispatcher does. */
static int same_list(trn_sim *s, const json_t *x, const json_t *y, bool strict) {
    if (json_array_size(x) != json_array_size(y))
        return differ("lists of %zu and %zu instructions", json_array_size(x), json_array_size(y));
    for (size_t i = 0; i < json_array_size(x); ++i) {
        trn_inst p, q;
        trn_error e;
        if (trn_inst_parse(&s->prog, json_array_get(x, i), &p, trn_dispatch_resolve_name, s, &e))
            return differ("list entry %zu does not parse: %s", i, e.msg);
        if (trn_inst_parse(&s->prog, json_array_get(y, i), &q, trn_dispatch_resolve_name, s, &e)) {
            trn_inst_free(&p);
            return differ("list entry %zu does not parse: %s", i, e.msg);
        }
        int ok = same_inst(s, &p, &q, strict);
        trn_inst_free(&p);
        trn_inst_free(&q);
        if (!ok) return 0;
    }
    return 1;
}

static int same_value(trn_sim *s, const trn_inst *a, const char *key, const json_t *x,
                      const json_t *y, bool strict) {
    if (x && y && json_equal(x, y)) return 1;
    const trn_attr_desc *d =
        s->reg.table[a->it].op ? trn_schema_find(s->reg.table[a->it].op, key) : NULL;
    if (!strict && d && x && y && (d->types & TRN_ATTR_ENUM)) {
        const trn_enum_desc *ex = trn_schema_enum_entry(d, x), *ey = trn_schema_enum_entry(d, y);
        if (ex && ex == ey) return 1;
    }
    if (d && (d->types & TRN_ATTR_INSTRUCTIONS) && json_is_array(x) && json_is_array(y))
        return same_list(s, x, y, strict);
    char *tx = x ? json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT) : NULL,
         *ty = y ? json_dumps(y, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    differ("attribute '%s': %.200s vs %.200s", key, tx ? tx : "(absent)", ty ? ty : "(absent)");
    free(tx);
    free(ty);
    return 0;
}

/* Rand's distribution, params and rand_num_steps: the earlier reader
 * dropped them, this one reads them through the schema, and the module
 * accepts and ignores them (Rand writes raw bits, quirk rng.rand_raw_bits). */
static bool only_new(trn_sim *s, const trn_inst *a, const char *key, bool strict) {
    const char *op = s->reg.table[a->it].op ? s->reg.table[a->it].op->name : "";
    return !strict && !strcmp(op, "Rand") &&
           (!strcmp(key, "distribution") || !strcmp(key, "params") ||
            !strcmp(key, "rand_num_steps"));
}

static int same_attrs(trn_sim *s, const trn_inst *a, const trn_inst *b, bool strict) {
    const char *key;
    json_t *v;
    json_object_foreach(a->obj, key, v) {
        if (host_key(key) || (only_new(s, a, key, strict) && !json_object_get(b->obj, key)))
            continue;
        if (!same_value(s, a, key, v, json_object_get(b->obj, key), strict)) return 0;
    }
    json_object_foreach(b->obj, key, v) {
        if (!host_key(key) && !json_object_get(a->obj, key))
            return same_value(s, a, key, NULL, v, strict);
    }
    return 1;
}

static int same_inst(trn_sim *s, const trn_inst *a, const trn_inst *b, bool strict) {
    if (a->kind != b->kind || a->it != b->it)
        return differ("kind/IT %d/%u vs %d/%u", a->kind, a->it, b->kind, b->it);
    if (a->kind != TRN_INST_OP)
        return a->jump == b->jump && a->loop.trips == b->loop.trips &&
                       a->loop.start == b->loop.start && a->loop.step == b->loop.step &&
                       a->loop.reg == b->loop.reg && a->loop.id == b->loop.id
                   ? 1
                   : differ("loop entries differ");
    if (a->n_in != b->n_in || a->n_out != b->n_out || !same_operands(a->in, b->in, a->n_in) ||
        !same_operands(a->out, b->out, a->n_out))
        return differ("operands differ (%d/%d vs %d/%d)", a->n_in, a->n_out, b->n_in, b->n_out);
    if (a->allow_uninit != b->allow_uninit) return differ("allow_uninit_read differs");
    return same_attrs(s, a, b, strict);
}

static int same_program(trn_sim *s, const trn_program *a, const trn_program *b, bool strict) {
    if (a->n_tensors != b->n_tensors) return differ("%d vs %d tensors", a->n_tensors, b->n_tensors);
    for (int i = 0; i < a->n_tensors; ++i) {
        const trn_tensor *x = &a->tensors[i], *y = &b->tensors[i];
        if (strcmp(x->name, y->name) || x->mem != y->mem || x->dtype != y->dtype ||
            x->ndim != y->ndim || x->partition != y->partition ||
            x->offset_bytes != y->offset_bytes || !same_ap(&x->ap, &y->ap) ||
            memcmp(x->shape, y->shape, sizeof x->shape))
            return differ("tensor %d ('%s') differs", i, x->name);
    }
    if (a->n_insts != b->n_insts) return differ("%zu vs %zu entries", a->n_insts, b->n_insts);
    for (size_t i = 0; i < a->n_insts; ++i) {
        if (a->insts[i].number != b->insts[i].number) return differ("entry %zu: numbers differ", i);
        if (!same_inst(s, &a->insts[i], &b->insts[i], strict)) {
            char w[sizeof why];
            snprintf(w, sizeof w, "%s", why);
            return differ("entry %zu (%s): %s", i, a->insts[i].where ? a->insts[i].where : "-", w);
        }
    }
    return 1;
}

static trn_sim *open_sim(const char *module_dir, const char *config) {
    trn_sim_opts o = {.config_path = config, .module_dir = module_dir};
    trn_sim *s;
    trn_error e;
    if (trn_sim_open(&s, &o, &e)) {
        fprintf(stderr, "bir_load_compare: %s\n", e.msg);
        exit(2);
    }
    return s;
}

static int one_case(const char *module_dir, const char *dir, const kase *k) {
    char bir[1024], old[1024], cfg[1024];
    snprintf(bir, sizeof bir, "%s/programs/%s.bir.json", dir, k->name);
    snprintf(old, sizeof old, "%s/programs/%s.old.json", dir, k->name);
    snprintf(cfg, sizeof cfg, "%s/%s", dir, k->config);
    trn_sim *sb = open_sim(module_dir, cfg), *sc = open_sim(module_dir, cfg),
            *so = open_sim(module_dir, cfg);
    trn_error e;
    int ok = 0;
    char *text = NULL;
    if (trn_sim_load_program(sb, bir, &e) || trn_sim_load_program(so, old, &e)) {
        printf("FAIL: %s: %s\n", k->name, e.msg);
        goto done;
    }
    json_t *doc = trn_program_to_native(&sb->prog);
    text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text || trn_sim_load_program_text(sc, text, "conversion", &e)) {
        printf("FAIL: %s: its conversion does not load: %s\n", k->name,
               text ? e.msg : "out of memory");
        goto done;
    }
    if (!same_program(sb, &sb->prog, &sc->prog, true))
        printf("FAIL: %s: BIR vs its conversion: %s\n", k->name, why);
    else if (!same_program(sb, &sb->prog, &so->prog, false))
        printf("FAIL: %s: BIR vs the earlier reader's conversion: %s\n", k->name, why);
    else {
        printf("ok: %s: %zu entries, %d tensors the same three ways\n", k->name, sb->prog.n_insts,
               sb->prog.n_tensors);
        ok = 1;
    }
done:
    free(text);
    trn_sim_close(sb);
    trn_sim_close(sc);
    trn_sim_close(so);
    return ok;
}

static const trn_opcode_desc *schema_of(void *arg, uint32_t it) {
    return ((trn_sim *)arg)->reg.table[it].op;
}

/* The BIR function to run (NULL: the file's only one). */
static const char *function_to_run;

/* As the simulator loads a program (sim.c), from a file or a text. */
static int load_opts(trn_sim *s, const char *file, const char *text, bool document, trn_program *p,
                     trn_error *e) {
    char families[256];
    trn_load_opts o = {.machine = &s->cfg.machine,
                       .default_cores = s->cfg.cores,
                       .max_executions = s->cfg.max_executions,
                       .unknown_skip = s->cfg.unknown_skip,
                       .families = trn_loader_families(&s->reg, families, sizeof families),
                       .resolve = trn_dispatch_resolve_name,
                       .handled = trn_dispatch_handled,
                       .schema = schema_of,
                       .arg = s,
                       .function = function_to_run,
                       .document_only = document};
    return trn_program_load(p, file, text, &o, e);
}

/* The instructions' context strings (BIR: function, block path, name). */
static int same_where(const trn_program *a, const trn_program *b) {
    for (size_t i = 0; i < a->n_insts && i < b->n_insts; ++i) {
        const char *x = a->insts[i].where, *y = b->insts[i].where;
        if ((x || y) && (!x || !y || strcmp(x, y)))
            return differ("entry %zu: context '%s' vs '%s'", i, x ? x : "-", y ? y : "-");
    }
    return a->summary.allocations == b->summary.allocations ? 1
                                                            : differ("allocation counts differ");
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* What the native readers keep as written: the opcode name and the comment
 * (the document path's comment is in the entry's object). */
static int same_names(const trn_program *a, const trn_program *b) {
    for (size_t i = 0; i < a->n_insts; ++i) {
        const trn_inst *x = &a->insts[i], *y = &b->insts[i];
        const char *cx =
            x->comment ? x->comment : json_string_value(json_object_get(x->obj, "comment"));
        const char *cy =
            y->comment ? y->comment : json_string_value(json_object_get(y->obj, "comment"));
        if (!same_text(x->opname, y->opname)) return differ("entry %zu: opcode names differ", i);
        if (x->kind == TRN_INST_OP && !same_text(cx, cy))
            return differ("entry %zu: comments differ", i);
    }
    return 1;
}

/* Fast path against the document path; a file both refuse must get the same
 * message. *fast_read: the entries the fast path read itself. */
static int compare_readers(trn_sim *s, const char *file, const char *text, const char *label,
                           size_t *fast_read) {
    trn_program fast, doc;
    trn_error ef, ed;
    int rf = load_opts(s, file, text, false, &fast, &ef),
        rd = load_opts(s, file, text, true, &doc, &ed);
    int ok = 0;
    *fast_read = 0;
    if (rf || rd) {
        ok = rf && rd && !strcmp(ef.msg, ed.msg);
        if (!ok)
            printf("FAIL: %s: fast: %s / document: %s\n", label, rf ? ef.msg : "loads",
                   rd ? ed.msg : "loads");
    } else if (!same_program(s, &fast, &doc, true) || !same_where(&fast, &doc) ||
               (fast.format == TRN_FORMAT_NATIVE && !same_names(&fast, &doc))) {
        printf("FAIL: %s: fast vs document reading: %s\n", label, why);
    } else if (fast.format != doc.format ||
               ((fast.skip_note || doc.skip_note) &&
                (!fast.skip_note || !doc.skip_note || strcmp(fast.skip_note, doc.skip_note)))) {
        printf("FAIL: %s: format or skip note differs\n", label);
    } else {
        for (size_t i = 0; i < fast.n_insts; ++i) *fast_read += fast.insts[i].shared_operands;
        ok = 1;
    }
    if (!rf) trn_program_free(&fast);
    if (!rd) trn_program_free(&doc);
    return ok;
}

static int native_case(const char *module_dir, const char *config, const char *file) {
    trn_sim *s = open_sim(module_dir, config);
    size_t shared;
    int ok = compare_readers(s, file, NULL, file, &shared);
    if (ok)
        printf("ok: %s: the same both ways (%zu entries read by the fast path)\n", file, shared);
    trn_sim_close(s);
    return ok;
}

/* N generated BIR files (each must load, mostly by the fast path) and
 * MUTATIONS byte-level mutations of each (loaded alike or refused alike). */
#define MUTATIONS 6
static int generated_cases(const char *module_dir, const char *config, int n) {
    trn_sim *s = open_sim(module_dir, config);
    int fails = 0, refused = 0, mutated_loads = 0;
    size_t entries = 0, fast = 0;
    for (int i = 0; i < n && fails < 5; ++i) {
        char *text = bir_generate((uint32_t)i + 1, &function_to_run), label[64];
        size_t f;
        snprintf(label, sizeof label, "generated file %d", i);
        trn_program p;
        trn_error e;
        if (load_opts(s, "generated.bir.json", text, true, &p, &e)) {
            printf("FAIL: %s does not load: %s\n", label, e.msg);
            fails++;
        } else {
            for (size_t k = 0; k < p.n_insts; ++k) entries += p.insts[k].kind == TRN_INST_OP;
            trn_program_free(&p);
            if (!compare_readers(s, "generated.bir.json", text, label, &f)) fails++;
            fast += f;
        }
        for (int m = 0; m < MUTATIONS; ++m) {
            char *bad = bir_mutate(text, (uint32_t)(i * MUTATIONS + m) + 1);
            snprintf(label, sizeof label, "generated file %d, mutation %d", i, m);
            if (!compare_readers(s, "generated.bir.json", bad, label, &f)) fails++;
            if (load_opts(s, "generated.bir.json", bad, true, &p, &e))
                refused++;
            else {
                mutated_loads++;
                trn_program_free(&p);
            }
            free(bad);
        }
        free(text);
    }
    trn_sim_close(s);
    /* the comparison means something only if the fast path did most of the reading */
    if (!fails && fast * 3 < entries * 2) {
        printf("FAIL: the fast path read %zu of %zu generated instructions (expected two thirds or "
               "more)\n",
               fast, entries);
        fails++;
    }
    printf("%s: %d generated files, %zu instructions (%zu read by the fast path); %d mutations: %d "
           "refused alike, %d "
           "loaded alike\n",
           fails ? "FAIL" : "ok", n, entries, fast, n * MUTATIONS, refused, mutated_loads);
    return fails ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc > 4 && !strcmp(argv[2], "--generated"))
        return generated_cases(argv[1], argv[3], atoi(argv[4]));
    if (argc > 3 && (!strcmp(argv[2], "--native") || !strcmp(argv[2], "--bir"))) {
        int fails = 0;
        for (int i = 4; i < argc; ++i) fails += !native_case(argv[1], argv[3], argv[i]);
        return fails ? 1 : 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: bir_load_compare MODULE_DIR tests/bir\n");
        return 2;
    }
    int fails = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; ++i)
        fails += !one_case(argv[1], argv[2], &CASES[i]);
    return fails ? 1 : 0;
}
