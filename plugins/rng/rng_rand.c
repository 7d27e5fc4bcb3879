/* Rand (IT 60, gen-1) and Rand2 (IT 97, gen-2) handlers.
 *
 * Both validate everything, generate into a dense buffer from a working
 * copy of the states, write the buffer, and only then commit the states:
 * a failed instruction leaves memory and engine untouched. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rng_engine.h"
#include "rng_gen1.h"
#include "rng_glue.h"
#include "rng_ops.h"
#include "rng_xorwow.h"

/* Run fill over the visited partitions of ap and write the result.
 *
 * states is the core's [partitions][words] block. The visited rows are
 * gathered into a working copy and committed only after every write
 * succeeded. An AP with partition_step 0 visits one partition several
 * times: its stream simply continues from visit to visit.
 *
 * The output goes out in chunks of whole partitions through sub-APs, so the
 * staging buffer stays small (cache-resident) instead of holding the whole
 * tensor. Only the first chunk can fail: the host checks a write before it
 * touches memory, every chunk has the same free-dim offsets and dtype, and
 * rng_partitions_ok already bounded the partitions of all chunks. So a
 * failed instruction still writes nothing. */
typedef void (*rng_fill_fn)(void *arg, uint32_t *rows, size_t np, void *out, size_t n);

#define CHUNK_BYTES (256u * 1024u)
#define CHUNK_ALIGN 8u /* the most partitions a kernel runs side by side */

/* group: partitions the kernel runs side by side (a chunk holds a multiple
 * of it); 1 for kernels that vectorise inside a partition, whose chunks
 * then stay within CHUNK_BYTES down to a single row. */
static size_t chunk_partitions(size_t np, size_t n, size_t group) {
    size_t c = CHUNK_BYTES / (n * sizeof(uint32_t));
    c = c < group ? group : c / group * group;
    return c < np ? c : np;
}

/* The output lent in place (ABI 3): the kernel writes its rows straight
 * into memory, with no staging buffer for the host to copy out. Rows that
 * abut take one call; rows apart, one partition a call, for the kernels
 * that vectorise inside a row (group 1; the others interleave partitions
 * in a dense buffer and keep the copying path). Nothing can fail once the
 * view is lent, so a failed instruction still writes nothing. *done says
 * whether it ran. */
static trn_status fill_in_place(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap,
                                uint32_t *work, size_t words, size_t n, size_t group,
                                rng_fill_fn fill, void *arg, bool *done) {
    *done = false;
    if (!TRN_API_HAS(api, lend_cancel)) return TRN_OK;
    trn_view v;
    trn_lend_status ls = api->lend(ctx, ap, TRN_LEND_WRITE, &v);
    if (ls != TRN_LENT) return ls == TRN_LEND_ERR ? TRN_ERR : TRN_OK;
    bool block = (v.flags & TRN_VIEW_BLOCK) != 0;
    if (!(v.flags & TRN_VIEW_ROWS) || ((uintptr_t)v.base & 3) || (v.part_stride & 3) ||
        (!block && group != 1))
        return api->lend_cancel(ctx, &v);
    if (block)
        fill(arg, work, v.parts, v.base, n);
    else
        for (uint32_t p = 0; p < v.parts; ++p)
            fill(arg, work + (size_t)p * words, 1, v.base + (int64_t)p * v.part_stride, n);
    *done = true;
    return api->lend_end(ctx, &v);
}

/* The copying path: chunks of whole partitions staged in scratch and
 * written through sub-APs. */
static trn_status fill_staged(const trn_host_api *api, trn_ctx *ctx, rng_engine *e,
                              const trn_ap *ap, uint32_t *work, size_t words, size_t n,
                              size_t chunk, bool same, rng_fill_fn fill, void *arg) {
    size_t np = ap->part_count;
    void *out = rng_engine_scratch(e, chunk * n * sizeof(uint32_t));
    if (!out) return api->error(ctx, "out of memory for %zu x %zu rng outputs", chunk, n);
    trn_status st = TRN_OK;
    for (size_t i0 = 0; i0 < np && st == TRN_OK; i0 += chunk) {
        size_t c = np - i0 < chunk ? np - i0 : chunk;
        trn_ap sub = *ap;
        sub.part_start = rng_visit_partition(ap, (uint32_t)i0);
        sub.part_count = (uint32_t)c;
        fill(arg, work + (same ? 0 : i0 * words), c, out, n);
        st = api->write_raw(ctx, &sub, out);
    }
    return st;
}

static trn_status run_streams(const trn_host_api *api, trn_ctx *ctx, rng_engine *e,
                              const trn_ap *ap, uint32_t *states, size_t words, size_t group,
                              rng_fill_fn fill, void *arg) {
    int64_t per = trn_ap_free_elems(ap);
    if (per <= 0 || (uint64_t)per > SIZE_MAX / sizeof(uint32_t) / CHUNK_ALIGN)
        return api->error(ctx, "cannot buffer %lld elements per partition", (long long)per);
    size_t np = ap->part_count, n = (size_t)per;
    bool same = ap->part_step == 0 && np > 1;
    size_t rows = same ? 1 : np, chunk = same ? 1 : chunk_partitions(np, n, group);
    uint32_t *work = malloc(rows * words * sizeof *work);
    if (!work) return api->error(ctx, "out of memory for %zu rng states", rows);
    for (size_t i = 0; i < rows; ++i)
        memcpy(work + i * words, states + (size_t)rng_visit_partition(ap, (uint32_t)i) * words,
               words * sizeof *work);
    bool done =
        false; /* one partition visited again and again: not lendable (its stream continues) */
    trn_status st =
        same ? TRN_OK : fill_in_place(api, ctx, ap, work, words, n, group, fill, arg, &done);
    if (st == TRN_OK && !done)
        st = fill_staged(api, ctx, e, ap, work, words, n, chunk, same, fill, arg);
    if (st == TRN_OK)
        for (size_t i = 0; i < rows; ++i)
            memcpy(states + (size_t)rng_visit_partition(ap, (uint32_t)i) * words, work + i * words,
                   words * sizeof *work);
    free(work);
    return st;
}

