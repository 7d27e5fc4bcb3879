/* The arithmetic core: the dtype table, widen / narrow, and
 * cast_copy_or_accumulate, bit-exact to the reference's
 * birsim::cast_copy_or_accumulate @ 0x28ff00 (docs/arith.md).
 *
 * Per-element functions are the reference; the span functions hoist the
 * dtype switch out of the loop and must give the same bits (tests compare). */
#ifndef TRNSIM_HOST_ARITH_H
#define TRNSIM_HOST_ARITH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "trnsim/dtype.h"
#include "trnsim/plugin/ap.h"

/* ---- the dtype table (arith_dtype.c) ---- */

/* Byte width of dt, 0 for an id outside 0..19. */
uint32_t trn_dtype_width(trn_dtype dt);
/* Canonical lower-case name ("float32", "bfloat16", "float8_e4m3", ...);
 * "dtype<N>" for an unknown id (never NULL). */
const char *trn_dtype_name(trn_dtype dt);
/* Case-insensitive lookup of a canonical name or documented alias
 * ("fp32", "bf16", "f16", "e4m3", ...). -1 with "unknown dtype 'x' (known: ...)". */
int trn_dtype_from_name(const char *name, trn_dtype *out, trn_error *e);
/* True for the dtypes that have one fp32 value per element (all but the
 * packed x4 forms). */
bool trn_dtype_widens(trn_dtype dt);
/* True for floating-point dtypes (fp8 / fp16 / bf16 / fp32 / fp32r). */
bool trn_dtype_is_float(trn_dtype dt);
/* True for the 8 reducing dtypes {E3M4, E4M3, E5M2, bf16, fp16, int32, fp32, int64}. */
bool trn_dtype_reduces(trn_dtype dt);
/* The documented aliases of dt (NULL-terminated, lower case; the canonical
 * name is not repeated). An empty list for an unknown id. */
const char *const *trn_dtype_aliases(trn_dtype dt);

/* fp32 <-> its bit pattern (memcpy: no aliasing UB, compiles to a move). */
static inline uint32_t trn_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float trn_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- scalar formats (arith_convert.c) ---- */

uint16_t trn_f32_to_bf16(float v);
float trn_bf16_to_f32(uint16_t h);
uint16_t trn_f32_to_f16(float v);
float trn_f16_to_f32(uint16_t h);
/* The IEEE-style fp8 formats E3M4 / E4M3 / E5M2 (config 0: overflow -> Inf,
 * NaN -> canonical NaN) and OCP e4m3fn / e8m0fnu. dt selects the format. */
uint8_t trn_f32_to_fp8(trn_dtype dt, float v);
float trn_fp8_to_f32(trn_dtype dt, uint8_t code);

/* One element of dt at src -> fp32. Precondition: trn_dtype_widens(dt). */
float trn_widen(trn_dtype dt, const void *src);
/* fp32 -> one element of dt at dst: RNE for floats; integers truncate
 * toward zero, saturate at the range, NaN -> 0. Precondition: widens(dt). */
void trn_narrow(trn_dtype dt, float v, void *dst);

/* Spans: n contiguous elements. Same bits as the per-element functions. */
void trn_widen_span(trn_dtype dt, const void *src, float *dst, size_t n);
void trn_narrow_span(trn_dtype dt, const float *src, void *dst, size_t n);

/* Cast n elements of `from` at src to `to` at dst (a memory-to-memory cast).
 * Same dtype: a byte copy (all 20, NaN payloads kept). Integer -> integer:
 * exact, saturating at the range of `to` (no fp32 round trip, so int32 and
 * 64-bit values above 2^24 survive). Otherwise widen to fp32 and narrow
 * (RNE; the integer rule above). -1 when either side is a packed x4 form and
 * the dtypes differ. dst and src must not overlap unless equal. */
int trn_cast_span(trn_dtype to, void *dst, trn_dtype from, const void *src, size_t n, trn_error *e);

/* ---- cast_copy_or_accumulate (arith_accumulate.c) ---- */

/* dst = reduce(dst, src) for one element of dt, both in dt's encoding.
 * op copy: memcpy of the width, all 20 dtypes. add / min / max: the 8
 * reducing dtypes only, else -1 with "cast_accumulate: unsupported dtype
 * <name>". Integers wrap; floats reduce in fp32 with SSE min/max semantics
 * (max(x, acc) = x > acc ? x : acc, acc second) and narrow back with RNE. */
int trn_cast_copy_or_accumulate(trn_acc_op op, void *dst, const void *src, trn_dtype dt,
                                trn_error *e);
/* The same over n contiguous elements. */
int trn_accumulate_span(trn_acc_op op, void *dst, const void *src, trn_dtype dt, size_t n,
                        trn_error *e);

/* The same at scattered places: element j is base + offsets[j] (bytes);
 * applied in order j = 0..n-1, so repeated offsets accumulate
 * (arith_scatter.c). */
int trn_accumulate_scatter(trn_acc_op op, uint8_t *base, const uint64_t *offsets, const void *src,
                           trn_dtype dt, size_t n, trn_error *e);

/* The checks the three forms above share: a known dtype and op, and a
 * reducing dtype unless op is copy; -1 with the message otherwise. */
int trn_accumulate_check(trn_acc_op op, trn_dtype dt, trn_error *e);

/* The fp32 ALU core (sub_28f700): acc = op(acc, x) with SSE semantics. */
float trn_alu_f32(trn_acc_op op, float acc, float x);

/* AluOpType (bypass 0, add 4, max 8, min 9, ...) -> MemoryReductionOp.
 * bypass -> copy, add -> add; max / min -> MAX / MIN only when
 * allow_minmax (the opt-in setting), else -1 naming the op like every other
 * value. */
int trn_aluop_to_memop(int64_t aluop, bool allow_minmax, trn_acc_op *out, trn_error *e);

#endif
