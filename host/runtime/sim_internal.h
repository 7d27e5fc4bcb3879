/* The host's private state, shared by loader, dispatch, api and sim. */
#ifndef TRNSIM_HOST_SIM_INTERNAL_H
#define TRNSIM_HOST_SIM_INTERNAL_H

#include "memory/ap.h"
#include "runtime/config.h"
#include "frontend/program.h"
#include "runtime/sim.h"
#include "runtime/progress.h"
#include "runtime/stats.h"

typedef struct trn_module {
    const trn_plugin_desc *desc;
    trn_opcode_desc *ops; /* desc->ops in the host's layout (ABI 1 entries widened, new fields zero) */
    void *dl;   /* dlopen handle, NULL for a static module */
    char *path; /* where it was loaded from, or "(static)" */
    const trn_plugin_cfg *cfg;
    trn_settings settings;
    void *state;
    bool live; /* registered and initialised */
    /* ABI 3 services (services.h): the descriptor's lists, and for each need
     * the export it was matched with at load. */
    const trn_service_desc *exports;
    uint32_t n_exports;
    const trn_service_need *needs;
    uint32_t n_needs;
    const trn_service_desc **need_export;
} trn_module;

typedef struct trn_slot {
    const trn_opcode_desc *op; /* NULL: no handler */
    trn_module *owner;
} trn_slot;

typedef struct trn_run trn_run;

/* One opcode name of the name index (dispatch.c): open addressing over the
 * loaded opcodes' names and the known ones. */
#define TRN_NAME_INDEX 1024 /* a power of two over twice the ITs plus the known names */
typedef struct trn_name_ref {
    const char *name; /* NULL: free */
    uint32_t it;
} trn_name_ref;
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
 * can save where it stands and a restore resume it (runtime/snapshot.c) in
 * exactly the order the uninterrupted run would have taken. */
struct trn_run {
    core_pos *cp;
    size_t *pc;
    int64_t *trips;
    bool *waiting, *done;
    uint32_t left;    /* local cores not done */
    uint32_t cursor;  /* the core running now */
    int progress;     /* this round completed or reached something */
    double since;     /* when the local cores stopped making progress */
    uint32_t last_core; /* the core of the last instruction a step completed */
    uint64_t attempts;  /* handler calls of program instructions in the run so far */
};

typedef struct trn_snapshot_cfg trn_snapshot_cfg; /* runtime/snapshot.h */

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
    uint64_t index;       /* index in the core's stream */
    const trn_inst *inst;
    const trn_slot *slot;
    int depth;            /* sub-instruction nesting */
    bool parent_allows_uninit;
    bool checking; /* the opcode's static check runs, not its handler */
    bool failed;
    uint32_t open_views; /* views lent to this handler and not yet ended (api_lend.c) */
    bool party_reported; /* rendezvous_met was called (once per call) */
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
    trn_module *mods;
    size_t n_mods;
    trn_slot table[TRN_IT_MAX + 1];
    bool loaded;
    trn_program prog;
    bool have_prog;
    trn_core_state *cores;
    uint32_t ncores;
    trn_stats stats;
    /* A transport (docs/mpi.md): this process runs cores [local_lo, local_hi);
     * without one, every core (local_lo 0, local_hi ncores). */
    const trn_module *transport_mod;
    const trn_transport_desc *transport;
    trn_transport_info tinfo;
    uint32_t local_lo, local_hi;
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
    bool dist_checked; /* every process agreed it runs this program */
    bool dist_broken;  /* an agreement failed: the transport cannot be trusted to move more */
    trn_run *run;      /* the run in progress (dispatch.c), NULL between runs */
    trn_progress *progress; /* the progress display of the run in progress, NULL: none */
    bool watched;      /* a budget, a timeout or the progress display is on: checked per instruction */
    bool remote_mem;     /* the transport reaches other processes' memories (remote DMA) */
    bool remote_exposed; /* this process's memories are reachable (remote.c) */
    trn_snapshot_cfg *snap; /* --dump-at / --dump-on-error / --restore, NULL: none */
    /* Observers in call order: the modules' (at load), then the host's. */
    trn_observer_reg *observers;
    size_t n_observers, n_module_observers;
    trn_lent views[TRN_MAX_VIEWS];
    /* WRITE views ended with their bytes marked written: how often a fast
     * path stored in place (the tests check that it runs at all) */
    uint64_t lent_writes;
    /* Opcode names to ITs (dispatch.c), built on first use; the loader
     * clears names_ready whenever the table changes. */
    trn_name_ref name_index[TRN_NAME_INDEX];
    bool names_ready;
};

extern const trn_host_api trn_host_api_table;

/* loader.c */
int trn_loader_load_all(trn_sim *s, trn_error *e);
void trn_loader_unload_all(trn_sim *s);
const char *trn_loader_families(const trn_sim *s, char *buf, size_t len);
const trn_transport_desc *trn_loader_transport(const trn_module *m); /* NULL: none */
const trn_observer_desc *trn_loader_observer(const trn_module *m);   /* NULL: none */

/* distributed.c: the host's side of a transport */
int trn_dist_attach(trn_sim *s, trn_error *e);
void trn_dist_place(trn_sim *s); /* local cores of the loaded program */
bool trn_dist_is_local(const trn_sim *s, uint32_t core);
int trn_dist_check_program(trn_sim *s, trn_error *e);
int trn_dist_idle(trn_sim *s, trn_error *e);
/* sim.c: set the copy of a tensor on any core, local or not. */
int trn_sim_set_tensor_copy(trn_sim *s, const char *name, uint32_t core, const void *data, size_t bytes, trn_error *e);

/* stats_collect.c: --stats of one completed instruction (dt: its handler time) */
void trn_stats_after(trn_sim *s, trn_ctx *c, double dt);

/* dispatch.c */
int trn_dispatch_resolve_name(void *sim, const char *name, uint32_t *it, trn_error *e);
bool trn_dispatch_handled(void *sim, uint32_t it);
int trn_dispatch_check_program(trn_sim *s, trn_error *e);
int trn_dispatch_static_checks(trn_sim *s, trn_error *e);
int trn_dispatch_run(trn_sim *s, trn_error *e);
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