/* ---- Rand (60) --------------------------------------------------------- */

static void fill_gen1(void *arg, uint32_t *rows, size_t np, void *out, size_t n) {
    rng_gen1_fill(*(enum rng_algorithm *)arg, rows, np, out, n);
}

trn_status rng_op_rand(const trn_host_api *api, trn_ctx *ctx, void *state) {
    rng_engine *e = state;
    uint32_t core;
    int64_t alg;
    trn_ap ap;
    trn_lookup r = api->attr_int(ctx, "algorithm", &alg);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_ABSENT)
        return api->error(ctx, "Rand needs the attribute algorithm (0 LFSR, 1 PCG32, 2 PHILOX)");
    /* The reference's message, verbatim, then the value. */
    if (!rng_gen1_algorithm_ok(alg))
        return api->error(ctx, "Supported PRNGs are LFSR/PCG32/PHILOX_1: %lld", (long long)alg);
    if (rng_core(api, ctx, e, &core) != TRN_OK || rng_counts(api, ctx, "Rand", 0, 1) != TRN_OK ||
        rng_operand(api, ctx, "Rand", TRN_OUT, 0, TRN_DT_UINT32, &ap) != TRN_OK ||
        rng_partitions_ok(api, ctx, e, &ap) != TRN_OK)
        return TRN_ERR;
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the engine */
    enum rng_algorithm a = (enum rng_algorithm)alg;
    const size_t group =
        a == RNG_ALG_LFSR ? CHUNK_ALIGN : 1; /* PCG32 and Philox vectorise inside a row */
    return run_streams(api, ctx, e, &ap, rng_engine_gen1(e, core), RNG_GEN1_WORDS, group, fill_gen1,
                       &a);
}

/* ---- Rand2 (97) -------------------------------------------------------- */

typedef struct rand2_args {
    float lo, hi;
    unsigned nlanes;
} rand2_args;

static void fill_gen2(void *arg, uint32_t *rows, size_t np, void *out, size_t n) {
    const rand2_args *a = arg;
    rng_xorwow_fill(rows, np, a->nlanes, a->lo, a->hi, out, n);
}

static trn_status rand2_float(const trn_host_api *api, trn_ctx *ctx, const char *key, double def,
                              float *out) {
    double v;
    trn_lookup r = api->attr_float(ctx, key, &v);
    if (r == TRN_BADTYPE) return TRN_ERR;
    /* A JSON number is a double; the instruction's immediate is fp32
     * (round to nearest even, the C conversion). */
    *out = (float)(r == TRN_ABSENT ? def : v);
    return TRN_OK;
}

/* The lane flags: none -> 1 lane, is_2x1p / is_2x2p -> 2, is_4x2p -> 4. */
static trn_status rand2_lanes(const trn_host_api *api, trn_ctx *ctx, unsigned *nlanes) {
    static const char *const keys[3] = {"is_2x1p", "is_2x2p", "is_4x2p"};
    static const unsigned lanes[3] = {2, 2, 4};
    int set = 0;
    *nlanes = 1;
    for (int i = 0; i < 3; ++i) {
        int64_t v;
        if (rng_attr_int(api, ctx, keys[i], 0, &v) != TRN_OK) return TRN_ERR;
        if (v != 0 && v != 1)
            return api->error(ctx, "Rand2 %s must be true or false, found %lld", keys[i],
                              (long long)v);
        if (v) {
            if (set++)
                return api->error(ctx, "Rand2 takes at most one of is_2x1p, is_2x2p, is_4x2p");
            *nlanes = lanes[i];
        }
    }
    return TRN_OK;
}

trn_status rng_op_rand2(const trn_host_api *api, trn_ctx *ctx, void *state) {
    rng_engine *e = state;
    uint32_t core;
    trn_ap ap;
    rand2_args a;
    if (rand2_float(api, ctx, "min", 0.0, &a.lo) != TRN_OK ||
        rand2_float(api, ctx, "max", 1.0, &a.hi) != TRN_OK ||
        rand2_lanes(api, ctx, &a.nlanes) != TRN_OK)
        return TRN_ERR;
    if (a.lo > a.hi) {
        if (e->min_gt_max_error)
            return api->error(ctx,
                              "Rand2 min %.9g > max %.9g (setting rand2_min_gt_max = \"error\")",
                              a.lo, a.hi);
        api->log(ctx, TRN_LOG_TRACE,
                 "Rand2 min %.9g > max %.9g: computed as the reference does, values in (max, min]",
                 a.lo, a.hi);
    }
    if (rng_core(api, ctx, e, &core) != TRN_OK || rng_counts(api, ctx, "Rand2", 0, 1) != TRN_OK ||
        rng_operand(api, ctx, "Rand2", TRN_OUT, 0, TRN_DT_FP32, &ap) != TRN_OK ||
        rng_partitions_ok(api, ctx, e, &ap) != TRN_OK)
        return TRN_ERR;
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the engine */
    return run_streams(api, ctx, e, &ap, rng_engine_gen2(e, core), RNG_GEN2_WORDS, CHUNK_ALIGN,
                       fill_gen2, &a);
}
