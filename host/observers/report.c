/* Reports: stats, skip notes, the opcode table and the quirk list. */
#include <inttypes.h>
#include <string.h>

#include "arith/arith.h"
#include "modules/modules.h"
#include "observers/observers.h"
#include "frontend/frontend.h"

/* Quirks of the host and its arithmetic core (modules add their own). */
static const trn_quirk_desc host_quirks[] = {
    {"arith.sse_minmax_accumulator_second", NULL, "always",
     "min/max keep the accumulator on a NaN operand or a tie: max(x, acc) = x > acc ? x : acc (SSE "
     "maxss order)"},
    {"arith.fp8_reduce_config0", NULL, "always",
     "fp8 narrowing uses FP8Config 0: overflow gives Inf (not max-finite), NaN gives the canonical "
     "NaN"},
    {"arith.float32r_not_reducible", NULL, "always",
     "accumulating into float32r (and the other 11 non-reducing dtypes) is the error "
     "'cast_accumulate: unsupported dtype'"},
    {"arith.aluop_minmax_throws", NULL, "always",
     "AluOpType max (8) / min (9) have no MemoryReductionOp; modules may offer an opt-in setting "
     "that maps them"},
    {"arith.bf16_nan_sign_dropped", NULL, "always",
     "any NaN narrows to bf16 0x7fc0, its sign dropped; fp16 keeps the sign (0x7e00)"},
    {"host.skip_and_note", "unknown_opcode", "error",
     "the reference skips opcodes it does not model (InlineASMBytes 93, Rng 100, NonzeroWithCount "
     "104); "
     "unknown_opcode = \"skip\" does the same, \"error\" (default) refuses them"},
    {"host.accumulate_first_write_copies", NULL, "always",
     "an accumulating write into a never-written element stores the value (the reference runAP "
     "'seen' flag)"},
};

static void op_names(const trn_sim *s, const char *names[TRN_IT_MAX + 1]) {
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) {
        const trn_known_op *k = trn_known_op_by_it((uint32_t)it);
        const trn_slot *sl = &trn_sim_registry(s)->table[it];
        names[it] = sl->op ? sl->op->name : k ? k->name : NULL;
    }
}

void trn_sim_print_stats(const trn_sim *s, FILE *out, int json) {
    const char *names[TRN_IT_MAX + 1];
    op_names(s, names);
    trn_stats_print(trn_sim_stats(s), names, out, json);
}

void trn_sim_print_skip_notes(const trn_sim *s, FILE *out) {
    const char *names[TRN_IT_MAX + 1];
    op_names(s, names);
    const trn_program *p = trn_sim_program(s);
    if (p && p->skip_note) fprintf(out, "%s\n", p->skip_note);
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it)
        if (trn_sim_stats(s)->skipped[it])
            fprintf(out,
                    "note: skipped %llu instruction(s) %s (IT %d): no module handles it "
                    "(unknown_opcode = "
                    "\"skip\", the reference's skip-and-note)\n",
                    (unsigned long long)trn_sim_stats(s)->skipped[it], names[it] ? names[it] : "?",
                    it);
}

void trn_sim_print_opcodes(const trn_sim *s, FILE *out) {
    fprintf(out, "%-4s %-26s %-11s %-20s %s\n", "IT", "opcode", "family", "module", "loaded from");
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) {
        const trn_slot *sl = &trn_sim_registry(s)->table[it];
        if (sl->op)
            fprintf(out, "%-4d %-26s %-11s %-20s %s\n", it, sl->op->name, sl->owner->desc->family,
                    sl->owner->desc->name, sl->owner->path);
    }
    if (trn_sim_config(s)->unknown_skip)
        fprintf(out, "every other IT: skipped with a note (unknown_opcode = \"skip\")\n");
}

static void print_quirk(FILE *out, const char *owner, const trn_quirk_desc *q) {
    fprintf(out, "%-40s %-12s %-24s %s: %s\n", q->name, q->def ? q->def : "always",
            q->setting ? q->setting : "-", owner, q->summary ? q->summary : "");
}

