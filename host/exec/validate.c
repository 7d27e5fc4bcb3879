/* A loaded program checked against the loaded modules before anything
 * runs: every opcode has a handler (or may be skipped), every operand fits
 * the budget and its memory, and every opcode's own static check passes on
 * every core, in file order, with the message the run would give. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/exec.h"
#include "exec/exec_int.h"
#include "modules/modules.h"
#include "program/program.h"

/* The loaded opcode a sub-instruction object names (NULL: none loaded). */
int trn_exec_lookup_sub(void *arg, const json_t *inst, const trn_opcode_desc **op, trn_error *e) {
    trn_sim *s = arg;
    const json_t *o = json_object_get(inst, "opcode");
    uint32_t it;
    if (json_is_integer(o) && json_integer_value(o) >= 0 && json_integer_value(o) <= TRN_IT_MAX)
        it = (uint32_t)json_integer_value(o);
    else if (json_is_integer(o))
        return trn_errorf(e, "opcode %" PRId64 " is outside 0..%u", (int64_t)json_integer_value(o),
                          TRN_IT_MAX);
    else if (json_is_string(o)) {
        if (trn_dispatch_resolve_name(s, json_string_value(o), &it, e)) return -1;
    } else
        return trn_errorf(e, "'opcode' must be a name or an IT number");
    *op = s->reg.table[it].op;
    return 0;
}

const char *trn_exec_op_name(const trn_sim *s, uint32_t it) {
    if (s->reg.table[it].op) return s->reg.table[it].op->name;
    const trn_known_op *k = trn_known_op_by_it(it);
    return k ? k->name : "?";
}

/* The live module of a family, or NULL. */
static const trn_module *family_module(const trn_sim *s, const char *family) {
    for (size_t i = 0; i < s->reg.n_mods; ++i)
        if (s->reg.mods[i].live && strcmp(s->reg.mods[i].desc->family, family) == 0)
            return &s->reg.mods[i];
    return NULL;
}

/* Why an instruction with no handler cannot run; 0 if it may be skipped. */
int trn_exec_unhandled(const trn_sim *s, uint32_t it, trn_error *e) {
    const trn_known_op *k = trn_known_op_by_it(it);
    char fams[256];
    trn_loader_families(&s->reg, fams, sizeof fams);
    const trn_module *owner = k && k->family ? family_module(s, k->family) : NULL;
    if (owner) { /* the family is loaded, its module lacks the opcode: like any unhandled opcode */
        if (s->cfg.unknown_skip) return 0;
        return trn_errorf(
            e,
            "opcode %s (IT %u) of family '%s' is not implemented by the loaded module '%s'; set "
            "unknown_opcode = \"skip\" to skip it",
            k->name, it, k->family, owner->desc->name);
    }
    if (k && k->family && !trn_family_built(k->family)) {
        char hint[300];
        return trn_errorf(e,
                          "opcode %s (IT %u) belongs to family '%s', which this trnsim was built "
                          "without (loaded: "
                          "%s); configure the build with %s to add it",
                          k->name, it, k->family, fams,
                          trn_family_build_hint(k->family, hint, sizeof hint));
    }
    if (k && k->family)
        return trn_errorf(e,
                          "opcode %s (IT %u) belongs to family '%s', which the config does not "
                          "load (loaded: %s); "
                          "add { family = \"%s\"; module = \"trnsim-%s\"; } to plugins",
                          k->name, it, k->family, fams, k->family, k->family);
    if (s->cfg.unknown_skip) return 0;
    return trn_errorf(
        e,
        "no loaded module handles opcode %s (IT %u) (loaded families: %s); set unknown_opcode = "
        "\"skip\" for the reference's skip-and-note",
        trn_exec_op_name(s, it), it, fams);
}

/* " (WHERE)" of an instruction with BIR context, else "". */
static void inst_where(const trn_inst *in, char *buf, size_t len) {
    buf[0] = 0;
    if (in->where) snprintf(buf, len, " (%s)", in->where);
}

