#include "coll_lend.h"

#include <stdlib.h>
#include <string.h>

/* A BLOCK view is one run; a ROWS view one run per partition. */
static int64_t run_len(const trn_view *v) {
    return (v->flags & TRN_VIEW_BLOCK) ? v->free_elems * (int64_t)v->parts : v->free_elems;
}

uint8_t *coll_lent_at(const trn_view *v, int64_t k) {
    int64_t r = run_len(v);
    return v->base + (k / r) * v->part_stride + (k % r) * (int64_t)v->width;
}

int64_t coll_lent_run(const trn_view *v, int64_t k) {
    int64_t r = run_len(v);
    return r - k % r;
}

void coll_lent_move(const trn_view *d, int64_t b, const trn_view *s, int64_t a, int64_t m) {
    while (m > 0) {
        int64_t k = m, left = coll_lent_run(s, a);
        if (left < k) k = left;
        left = coll_lent_run(d, b);
        if (left < k) k = left;
        memcpy(coll_lent_at(d, b), coll_lent_at(s, a), (size_t)k * d->width);
        a += k, b += k, m -= k;
    }
}

static bool accepted(const trn_view *v, coll_lend_kind kind) {
    if (!(v->flags & TRN_VIEW_ROWS)) return false;
    if (kind == COLL_LEND_RAW) return true;
    return v->dtype == TRN_DT_FP32 && ((uintptr_t)v->base & 3) == 0 && (v->part_stride & 3) == 0;
}

bool coll_lend_all(const coll_exec *x, coll_lend_kind kind, coll_lent *l) {
    const trn_host_api *api = x->api;
    memset(l, 0, sizeof *l);
    if (!TRN_API_HAS(api, lend_cancel)) return false;
    l->in = calloc(2 * (size_t)x->n, sizeof *l->in);
    if (!l->in) return false; /* the copying path reports running out of memory */
    l->out = l->in + x->n;
    l->rc = TRN_OK;
    bool ok = true;
    for (uint32_t i = 0; i < x->n && ok; ++i) {
        trn_lend_status s = api->lend(x->ctx, &x->recs[i]->in[0], TRN_LEND_READ, &l->in[i]);
        if (s == TRN_LEND_ERR) l->rc = TRN_ERR;
        if (s != TRN_LENT) break;
        ++l->lent_in;
        ok = accepted(&l->in[i], kind);
    }
    for (uint32_t o = 0; o < x->n && ok && l->lent_in == x->n; ++o) {
        trn_lend_status s = api->lend(x->ctx, &x->recs[o]->out, TRN_LEND_WRITE, &l->out[o]);
        if (s == TRN_LEND_ERR) l->rc = TRN_ERR;
        if (s != TRN_LENT) break;
        ++l->lent_out;
        ok = accepted(&l->out[o], kind);
    }
    l->all = ok && l->lent_in == x->n && l->lent_out == x->n && l->rc == TRN_OK;
    return true;
}

bool coll_lent_disjoint(const coll_exec *x, const coll_lent *l) {
    for (uint32_t o = 0; o < x->n; ++o) {
        for (uint32_t i = 0; i < x->n; ++i)
            if (trn_views_meet(&l->out[o], &l->in[i])) return false;
        for (uint32_t p = o + 1; p < x->n; ++p)
            if (trn_views_meet(&l->out[o], &l->out[p])) return false;
    }
    return true;
}

void coll_lend_finish(const coll_exec *x, coll_lent *l, bool used) {
    for (uint32_t i = 0; i < l->lent_in; ++i) x->api->lend_end(x->ctx, &l->in[i]);
    for (uint32_t o = 0; o < l->lent_out; ++o)
        (used ? x->api->lend_end : x->api->lend_cancel)(x->ctx, &l->out[o]);
    free(l->in);
    l->in = l->out = NULL;
}
