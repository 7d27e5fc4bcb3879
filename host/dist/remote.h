/* Remote DMA across processes: accesses to another process's core through
 * this process's copy of its memory, inside one transport epoch (remote.c). */
#ifndef TRNSIM_HOST_REMOTE_H
#define TRNSIM_HOST_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "memory/memory.h"
#include "trnsim/plugin.h"

#include "dist/dist.h"
#include "memory/ap.h"

typedef struct trn_remote_txn {
    bool active, write;
    uint32_t core, mem, rank;
    trn_memory *m;           /* this process's copy of the owner's memory */
    trn_extent *x, *wx;      /* byte extents; their map words (as map bytes) */
    size_t n, nw;
    uint8_t *before;         /* a write: the fetched bytes of x, packed */
    uint64_t *before_map;    /* a write: their fetched written bits, per extent */
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
int trn_remote_begin(trn_dist *d, const trn_ap_env *env, const trn_ap *ap, bool write, trn_remote_txn *t,
                     trn_error *e);
int trn_remote_end(trn_dist *d, trn_remote_txn *t, bool ok, trn_error *e);
void trn_remote_txn_free(trn_remote_txn *t);

#endif
