/* GetRandState / SetRandState (IT 58 / 59) and their gen-2 forms
 * GetRandState2 / SetRandState2 (IT 98 / 99).
 *
 * The attribute engine picks the generation (1 -> gen-1, 5 -> gen-2
 * XORWOW); it defaults to 1 for 58 / 59 and to 5 for 98 / 99. A state
 * tensor holds 6 (gen-1) or 24 (gen-2) uint32 per partition. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rng_engine.h"
#include "rng_gen1.h"
#include "rng_glue.h"
#include "rng_mt64.h"
#include "rng_ops.h"
#include "rng_state.h"
#include "rng_xorwow.h"

#define ENGINE_GEN1 1
#define ENGINE_GEN2 5

typedef struct state_op {
    const char *name;
    int64_t engine;
    size_t words; /* per partition: 6 or 24 */
} state_op;

static trn_status state_op_begin(const trn_host_api *api, trn_ctx *ctx, int set, state_op *op) {
    uint32_t it = api->opcode(ctx);
    int gen2_form = it == 98 || it == 99;
    op->name = set ? (gen2_form ? "SetRandState2" : "SetRandState")
                   : (gen2_form ? "GetRandState2" : "GetRandState");
    if (rng_attr_int(api, ctx, "engine", gen2_form ? ENGINE_GEN2 : ENGINE_GEN1, &op->engine) !=
        TRN_OK)
        return TRN_ERR;
    if (op->engine != ENGINE_GEN1 && op->engine != ENGINE_GEN2)
        return api->error(ctx, "%s engine must be 1 (gen-1) or 5 (gen-2 XORWOW), found %lld",
                          op->name, (long long)op->engine);
    op->words = op->engine == ENGINE_GEN1 ? RNG_GEN1_WORDS : RNG_GEN2_WORDS;
    return TRN_OK;
}

/* checkRandomSeedStateSize: 6 or 24 per partition, and the one the engine
 * needs. */
static trn_status state_size_ok(const trn_host_api *api, trn_ctx *ctx, const state_op *op,
                                const char *what, const trn_ap *ap) {
    int64_t per = trn_ap_free_elems(ap);
    if (per != (int64_t)RNG_GEN1_WORDS && per != (int64_t)RNG_GEN2_WORDS)
        return api->error(
            ctx,
            "%s %s: a state tensor holds 6 (gen-1) or 24 (gen-2) uint32 per partition, found %lld",
            op->name, what, (long long)per);
    if ((size_t)per != op->words)
        return api->error(ctx, "%s %s: engine %lld needs %zu uint32 per partition, found %lld",
                          op->name, what, (long long)op->engine, op->words, (long long)per);
    return TRN_OK;
}

static uint32_t *engine_rows(rng_engine *e, const state_op *op, uint32_t core) {
    return op->engine == ENGINE_GEN1 ? rng_engine_gen1(e, core) : rng_engine_gen2(e, core);
}

/* ---- GetRandState ------------------------------------------------------ */

trn_status rng_op_get_state(const trn_host_api *api, trn_ctx *ctx, void *state) {
    rng_engine *e = state;
    state_op op;
    uint32_t core;
    trn_ap ap;
    if (state_op_begin(api, ctx, 0, &op) != TRN_OK || rng_core(api, ctx, e, &core) != TRN_OK ||
        rng_counts(api, ctx, op.name, 0, 1) != TRN_OK ||
        rng_operand(api, ctx, op.name, TRN_OUT, 0, TRN_DT_UINT32, &ap) != TRN_OK ||
        state_size_ok(api, ctx, &op, "output 0", &ap) != TRN_OK ||
        rng_partitions_ok(api, ctx, e, &ap) != TRN_OK)
        return TRN_ERR;
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the engine */
    uint32_t *buf;
    if (rng_alloc(api, ctx, trn_ap_elems(&ap), sizeof *buf, (void **)&buf) != TRN_OK)
        return TRN_ERR;
    const uint32_t *rows = engine_rows(e, &op, core);
    for (uint32_t i = 0; i < ap.part_count; ++i) {
        const uint32_t *src = rows + (size_t)rng_visit_partition(&ap, i) * op.words;
        if (op.engine == ENGINE_GEN1)
            memcpy(buf + (size_t)i * op.words, src, op.words * sizeof *buf);
        else
            rng_gen2_to_tensor(src, buf + (size_t)i * op.words);
    }
    trn_status st = api->write_raw(ctx, &ap, buf);
    free(buf);
    return st;
}

/* ---- SetRandState ------------------------------------------------------ */

/* Restore from a state tensor: rows in visiting order (a partition visited
 * twice keeps its last row). */
static trn_status set_from_tensor(const trn_host_api *api, trn_ctx *ctx, rng_engine *e,
                                  const state_op *op, uint32_t core) {
    trn_ap ap;
    if (rng_operand(api, ctx, op->name, TRN_IN, 0, TRN_DT_UINT32, &ap) != TRN_OK ||
        state_size_ok(api, ctx, op, "input 0", &ap) != TRN_OK ||
        rng_partitions_ok(api, ctx, e, &ap) != TRN_OK)
        return TRN_ERR;
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the engine */
    uint32_t *buf;
    if (rng_alloc(api, ctx, trn_ap_elems(&ap), sizeof *buf, (void **)&buf) != TRN_OK)
        return TRN_ERR;
    if (api->read_raw(ctx, &ap, buf) != TRN_OK) {
        free(buf);
        return TRN_ERR;
    }
    uint32_t *rows = engine_rows(e, op, core);
    for (uint32_t i = 0; i < ap.part_count; ++i) {
        uint32_t *dst = rows + (size_t)rng_visit_partition(&ap, i) * op->words;
        if (op->engine == ENGINE_GEN1)
            rng_gen1_from_tensor(buf + (size_t)i * op->words, dst);
        else
            rng_gen2_from_tensor(buf + (size_t)i * op->words, dst);
    }
    free(buf);
    return TRN_OK;
}

