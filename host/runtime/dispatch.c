/* Dispatch: opcode names, program validation against the loaded modules,
 * and the deterministic multi-core run loop with wait / deadlock handling. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/suggest.h"
#include "runtime/budget.h"
#include "frontend/tensor_bounds.h"
#include "runtime/opnames.h"
#include "runtime/schema.h"
#include "runtime/sim_internal.h"
#include "runtime/snapshot.h"

#define MAX_SUB_DEPTH 8

static size_t name_hash(const char *name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)name; *c; ++c) h = (h ^ *c) * 0x100000001b3ull;
    return (size_t)(h ^ h >> 29);
}

/* The slot of name in the index: its entry, or the free slot it would take. */
static trn_name_ref *name_slot(trn_sim *s, const char *name) {
    size_t j = name_hash(name) & (TRN_NAME_INDEX - 1);
    while (s->name_index[j].name && strcmp(s->name_index[j].name, name) != 0) j = (j + 1) & (TRN_NAME_INDEX - 1);
    return &s->name_index[j];
}

static void name_add(trn_sim *s, const char *name, uint32_t it) {
    trn_name_ref *r = name_slot(s, name);
    if (!r->name) *r = (trn_name_ref){name, it}; /* the first of a name answers */
}

/* The loaded opcodes' names in IT order, then the known names: the order
 * the answer is looked for in. */
static void build_name_index(trn_sim *s) {
    memset(s->name_index, 0, sizeof s->name_index);
    for (uint32_t i = 0; i <= TRN_IT_MAX; ++i)
        if (s->table[i].op) name_add(s, s->table[i].op->name, i);
    for (uint32_t i = 0; i <= TRN_IT_MAX; ++i) {
        const trn_known_op *k = trn_known_op_by_it(i);
        if (k) name_add(s, k->name, k->it);
    }
    s->names_ready = true;
}

int trn_dispatch_resolve_name(void *arg, const char *name, uint32_t *it, trn_error *e) {
    trn_sim *s = arg;
    if (!s->names_ready) build_name_index(s);
    const trn_name_ref *r = name_slot(s, name);
    if (r->name) {
        *it = r->it;
        return 0;
    }
    if (!e) return -1;
    const char *cands[2 * (TRN_IT_MAX + 1)];
    size_t n = 0;
    for (int i = 0; i <= (int)TRN_IT_MAX; ++i) {
        const trn_known_op *ko = trn_known_op_by_it((uint32_t)i);
        if (s->table[i].op) cands[n++] = s->table[i].op->name;
        if (ko) cands[n++] = ko->name;
    }
    const char *best = trn_suggest(name, cands, n);
    if (best)
        return trn_errorf(e, "unknown opcode name '%s'; did you mean '%s'? (names are case-sensitive; trnsim opcodes "
                          "lists the loaded ones)", name, best);
    return trn_errorf(e, "unknown opcode name '%s' (trnsim opcodes lists the loaded ones)", name);
}

bool trn_dispatch_handled(void *arg, uint32_t it) {
    const trn_sim *s = arg;
    return it <= TRN_IT_MAX && s->table[it].op != NULL;
}

/* The loaded opcode a sub-instruction object names (NULL: none loaded). */
static int lookup_sub(void *arg, const json_t *inst, const trn_opcode_desc **op, trn_error *e) {
    trn_sim *s = arg;
    const json_t *o = json_object_get(inst, "opcode");
    uint32_t it;
    if (json_is_integer(o) && json_integer_value(o) >= 0 && json_integer_value(o) <= TRN_IT_MAX)
        it = (uint32_t)json_integer_value(o);
    else if (json_is_integer(o))
        return trn_errorf(e, "opcode %" PRId64 " is outside 0..%u", (int64_t)json_integer_value(o), TRN_IT_MAX);
    else if (json_is_string(o)) {
        if (trn_dispatch_resolve_name(s, json_string_value(o), &it, e)) return -1;
    } else
        return trn_errorf(e, "'opcode' must be a name or an IT number");
    *op = s->table[it].op;
    return 0;
}

