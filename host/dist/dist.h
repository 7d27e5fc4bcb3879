#ifndef TRNSIM_HOST_DIST_DIST_H
#define TRNSIM_HOST_DIST_DIST_H

/* A run spread over processes by a transport module (docs/mpi.md): which
 * cores this process runs, the check that every process loaded the same
 * program and config, idling while the others work, agreeing on success,
 * moving bytes to rank 0, and remote DMA (remote.h). Without a transport
 * every call is a no-op and the run is the single-process one.
 *
 * dist/ sits below exec/: it works on the trn_dist that exec/ holds and on
 * the registry, config, program and memories exec/ hands it, never on the
 * simulator itself. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
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
/* The progress display's whole-job count (ABI 4 transports): a process
 * other than 0 offers its executed count `mine` to rank 0 (final: its run
 * ended); rank 0 gets the job's count in *total. Never waits, but for rank
 * 0's final call (bounded, docs/mpi.md). false: not distributed, or the
 * transport cannot (*total = mine). */
bool trn_dist_progress(trn_dist *d, uint64_t mine, bool final, uint64_t *total);
/* Every process's `bytes` of mine into all (ranks x bytes), on every process. */
int trn_dist_allgather(trn_dist *d, const void *mine, void *all, size_t bytes, trn_error *e);

/* The config as a distributed run compares it across processes
 * (dist_config.c): one canonical text, its hash, and the first difference. */

#include <stddef.h>
#include <stdint.h>

struct trn_dist;

/* Bytes every process sends when the hashes differ (longer texts are cut
 * at a whole line). */
#define TRN_DIST_CONFIG_TEXT 65536

/* The canonical text into buf (NUL-terminated, whole lines); its length. */
size_t trn_dist_config_text(const struct trn_dist *d, char *buf, size_t cap);
uint64_t trn_dist_config_hash(const char *text);
/* Process r's text against process 0's (mine): "KEY is A on process r, B on
 * process 0", naming the first setting that differs. */
void trn_dist_config_diff(const char *mine, const char *theirs, uint32_t r, char *out, size_t len);

/* Remote DMA across processes: accesses to another process's core through
 * this process's copy of its memory, inside one transport epoch (remote.c). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct trn_remote_txn {
    bool active, write;
    uint32_t core, mem, rank;
    trn_memory *m;      /* this process's copy of the owner's memory */
    trn_extent *x, *wx; /* byte extents; their map words (as map bytes) */
    size_t n, nw;
    uint8_t *before;      /* a write: the fetched bytes of x, packed */
    uint64_t *before_map; /* a write: their fetched written bits, per extent */
} trn_remote_txn;

/* The transport carries the ABI 3 remote-memory calls. */
bool trn_remote_supported(const trn_transport_desc *t);
/* Every rank: its cores' memories to the others (after the program check);
 * withdrawn before the memories go. */
int trn_remote_expose(trn_dist *d, trn_error *e);
void trn_remote_withdraw(trn_dist *d);
/* An access to a core of another process (the caller leaves out the
 * transport module's own accesses and static checks). */
bool trn_remote_is_remote(const trn_dist *d, const trn_ap *ap);
/* Around one host transfer on ap: fetch (a read: and done with the owner),
 * then after the transfer push what a write changed (ok) and end the epoch.
 * No-ops for local APs. */
/* env: the executing instruction's view of memory, or NULL when the access
 * is not remote (then begin and end do nothing). */
int trn_remote_begin(trn_dist *d, const trn_ap_env *env, const trn_ap *ap, bool write,
                     trn_remote_txn *t, trn_error *e);
int trn_remote_end(trn_dist *d, trn_remote_txn *t, bool ok, trn_error *e);
void trn_remote_txn_free(trn_remote_txn *t);

#endif