/* Engine 1: the 8-word wire seed, every partition of the core. */
static trn_status set_from_wire(const trn_host_api *api, trn_ctx *ctx, rng_engine *e,
                                const state_op *op, uint32_t core) {
    int64_t v[RNG_WIRE_SEED_WORDS];
    uint32_t imm[RNG_WIRE_SEED_WORDS], wire[RNG_WIRE_SEED_WORDS];
    size_t n = 0;
    if (op->engine != ENGINE_GEN1)
        return api->error(
            ctx,
            "%s: a list seed is the gen-1 wire seed (engine 1); engine %lld takes a scalar seed",
            op->name, (long long)op->engine);
    if (api->attr_int_array(ctx, "seed", v, RNG_WIRE_SEED_WORDS, &n) != TRN_FOUND) return TRN_ERR;
    if (n != RNG_WIRE_SEED_WORDS)
        return api->error(ctx, "%s seed: the gen-1 wire seed is 8 uint32, found %zu", op->name, n);
    for (size_t k = 0; k < RNG_WIRE_SEED_WORDS; ++k) {
        if (v[k] < 0 || v[k] > 0xFFFFFFFFll)
            return api->error(ctx, "%s seed[%zu] must be a uint32 (0..4294967295), found %lld",
                              op->name, k, (long long)v[k]);
        imm[k] = (uint32_t)v[k];
    }
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the engine */
    uint32_t *rows = rng_engine_gen1(e, core);
    for (uint32_t p = 0; p < e->partitions; ++p) {
        rng_gen1_wire_seed(p, imm, wire);
        rng_gen1_from_wire(wire, rows + (size_t)p * RNG_GEN1_WORDS);
    }
    return TRN_OK;
}

/* The scalar seed: an integer 0..2^63-1, or a string holding any uint64
 * (decimal or 0x hex) for the values JSON integers cannot carry. */
static trn_status scalar_seed(const trn_host_api *api, trn_ctx *ctx, const state_op *op,
                              const trn_value *v, uint64_t *seed) {
    if (api->value_kind(v) == TRN_V_STRING) {
        const char *s;
        if (api->attr_string(ctx, "seed", &s) != TRN_FOUND) return TRN_ERR;
        char *end = NULL;
        errno = 0;
        unsigned long long u = strtoull(s, &end, 0);
        if (!*s || *end || errno || strchr(s, '-'))
            return api->error(ctx, "%s seed: expected a uint64 (decimal or 0x hex), found \"%s\"",
                              op->name, s);
        *seed = u;
        return TRN_OK;
    }
    int64_t i;
    if (api->value_int(ctx, v, &i) != TRN_FOUND) return TRN_ERR;
    if (i < 0)
        return api->error(ctx,
                          "%s seed must be a uint64, found %lld (write larger seeds as a string)",
                          op->name, (long long)i);
    *seed = (uint64_t)i;
    return TRN_OK;
}

/* Engine 5: MT19937-64 seeded with the scalar, its output fills every
 * partition's four lanes (rng_mt64_fill_xorwow). */
static trn_status set_from_scalar(const trn_host_api *api, trn_ctx *ctx, rng_engine *e,
                                  const state_op *op, uint32_t core, const trn_value *v) {
    uint64_t seed = 0;
    if (scalar_seed(api, ctx, op, v, &seed) != TRN_OK) return TRN_ERR;
    if (op->engine != ENGINE_GEN2)
        return api->error(
            ctx,
            "%s: a scalar seed seeds the gen-2 MT19937-64 engine (engine 5); engine 1 takes a "
            "state tensor or a list of 8 uint32",
            op->name);
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the engine */
    rng_mt64 *mt = malloc(sizeof *mt);
    if (!mt) return api->error(ctx, "out of memory for the MT19937-64 engine");
    rng_mt64_seed(mt, seed);
    rng_mt64_fill_xorwow(mt, rng_engine_gen2(e, core), e->partitions);
    free(mt);
    api->log(ctx, TRN_LOG_TRACE,
             "rng: gen-2 lanes of %u partitions seeded from MT19937-64 seed %llu", e->partitions,
             (unsigned long long)seed);
    return TRN_OK;
}

trn_status rng_op_set_state(const trn_host_api *api, trn_ctx *ctx, void *state) {
    rng_engine *e = state;
    state_op op;
    uint32_t core;
    if (state_op_begin(api, ctx, 1, &op) != TRN_OK || rng_core(api, ctx, e, &core) != TRN_OK)
        return TRN_ERR;
    const trn_value *seed = api->attr(ctx, "seed");
    int in = api->operand_count(ctx, TRN_IN), out = api->operand_count(ctx, TRN_OUT);
    if (out != 0) return api->error(ctx, "%s writes no output operand, found %d", op.name, out);
    if (seed && in != 0)
        return api->error(ctx, "%s takes a state tensor input or a seed attribute, not both",
                          op.name);
    if (!seed && in != 1)
        return api->error(
            ctx,
            "%s takes one state tensor input (uint32, 6 or 24 per partition) or a seed attribute, "
            "found %d inputs",
            op.name, in);
    if (!seed) return set_from_tensor(api, ctx, e, &op, core);
    if (api->value_kind(seed) == TRN_V_LIST) return set_from_wire(api, ctx, e, &op, core);
    return set_from_scalar(api, ctx, e, &op, core, seed);
}