static const char *op_name(const trn_sim *s, uint32_t it) {
    if (s->table[it].op) return s->table[it].op->name;
    const trn_known_op *k = trn_known_op_by_it(it);
    return k ? k->name : "?";
}

/* The live module of a family, or NULL. */
static const trn_module *family_module(const trn_sim *s, const char *family) {
    for (size_t i = 0; i < s->n_mods; ++i)
        if (s->mods[i].live && strcmp(s->mods[i].desc->family, family) == 0) return &s->mods[i];
    return NULL;
}

/* Why an instruction with no handler cannot run; 0 if it may be skipped. */
static int unhandled(const trn_sim *s, uint32_t it, trn_error *e) {
    const trn_known_op *k = trn_known_op_by_it(it);
    char fams[256];
    trn_loader_families(s, fams, sizeof fams);
    const trn_module *owner = k && k->family ? family_module(s, k->family) : NULL;
    if (owner) { /* the family is loaded, its module lacks the opcode: like any unhandled opcode */
        if (s->cfg.unknown_skip) return 0;
        return trn_errorf(e, "opcode %s (IT %u) of family '%s' is not implemented by the loaded module '%s'; set "
                          "unknown_opcode = \"skip\" to skip it", k->name, it, k->family, owner->desc->name);
    }
    if (k && k->family && !trn_family_built(k->family)) {
        char hint[300];
        return trn_errorf(e, "opcode %s (IT %u) belongs to family '%s', which this trnsim was built without (loaded: "
                          "%s); configure the build with %s to add it", k->name, it, k->family, fams,
                          trn_family_build_hint(k->family, hint, sizeof hint));
    }
    if (k && k->family)
        return trn_errorf(e, "opcode %s (IT %u) belongs to family '%s', which the config does not load (loaded: %s); "
                          "add { family = \"%s\"; module = \"trnsim-%s\"; } to plugins", k->name, it, k->family, fams,
                          k->family, k->family);
    if (s->cfg.unknown_skip) return 0;
    return trn_errorf(e, "no loaded module handles opcode %s (IT %u) (loaded families: %s); set unknown_opcode = "
                      "\"skip\" for the reference's skip-and-note", op_name(s, it), it, fams);
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
    return &memo[(size_t)(((uintptr_t)ops >> 4) * 0x9e3779b97f4a7c15ull >> 56) & (CHECKED_LISTS - 1)];
}

/* The operands' budget (*scratch: their working memory) then their bounds,
 * each list's once; d_fail / k_fail name the operand that failed its bounds. */
static int check_operands(const trn_program *p, const trn_machine *m, uint64_t limit, const trn_ap_env *env,
                          checked_list *memo, const trn_inst *in, bool streams, uint64_t *scratch, int *d_fail,
                          int *k_fail, trn_error *e) {
    checked_list *slot[2];
    bool known[2];
    trn_budget_sum sum[2];
    *k_fail = -1;
    for (int d = 0; d < 2; ++d) {
        const trn_operand *ops = d ? in->out : in->in;
        slot[d] = list_memo(memo, in, ops);
        known[d] = slot[d] && slot[d]->ops == ops;
        if (known[d]) sum[d] = slot[d]->sum;
        else trn_budget_list(ops, d ? in->n_out : in->n_in, &sum[d]);
    }
    /* The usual instruction: every operand within one piece and the budget,
     * where streaming changes no charge. */
    uint64_t fits = limit < TRN_STREAM_PIECE_BYTES ? limit : TRN_STREAM_PIECE_BYTES;
    if (sum[0].largest <= fits && sum[1].largest <= fits) *scratch = sum[0].whole + sum[1].whole;
    else if (trn_budget_charge(m, in, streams, sum, scratch, e)) return -1;
    for (int d = 0; d < 2; ++d) {
        if (known[d]) continue; /* the same interned list passed before */
        const trn_operand *ops = d ? in->out : in->in;
        for (int k = 0; k < (d ? in->n_out : in->n_in); ++k) {
            trn_ap ap = ops[k].ap;
            ap.core = 0;
            if (ops[k].offset_register >= 0 ||
                (trn_ap_check(env, &ap, e) == 0 && (ops[k].tensor < 0 || trn_tensor_check_ap(p, ops[k].tensor, &ap, e) == 0)))
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
        if (!s->table[in->it].op && unhandled(s, in->it, e)) {
            trn_error_at(e, in->number, -1, in->it);
            return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s", p->path, in->number, where);
        }
        if (s->table[in->it].op && trn_schema_validate(s->table[in->it].op, in->obj, lookup_sub, s, e)) {
            trn_error_at(e, in->number, -1, in->it);
            return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (opcode %s/%u, family %s)", p->path, in->number,
                                    where, op_name(s, in->it), in->it, s->table[in->it].owner->desc->family);
        }
        uint64_t scratch;
        int d, k;
        bool streams = s->table[in->it].op && (s->table[in->it].op->flags & TRN_OPF_STREAMS);
        if (check_operands(p, &m, limit, &env, memo, in, streams, &scratch, &d, &k, e)) {
            trn_error_at(e, in->number, -1, in->it);
            if (k < 0) /* the budget's */
                return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (opcode %s/%u)", p->path, in->number, where,
                                        op_name(s, in->it), in->it);
            return trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (opcode %s/%u, family %s), %s[%d]", p->path,
                                    in->number, where, op_name(s, in->it), in->it,
                                    s->table[in->it].op ? s->table[in->it].owner->desc->family : "-",
                                    d ? "outputs" : "inputs", k);
        }
        if (scratch > s->max_scratch) s->max_scratch = scratch;
    }
    return 0;
}

