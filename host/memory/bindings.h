/* Bindings: a tensor's bytes lent by the embedding program instead of
 * copied in (trnsim_bind_tensor, docs/embedding.md). A bound box of a memory
 * reads from the caller's buffer; the memory's own bytes under it are stale
 * until the binding is settled (copied in) or dropped. Every path that moves
 * data through host/memory settles the bindings its AP's box meets first, so
 * only the lent-view path (ap_view.c) reads the buffer in place, and nothing
 * ever writes it. Bindings of one memory never overlap. */
#ifndef TRNSIM_HOST_BINDINGS_H
#define TRNSIM_HOST_BINDINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "memory/memory.h"

/* Partitions [p_lo, p_hi) x bytes [b_lo, b_hi) within each partition. */
typedef struct trn_box {
    uint32_t p_lo, p_hi;
    uint64_t b_lo, b_hi;
} trn_box;

/* Row p - box.p_lo of the buffer (row bytes each, rows abutting) holds
 * partition p's bytes [box.b_lo, box.b_hi). */
typedef struct trn_binding {
    const uint8_t *data;
    trn_box box;
} trn_binding;

/* Lend data for the box and mark the box written. A binding inside the box
 * is dropped (superseded whole); one that only meets it is settled first.
 * 0, or -1 when out of memory (nothing changed). */
int trn_mem_bind(trn_memory *m, const uint8_t *data, trn_box box, trn_error *e);
/* Copy every binding that meets box into the memory and forget it. */
void trn_mem_settle(trn_memory *m, trn_box box);
void trn_mem_settle_all(trn_memory *m);
/* Forget the bindings inside box without copying (their bytes are about to
 * be overwritten whole, or the memory replaced); settle those that only meet it. */
void trn_mem_drop_within(trn_memory *m, trn_box box);
/* The binding holding every byte of box, or NULL. */
const trn_binding *trn_mem_binding_over(const trn_memory *m, trn_box box);
void trn_mem_free_bindings(trn_memory *m);

#endif
