/* A run spread over processes by a transport module (docs/mpi.md): which
 * cores this process runs, the check that every process loaded the same
 * program and config, idling while the others work, agreeing on success,
 * moving bytes to rank 0, and remote DMA (remote.h). Without a transport
 * every call is a no-op and the run is the single-process one.
 *
 * dist/ sits below exec/: it works on the trn_dist that exec/ holds and on
 * the registry, config, program and memories exec/ hands it, never on the
 * simulator itself. */
#ifndef TRNSIM_HOST_DIST_H
#define TRNSIM_HOST_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "memory/memory.h"
#include "modules/modules.h"
#include "program/program.h"
#include "trnsim/plugin.h"

typedef struct trn_dist {
    /* the transport, found among the registry's modules at attach */
    const trn_module *transport_mod;
    const trn_transport_desc *transport;
    trn_transport_info tinfo;
    /* this process runs cores [local_lo, local_hi); without a transport,
     * every core (local_lo 0, local_hi ncores) */
    uint32_t local_lo, local_hi;
    bool checked;        /* every process agreed it runs this program */
    bool broken;         /* an agreement failed: the transport cannot be trusted to move more */
    bool remote_mem;     /* the transport reaches other processes' memories (remote DMA) */
    bool remote_exposed; /* this process's memories are reachable (remote.c) */
    /* what the run is, handed over by exec/ (attach and place) */
    const trn_registry *reg;
    const trn_config *cfg;
    const trn_program *prog;
    trn_core_state *cores;
    uint32_t ncores;
} trn_dist;

/* distributed.c */
/* Find the transport among reg's loaded modules and attach to it. */
int trn_dist_attach(trn_dist *d, const trn_registry *reg, const trn_config *cfg, trn_error *e);
/* A program was loaded: its cores and memories; which of them are local. */
void trn_dist_place(trn_dist *d, const trn_program *prog, trn_core_state *cores, uint32_t ncores);
bool trn_dist_is_local(const trn_dist *d, uint32_t core);
/* More than one process. */
bool trn_dist_active(const trn_dist *d);
/* This process writes outputs and prints (rank 0, or not distributed). */
bool trn_dist_is_root(const trn_dist *d);
/* Every process runs the same program and config; once per program. */
int trn_dist_check_program(trn_dist *d, trn_error *e);
/* No local core can go on: let the transport serve the others. */
int trn_dist_idle(trn_dist *d, trn_error *e);
/* Every process's rc: -1 when any failed, with rank 0's message. */
int trn_dist_agree(trn_dist *d, int rc, trn_error *e);
/* bytes from process `from` to rank 0's buf (both call it). */
int trn_dist_to_root(trn_dist *d, uint32_t from, void *buf, size_t bytes, trn_error *e);
/* Every process's `bytes` of mine into all (ranks x bytes), on every process. */
int trn_dist_allgather(trn_dist *d, const void *mine, void *all, size_t bytes, trn_error *e);

#endif