trn_ap_env trn_ctx_env(const trn_ctx *ctx) {
    const trn_sim *s = ctx->sim;
    bool allow = s->cfg.allow_uninit || s->prog.allow_uninit || ctx->parent_allows_uninit ||
                 (ctx->inst && ctx->inst->allow_uninit);
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = allow,
                      .namer = trn_tensor_name_byte, .namer_arg = &s->prog};
    /* In a distributed run the other processes' cores are reached through
     * the transport (remote.c), or, when it cannot, only by the transport's
     * own module (their memories here are its copies). */
    bool is_transport = ctx->slot && ctx->slot->owner && ctx->slot->owner == s->transport_mod;
    if (s->transport && s->tinfo.ranks > 1 && !is_transport && !s->remote_mem) {
        env.local_lo = s->local_lo;
        env.local_hi = s->local_hi;
        env.rank_of_div = s->local_hi - s->local_lo;
    }
    return env;
}

void trn_dispatch_context(const trn_ctx *c, trn_error *e) {
    const trn_sim *s = c->sim;
    const char *fam = c->slot && c->slot->owner ? c->slot->owner->desc->family : "-";
    char where[TRN_ERROR_MAX / 2] = "", trip[64] = "";
    trn_error_at(e, c->inst->number, (int32_t)c->core, c->inst->it);
    if (c->inst->where) snprintf(where, sizeof where, " (%s)", c->inst->where);
    if (s->prog.n_loops) snprintf(trip, sizeof trip, ", execution %" PRIu64, c->index);
    trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (core %u, opcode %s/%u, family %s%s)", s->prog.path,
                     c->inst->number, where, c->core, op_name(s, c->inst->it), c->inst->it, fam, trip);
}

/* The opcode's static check in place of its handler (none: nothing to check). */
static trn_status static_check(trn_sim *s, trn_ctx *c, trn_error *e) {
    (void)s;
    if (!c->slot->op->check) return TRN_OK;
    trn_status st = c->slot->op->check(&trn_host_api_table, c, c->slot->owner->state);
    if (st == TRN_OK) return TRN_OK;
    if (st == TRN_ERR) *e = c->failed ? c->err : (trn_error){"the static check failed without a message"};
    else trn_errorf(e, "the static check returned %d (expected TRN_OK or TRN_ERR)", (int)st);
    if (c->depth == 0) trn_dispatch_context(c, e);
    return TRN_ERR;
}

/* With --stats or --trace, after the handler: the statistics that read
 * the outputs back, and the trace line (one test per instruction without). */
