/* The DMA module's state and the helpers its handlers share. */
#ifndef TRNSIM_DMA_STATE_H
#define TRNSIM_DMA_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dma_kernels.h"
#include "trnsim/plugin.h"

/* One DMATrigger's fire counter (the reference's per-trigger DenseMap). */
typedef struct dma_trigger {
    int64_t id;
    uint64_t fired; /* successful fires so far */
    size_t nblocks; /* blocks the trigger owns (fixed at its first fire) */
} dma_trigger;

typedef struct dma_core {
    dma_trigger *trig;
    size_t ntrig, cap;
} dma_core;

enum { DMA_SCRATCH_SLOTS = 4 };

typedef struct dma_state {
    bool allow_minmax;     /* setting allow_minmax_reduce */
    dma_cce_init cce_init; /* setting cce_init */
    uint32_t ncores;
    dma_core *cores; /* per core, sized in run_begin */
    int dry_run;     /* > 0: handlers validate, then return before any memory access */
    void *scratch[DMA_SCRATCH_SLOTS];
    size_t scratch_cap[DMA_SCRATCH_SLOTS];
} dma_state;

/* Grow-only scratch buffer `slot` of at least bytes (NULL when out of
 * memory). Reused across instructions so large copies do not fault fresh
 * pages every time. */
void *dma_scratch(dma_state *st, int slot, size_t bytes);

/* "expects N input(s) and M output(s), found ..." unless the counts match;
 * nin_max < 0 means no upper limit. */
trn_status dma_expect_operands(const trn_host_api *api, trn_ctx *ctx, int nin_min, int nin_max,
                               int nout);

/* Optional boolean attribute (true / false / 0 / 1). */
trn_status dma_attr_bool(const trn_host_api *api, trn_ctx *ctx, const char *key, bool def,
                         bool *out);

/* Dtype facts the family needs before it asks the host. */
bool dma_dtype_widens(uint32_t dt);  /* not a packed x4 form */
bool dma_dtype_reduces(uint32_t dt); /* one of the 8 reducing dtypes */

/* Write a dense buffer through dst: raw elements of dst's dtype when raw,
 * otherwise fp32 values narrowed to dst's dtype (RNE); with accumulate they
 * are added to memory by cast_copy_or_accumulate(add) in dst's dtype (the
 * PSUM-accumulate path). */
trn_status dma_write_dense(const trn_host_api *api, trn_ctx *ctx, const trn_ap *dst,
                           const void *buf, bool raw, bool accumulate);

/* Validation shared by every write: a packed dtype on only one side, and
 * accumulate into a dtype that cannot reduce, are errors. `what` names the
 * instruction's flavour for the message. */
trn_status dma_check_cast(const trn_host_api *api, trn_ctx *ctx, const char *what, uint32_t src_dt,
                          uint32_t dst_dt, bool accumulate);

/* ---- handlers (one per flavour) ---- */

/* Plain copies: AbstractCopy, Load, Save, TensorCopy, GenericCopy. */
trn_status dma_h_copy(const trn_host_api *api, trn_ctx *ctx, void *state);
/* DMACopy (32) and DMADescriptor (68): the mode switch. */
trn_status dma_h_dmacopy(const trn_host_api *api, trn_ctx *ctx, void *state);
/* DMADescriptorCopy / CCE / Transpose / Replicate (69..72). */
trn_status dma_h_desc_copy(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status dma_h_desc_cce(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status dma_h_desc_transpose(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status dma_h_desc_replicate(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status dma_h_block(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status dma_h_trigger(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status dma_h_tensor_load(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status dma_h_tensor_save(const trn_host_api *api, trn_ctx *ctx, void *state);

/* dma_snapshot.c: the trigger counters in a dump (ABI 3 state hooks). */
trn_status dma_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                          size_t errlen);
trn_status dma_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                             size_t errlen);

/* ---- the modes, shared by DMACopy and the descriptors ---- */

trn_status dma_mode_copy(const trn_host_api *api, trn_ctx *ctx,
                         dma_state *st); /* 0, direct or indirect */
trn_status dma_mode_transpose(const trn_host_api *api, trn_ctx *ctx, dma_state *st); /* 1 */
trn_status dma_mode_cce(const trn_host_api *api, trn_ctx *ctx, dma_state *st);       /* 2 */
trn_status dma_mode_replicate(const trn_host_api *api, trn_ctx *ctx, dma_state *st); /* 3 */
trn_status dma_mode_indirect(const trn_host_api *api, trn_ctx *ctx, dma_state *st,
                             const char *kind);

#endif
