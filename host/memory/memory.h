#ifndef TRNSIM_HOST_MEMORY_MEMORY_H
#define TRNSIM_HOST_MEMORY_MEMORY_H

/* Per-core memories: SBUF and PSUM (partitioned), HBM (flat), registers.
 * Every memory remembers which bytes were ever written (one bit a byte),
 * for the reference's uninitialised-read guard. The map is marked and
 * checked a 64-bit word at a time, and a summary bit per 4 KiB chunk says
 * "every byte here is written", so a large range already written costs a
 * summary bit per chunk to check or mark again. */

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"

typedef struct trn_memory {
    uint8_t *bytes;
    uint64_t *written; /* bit per byte */
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
    /* Boxes whose bytes the embedding program lent (memory/memory.h). */
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
bool trn_mem_is_written(const trn_memory *m, uint64_t addr, uint64_t len,
                        uint64_t *first_unwritten);
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

/* Bindings: a tensor's bytes lent by the embedding program instead of
 * copied in (trnsim_bind_tensor, docs/embedding.md). A bound box of a memory
 * reads from the caller's buffer; the memory's own bytes under it are stale
 * until the binding is settled (copied in) or dropped. Every path that moves
 * data through host/memory settles the bindings its AP's box meets first, so
 * only the lent-view path (ap_view.c) reads the buffer in place, and nothing
 * ever writes it. Bindings of one memory never overlap. */

#include <stdbool.h>
#include <stdint.h>

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

/* Access patterns: validation, bounds, and every transfer through an AP
 * (dense, raw, indirect), walked in the reference's runAP order. */

#include <stdbool.h>
#include <stddef.h>

#include "trnsim/dtype.h"
#include "trnsim/plugin/ap.h"

/* Says what holds byte `byte` of partition `part` (e.g. "element 3 of tensor
 * 'x'") and how to give it data, for the uninitialised-read message; writes
 * "" when nothing does. */
typedef void (*trn_byte_namer)(const void *arg, uint32_t mem, uint64_t part, uint64_t byte,
                               char *buf, size_t len);

typedef struct trn_ap_env {
    trn_core_state *cores;
    uint32_t ncores;
    bool allow_uninit; /* reads of never-written bytes allowed */
    /* Cores this access may touch: [local_lo, local_hi); local_hi 0 = all.
     * A distributed run keeps the other cores' memories in other processes. */
    uint32_t local_lo, local_hi;
    uint32_t rank_of_div; /* cores per process, for the message (0: none) */
    trn_byte_namer namer; /* NULL: messages name bytes only */
    const void *namer_arg;
} trn_ap_env;

/* Fields, core, dtype and bounds of every element; 0 or -1 with a message
 * naming the offending partition / byte offset. */
int trn_ap_check(const trn_ap_env *env, const trn_ap *ap, trn_error *e);

int trn_ap_read_f32(const trn_ap_env *env, const trn_ap *ap, float *dst, trn_error *e);
int trn_ap_read_raw(const trn_ap_env *env, const trn_ap *ap, void *dst, trn_error *e);
/* Narrow then cast_copy_or_accumulate(op). An accumulate into a byte range
 * never written stores the value (the reference's runAP "seen" flag). */
int trn_ap_write_f32(const trn_ap_env *env, const trn_ap *ap, const float *src, trn_acc_op op,
                     trn_error *e);
int trn_ap_write_raw(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_error *e);
int trn_ap_read_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                             float *dst, trn_error *e);
int trn_ap_write_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const float *src, trn_acc_op op, trn_error *e);

/* Bounds and, when reading, the uninitialised-read guard; moves nothing. */
int trn_ap_check_access(const trn_ap_env *env, const trn_ap *ap, bool reading, trn_error *e);
/* src in the AP's dtype; copy, or cast_copy_or_accumulate in that dtype. */
int trn_ap_write_raw_op(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_acc_op op,
                        trn_error *e);