static void after_timed(trn_sim *s, trn_ctx *c, trn_status st, double dt) {
    if (st == TRN_OK && s->opts.stats) trn_stats_after(s, c, dt);
    if (s->opts.trace)
        fprintf(s->opts.trace_out, "core %u #%" PRIu64 "%s %s (IT %u, %s) %s %.3f us\n", c->core, c->index,
                c->depth ? " (sub)" : "", c->slot->op->name, c->inst->it, c->slot->owner->desc->family,
                st == TRN_WAIT ? "wait" : "ok", dt * 1e6);
}
static trn_status run_handler(trn_sim *s, trn_ctx *c, trn_error *e);

/* Run one instruction on one core. */
static trn_status exec(trn_sim *s, trn_ctx *c, trn_error *e) {
    uint32_t it = c->inst->it;
    c->slot = &s->table[it];
    c->failed = false;
    if (!c->slot->op) {
        if (unhandled(s, it, e)) {
            trn_dispatch_context(c, e);
            return TRN_ERR;
        }
        s->stats.skipped[it]++;
        if (s->opts.trace)
            fprintf(s->opts.trace_out, "core %u #%" PRIu64 " %s (IT %u): skipped, no module handles it "
                    "(unknown_opcode = \"skip\", the reference's skip-and-note)\n", c->core, c->index, op_name(s, it), it);
        return TRN_OK;
    }
    if (c->checking) return static_check(s, c, e);
    /* the one branch observers cost a run that has none */
    if (__builtin_expect(s->n_observers != 0, 0)) return trn_observe_exec(s, c, e);
    return run_handler(s, c, e);
}

trn_status trn_dispatch_handler(trn_sim *s, trn_ctx *c, trn_error *e) { return run_handler(s, c, e); }

/* What the host does with a handler's status once its views are ended:
 * the rules for TRN_WAIT and TRN_ERR, the context of an error, the count. */
static trn_status handler_done(trn_sim *s, trn_ctx *c, trn_status st, double dt, trn_error *e) {
    uint32_t it = c->inst->it;
    if (st == TRN_WAIT && c->depth > 0) {
        trn_errorf(e, "a sub-instruction may not wait for other cores");
        st = TRN_ERR;
    } else if (st == TRN_WAIT && !(c->slot->op->flags & TRN_OPF_MAY_WAIT)) {
        trn_errorf(e, "the handler returned TRN_WAIT, but its opcode does not declare TRN_OPF_MAY_WAIT");
        st = TRN_ERR;
    } else if (st == TRN_ERR) {
        *e = c->failed ? c->err : (trn_error){.msg = "the handler failed without a message"};
    } else if (st != TRN_OK && st != TRN_WAIT) {
        trn_errorf(e, "the handler returned %d (expected TRN_OK, TRN_WAIT or TRN_ERR)", (int)st);
        st = TRN_ERR;
    }
    if (st == TRN_ERR) {
        if (c->depth == 0) trn_dispatch_context(c, e);
        return TRN_ERR;
    }
    if (st == TRN_OK) {
        s->stats.count[it]++;
        s->stats.seconds[it] += dt;
    }
    return st;
}

static trn_status run_handler(trn_sim *s, trn_ctx *c, trn_error *e) {
    bool timed = s->opts.trace || s->opts.stats;
    double t0 = timed ? trn_now() : 0;
    trn_status st = c->slot->op->handler(&trn_host_api_table, c, c->slot->owner->state);
    if (c->open_views) trn_lend_close_all(c, st != TRN_WAIT); /* a waiting handler wrote nothing */
    double dt = timed ? trn_now() - t0 : 0;
    st = handler_done(s, c, st, dt, e);
    if (timed && st != TRN_ERR) after_timed(s, c, st, dt);
    return st;
}

/* The common case of exec, for a top-level instruction with a handler in a
 * run that nothing watches (see slow_path): the handler, then one test of
 * its status and its open views together; anything else goes the long way. */
