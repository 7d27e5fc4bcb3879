/* Helpers shared by the collective runners (coll_exec.c, coll_exec_reduce.c):
 * messages prefixed with the kind, count checks, output checks, reading
 * every participant's input into dense buffers. */
#ifndef COLL_EXEC_COMMON_H
#define COLL_EXEC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll_exec.h"

#define ALIGN64(b) (((b) + 63) & ~(size_t)63)
/* fp32 buffers are laid out at strides of whole 64-byte lines, in floats. */
#define F32_STRIDE(elems) (ALIGN64((size_t)(elems) * sizeof(float)) / sizeof(float))

/* api->error with "<Kind> (kind K): " in front. */
trn_status coll_fail(const coll_exec *x, const char *fmt, ...) TRN_PRINTF(2, 3);
trn_status coll_unsupported_op(const trn_host_api *api, trn_ctx *ctx, int64_t op);
trn_status coll_oom(const coll_exec *x, size_t bytes);

/* Every AP of the participants (n_in inputs each, one output) has one dtype. */
bool coll_all_same_dtype(const coll_exec *x, int n_in);
/* Every participant's first input has the first participant's count. */
trn_status coll_same_in_counts(const coll_exec *x);
/* Participant i's output has `want` elements (why explains want). */
trn_status coll_out_count_is(const coll_exec *x, uint32_t i, int64_t want, const char *why);
/* Every participant's inputs are readable on the data's path (coll_check_in)
 * and its output writable (coll_check_out). */
trn_status coll_check_operands(const coll_exec *x, bool raw);
/* Input k of participant i lands at base + (i * n_in + k) * stride
 * (bytes for the raw form, floats for the fp32 form). */
trn_status coll_read_all(const coll_exec *x, int n_in, bool raw, char *base, size_t stride);
trn_status coll_read_all_f32(const coll_exec *x, int n_in, float *base, size_t stride);

/* SendRecv / SendRecvCCE: the position whose input position j receives. */
uint32_t coll_peer_pos(const coll_exec *x, uint32_t j);

/* The reducing kinds (coll_exec_reduce.c). */
trn_status coll_exec_reduce_all(const coll_exec *x, bool scatter); /* AllReduce, ReduceScatter */
trn_status coll_exec_send_recv_cce(const coll_exec *x);
trn_status coll_exec_permute_reduce_implicit(const coll_exec *x);

#endif
