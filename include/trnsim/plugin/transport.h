/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * ABI 2, 3 and 4, transports: one run's cores over several processes
 * (trn_transport_desc, trn_transport_info; trn_region and trn_extent for
 * remote memory; the whole job's progress count).
 */
#ifndef TRNSIM_PLUGIN_TRANSPORT_H
#define TRNSIM_PLUGIN_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "trnsim/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- transports (ABI 2) ------------------------------------------------ */

/* A transport spreads one run's cores over several processes (ranks), e.g.
 * one MPI process per group of cores (docs/mpi.md). Process `rank` owns the
 * cores rank*M .. rank*M+M-1 (M = cores / ranks) and runs only those; the
 * memories of the other cores are only reachable to the module that owns
 * the transport (its handlers fill them with what it received). At most
 * one loaded module may have a transport. Every call is made on every rank
 * in the same order (the host is SPMD too); each returns TRN_ERR with a
 * message in err when it fails. */
typedef struct trn_transport_info {
    uint32_t size;  /* sizeof(trn_transport_info) of the host */
    uint32_t rank;  /* this process, 0 .. ranks-1 */
    uint32_t ranks; /* processes in the job */
    double timeout; /* seconds without progress before waiting cores are a deadlock */
} trn_transport_info;

/* ABI 3: a block of this process's memory, and a byte range inside one. */
typedef struct trn_region {
    void *base;
    uint64_t bytes;
} trn_region;
typedef struct trn_extent {
    uint64_t offset, bytes;
} trn_extent;

struct trn_transport_desc {
    uint32_t size; /* sizeof(trn_transport_desc) when built */
    /* After init, before any program: where this process stands. */
    trn_status (*attach)(void *state, trn_transport_info *info, char *err, size_t errlen);
    /* Every local core waits: give the transport time. TRN_ERR when another
     * rank has failed (then the message says which). */
    trn_status (*idle)(void *state, char *err, size_t errlen);
    /* Every rank's `bytes` bytes, in rank order, into all (ranks x bytes). */
    trn_status (*allgather)(void *state, const void *mine, void *all, size_t bytes, char *err,
                            size_t errlen);
    /* The end of a stage: every rank says whether it failed (msg: its
     * message). Afterwards *failed says whether any rank failed; on rank 0
     * msg is the message to print (the first rank that failed on its own,
     * prefixed with the rank), elsewhere it is emptied. */
    trn_status (*agree)(void *state, int *failed, char *msg, size_t len);
    /* `bytes` bytes from rank `from` to rank 0, into buf there (buf is the
     * source on rank `from`; other ranks do nothing). */
    trn_status (*to_root)(void *state, uint32_t from, void *buf, size_t bytes, char *err,
                          size_t errlen);

    /* ABI 3 (present when size covers them; all or none): other processes'
     * core memories, for remote DMA across processes (docs/mpi.md). The
     * host numbers its memory regions (trn_region) the same way on every
     * rank; offsets and extents are bytes from a region's start, and a
     * region has the same size and layout on every rank. */
    /* Make this rank's regions reachable by the others and learn theirs
     * (every rank calls it at the same point, with the same n); n = 0
     * withdraws them (local, no other rank takes part). */
    trn_status (*expose)(void *state, const trn_region *mine, uint32_t n, char *err, size_t errlen);
    /* An access epoch on rank `rank`: exclusive (no other rank's epoch on
     * it at the same time) or shared (only with other shared ones). */
    trn_status (*remote_begin)(void *state, uint32_t rank, int exclusive, char *err, size_t errlen);
    /* Inside an epoch: the extents of `rank`'s region into the same
     * offsets of `local` (this rank's copy of that region, laid out alike);
     * complete when it returns. */
    trn_status (*remote_get)(void *state, uint32_t rank, uint32_t region, const trn_extent *x,
                             size_t n, void *local, char *err, size_t errlen);
    /* Inside an exclusive epoch: the extents of `local` into `rank`'s
     * region; complete at remote_end. */
    trn_status (*remote_put)(void *state, uint32_t rank, uint32_t region, const trn_extent *x,
                             size_t n, const void *local, char *err, size_t errlen);
    trn_status (*remote_end)(void *state, uint32_t rank, char *err, size_t errlen);

    /* ABI 4 (present when size covers it): the whole job's count for the
     * progress display (docs/mpi.md). It changes nothing a run computes and
     * never waits for another rank, except rank 0's final call. A rank
     * other than 0 offers `mine`, the instructions its cores executed so
     * far, to rank 0 (dropped while its earlier offers are still under way;
     * final != 0: its run ended and this is its last count). On rank 0,
     * *total becomes its own `mine` plus the newest count each other rank
     * offered; with final != 0 rank 0 first waits, within the transport's
     * timeout and no longer than any failure, for the last count of each
     * rank that offered one. */
    trn_status (*progress)(void *state, uint64_t mine, int final, uint64_t *total, char *err,
                           size_t errlen);
};

#ifdef __cplusplus
}
#endif
#endif