static inline __attribute__((always_inline)) trn_status exec_fast(trn_sim *s, trn_ctx *c, trn_error *e) {
    trn_status st = c->slot->op->handler(&trn_host_api_table, c, c->slot->owner->state);
    if (__builtin_expect(((uint32_t)st | c->open_views) == TRN_OK, 1)) {
        s->stats.count[c->inst->it]++; /* and seconds += 0: no time is taken untimed */
        return TRN_OK;
    }
    if (c->open_views) trn_lend_close_all(c, st != TRN_WAIT);
    return handler_done(s, c, st, 0, e);
}

trn_status trn_dispatch_sub(trn_ctx *parent, const trn_value *instruction) {
    trn_sim *s = parent->sim;
    if (parent->open_views)
        return trn_host_api_table.error(parent, "dispatch while %u lent view(s) are open (a module bug: lend_end "
                                                "them first)", parent->open_views);
    if (parent->depth >= MAX_SUB_DEPTH)
        return trn_host_api_table.error(parent, "sub-instructions nested deeper than %d", MAX_SUB_DEPTH);
    trn_inst sub;
    trn_error e;
    if (trn_inst_parse(&s->prog, (json_t *)instruction, &sub, trn_dispatch_resolve_name, s, &e))
        return trn_host_api_table.error(parent, "sub-instruction: %s", e.msg);
    uint64_t scratch;
    const trn_opcode_desc *sub_op = s->table[sub.it].op;
    if (trn_budget_instruction(&s->cfg.machine, &sub, sub_op && (sub_op->flags & TRN_OPF_STREAMS), &scratch, &e)) {
        trn_inst_free(&sub);
        return trn_host_api_table.error(parent, "sub-instruction: %s", e.msg);
    }
    if (s->table[sub.it].op && trn_schema_validate(s->table[sub.it].op, sub.obj, lookup_sub, s, &e)) {
        trn_inst_free(&sub);
        return trn_host_api_table.error(parent, "sub-instruction (opcode %s/%u): %s", op_name(s, sub.it), sub.it, e.msg);
    }
    trn_ctx c = {.sim = s, .core = parent->core, .index = parent->index, .inst = &sub, .depth = parent->depth + 1,
                 .parent_allows_uninit = parent->parent_allows_uninit || parent->inst->allow_uninit,
                 .checking = parent->checking};
    trn_status st = exec(s, &c, &e);
    trn_inst_free(&sub);
    if (st == TRN_ERR)
        return trn_host_api_table.error(parent, "sub-instruction (opcode %s/%u): %s", op_name(s, sub.it), sub.it, e.msg);
    return st;
}

/* A top-level instruction's context. The error message buffer (1 KiB) is
 * left as it is: it is read only after api_error wrote it (failed). */
static inline __attribute__((always_inline)) void ctx_begin(trn_ctx *ctx, trn_sim *s, uint32_t core, uint64_t index,
                                                            const trn_inst *in) {
    _Static_assert(offsetof(trn_ctx, err) + sizeof ctx->err == sizeof *ctx, "err must stay the last field");
    memset(ctx, 0, offsetof(trn_ctx, err));
    ctx->sim = s;
    ctx->core = core;
    ctx->index = index;
    ctx->inst = in;
    ctx->slot = &s->table[in->it];
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
                return trn_errorf(e, "%s: loops nested deeper than %d", s->prog.path, MAX_CHECK_DEPTH);
            if (in->kind == TRN_INST_LOOP) {
                head_n[depth] = n;
                head_trips[depth++] = in->loop.trips;
                dead += in->loop.trips < 1;
            } else {
                --depth;
                dead -= head_trips[depth] < 1;
                uint64_t body = n - head_n[depth], trips = (uint64_t)head_trips[depth];
                n = sat_add(head_n[depth], body && trips > UINT64_MAX / body ? UINT64_MAX : body * trips);
            }
            continue;
        }
        uint64_t index = dead ? UINT64_MAX : n;
        n = sat_add(n, 1);
        if (in->kind != TRN_INST_OP || !s->table[in->it].op || !s->table[in->it].op->check) continue;
        if (index == UINT64_MAX) continue;
        for (uint32_t c = 0; c < s->ncores; ++c) {
            if (!trn_dist_is_local(s, c)) continue; /* another process checks its own cores */
            trn_ctx ctx;
            ctx_begin(&ctx, s, c, index, in);
            ctx.checking = true;
            if (exec(s, &ctx, e) == TRN_ERR) return -1;
        }
    }
    return 0;
}

