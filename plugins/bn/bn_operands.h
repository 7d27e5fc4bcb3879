/* Operand fetch and validation for the BN handlers (layouts: docs/bn.md).
 * Every check runs before the handler reads or writes anything. */
#ifndef TRNSIM_BN_OPERANDS_H
#define TRNSIM_BN_OPERANDS_H

#include <stddef.h>

#include "bn_kernels.h"
#include "trnsim/plugin.h"

/* Return TRN_ERR from the calling handler when x is not TRN_OK (the error
 * is already recorded). */
#define BN_TRY(x)                                                                                  \
    do {                                                                                           \
        if ((x) != TRN_OK) return TRN_ERR;                                                         \
    } while (0)

/* One operand: its AP and shape (partitions x elements per partition). */
typedef struct bn_operand {
    trn_ap ap;
    size_t parts, elems;
} bn_operand;

/* Exactly n_in inputs and n_out outputs, else an error quoting layout
 * (e.g. "inputs [x], outputs [stats]"). */
trn_status bn_expect_counts(const trn_host_api *api, trn_ctx *ctx, const char *op, int n_in,
                            int n_out, const char *layout);

/* Fetch operand idx of dir, named role in messages, whose dtype must have an
 * fp32 value (all dtypes but the packed x4 forms). */
trn_status bn_get(const trn_host_api *api, trn_ctx *ctx, const char *op, trn_dir dir, int idx,
                  const char *role, bn_operand *o);

/* o has `parts` partitions and `elems` elements per partition; why says
 * what the count means ("the mean, one per partition"). */
trn_status bn_expect_shape(const trn_host_api *api, trn_ctx *ctx, const char *op,
                           const bn_operand *o, const char *role, size_t parts, size_t elems,
                           const char *why);

/* Rows (partitions) a handler reads per host call: a slice of BN_BLOCK
 * partitions (512 KiB of fp32 at 16384 elements) is still in cache when the
 * kernel runs over it, and every slice but the last is one full kernel
 * block. Measured on the BNStats benchmark: 4 rows 2.3x slower (no full
 * block), 16 or 32 rows 5-10% slower. */
#define BN_SLICE_ROWS BN_BLOCK

/* Read partitions [p0, p0 + n) of ap, widened to fp32, into dst [n][elems]. */
trn_status bn_read_rows(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, size_t p0,
                        size_t n, float *dst);

/* parts * elems * k floats fit in memory arithmetic (size_t, bytes). */
int bn_size_ok(size_t parts, size_t elems, size_t k);

#endif
