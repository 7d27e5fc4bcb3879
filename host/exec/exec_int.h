/* The host's private state, shared by loader, dispatch, api and sim. */
#ifndef TRNSIM_HOST_SIM_INTERNAL_H
#define TRNSIM_HOST_SIM_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "memory/memory.h"
#include "modules/modules.h"
#include "dist/dist.h"
#include "program/program.h"
#include "exec/exec.h"

typedef struct trn_run trn_run;

/* A registered observer (plugin.h, ABI 3): a module's or the host's own. */
typedef struct trn_observer_reg {
    const trn_observer_desc *desc;
    void *state;
    const char *owner; /* the module's name, or "trnsim" for the host's */
} trn_observer_reg;

typedef enum { CORE_READY, CORE_WAITING, CORE_DONE } trn_core_phase;

/* Per-core run position: the entry, the executions so far (the index the
 * host API reports: the core's stream, as if loops were written out), and
 * each loop's current trip. */
typedef struct core_pos {
    size_t pc;
    uint64_t executed;
    int64_t *trip; /* [n_loops] */
} core_pos;

/* A run in progress: every core's position and the round-robin cursor, so
 * a run can stop after any instruction and go on (trn_sim_step), and a dump
 * can save where it stands and a restore resume it (dump/dump.c) in
 * exactly the order the uninterrupted run would have taken. */
struct trn_run {
    core_pos *cp;
    size_t *pc;
    int64_t *trips;
    bool *waiting, *done;
    uint32_t left;      /* local cores not done */
    uint32_t cursor;    /* the core running now */
    int progress;       /* this round completed or reached something */
    double since;       /* when the local cores stopped making progress */
    uint32_t last_core; /* the core of the last instruction a step completed */
    uint64_t attempts;  /* handler calls of program instructions in the run so far */
};

/* The cores an observed handler reported meeting (rendezvous_met,
 * api_party.c): observe.c hands one to the handler and the report to the
 * observers. */
typedef struct trn_party_log {
    trn_party *items; /* malloc'ed by the report, freed by observe.c */
    uint32_t n;
} trn_party_log;

/* An instruction executing on one core: the opaque trn_ctx of plugin.h. */
struct trn_ctx {
    trn_sim *sim;
    uint32_t core;
    uint64_t index; /* index in the core's stream */
    const trn_inst *inst;
    const trn_slot *slot;
    int depth; /* sub-instruction nesting */
    bool parent_allows_uninit;
    bool checking; /* the opcode's static check runs, not its handler */
    bool failed;
    uint32_t open_views;      /* views lent to this handler and not yet ended (api_lend.c) */
    bool party_reported;      /* rendezvous_met was called (once per call) */
    trn_party_log *party_log; /* observed: where the report goes; NULL: checked, not kept */
    trn_error err;
};

/* One view lent to the executing handler (api_lend.c). Only one handler
 * holds views at a time: a handler with views open may not dispatch. */
#define TRN_MAX_VIEWS 64
typedef struct trn_lent {
    trn_ap ap;
    const trn_ctx *owner; /* NULL: free */
    uint32_t mode;
} trn_lent;

struct trn_sim {
    trn_sim_opts opts;
    trn_config cfg;
    trn_registry reg; /* the modules and the IT table (modules/modules.h) */
    trn_program prog;
    bool have_prog;
    trn_core_state *cores;
    uint32_t ncores;
    trn_stats stats;
    trn_dist dist;        /* the processes this run is spread over (dist/dist.h) */
    uint64_t max_scratch; /* the largest instruction's working memory (budget.h) */
    uint64_t executed;    /* instructions started in this run */
    double run_started;
    double load_seconds;
    uint64_t run_need_bytes; /* the run's memories by trn_budget_run */
    uint64_t kept_bytes;
    /* what modules keep between instructions (host API keep_bytes), this run */ /* the last
                                                                                    program
                                                                                    load's; the
                                                                                    first run
                                                                                    after it
                                                                                    counts them
                                                                                    (--timeout)
                                                                                  */
    uint64_t run_started_ns; /* the same moment, for observers' times */
    trn_run *run;            /* the run in progress (dispatch.c), NULL between runs */
    trn_progress *progress;  /* the progress display of the run in progress, NULL: none */
    bool watched; /* a budget, a timeout or the progress display is on: checked per instruction */
    /* Parts of the run a folder above took over (dump/: --dump-at,
     * --dump-on-error, --restore), NULL: none; tested on the slow path only. */
    const trn_run_hooks *hooks;
    void *hooks_state;
    /* Observers in call order: the modules' (at load), then the host's. */
    trn_observer_reg *observers;
    size_t n_observers, n_module_observers;
    trn_lent views[TRN_MAX_VIEWS];
    /* WRITE views ended with their bytes marked written: how often a fast
     * path stored in place (the tests check that it runs at all) */
    uint64_t lent_writes;
};

extern const trn_host_api trn_host_api_table;

/* A top-level instruction's context. The error message buffer (1 KiB) is
 * left as it is: it is read only after api_error wrote it (failed). */
static inline __attribute__((always_inline)) void ctx_begin(trn_ctx *ctx, trn_sim *s, uint32_t core,
                                                            uint64_t index, const trn_inst *in) {
    _Static_assert(offsetof(trn_ctx, err) + sizeof ctx->err == sizeof *ctx,
                   "err must stay the last field");
    memset(ctx, 0, offsetof(trn_ctx, err));
    ctx->sim = s;
    ctx->core = core;
    ctx->index = index;
    ctx->inst = in;
    ctx->slot = &s->reg.table[in->it];
}