static int run_begin(trn_sim *s, trn_error *e) {
    trn_run_info info = {sizeof info, s->ncores, s->cfg.machine.partitions, s->cfg.machine.registers};
    for (size_t i = 0; i < s->n_mods; ++i) {
        const trn_module *m = &s->mods[i];
        if (!m->live || !m->desc->run_begin) continue;
        char msg[512] = "";
        trn_status st = m->desc->run_begin(m->state, &info, msg, sizeof msg);
        msg[sizeof msg - 1] = 0; /* a module may leave it unterminated */
        if (st != TRN_OK)
            return trn_errorf(e, "module '%s': run_begin failed: %s", m->desc->name, msg[0] ? msg : "(no message)");
    }
    return 0;
}

static int deadlock(const trn_sim *s, const size_t *pc, const bool *done, trn_error *e) {
    char buf[TRN_ERROR_MAX];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s: deadlock: every unfinished core waits and none can proceed:",
                                s->prog.path);
    if (s->transport && s->tinfo.ranks > 1)
        n = (size_t)snprintf(buf, sizeof buf,
                             "%s: deadlock: no core of MPI process %u made progress for %g s (the timeout, setting "
                             "collective.mpi_timeout):",
                             s->prog.path, s->tinfo.rank, s->tinfo.timeout);
    for (uint32_t c = s->local_lo; c < s->local_hi && n < sizeof buf; ++c) {
        if (done[c]) continue;
        const trn_inst *in = &s->prog.insts[pc[c]];
        n += (size_t)snprintf(buf + n, sizeof buf - n, " core %u waits at instruction %" PRIu64 " (%s/%u);", c,
                              in->number, op_name(s, in->it), in->it);
    }
    return trn_errorf(e, "%s", buf);
}


/* A loop entry: start a trip, or step past the loop. Returns the next pc. */
static size_t loop_step(trn_sim *s, uint32_t c, core_pos *cp, const trn_inst *in) {
    const trn_loop *l = &in->loop;
    int64_t *t = &cp->trip[l->id];
    if (in->kind == TRN_INST_LOOP) *t = 0;
    else ++*t;
    if (*t >= l->trips) return in->kind == TRN_INST_LOOP ? in->jump + 1 : cp->pc + 1;
    /* start + trip * step was checked to fit int64 when the program was read */
    if (l->reg >= 0) s->cores[c].regs[l->reg] = l->start + *t * l->step;
    return in->kind == TRN_INST_LOOP ? cp->pc + 1 : in->jump + 1;
}

/* --max-instructions, --timeout and the progress display: looked at before
 * each instruction when any is on (s->watched), so a run ends with a message
 * between two instructions, never by a kill, and a run with none of them
 * pays one test. */
static int execution_budget(trn_sim *s, uint32_t c, const core_pos *cp, const trn_inst *in, trn_error *e) {
    if (s->progress && s->executed && (s->executed & TRN_PROGRESS_EVERY) == 0) trn_progress_tick(s->progress, s->executed);
    if (s->opts.max_instructions && s->executed >= s->opts.max_instructions)
        return trn_errorf(e, "%s: stopped after %" PRIu64 " instructions (--max-instructions %" PRIu64 "), before "
                          "instruction %" PRIu64 " on core %u (%s/%u)", s->prog.path, s->executed,
                          s->opts.max_instructions, cp->executed, c, op_name(s, in->it), in->it);
    if (s->opts.timeout_seconds > 0 && trn_now() - s->run_started > s->opts.timeout_seconds)
        return trn_errorf(e, "%s: stopped after %.3f s (--timeout %g), before instruction %" PRIu64 " on core %u "
                          "(%s/%u), %" PRIu64 " instructions executed", s->prog.path, trn_now() - s->run_started,
                          s->opts.timeout_seconds, cp->executed, c, op_name(s, in->it), in->it, s->executed);
    return 0;
}

