/* Checks shared by the experimental handlers: operand counts, partitioned
 * operands, optional integer attributes, buffers. */
#ifndef TRNSIM_EXP_GLUE_H
#define TRNSIM_EXP_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include "trnsim/plugin.h"

/* Exactly n_in inputs and n_out outputs. */
trn_status exp_counts(const trn_host_api *api, trn_ctx *ctx, const char *op, int n_in, int n_out);

/* Operand (dir, idx), which must be in SBUF or PSUM (both opcodes work per
 * partition; NKI places their tiles there). */
trn_status exp_operand(const trn_host_api *api, trn_ctx *ctx, const char *op, trn_dir dir, int idx,
                       trn_ap *ap);

/* The optional integer attribute key, def when absent, within [lo, hi]. */
trn_status exp_attr_int(const trn_host_api *api, trn_ctx *ctx, const char *op, const char *key,
                        int64_t def, int64_t lo, int64_t hi, int64_t *out);

/* malloc of n elements of width bytes, or an error naming the size. */
trn_status exp_alloc(const trn_host_api *api, trn_ctx *ctx, int64_t n, size_t width, void **out);

/* The dtype's name for messages. */
const char *exp_dtype_name(const trn_host_api *api, uint32_t dt);

#endif
