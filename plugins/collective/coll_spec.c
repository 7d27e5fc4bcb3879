#include "coll_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_reduce.h"

static const char *const kind_names[] = {"SendRecv",
                                         "SendRecvCCE",
                                         "AllReduce",
                                         "ReduceScatter",
                                         "AllGather",
                                         "AllToAll",
                                         "AllToAllV",
                                         "Permute",
                                         "PermuteReduce",
                                         "PermuteImplicit",
                                         "PermuteReduceImplicit"};

bool coll_kind_is_identity(int64_t kind) {
    return kind == COLL_PERMUTE_REDUCE || kind < 0 || kind > 10;
}

bool coll_kind_reduces(int64_t kind) {
    return kind == COLL_SEND_RECV_CCE || kind == COLL_ALL_REDUCE || kind == COLL_REDUCE_SCATTER ||
           kind == COLL_PERMUTE_REDUCE_IMPLICIT;
}

const char *coll_kind_name(int64_t kind) {
    return kind >= 0 && kind <= 10 ? kind_names[kind] : "unknown kind";
}

trn_status coll_read_int_rows(const trn_host_api *api, trn_ctx *ctx, const char *key,
                              int64_t **flat, size_t **lens, size_t *rows) {
    *flat = NULL;
    *lens = NULL;
    *rows = 0;
    const trn_value *v = api->attr(ctx, key);
    if (!v) return TRN_OK;
    if (api->value_kind(v) != TRN_V_LIST)
        return api->error(ctx, "attribute '%s' must be a list of lists of integers", key);
    size_t n = api->value_len(v), total = 0;
    for (size_t r = 0; r < n; ++r) {
        const trn_value *row = api->value_at(v, r);
        if (api->value_kind(row) != TRN_V_LIST)
            return api->error(ctx, "attribute '%s': entry [%zu] must be a list of integers", key,
                              r);
        total += api->value_len(row);
    }
    if (n == 0) return TRN_OK;
    *flat = malloc((total ? total : 1) * sizeof **flat);
    *lens = malloc(n * sizeof **lens);
    if (!*flat || !*lens) {
        free(*flat);
        free(*lens);
        *flat = NULL;
        *lens = NULL;
        return api->error(ctx, "out of memory reading '%s'", key);
    }
    size_t at = 0;
    for (size_t r = 0; r < n; ++r) {
        const trn_value *row = api->value_at(v, r);
        (*lens)[r] = api->value_len(row);
        for (size_t c = 0; c < (*lens)[r]; ++c) {
            const trn_value *x = api->value_at(row, c);
            if (api->value_kind(x) != TRN_V_INT ||
                api->value_int(ctx, x, &(*flat)[at++]) != TRN_FOUND) {
                free(*flat);
                free(*lens);
                *flat = NULL;
                *lens = NULL;
                return api->error(ctx, "attribute '%s': entry [%zu][%zu] must be an integer", key,
                                  r, c);
            }
        }
    }
    *rows = n;
    return TRN_OK;
}

/* kind and reduce_op: integers or names; the schema maps the names (and
 * the compiler's spellings) to their numbers and refused anything else when
 * the program loaded. */
static trn_status read_kind(const trn_host_api *api, trn_ctx *ctx, int64_t *kind) {
    trn_lookup l = api->attr_int(ctx, "kind", kind);
    if (l == TRN_ABSENT)
        return api->error(ctx,
                          "CollectiveCompute needs the attribute 'kind' (0..10 or a kind name)");
    return l == TRN_FOUND ? TRN_OK : TRN_ERR;
}

/* Any number is accepted here: the fold rejects what it cannot do, when it runs. */
static trn_status read_op(const trn_host_api *api, trn_ctx *ctx, int64_t kind, int64_t *op) {
    trn_lookup l = api->attr_int(ctx, "reduce_op", op);
    if (l == TRN_ABSENT)
        return api->error(
            ctx,
            "%s (kind %lld) needs the attribute 'reduce_op' (4 or \"add\", 8 or \"max\", 9 or "
            "\"min\")",
            coll_kind_name(kind), (long long)kind);
    return l == TRN_FOUND ? TRN_OK : TRN_ERR;
}