/* Whether this stretch of the run needs the long way round for every
 * instruction: a dump or restore (snapshot points), a budget, a timeout or
 * the progress display (s->watched), an observer (the JSONL trace, the
 * timeline, diff's, a module's), or the text trace or --stats (timing).
 * None of them changes inside one run_core call from off to on, so run_core
 * asks once and a plain run pays one test per instruction; the long way
 * still looks at each of them itself. */
static bool slow_path(const trn_sim *s) {
    return s->snap || s->watched || s->n_observers || s->opts.trace || s->opts.stats;
}

/* Run core c until it finishes, waits, or completed *budget instructions
 * (a lockstep diff steps one at a time; a plain run has no budget). Returns
 * -1 on error, -2 when a snapshot asked the run to stop here
 * (runtime/snapshot.h), else whether it made progress (completed an
 * instruction or arrived at a new one). At a snapshot point and on an error
 * the progress so far is in s->run->progress already, so a dump sees it. */
static int run_core(trn_sim *s, uint32_t c, core_pos *cp, bool *waiting, uint64_t *budget, trn_error *e) {
    int progress = 0;
    uint64_t left = *budget; /* a local: the loop keeps it in a register */
    const trn_inst *insts = s->prog.insts;
    const bool slow = slow_path(s);
    trn_ctx ctx;
    while (cp->pc < s->prog.n_insts && left) {
        const trn_inst *in = &insts[cp->pc];
        if (in->kind != TRN_INST_OP) {
            cp->pc = loop_step(s, c, cp, in);
            continue;
        }
        ctx_begin(&ctx, s, c, cp->executed, in);
        trn_status st;
        if (__builtin_expect(!slow && ctx.slot->op != NULL, 1)) {
            st = exec_fast(s, &ctx, e);
            if (st == TRN_ERR) return -1;
        } else {
            if (s->snap) {
                s->run->progress |= progress;
                int at = trn_snapshot_before(s, c, e);
                if (at) return at < 0 ? -1 : -2;
                ++s->run->attempts;
            }
            if (s->watched && execution_budget(s, c, cp, in, e)) {
                s->run->progress |= progress;
                return -1;
            }
            st = exec(s, &ctx, e);
            if (st == TRN_ERR) {
                if (s->snap) trn_snapshot_failed(s, s->run->attempts - 1);
                return -1;
            }
        }
        if (st == TRN_WAIT) {
            if (!waiting[c]) progress = 1;
            waiting[c] = true;
            break;
        }
        waiting[c] = false;
        ++cp->pc;
        ++cp->executed;
        ++s->executed;
        --left;
        progress = 1;
    }
    *budget = left;
    return progress;
}

static void deadlock_pcs(const core_pos *cp, uint32_t n, size_t *pc) {
    for (uint32_t c = 0; c < n; ++c) pc[c] = cp[c].pc;
}

/* No local core could proceed. Alone, that is a deadlock; with a transport
 * the other processes may still complete what the cores wait for, so it is
 * one only after the timeout. Returns -1 (error), or 0 to go on. */
static int stalled(trn_sim *s, const size_t *pc, const bool *done, double *since, trn_error *e) {
    if (!s->transport || s->tinfo.ranks <= 1) return deadlock(s, pc, done, e);
    double now = trn_now();
    if (*since == 0) *since = now;
    if (now - *since > s->tinfo.timeout) return deadlock(s, pc, done, e);
    return trn_dist_idle(s, e);
}


void trn_dispatch_run_free(trn_sim *s) {
    trn_run *r = s->run;
    if (!r) return;
    free(r->cp);
    free(r->pc);
    free(r->trips);
    free(r->waiting);
    free(r->done);
    free(r);
    s->run = NULL;
}

