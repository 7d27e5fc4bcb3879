/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * memories, access patterns (trn_ap), accumulate ops, operand directions:
 * the data model every other topic speaks in.
 */
#ifndef TRNSIM_PLUGIN_AP_H
#define TRNSIM_PLUGIN_AP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory and access patterns -------------------------------------- */

typedef enum trn_mem {
    TRN_MEM_SBUF = 0, /* partitioned */
    TRN_MEM_PSUM = 1, /* partitioned */
    TRN_MEM_HBM = 2   /* flat: one partition */
} trn_mem;

#define TRN_AP_MAX_DIMS 4

/* An access pattern. Elements are visited partition-major: for each of the
 * part_count partitions (part_start + p*part_step), the free dims are walked
 * with dims[0] outermost and dims[ndims-1] innermost (the reference's runAP
 * order). The element address in a partition is
 *   offset + sum_d(i_d * dims[d].step)   (in elements of dtype)
 * and its byte address offset*width + ... . A dense buffer read from or
 * written through an AP is laid out in exactly this visiting order, so it is
 * [part_count][elements per partition]. `core` names the core whose memory
 * is meant; operands come with the executing core filled in, and a plugin
 * may change it to reach another core's memory (collectives, remote DMA). */
typedef struct trn_ap {
    uint32_t core;
    uint32_t mem;   /* trn_mem */
    uint32_t dtype; /* trn_dtype */
    uint32_t part_start, part_count, part_step;
    int64_t offset; /* in elements of dtype, from the start of the partition */
    uint32_t ndims;
    struct {
        int64_t step; /* in elements, may be 0 or negative */
        int64_t num;  /* >= 1 */
    } dims[TRN_AP_MAX_DIMS];
} trn_ap;

/* Elements per partition of an AP. Meant for APs the host gave or checked
 * (operand(), check_ap()): ndims <= TRN_AP_MAX_DIMS and at most 2^30
 * elements in all. On an AP built by hand and not yet checked, the product
 * can overflow; call check_ap() first. */
static inline int64_t trn_ap_free_elems(const trn_ap *ap) {
    int64_t n = 1;
    for (uint32_t d = 0; d < ap->ndims; ++d) n *= ap->dims[d].num;
    return n;
}

/* All elements of an AP. */
static inline int64_t trn_ap_elems(const trn_ap *ap) {
    return (int64_t)ap->part_count * trn_ap_free_elems(ap);
}

/* Accumulate ops of cast_copy_or_accumulate (the reference's
 * MemoryReductionOp numbering, copy=0 add=1 MIN=2 MAX=3). */
typedef enum trn_acc_op {
    TRN_ACC_COPY = 0,
    TRN_ACC_ADD = 1,
    TRN_ACC_MIN = 2,
    TRN_ACC_MAX = 3
} trn_acc_op;

/* Operand direction. */
typedef enum trn_dir { TRN_IN = 0, TRN_OUT = 1 } trn_dir;

#ifdef __cplusplus
}
#endif
#endif