static trn_status read_groups(const trn_host_api *api, trn_ctx *ctx, uint32_t cores,
                              coll_groups *g) {
    int64_t *flat;
    size_t *lens, rows;
    if (coll_read_int_rows(api, ctx, "replica_groups", &flat, &lens, &rows) != TRN_OK)
        return TRN_ERR;
    char err[512];
    int rc = coll_groups_make(g, flat, lens, rows, cores, err, sizeof err);
    free(flat);
    free(lens);
    return rc ? api->error(ctx, "%s", err) : TRN_OK;
}

/* A list of lists with fixed row length, kept flat. */
static trn_status read_fixed_rows(const trn_host_api *api, trn_ctx *ctx, const char *key,
                                  size_t width, int64_t **flat, size_t *rows) {
    size_t *lens;
    if (coll_read_int_rows(api, ctx, key, flat, &lens, rows) != TRN_OK) return TRN_ERR;
    for (size_t r = 0; r < *rows; ++r) {
        if (width && lens[r] != width) {
            free(lens);
            free(*flat);
            *flat = NULL;
            return api->error(ctx, "attribute '%s': entry [%zu] has %zu values, expected %zu", key,
                              r, lens[r], width);
        }
        if (!width && lens[r] != *rows) { /* square */
            free(lens);
            free(*flat);
            *flat = NULL;
            return api->error(
                ctx, "attribute '%s' must be square: entry [%zu] has %zu values for %zu rows", key,
                r, lens[r], *rows);
        }
    }
    free(lens);
    return TRN_OK;
}

static trn_status read_kind_attrs(const trn_host_api *api, trn_ctx *ctx, uint32_t cores,
                                  coll_spec *sp) {
    int64_t k = sp->kind;
    if (coll_kind_reduces(k)) {
        if (read_op(api, ctx, k, &sp->op) != TRN_OK) return TRN_ERR;
        double s;
        trn_lookup l = api->attr_float(ctx, "scale", &s);
        if (l == TRN_BADTYPE) return TRN_ERR;
        sp->has_scale = l == TRN_FOUND;
        sp->scale = (float)s;
    }
    if (k == COLL_ALL_GATHER && api->attr_int(ctx, "cc_dim", &sp->cc_dim) == TRN_BADTYPE)
        return TRN_ERR;
    if (k == COLL_SEND_RECV || k == COLL_SEND_RECV_CCE) {
        sp->peer_offset = 1;
        if (api->attr_int(ctx, "peer_offset", &sp->peer_offset) == TRN_BADTYPE) return TRN_ERR;
    }
    if (k == COLL_PERMUTE) {
        if (!api->attr(ctx, "src_target_pairs"))
            return api->error(ctx, "Permute (kind 7) needs the attribute 'src_target_pairs' "
                                   "([[source, target], ...])");
        if (read_fixed_rows(api, ctx, "src_target_pairs", 2, &sp->pairs, &sp->n_pairs) != TRN_OK)
            return TRN_ERR;
    }
    if (k == COLL_ALL_TO_ALL_V) {
        if (!api->attr(ctx, "send_counts"))
            return api->error(
                ctx, "AllToAllV (kind 6) needs the attribute 'send_counts' (an N x N list: row i "
                     "holds what group member i sends to each member)");
        if (read_fixed_rows(api, ctx, "send_counts", 0, &sp->counts, &sp->n_counts) != TRN_OK)
            return TRN_ERR;
        for (size_t i = 0; i < sp->n_counts * sp->n_counts; ++i)
            if (sp->counts[i] < 0)
                return api->error(ctx, "send_counts[%zu][%zu] = %lld is negative", i / sp->n_counts,
                                  i % sp->n_counts, (long long)sp->counts[i]);
    }
    if (k != COLL_PERMUTE && !coll_kind_is_identity(k))
        return read_groups(api, ctx, cores, &sp->groups);
    return TRN_OK;
}

trn_status coll_spec_read(const trn_host_api *api, trn_ctx *ctx, uint32_t cores, coll_spec *sp) {
    memset(sp, 0, sizeof *sp);
    if (read_kind(api, ctx, &sp->kind) != TRN_OK) return TRN_ERR;
    if (read_kind_attrs(api, ctx, cores, sp) != TRN_OK) {
        coll_spec_free(sp);
        return TRN_ERR;
    }
    return TRN_OK;
}

void coll_spec_free(coll_spec *sp) {
    coll_groups_free(&sp->groups);
    free(sp->pairs);
    free(sp->counts);
    sp->pairs = sp->counts = NULL;
}