int trn_dispatch_run_start(trn_sim *s, trn_error *e) {
    trn_dispatch_run_free(s);
    if (run_begin(s, e)) return -1;
    s->executed = 0;
    s->run_started = trn_now() - s->load_seconds; /* --timeout covers the load too */
    s->load_seconds = 0;
    s->kept_bytes = 0; /* run_begin gave the modules fresh state */
    s->run_started_ns = trn_now_ns();
    uint32_t n = s->ncores;
    trn_run *r = s->run = calloc(1, sizeof *r);
    if (!r) return trn_errorf(e, "out of memory");
    r->cp = calloc(n, sizeof *r->cp);
    r->pc = calloc(n, sizeof *r->pc);
    r->trips = calloc((size_t)n * s->prog.n_loops + 1, sizeof *r->trips);
    r->waiting = calloc(n, sizeof *r->waiting);
    r->done = calloc(n, sizeof *r->done);
    if (!(r->cp && r->pc && r->trips && r->waiting && r->done)) {
        trn_dispatch_run_free(s);
        return trn_errorf(e, "out of memory");
    }
    for (uint32_t c = 0; c < n; ++c) r->cp[c].trip = r->trips + (size_t)c * s->prog.n_loops;
    s->watched = s->opts.max_instructions || s->opts.timeout_seconds > 0;
    r->left = s->local_hi - s->local_lo;
    r->cursor = s->local_lo;
    return 0;
}

/* Go on with the run until `budget` more instructions completed or every
 * core is done. Cores take turns in order, each running until it waits or
 * ends; a whole round without progress is a stall. 2: a snapshot stopped
 * it, 1: stopped on the budget, 0: the run is complete, -1: error. */
static int run_some(trn_sim *s, uint64_t budget, trn_error *e) {
    trn_run *r = s->run;
    while (r->left > 0) {
        for (; r->cursor < s->local_hi; ++r->cursor) {
            uint32_t c = r->cursor;
            if (r->done[c]) continue;
            int got = run_core(s, c, &r->cp[c], r->waiting, &budget, e);
            if (got == -2) return 2;
            if (got < 0) return -1;
            r->progress |= got > 0;
            if (r->cp[c].pc == s->prog.n_insts) {
                r->done[c] = true;
                --r->left;
            }
            if (budget == 0) { /* core c completed the last instruction of the budget */
                r->last_core = c;
                if (r->done[c]) ++r->cursor;
                return 1; /* else the next step goes on with core c */
            }
        }
        r->cursor = s->local_lo;
        if (r->progress) r->since = 0;
        if (r->left > 0 && !r->progress) {
            deadlock_pcs(r->cp, s->ncores, r->pc);
            if (stalled(s, r->pc, r->done, &r->since, e)) return -1;
        }
        r->progress = 0;
    }
    return 0;
}

int trn_dispatch_step(trn_sim *s, trn_step *out, trn_error *e) {
    if (!s->run) return trn_errorf(e, "no run is in progress");
    int rc = run_some(s, 1, e);
    if (rc <= 0) return rc;
    const core_pos *cp = &s->run->cp[s->run->last_core];
    /* run_core stops right after the instruction that used up the budget */
    *out = (trn_step){.core = s->run->last_core, .index = cp->executed - 1, .inst = &s->prog.insts[cp->pc - 1]};
    return 1;
}

uint64_t trn_dispatch_core_done(const trn_sim *s, uint32_t c) {
    return s->run && c < s->ncores ? s->run->cp[c].executed : 0;
}

int trn_dispatch_loop(trn_sim *s, trn_error *e) {
    s->watched |= s->progress != NULL;
    return run_some(s, UINT64_MAX, e);
}

int trn_dispatch_run(trn_sim *s, trn_error *e) {
    if (s->snap) { /* dumps or a restore: runtime/snapshot.c drives the run */
        s->progress = trn_progress_start(s, s->opts.progress, stderr);
        int rc = trn_snapshot_run(s, e);
        trn_progress_finish(s->progress, rc != 0);
        s->progress = NULL;
        trn_dispatch_run_free(s);
        return rc;
    }
    int rc = trn_dispatch_run_start(s, e);
    if (rc == 0) {
        s->progress = trn_progress_start(s, s->opts.progress, stderr);
        s->watched |= s->progress != NULL;
        rc = run_some(s, UINT64_MAX, e);
        trn_progress_finish(s->progress, rc != 0);
        s->progress = NULL;
    }
    trn_dispatch_run_free(s);
    trn_observe_run_end(s, rc);
    return rc;
}