/* Interned operand lists (shared by many instructions) whose bounds check
 * passed, direct-mapped by address, with their budget sums: both depend
 * only on the list and the machine, so a repeat is not checked again. */
#define CHECKED_LISTS 256
typedef struct checked_list {
    const trn_operand *ops; /* NULL: free */
    trn_budget_sum sum;
} checked_list;

static checked_list *list_memo(checked_list *memo, const trn_inst *in, const trn_operand *ops) {
    if (!in->shared_operands || !ops) return NULL;
    return &memo[(size_t)(((uintptr_t)ops >> 4) * 0x9e3779b97f4a7c15ull >> 56) &
                 (CHECKED_LISTS - 1)];
}

/* The operands' budget (*scratch: their working memory) then their bounds,
 * each list's once; d_fail / k_fail name the operand that failed its bounds. */
static int check_operands(const trn_program *p, const trn_machine *m, uint64_t limit,
                          const trn_ap_env *env, checked_list *memo, const trn_inst *in,
                          bool streams, uint64_t *scratch, int *d_fail, int *k_fail, trn_error *e) {
    checked_list *slot[2];
    bool known[2];
    trn_budget_sum sum[2];
    *k_fail = -1;
    for (int d = 0; d < 2; ++d) {
        const trn_operand *ops = d ? in->out : in->in;
        slot[d] = list_memo(memo, in, ops);
        known[d] = slot[d] && slot[d]->ops == ops;
        if (known[d])
            sum[d] = slot[d]->sum;
        else
            trn_budget_list(ops, d ? in->n_out : in->n_in, &sum[d]);
    }
    /* The usual instruction: every operand within one piece and the budget,
     * where streaming changes no charge. */
    uint64_t fits = limit < TRN_STREAM_PIECE_BYTES ? limit : TRN_STREAM_PIECE_BYTES;
    if (sum[0].largest <= fits && sum[1].largest <= fits)
        *scratch = sum[0].whole + sum[1].whole;
    else if (trn_budget_charge(m, in, streams, sum, scratch, e))
        return -1;
    for (int d = 0; d < 2; ++d) {
        if (known[d]) continue; /* the same interned list passed before */
        const trn_operand *ops = d ? in->out : in->in;
        for (int k = 0; k < (d ? in->n_out : in->n_in); ++k) {
            trn_ap ap = ops[k].ap;
            ap.core = 0;
            if (ops[k].offset_register >= 0 ||
                (trn_ap_check(env, &ap, e) == 0 &&
                 (ops[k].tensor < 0 || trn_tensor_check_ap(p, ops[k].tensor, &ap, e) == 0)))
                continue;
            *d_fail = d;
            *k_fail = k;
            return -1;
        }
        if (slot[d]) *slot[d] = (checked_list){ops, sum[d]};
    }
    return 0;
}

/* Static checks of a loaded program: opcodes available, operands within
 * the budget and in bounds. */