/* call.c: one instruction on one core (the handler, its static check, a
 * skip, or the observers around it); what the host does with a handler's
 * status once its views are ended. */
trn_status trn_exec_call(trn_sim *s, trn_ctx *c, trn_error *e);
trn_status trn_exec_handler_done(trn_sim *s, trn_ctx *c, trn_status st, double dt, trn_error *e);
/* validate.c: an opcode's name (loaded or known, else "?"), and why an
 * instruction with no handler cannot run (0: it may be skipped). */
const char *trn_exec_op_name(const trn_sim *s, uint32_t it);
int trn_exec_unhandled(const trn_sim *s, uint32_t it, trn_error *e);
/* The loaded opcode a sub-instruction object names (NULL: none loaded), for
 * the schema check of its attributes. */
int trn_exec_lookup_sub(void *arg, const json_t *inst, const trn_opcode_desc **op, trn_error *e);

/* sim.c: set the copy of a tensor on any core, local or not. */
int trn_sim_set_tensor_copy(trn_sim *s, const char *name, uint32_t core, const void *data,
                            size_t bytes, trn_error *e);

/* stats_collect.c: --stats of one completed instruction (dt: its handler time) */
void trn_stats_after(trn_sim *s, trn_ctx *c, double dt);

/* call.c, validate.c and run.c */
int trn_dispatch_resolve_name(void *sim, const char *name, uint32_t *it, trn_error *e);
bool trn_dispatch_handled(void *sim, uint32_t it);
int trn_dispatch_check_program(trn_sim *s, trn_error *e);
int trn_dispatch_static_checks(trn_sim *s, trn_error *e);
int trn_dispatch_run(trn_sim *s, trn_error *e);
/* The rest of a run started with trn_dispatch_run_start (the dump hooks
 * drive it): 0 complete, 2 a hook stopped it, -1 error. */
int trn_dispatch_loop(trn_sim *s, trn_error *e);
/* A run one instruction at a time (trn_sim_step in sim.h). */
int trn_dispatch_run_start(trn_sim *s, trn_error *e);
int trn_dispatch_step(trn_sim *s, trn_step *out, trn_error *e);
void trn_dispatch_run_free(trn_sim *s);
/* Instructions core c completed in the run in progress (0 without one). */
uint64_t trn_dispatch_core_done(const trn_sim *s, uint32_t c);
trn_status trn_dispatch_sub(trn_ctx *parent, const trn_value *instruction);
trn_ap_env trn_ctx_env(const trn_ctx *ctx);
/* The handler of ctx's instruction, with the host's bookkeeping around it. */
trn_status trn_dispatch_handler(trn_sim *s, trn_ctx *c, trn_error *e);
/* Prefix e with the instruction's place (file, index, core, opcode, family). */
void trn_dispatch_context(const trn_ctx *c, trn_error *e);

/* call.c: an access of ctx's handler to a core another process owns
 * (remote DMA; not the transport's own accesses, not a static check), and
 * the epoch around one host transfer on it (no-ops for a local AP). */
bool trn_ctx_remote(const trn_ctx *ctx, const trn_ap *ap);
int trn_ctx_remote_begin(const trn_ctx *ctx, const trn_ap *ap, bool write, trn_remote_txn *t,
                         trn_error *e);
int trn_ctx_remote_end(const trn_ctx *ctx, trn_remote_txn *t, bool ok, trn_error *e);

/* api.c: an operand as operand() resolves it, with the reason in e on failure. */
int trn_ctx_operand(const trn_ctx *ctx, trn_dir dir, int idx, trn_ap *out, trn_error *e);

/* observe.c: observers (plugin.h, ABI 3). */
trn_status trn_observe_exec(trn_sim *s, trn_ctx *c, trn_error *e); /* the handler, observed */
void trn_observe_run_end(trn_sim *s, int rc);
int trn_observe_add_modules(trn_sim *s, trn_error *e); /* after the modules loaded */
void trn_observe_free(trn_sim *s);
trn_status trn_observed_read_raw(const trn_observation *ob, const trn_ap *ap, void *dst);
trn_status trn_observed_read_f32(const trn_observation *ob, const trn_ap *ap, float *dst);
trn_status trn_observed_digest(const trn_observation *ob, const trn_ap *ap, uint64_t *out);
trn_status trn_observer_stop(const trn_observation *ob, const char *fmt, ...) TRN_PRINTF(2, 3);

/* api_party.c: the rendezvous_met host function. */
trn_status trn_api_rendezvous_met(trn_ctx *ctx, const trn_party *party, uint32_t n);

/* api_lend.c: the lend / lend_end / lend_cancel host functions, and the end of every view
 * a handler still holds when it returns (mark: WRITE views become written). */
trn_lend_status trn_api_lend(trn_ctx *ctx, const trn_ap *ap, uint32_t mode, trn_view *view);
trn_status trn_api_lend_end(trn_ctx *ctx, trn_view *view);
trn_status trn_api_lend_cancel(trn_ctx *ctx, trn_view *view);
void trn_lend_close_all(trn_ctx *ctx, bool mark);

#endif