int trn_ap_read_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                             void *dst, trn_error *e);
int trn_ap_write_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const void *src, trn_acc_op op, trn_error *e);

/* dst <- src (one dtype, equal element counts), as if src were read whole
 * first; op as in trn_ap_write_raw_op. One memmove per pair of contiguous runs. */
int trn_ap_copy_raw(const trn_ap_env *env, const trn_ap *dst, const trn_ap *src, trn_acc_op op,
                    trn_error *e);

/* XXH64 (common/common.h) of the AP's bytes in visiting order, hashed in
 * place (strided runs through a small buffer); bounds as trn_ap_read_raw,
 * the uninitialised-read guard as env says. */
int trn_ap_digest(const trn_ap_env *env, const trn_ap *ap, uint64_t *out, trn_error *e);
/* For lent memory (ap_view.h): mark every element of a checked AP written;
 * whether every byte it reaches was written (ignoring allow_uninit). */
int trn_ap_mark_written(const trn_ap_env *env, const trn_ap *ap, trn_error *e);
bool trn_ap_all_written(const trn_ap_env *env, const trn_ap *ap);
/* Whether some byte the AP reaches was never written: then the first such
 * element, in visiting order (dense index), and its byte address. */
bool trn_ap_first_unwritten(const trn_ap_env *env, const trn_ap *ap, int64_t *elem, uint64_t *addr);

/* The partitions and per-partition bytes a checked AP can touch. */
trn_box trn_ap_box(const trn_ap *ap);

/* "sbuf[p0:+n:s] off=.. ap=[[s,n],..] float32" for messages. */
void trn_ap_describe(const trn_ap *ap, char *buf, size_t len);

/* Views: the memory under an AP addressed in place (plugin.h's trn_view),
 * for the host functions that lend memory to a module. */

#include <stdbool.h>

#include "trnsim/plugin/lend.h"

/* Fill *v for an AP that passed trn_ap_check (all but slot and mode).
 * read_only: an AP inside a binding (memory/memory.h) is viewed in the
 * caller's buffer; otherwise the bindings its box meets are settled first. */
void trn_ap_view_fill(const trn_ap_env *env, const trn_ap *ap, bool read_only, trn_view *v);

/* True when no two elements of the AP share a byte. Conservative: a false
 * answer may be wrong for some exotic interleavings, a true one never is. */
bool trn_ap_injective(const trn_ap_env *env, const trn_ap *ap);

/* A tensor's bytes as the runs they occupy in host memory, handed out in
 * place: the .npy reader fills them straight from a file and the writer
 * drains them straight into one, with no dense copy in between. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One run of bytes, in the AP's element order. NULL bytes: the run lives
 * in another process's memory (a distributed run); skip len bytes. */
typedef int (*trn_span_fn)(void *ctx, uint8_t *bytes, size_t len, trn_error *e);

/* For an AP whose free dims are row-major contiguous (a tensor's own AP):
 * fn once per run of adjacent partitions, in element order. writing: the
 * bytes are marked written once fn returned 0 for them (fn then filled
 * every byte). Bounds as trn_ap_check; another AP shape is refused. */
int trn_ap_spans(const trn_ap_env *env, const trn_ap *ap, bool writing, trn_span_fn fn, void *ctx,
                 trn_error *e);

/* The AP's bytes on core `from` copied to the same place on ap->core, and
 * marked written there: one tensor's data on every core, read once. */
int trn_ap_spans_copy(const trn_ap_env *env, const trn_ap *ap, uint32_t from, trn_error *e);

/* Huge pages for a tensor that its own AP covers densely: the bytes from
 * its first to its last partition, when the tensor holds at least half of
 * them (a tensor narrower than half a partition stays on small pages, so a
 * sparse SBUF tensor does not fault in whole 2 MiB pages it barely uses). */
void trn_ap_advise_dense(const trn_ap_env *env, const trn_ap *ap);

#endif