static void groups_text(const coll_groups *g, char *buf, size_t len) {
    size_t n = 0;
    if (g->all) {
        snprintf(buf, len, "[] (every core)");
        return;
    }
    n += (size_t)snprintf(buf, len, "[");
    for (uint32_t r = 0; r < g->n_groups && n < len; ++r) {
        n += (size_t)snprintf(buf + n, len - n, "%s[", r ? ", " : "");
        for (uint32_t c = 0; c < g->size && n < len; ++c)
            n += (size_t)snprintf(buf + n, len - n, "%s%u", c ? ", " : "",
                                  g->ids[(size_t)r * g->size + c]);
        if (n < len) n += (size_t)snprintf(buf + n, len - n, "]");
    }
    if (n < len) snprintf(buf + n, len - n, "]");
}

static void rows_text(const int64_t *v, size_t n, size_t width, char *buf, size_t len) {
    size_t at = (size_t)snprintf(buf, len, "[");
    for (size_t i = 0; i < n && at < len; ++i)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld%s", i % width ? ", " : (i ? ", [" : "["),
                               (long long)v[i], i % width == width - 1 ? "]" : "");
    if (at < len) snprintf(buf + at, len - at, "]");
}

int coll_spec_compare(const coll_spec *a, uint32_t ca, const coll_spec *b, uint32_t cb, char *err,
                      size_t errlen) {
    if (a->kind != b->kind) {
        snprintf(err, errlen, "core %u's is kind %lld (%s) but core %u's is kind %lld (%s)", ca,
                 (long long)a->kind, coll_kind_name(a->kind), cb, (long long)b->kind,
                 coll_kind_name(b->kind));
        return -1;
    }
    if (coll_kind_reduces(a->kind) && a->op != b->op) {
        snprintf(err, errlen, "core %u's reduce_op is %lld but core %u's is %lld", ca,
                 (long long)a->op, cb, (long long)b->op);
        return -1;
    }
    uint32_t sa, sb;
    memcpy(&sa, &a->scale, 4);
    memcpy(&sb, &b->scale, 4);
    if (a->has_scale != b->has_scale || (a->has_scale && sa != sb)) {
        snprintf(err, errlen, "core %u's scale is %s%g but core %u's is %s%g", ca,
                 a->has_scale ? "" : "absent ", a->has_scale ? (double)a->scale : 0.0, cb,
                 b->has_scale ? "" : "absent ", b->has_scale ? (double)b->scale : 0.0);
        return -1;
    }
    if (a->cc_dim != b->cc_dim || a->peer_offset != b->peer_offset) {
        snprintf(err, errlen,
                 "core %u has cc_dim %lld, peer_offset %lld but core %u has cc_dim %lld, "
                 "peer_offset %lld",
                 ca, (long long)a->cc_dim, (long long)a->peer_offset, cb, (long long)b->cc_dim,
                 (long long)b->peer_offset);
        return -1;
    }
    char ta[200], tb[200];
    if (!coll_groups_equal(&a->groups, &b->groups)) {
        groups_text(&a->groups, ta, sizeof ta);
        groups_text(&b->groups, tb, sizeof tb);
        snprintf(err, errlen, "core %u's replica_groups is %s but core %u's is %s", ca, ta, cb, tb);
        return -1;
    }
    if (a->n_pairs != b->n_pairs ||
        (a->n_pairs && memcmp(a->pairs, b->pairs, a->n_pairs * 2 * sizeof *a->pairs))) {
        rows_text(a->pairs, a->n_pairs * 2, 2, ta, sizeof ta);
        rows_text(b->pairs, b->n_pairs * 2, 2, tb, sizeof tb);
        snprintf(err, errlen, "core %u's src_target_pairs is %s but core %u's is %s", ca, ta, cb,
                 tb);
        return -1;
    }
    size_t na = a->n_counts * a->n_counts, nb = b->n_counts * b->n_counts;
    if (na != nb || (na && memcmp(a->counts, b->counts, na * sizeof *a->counts))) {
        rows_text(a->counts, na, a->n_counts ? a->n_counts : 1, ta, sizeof ta);
        rows_text(b->counts, nb, b->n_counts ? b->n_counts : 1, tb, sizeof tb);
        snprintf(err, errlen, "core %u's send_counts is %s but core %u's is %s", ca, ta, cb, tb);
        return -1;
    }
    return 0;
}
