/* Reports: stats, skip notes, the opcode table and the quirk list. */
#include <inttypes.h>
#include <string.h>

#include "arith/arith.h"
#include "runtime/opnames.h"
#include "runtime/sim_internal.h"

/* Quirks of the host and its arithmetic core (modules add their own). */
static const trn_quirk_desc host_quirks[] = {
    {"arith.sse_minmax_accumulator_second", NULL, "always",
     "min/max keep the accumulator on a NaN operand or a tie: max(x, acc) = x > acc ? x : acc (SSE maxss order)"},
    {"arith.fp8_reduce_config0", NULL, "always",
     "fp8 narrowing uses FP8Config 0: overflow gives Inf (not max-finite), NaN gives the canonical NaN"},
    {"arith.float32r_not_reducible", NULL, "always",
     "accumulating into float32r (and the other 11 non-reducing dtypes) is the error 'cast_accumulate: unsupported dtype'"},
    {"arith.aluop_minmax_throws", NULL, "always",
     "AluOpType max (8) / min (9) have no MemoryReductionOp; modules may offer an opt-in setting that maps them"},
    {"arith.bf16_nan_sign_dropped", NULL, "always", "any NaN narrows to bf16 0x7fc0, its sign dropped; fp16 keeps the sign (0x7e00)"},
    {"host.skip_and_note", "unknown_opcode", "error",
     "the reference skips opcodes it does not model (InlineASMBytes 93, Rng 100, NonzeroWithCount 104); "
     "unknown_opcode = \"skip\" does the same, \"error\" (default) refuses them"},
    {"host.accumulate_first_write_copies", NULL, "always",
     "an accumulating write into a never-written element stores the value (the reference runAP 'seen' flag)"},
};

uint32_t trn_sim_cores(const trn_sim *s) { return s->ncores; }
uint64_t trn_sim_executions(const trn_sim *s) {
    return s->have_prog ? s->prog.summary.executions : 0;
}
const char *trn_sim_program_path(const trn_sim *s) { return s->have_prog ? s->prog.path : ""; }

int trn_sim_tensor_info(const trn_sim *s, const char *name, trn_tensor_info *out, trn_error *e) {
    int i = s->have_prog ? trn_program_find_tensor(&s->prog, name) : 0;
    if (!s->have_prog || i >= s->prog.n_tensors)
        return trn_errorf(e, "%s: no tensor named '%s'", trn_sim_program_path(s), name);
    const trn_tensor *t = &s->prog.tensors[i];
    *out = (trn_tensor_info){t->name, (int)t->dtype, t->ndim, t->shape, t->count};
    return 0;
}

int trn_sim_tensor_count(const trn_sim *s) { return s->have_prog ? s->prog.n_tensors : 0; }

int trn_sim_tensor_at(const trn_sim *s, int index, trn_tensor_info *out, trn_error *e) {
    if (index < 0 || index >= trn_sim_tensor_count(s))
        return trn_errorf(e, "tensor index %d is outside 0..%d", index, trn_sim_tensor_count(s) - 1);
    return trn_sim_tensor_info(s, s->prog.tensors[index].name, out, e);
}

const char *trn_sim_config_file(const trn_sim *s) { return s->cfg.file ? s->cfg.file : ""; }

static void op_names(const trn_sim *s, const char *names[TRN_IT_MAX + 1]) {
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) {
        const trn_known_op *k = trn_known_op_by_it((uint32_t)it);
        names[it] = s->table[it].op ? s->table[it].op->name : k ? k->name : NULL;
    }
}

void trn_sim_print_stats(const trn_sim *s, FILE *out, int json) {
    const char *names[TRN_IT_MAX + 1];
    op_names(s, names);
    trn_stats_print(&s->stats, names, out, json);
}