int trn_dispatch_check_program(trn_sim *s, trn_error *e) {
    const trn_program *p = &s->prog;
    trn_core_state fake = {0};
    trn_machine m = s->cfg.machine;
    uint64_t bytes[3] = {m.sbuf_partition_bytes, m.psum_partition_bytes, m.hbm_bytes};
    for (int i = 0; i < 3; ++i) {
        fake.mem[i].partitions = i == TRN_MEM_HBM ? 1 : m.partitions;
        fake.mem[i].partition_bytes = bytes[i];
    }
    trn_ap_env env = {.cores = &fake, .ncores = 1, .allow_uninit = true};
    checked_list memo[CHECKED_LISTS] = {{0}};
    uint64_t limit = trn_budget_instruction_limit(&m);
    s->max_scratch = 0;
    for (size_t i = 0; i < p->n_insts; ++i) {
        const trn_inst *in = &p->insts[i];
        if (in->kind != TRN_INST_OP) continue;
        char where[TRN_ERROR_MAX / 2];
        inst_where(in, where, sizeof where);
        /* BIR messages state the core of every finding (docs/bir.md, "Messages"):
         * these do not depend on it */
        const char *core = in->where ? "every core, " : "";
        const char *name = trn_exec_op_name(s, in->it);
        const trn_slot *slot = &s->reg.table[in->it];
        if (!slot->op && trn_exec_unhandled(s, in->it, e)) {
            trn_error_at(e, in->number, -1, in->it);
            if (in->where)
                return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (every core, opcode %s)",
                                        p->path, in->number, where, name);
            return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s", p->path, in->number, where);
        }
        if (slot->op && trn_schema_validate(slot->op, in->obj, trn_exec_lookup_sub, s, e)) {
            trn_error_at(e, in->number, -1, in->it);
            return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (%sopcode %s/%u, family %s)",
                                    p->path, in->number, where, core, name, in->it,
                                    slot->owner->desc->family);
        }
        uint64_t scratch;
        int d, k;
        bool streams = slot->op && (slot->op->flags & TRN_OPF_STREAMS);
        if (check_operands(p, &m, limit, &env, memo, in, streams, &scratch, &d, &k, e)) {
            trn_error_at(e, in->number, -1, in->it);
            if (k < 0) /* the budget's */
                return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (%sopcode %s/%u)",
                                        p->path, in->number, where, core, name, in->it);
            return trn_error_prefix(
                e, "%s: instruction %" PRIu64 "%s (%sopcode %s/%u, family %s), %s[%d]", p->path,
                in->number, where, core, name, in->it, slot->op ? slot->owner->desc->family : "-",
                d ? "outputs" : "inputs", k);
        }
        if (scratch > s->max_scratch) s->max_scratch = scratch;
    }
    return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

#define MAX_CHECK_DEPTH 64 /* deeper than either reader allows */

/* Every instruction's static check on every core, in file order, before
 * anything executes; the message is the one the run would give. The index
 * a core's stream gives each entry when it first runs (what run's messages
 * say) is kept in one pass: a loop adds its body's executions times its
 * trips once its END is passed; inside a loop of 0 trips nothing runs. */
int trn_dispatch_static_checks(trn_sim *s, trn_error *e) {
    uint64_t n = 0, head_n[MAX_CHECK_DEPTH];
    int64_t head_trips[MAX_CHECK_DEPTH];
    int depth = 0, dead = 0;
    for (size_t i = 0; i < s->prog.n_insts; ++i) {
        const trn_inst *in = &s->prog.insts[i];
        if (in->kind == TRN_INST_LOOP || in->kind == TRN_INST_END) {
            if (depth >= MAX_CHECK_DEPTH && in->kind == TRN_INST_LOOP)
                return trn_errorf(e, "%s: loops nested deeper than %d", s->prog.path,
                                  MAX_CHECK_DEPTH);
            if (in->kind == TRN_INST_LOOP) {
                head_n[depth] = n;
                head_trips[depth++] = in->loop.trips;
                dead += in->loop.trips < 1;
            } else {
                --depth;
                dead -= head_trips[depth] < 1;
                uint64_t body = n - head_n[depth], trips = (uint64_t)head_trips[depth];
                n = sat_add(head_n[depth],
                            body && trips > UINT64_MAX / body ? UINT64_MAX : body * trips);
            }
            continue;
        }
        uint64_t index = dead ? UINT64_MAX : n;
        n = sat_add(n, 1);
        if (in->kind != TRN_INST_OP || !s->reg.table[in->it].op || !s->reg.table[in->it].op->check)
            continue;
        if (index == UINT64_MAX) continue;
        for (uint32_t c = 0; c < s->ncores; ++c) {
            if (!trn_dist_is_local(&s->dist, c))
                continue; /* another process checks its own cores */
            trn_ctx ctx;
            ctx_begin(&ctx, s, c, index, in);
            ctx.checking = true;
            if (trn_exec_call(s, &ctx, e) == TRN_ERR) return -1;
        }
    }
    return 0;
}
