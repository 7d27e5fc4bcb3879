/* Access patterns: validation, bounds, and every transfer through an AP
 * (dense, raw, indirect), walked in the reference's runAP order. */
#ifndef TRNSIM_HOST_AP_H
#define TRNSIM_HOST_AP_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "memory/bindings.h"
#include "memory/memory.h"
#include "trnsim/dtype.h"
#include "trnsim/plugin/ap.h"

/* Says what holds byte `byte` of partition `part` (e.g. "element 3 of tensor
 * 'x'") and how to give it data, for the uninitialised-read message; writes
 * "" when nothing does. */
typedef void (*trn_byte_namer)(const void *arg, uint32_t mem, uint64_t part, uint64_t byte, char *buf, size_t len);

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
int trn_ap_write_f32(const trn_ap_env *env, const trn_ap *ap, const float *src, trn_acc_op op, trn_error *e);
int trn_ap_write_raw(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_error *e);
int trn_ap_read_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n, float *dst,
                             trn_error *e);
int trn_ap_write_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const float *src, trn_acc_op op, trn_error *e);

/* Bounds and, when reading, the uninitialised-read guard; moves nothing. */
int trn_ap_check_access(const trn_ap_env *env, const trn_ap *ap, bool reading, trn_error *e);
/* src in the AP's dtype; copy, or cast_copy_or_accumulate in that dtype. */
int trn_ap_write_raw_op(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_acc_op op, trn_error *e);
int trn_ap_read_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n, void *dst,
                             trn_error *e);
int trn_ap_write_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const void *src, trn_acc_op op, trn_error *e);

/* dst <- src (one dtype, equal element counts), as if src were read whole
 * first; op as in trn_ap_write_raw_op. One memmove per pair of contiguous runs. */
int trn_ap_copy_raw(const trn_ap_env *env, const trn_ap *dst, const trn_ap *src, trn_acc_op op, trn_error *e);

/* XXH64 (common/digest.h) of the AP's bytes in visiting order, hashed in
 * place (strided runs through a small buffer); bounds as trn_ap_read_raw,
 * the uninitialised-read guard as env says. */
int trn_ap_digest(const trn_ap_env *env, const trn_ap *ap, uint64_t *out, trn_error *e);
/* For lent memory (ap_view.h): mark every element of a checked AP written;
 * whether every byte it reaches was written (ignoring allow_uninit). */
int trn_ap_mark_written(const trn_ap_env *env, const trn_ap *ap, trn_error *e);
bool trn_ap_all_written(const trn_ap_env *env, const trn_ap *ap);

/* The partitions and per-partition bytes a checked AP can touch. */
trn_box trn_ap_box(const trn_ap *ap);

/* "sbuf[p0:+n:s] off=.. ap=[[s,n],..] float32" for messages. */
void trn_ap_describe(const trn_ap *ap, char *buf, size_t len);

#endif
