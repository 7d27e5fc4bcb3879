/* Per-core memories: SBUF and PSUM (partitioned), HBM (flat), registers.
 * Every memory remembers which bytes were ever written (one bit a byte),
 * for the reference's uninitialised-read guard. The map is marked and
 * checked a 64-bit word at a time, and a summary bit per 4 KiB chunk says
 * "every byte here is written", so a large range already written costs a
 * summary bit per chunk to check or mark again. */
#ifndef TRNSIM_HOST_MEMORY_H
#define TRNSIM_HOST_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

typedef struct trn_memory {
    uint8_t *bytes;
    uint64_t *written;        /* bit per byte */
    /* Bit k set: bytes [k*TRN_MEM_CHUNK, (k+1)*TRN_MEM_CHUNK) are all
     * written (their 64 words of `written` are all ones). Clear says
     * nothing; a check that finds a chunk whole sets it. */
    uint64_t *full;
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

#define TRN_MEM_CHUNK 4096u /* bytes per summary bit: 64 map words */

void trn_mem_mark_written(trn_memory *m, uint64_t addr, uint64_t len);
/* True when every byte of [addr, addr+len) was written (here or, in a
 * distributed run, by another process); else *first_unwritten (if not
 * NULL) is the lowest byte that was not. */
bool trn_mem_is_written(const trn_memory *m, uint64_t addr, uint64_t len, uint64_t *first_unwritten);
/* The map's bytes [map_off, map_off+map_len) were overwritten from
 * elsewhere (a remote fetch): drop the summary bits over them. */
void trn_mem_map_overwritten(trn_memory *m, uint64_t map_off, uint64_t map_len);
/* Forget that [addr, addr+len) was written (a restore, tests' holes). */
void trn_mem_clear_written(trn_memory *m, uint64_t addr, uint64_t len);
/* The map of [addr, addr+len): bit i of out (LSB first in each byte) says
 * whether byte addr+i is written, as trn_mem_is_written sees it; out holds
 * (len + 7) / 8 bytes, the unused bits of its last byte zero. */
void trn_mem_copy_written(const trn_memory *m, uint64_t addr, uint64_t len, uint8_t *out);

/* One element of width <= 8 inside one map word (the usual aligned
 * element): a single word operation; anything else takes the range path. */
static inline void trn_mem_mark_elem(trn_memory *m, uint64_t addr, uint32_t width) {
    unsigned lo = (unsigned)(addr & 63);
    if (lo + width > 64) {
        trn_mem_mark_written(m, addr, width);
        return;
    }
    uint64_t bits = (width == 64 ? ~0ull : ((1ull << width) - 1)) << lo;
    m->written[addr >> 6] |= bits;
}

static inline bool trn_mem_elem_written(const trn_memory *m, uint64_t addr, uint32_t width) {
    unsigned lo = (unsigned)(addr & 63);
    if (lo + width > 64) return trn_mem_is_written(m, addr, width, NULL);
    uint64_t bits = ((1ull << width) - 1) << lo;
    uint64_t have = m->written[addr >> 6] | (m->remote_written ? m->remote_written[addr >> 6] : 0);
    return (have & bits) == bits;
}

#endif