void trn_sim_print_skip_notes(const trn_sim *s, FILE *out) {
    const char *names[TRN_IT_MAX + 1];
    op_names(s, names);
    if (s->have_prog && s->prog.skip_note) fprintf(out, "%s\n", s->prog.skip_note);
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it)
        if (s->stats.skipped[it])
            fprintf(out, "note: skipped %llu instruction(s) %s (IT %d): no module handles it (unknown_opcode = "
                    "\"skip\", the reference's skip-and-note)\n", (unsigned long long)s->stats.skipped[it],
                    names[it] ? names[it] : "?", it);
}

void trn_sim_print_opcodes(const trn_sim *s, FILE *out) {
    fprintf(out, "%-4s %-26s %-11s %-20s %s\n", "IT", "opcode", "family", "module", "loaded from");
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) {
        const trn_slot *sl = &s->table[it];
        if (sl->op)
            fprintf(out, "%-4d %-26s %-11s %-20s %s\n", it, sl->op->name, sl->owner->desc->family,
                    sl->owner->desc->name, sl->owner->path);
    }
    if (s->cfg.unknown_skip) fprintf(out, "every other IT: skipped with a note (unknown_opcode = \"skip\")\n");
}

static void print_quirk(FILE *out, const char *owner, const trn_quirk_desc *q) {
    fprintf(out, "%-40s %-12s %-24s %s: %s\n", q->name, q->def ? q->def : "always", q->setting ? q->setting : "-",
            owner, q->summary ? q->summary : "");
}

void trn_sim_print_quirks(const trn_sim *s, FILE *out) {
    fprintf(out, "%-40s %-12s %-24s %s\n", "quirk", "default", "setting", "owner: meaning");
    for (size_t i = 0; i < sizeof host_quirks / sizeof host_quirks[0]; ++i) print_quirk(out, "host", &host_quirks[i]);
    for (size_t m = 0; m < s->n_mods; ++m) {
        const trn_module *mod = &s->mods[m];
        if (!mod->live) continue;
        for (uint32_t i = 0; i < mod->desc->n_quirks; ++i) print_quirk(out, mod->desc->name, &mod->desc->quirks[i]);
    }
}

int trn_sim_write_native(const trn_sim *s, FILE *out, trn_error *e) {
    if (!s->have_prog) return trn_errorf(e, "no program is loaded");
    json_t *doc = trn_program_to_native(&s->prog);
    if (!doc) return trn_errorf(e, "out of memory for the native program");
    int rc = json_dumpf(doc, out, JSON_INDENT(1)) || fputc('\n', out) == EOF;
    json_decref(doc);
    return rc ? trn_errorf(e, "cannot write the native program") : 0;
}

int trn_sim_program_is_bir(const trn_sim *s) { return s->have_prog && s->prog.format == TRN_FORMAT_BIR; }

/* Per opcode: instruction entries and executions per core. */
void trn_sim_print_summary(const trn_sim *s, FILE *out) {
    if (!s->have_prog) return;
    const trn_program *p = &s->prog;
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
            mult[depth + 1] = __builtin_mul_overflow(mult[depth], (uint64_t)in->loop.trips, &r) ? UINT64_MAX : r;
            ++depth;
        } else if (in->kind == TRN_INST_END && depth > 0) {
            --depth;
        } else if (in->kind == TRN_INST_OP) {
            entries[in->it]++;
            runs[in->it] += mult[depth];
        }
    }
    fprintf(out, "format: %s\n", p->format == TRN_FORMAT_BIR ? "bir" : "native");
    fprintf(out, "%s: %d\n", p->format == TRN_FORMAT_BIR ? "allocations" : "tensors", m->allocations);
    fprintf(out, "instructions: %zu\n", m->instructions);
    fprintf(out, "loops: %zu (trips %" PRIu64 " in all)\n", m->loops, m->loop_trips);
    fprintf(out, "executions per core: %" PRIu64 "\n", m->executions);
    fprintf(out, "opcodes (instructions, executions per core):\n");
    const char *names[TRN_IT_MAX + 1];
    op_names(s, names);
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it)
        if (entries[it])
            fprintf(out, "  %-26s %8" PRIu64 " %12" PRIu64 "\n", names[it] ? names[it] : "?", entries[it], runs[it]);
}
