/* --stats beyond counts and time (stats.h): after each completed
 * instruction its outputs are read back to count elements, NaN and Inf, and
 * a collective gets its nccl-tests line. Runs only with --stats, outside
 * the timed handler call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "modules/modules.h"
#include "exec/exec_int.h"

#define CHUNK 4096 /* elements widened at a time */

static void count_nonfinite(trn_stats *st, uint32_t it, trn_dtype dt, const uint8_t *raw,
                            int64_t n) {
    if (!trn_dtype_is_float(dt) || !trn_dtype_widens(dt)) return;
    float buf[CHUNK];
    uint32_t w = trn_dtype_width(dt);
    for (int64_t i = 0; i < n; i += CHUNK) {
        size_t m = (size_t)(n - i < CHUNK ? n - i : CHUNK);
        trn_widen_span(dt, raw + (size_t)i * w, buf, m);
        for (size_t k = 0; k < m; ++k) {
            st->nan[it] += isnan(buf[k]) != 0;
            st->inf[it] += isinf(buf[k]) != 0;
        }
    }
}

static void output_values(trn_sim *s, trn_ctx *c) {
    uint32_t it = c->inst->it;
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    for (int k = 0; k < c->inst->n_out; ++k) {
        trn_ap ap;
        if (trn_host_api_table.operand(c, TRN_OUT, k, &ap) != TRN_OK) break;
        int64_t n = trn_ap_elems(&ap);
        s->stats.elements[it] += (uint64_t)n;
        if (!trn_dtype_is_float((trn_dtype)ap.dtype)) continue;
        uint8_t *raw = malloc((size_t)n * trn_dtype_width((trn_dtype)ap.dtype) + 1);
        trn_error e;
        if (raw && trn_ap_read_raw(&env, &ap, raw, &e) == 0)
            count_nonfinite(&s->stats, it, (trn_dtype)ap.dtype, raw, n);
        free(raw);
    }
    c->failed =
        false; /* an operand that did not resolve is the handler's business, not a statistic's */
}

/* An ENUM attribute's canonical name, or NULL. */
static const char *enum_name(const trn_ctx *c, const char *key) {
    const json_t *v = json_object_get(c->inst->obj, key);
    const trn_attr_desc *a = v ? trn_schema_find(c->slot->op, key) : NULL;
    const trn_enum_desc *x = a ? trn_schema_enum_entry(a, v) : NULL;
    return x ? x->name : NULL;
}

static bool reduces(const char *kind) {
    return !strcmp(kind, "AllReduce") || !strcmp(kind, "ReduceScatter") ||
           !strcmp(kind, "PermuteReduce") || !strcmp(kind, "PermuteReduceImplicit");
}

/* The group size: the first replica group's, or every core. */
static uint32_t ranks_of(const trn_ctx *c) {
    const json_t *g = json_object_get(c->inst->obj, "replica_groups");
    size_t n = json_is_array(g) && json_array_size(g) ? json_array_size(json_array_get(g, 0)) : 0;
    return n ? (uint32_t)n : c->sim->ncores;
}

static int64_t operand_bytes(trn_ctx *c, trn_dir dir, uint32_t *dtype) {
    trn_ap ap;
    if (c->inst->n_out + c->inst->n_in == 0 || trn_host_api_table.operand(c, dir, 0, &ap) != TRN_OK)
        return 0;
    *dtype = ap.dtype;
    return trn_ap_elems(&ap) * trn_dtype_width((trn_dtype)ap.dtype);
}

/* CollectiveCompute (48), CollectiveSend (49), CollectiveRecv (50) of the
 * collective family. */
static void collective(trn_sim *s, trn_ctx *c, double dt) {
    uint32_t it = c->inst->it;
    if ((it < 48 || it > 50) || strcmp(c->slot->owner->desc->family, "collective") || c->depth)
        return;
    trn_coll_stat *r = trn_stats_coll(&s->stats, c->inst->number);
    if (!r) return;
    if (r->completions == 0) {
        const char *kind = it == 49 ? "Send" : it == 50 ? "Recv" : enum_name(c, "kind");
        r->kind = kind ? kind : c->slot->op->name;
        r->redop = it == 48 && reduces(r->kind) ? enum_name(c, "reduce_op") : NULL;
        uint32_t din = TRN_DT_FP32, dout = TRN_DT_FP32;
        int64_t in = c->inst->n_in ? operand_bytes(c, TRN_IN, &din) : 0;
        int64_t out = c->inst->n_out ? operand_bytes(c, TRN_OUT, &dout) : 0;
        r->bytes = (uint64_t)(in > out ? in : out);
        r->dtype = c->inst->n_out ? dout : din;
        r->ranks = it == 48 ? ranks_of(c) : 2;
        r->first_core = c->core;
        c->failed = false;
    }
    r->completions++;
    r->executions += c->core == r->first_core;
    r->seconds += dt;
}

void trn_sim_stats_checked(trn_sim *s, const trn_step *st, uint64_t wrong) {
    if (!s->opts.stats) return;
    for (size_t i = 0; i < s->stats.n_coll; ++i) {
        trn_coll_stat *r = &s->stats.coll[i];
        if (r->number != st->inst->number) continue;
        r->checked = true;
        r->wrong += wrong;
    }
}

void trn_stats_after(trn_sim *s, trn_ctx *c, double dt) {
    output_values(s, c);
    collective(s, c, dt);
}
