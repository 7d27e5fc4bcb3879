/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * ABI 3, observers: who met at a rendezvous (trn_party), what an observer is
 * told of each executed instruction (trn_observation) and its callbacks
 * (trn_observer_desc).
 */
#ifndef TRNSIM_PLUGIN_OBSERVER_H
#define TRNSIM_PLUGIN_OBSERVER_H

#include <stdint.h>

#include "trnsim/plugin/abi.h"
#include "trnsim/plugin/ap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ABI 3: who met at a rendezvous --------------------------------- */

/* A core's part in a rendezvous, as rendezvous_met() reports it.
 *   MEMBER    a member of a group collective (CollectiveCompute over a
 *             replica group, a Permute's ranks): the members met each other.
 *   SENDER / RECEIVER   the two sides of a point-to-point transfer. */
#define TRN_PARTY_MEMBER   0u
#define TRN_PARTY_SENDER   1u
#define TRN_PARTY_RECEIVER 2u

typedef struct trn_party {
    uint32_t core;  /* a core of the run */
    uint32_t role;  /* TRN_PARTY_* */
    uint64_t index; /* instruction_index() of its instruction on that core */
} trn_party;

/* ---- observers (ABI 3) ------------------------------------------------ */

/* An observer sees every executed instruction of a run, before and after
 * its handler runs, and can read memory but not change it: a trace, a
 * coverage counter, a checker. It costs nothing when none is registered.
 * Sub-instructions (dispatch()) are observed too, with depth > 0. Static
 * checks, skipped opcodes (unknown_opcode = "skip") and instructions of
 * cores another process runs are not. A waiting instruction (TRN_WAIT) is
 * observed at each attempt. Observers run in registration order (modules in
 * config order, then the host's own: --trace, --timeline). */

/* One operand, resolved as the handler sees it from operand(). */
typedef struct trn_obs_operand {
    trn_ap ap; /* on the executing core unless the operand names another; zero when !resolved */
    const char *tensor; /* the tensor it names, NULL for a raw memory operand */
    uint32_t resolved; /* 0: it could not be resolved (a dynamic offset outside memory); the handler
                          fails */
} trn_obs_operand;

/* What an observer is told. Valid only during the callback. The struct
 * grows at its end in later versions: read a field added after ABI 3 only
 * when `size` covers it. */
struct trn_observation {
    uint32_t size;      /* sizeof(trn_observation) of the host */
    uint32_t core;      /* the executing core */
    uint32_t it;        /* instruction type */
    uint32_t depth;     /* 0: a program instruction; 1..8: a sub-instruction */
    uint64_t index;     /* instruction_index(): executions before it on this core */
    uint64_t number;    /* the instruction's number in messages (file order) */
    const char *opcode; /* name */
    const char *family; /* of the module that handles it */
    const char *module; /* its name, e.g. "trnsim-search" */
    const char *where;  /* BIR function / block path / name, or NULL */
    uint32_t n_in, n_out;
    const trn_obs_operand *in, *out;
    uint32_t cores;       /* SPMD cores in the run */
    trn_status status;    /* after: TRN_OK, TRN_WAIT or TRN_ERR; before: TRN_OK */
    uint64_t start_ns;    /* when the handler was called, ns since the run began */
    uint64_t duration_ns; /* after: how long the handler took (0 before) */
    const char *error;    /* after, status TRN_ERR: the handler's message; else NULL */
    /* ABI 3, appended (read when `size` covers them): after, status TRN_OK,
     * the cores the handler reported meeting (rendezvous_met), else NULL, 0. */
    const trn_party *party;
    uint32_t n_party;
};

/* A callback returns TRN_OK. Anything else ends the run with an error
 * (observer_stop gives it a message): returned from `before`, the
 * instruction does not run; from `after`, it has run. The other observers
 * still see the call it was returned from. */
typedef trn_status (*trn_observe_fn)(const trn_host_api *api, const trn_observation *ob,
                                     void *state);

struct trn_observer_desc {
    uint32_t size;         /* sizeof(trn_observer_desc) when built */
    trn_observe_fn before; /* optional: before the handler; memory holds the inputs */
    trn_observe_fn after;  /* optional: after it; memory holds what it wrote */
    /* optional: once after the last instruction of a run, rc 0 when it
     * succeeded, -1 when it failed (also when an observer stopped it). */
    void (*run_end)(const trn_host_api *api, void *state, int rc);
};

#ifdef __cplusplus
}
#endif
#endif
