/* Per-core memories: SBUF and PSUM (partitioned), HBM (flat), registers.
 * Every memory remembers which bytes were ever written (one bit a byte),
 * for the reference's uninitialised-read guard. */
#ifndef TRNSIM_HOST_MEMORY_H
#define TRNSIM_HOST_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

typedef struct trn_memory {
    uint8_t *bytes;
    uint64_t *written;        /* bit per byte */
    /* A distributed run with remote DMA: the bits other processes set by
     * writing here (only they write it, under the transport's exclusive
     * epoch; a byte counts as written when either map says so). NULL
     * otherwise. */
    uint64_t *remote_written;
    uint32_t partitions;      /* 1 for HBM */
    uint64_t partition_bytes; /* bytes per partition (HBM: its size) */
    /* Boxes whose bytes the embedding program lent (memory/bindings.h). */
    struct trn_binding *bound;
    uint32_t n_bound, cap_bound;
} trn_memory;

typedef struct trn_machine {
    uint32_t partitions;
    uint64_t sbuf_partition_bytes, psum_partition_bytes, hbm_bytes;
    uint32_t registers;
    uint64_t max_bytes;             /* the run's memory budget; 0: the default */
    uint64_t max_instruction_bytes; /* one instruction's working memory; 0: the default */
} trn_machine;

typedef struct trn_core_state {
    trn_memory mem[3]; /* indexed by trn_mem */
    int64_t *regs;
    uint32_t nregs;
} trn_core_state;

extern const char *const trn_mem_names[3]; /* "sbuf", "psum", "hbm" */

int trn_core_state_init(trn_core_state *c, const trn_machine *m, trn_error *e);
void trn_core_state_free(trn_core_state *c);

/* Byte address of (partition, byte offset) in a memory. */
static inline uint64_t trn_mem_addr(const trn_memory *m, uint32_t partition, uint64_t byte) {
    return (uint64_t)partition * m->partition_bytes + byte;
}

/* The range [addr, addr+len) will be filled densely (a large tensor): ask
 * the kernel for 2 MiB pages (MADV_HUGEPAGE) over the whole huge pages
 * inside it, and over the part of the written map that mirrors them. The
 * pages are still reserved lazily; a kernel without transparent huge pages
 * ignores the advice. */
void trn_mem_advise_dense(trn_memory *m, uint64_t addr, uint64_t len);
/* Bytes of the written-byte map (and of remote_written). */
uint64_t trn_mem_map_bytes(const trn_memory *m);
/* Allocate remote_written (all zero, untouched pages free); 0 or -1. */
int trn_mem_enable_remote_map(trn_memory *m, trn_error *e);

void trn_mem_mark_written(trn_memory *m, uint64_t addr, uint64_t len);
/* True when every byte of [addr, addr+len) was written; else *first_unwritten. */
bool trn_mem_is_written(const trn_memory *m, uint64_t addr, uint64_t len, uint64_t *first_unwritten);

#endif
