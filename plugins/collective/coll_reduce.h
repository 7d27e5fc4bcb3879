/* The collective reducer: doReduction @ 0x1b3400 of the reference
 * (doReduction @ 0x1b3400: "The collective reducer is a separate
 * engine"), as a pure function on dense fp32 buffers.
 *
 * op is the reference's bir::AluOpType: add 4, max 8, min 9. Every element
 * folds as the disassembly does, the running result (acc) always the second
 * SSE operand:
 *   add: acc = addss(x, acc)   -> x + acc; when x is NaN the result is x
 *                                 quietened (the first operand's payload)
 *   max: acc = maxss(x, acc)   -> x > acc ? x : acc  (NaN or tie keeps acc)
 *   min: acc = minss(x, acc)   -> x < acc ? x : acc  (NaN or tie keeps acc)
 * The results do not depend on how the compiler orders the operands of the
 * C `+`: the NaN rule is applied explicitly (tests compare against inline
 * SSE assembly). */
#ifndef COLL_REDUCE_H
#define COLL_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COLL_OP_ADD 4
#define COLL_OP_MAX 8
#define COLL_OP_MIN 9

/* True for the three ops the fold accepts. (Inline: the fast reducer and the
 * reference module's, ref/coll_ref_kernels.c, share it.) */
static inline bool coll_op_supported(int64_t op) {
    return op == COLL_OP_ADD || op == COLL_OP_MAX || op == COLL_OP_MIN;
}

/* Does doReduction over n_ins inputs of n elements reach the fold's
 * "Unsupported OP type" assertion? Only when the fold actually runs: the
 * reference checks the op per element inside the loop over inputs 1.., so
 * one input, zero elements, or the SCALE branch never reject an op. */
static inline bool coll_reduce_rejects(int64_t op, size_t n_ins, size_t n, bool has_scale) {
    if (op == COLL_OP_ADD && has_scale) return false;
    return n_ins > 1 && n > 0 && !coll_op_supported(op);
}

/* doReduction. ins[0..n_ins) each hold n floats; res gets n floats.
 * SCALE branch (op add and has_scale): res = ins[0] * scale, only the first
 * input (the reference's multi-worker AllReduce passes scale = replicas).
 * FOLD branch: res = ins[0], then ins[1], ..., ins[n_ins-1] folded in order.
 * Precondition: !coll_reduce_rejects(op, n_ins, n, has_scale); n_ins >= 1.
 * res may alias ins[0] (and nothing else). Elementwise, so a caller may
 * apply it to any sub-range of the buffers. */
void coll_reduce(int64_t op, const float *const *ins, size_t n_ins, size_t n, bool has_scale,
                 float scale, float *res);

/* The per-element SSE operations, for callers that fold one pair. */
float coll_add1(float x, float acc);
float coll_max1(float x, float acc);
float coll_min1(float x, float acc);
float coll_mul1(float x, float s);

#endif