void trn_sim_print_quirks(const trn_sim *s, FILE *out) {
    fprintf(out, "%-40s %-12s %-24s %s\n", "quirk", "default", "setting", "owner: meaning");
    for (size_t i = 0; i < sizeof host_quirks / sizeof host_quirks[0]; ++i)
        print_quirk(out, "host", &host_quirks[i]);
    const trn_registry *reg = trn_sim_registry(s);
    for (size_t m = 0; m < reg->n_mods; ++m) {
        const trn_module *mod = &reg->mods[m];
        if (!mod->live) continue;
        for (uint32_t i = 0; i < mod->desc->n_quirks; ++i)
            print_quirk(out, mod->desc->name, &mod->desc->quirks[i]);
    }
}

int trn_sim_write_native(const trn_sim *s, FILE *out, trn_error *e) {
    if (!trn_sim_program(s)) return trn_errorf(e, "no program is loaded");
    json_t *doc = trn_program_to_native(trn_sim_program(s));
    if (!doc) return trn_errorf(e, "out of memory for the native program");
    int rc = json_dumpf(doc, out, JSON_INDENT(1)) || fputc('\n', out) == EOF;
    json_decref(doc);
    return rc ? trn_errorf(e, "cannot write the native program") : 0;
}

int trn_sim_program_is_bir(const trn_sim *s) {
    return trn_sim_program(s) && trn_sim_program(s)->format == TRN_FORMAT_BIR;
}

static const trn_opcode_desc *loaded_schema(void *arg, uint32_t it) {
    const trn_sim *s = arg;
    return it <= TRN_IT_MAX ? trn_sim_registry(s)->table[it].op : NULL;
}

static int resolve_opcode(void *arg, const char *name, uint32_t *it, trn_error *e) {
    return trn_sim_resolve_opcode(arg, name, it, e);
}

int trn_sim_write_bir(const trn_sim *s, FILE *out, trn_error *e) {
    const trn_program *p = trn_sim_program(s);
    if (!p) return trn_errorf(e, "no program is loaded");
    trn_load_opts o = {.machine = &trn_sim_config(s)->machine,
                       .default_cores = trn_sim_config(s)->cores,
                       .resolve = resolve_opcode,
                       .schema = loaded_schema,
                       .arg = (void *)s,
                       .parse_inst = trn_inst_parse};
    json_t *doc;
    if (trn_bir_write(p, &o, &doc, e)) return -1;
    int rc = json_dumpf(doc, out, JSON_INDENT(1)) || fputc('\n', out) == EOF;
    json_decref(doc);
    return rc ? trn_errorf(e, "cannot write the BIR program") : 0;
}

/* Per opcode: instruction entries and executions per core. */
void trn_sim_print_summary(const trn_sim *s, FILE *out) {
    const trn_program *p = trn_sim_program(s);
    if (!p) return;
    const trn_program_summary *m = &p->summary;
    static uint64_t entries[TRN_IT_MAX + 1], runs[TRN_IT_MAX + 1];
    memset(entries, 0, sizeof entries);
    memset(runs, 0, sizeof runs);
    uint64_t mult[64] = {1};
    int depth = 0;
    for (size_t i = 0; i < p->n_insts; ++i) {
        const trn_inst *in = &p->insts[i];
        if (in->kind == TRN_INST_LOOP && depth < 63) {
            uint64_t r;
            mult[depth + 1] =
                __builtin_mul_overflow(mult[depth], (uint64_t)in->loop.trips, &r) ? UINT64_MAX : r;
            ++depth;
        } else if (in->kind == TRN_INST_END && depth > 0) {
            --depth;
        } else if (in->kind == TRN_INST_OP) {
            entries[in->it]++;
            runs[in->it] += mult[depth];
        }
    }
    fprintf(out, "format: %s\n", p->format == TRN_FORMAT_BIR ? "bir" : "native");
    fprintf(out, "%s: %d\n", p->format == TRN_FORMAT_BIR ? "allocations" : "tensors",
            m->allocations);
    fprintf(out, "instructions: %zu\n", m->instructions);
    fprintf(out, "loops: %zu (trips %" PRIu64 " in all)\n", m->loops, m->loop_trips);
    fprintf(out, "executions per core: %" PRIu64 "\n", m->executions);
    fprintf(out, "opcodes (instructions, executions per core):\n");
    const char *names[TRN_IT_MAX + 1];
    op_names(s, names);
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it)
        if (entries[it])
            fprintf(out, "  %-26s %8" PRIu64 " %12" PRIu64 "\n", names[it] ? names[it] : "?",
                    entries[it], runs[it]);
}
