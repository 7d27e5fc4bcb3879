/* Lent memory (plugin.h, ABI 3): a handler addresses the memory under an AP
 * in place instead of through a dense copy. The host keeps what it lent so
 * it can mark WRITE views written when they end and refuse writes through
 * the copying calls while views are open. */
#include <string.h>

#include "arith/arith.h"
#include "memory/memory.h"
#include "dist/dist.h"
#include "exec/exec_int.h"

static trn_status lend_error(trn_ctx *ctx, const char *msg) {
    return trn_host_api_table.error(ctx, "%s", msg);
}

static int free_slot(const trn_sim *s) {
    for (int i = 0; i < TRN_MAX_VIEWS; ++i)
        if (!s->views[i].owner) return i;
    return -1;
}

trn_lend_status trn_api_lend(trn_ctx *ctx, const trn_ap *ap, uint32_t mode, trn_view *view) {
    memset(view, 0, sizeof *view);
    if (ctx->checking) {
        lend_error(
            ctx,
            "lend is not available in a static check (a module bug: a check decides without data)");
        return TRN_LEND_ERR;
    }
    if (!(mode & (TRN_LEND_READ | TRN_LEND_WRITE)) || (mode & ~(TRN_LEND_READ | TRN_LEND_WRITE))) {
        trn_host_api_table.error(
            ctx, "lend: mode %#x (expected TRN_LEND_READ, TRN_LEND_WRITE or both)", mode);
        return TRN_LEND_ERR;
    }
    trn_sim *s = ctx->sim;
    /* another process's core: only the copying calls fetch it (and its
     * written bits) and push it back */
    if (trn_ctx_remote(ctx, ap)) return TRN_NOT_LENT;
    trn_ap_env env = trn_ctx_env(ctx);
    trn_error e;
    /* READ alone runs the guard exactly as read_raw would, so an
     * uninitialised read is the same error on either path. */
    if (trn_ap_check_access(&env, ap, mode == TRN_LEND_READ, &e)) {
        lend_error(ctx, e.msg);
        return TRN_LEND_ERR;
    }
    int slot = free_slot(s);
    if (s->cfg.no_direct || slot < 0) return TRN_NOT_LENT;
    if ((mode & TRN_LEND_WRITE) && !trn_ap_injective(&env, ap)) return TRN_NOT_LENT;
    if (mode == (TRN_LEND_READ | TRN_LEND_WRITE) && !trn_ap_all_written(&env, ap))
        return TRN_NOT_LENT;
    trn_ap_view_fill(&env, ap, mode == TRN_LEND_READ, view);
    view->mode = mode;
    view->slot = (uint32_t)slot;
    s->views[slot] = (trn_lent){.ap = *ap, .owner = ctx, .mode = mode};
    ctx->open_views++;
    if (s->opts.stats && (mode & TRN_LEND_READ) && ap->mem <= TRN_MEM_HBM)
        s->stats.bytes_read[ap->mem] += (uint64_t)trn_ap_elems(ap) * view->width;
    return TRN_LENT;
}

static void close_slot(trn_ctx *ctx, trn_lent *l, bool mark) {
    if (mark && (l->mode & TRN_LEND_WRITE)) {
        trn_ap_env env = trn_ctx_env(ctx);
        trn_error e;
        trn_ap_mark_written(&env, &l->ap, &e); /* checked when lent */
        trn_sim *s = ctx->sim;
        s->lent_writes++;
        if (s->opts.stats && l->ap.mem <= TRN_MEM_HBM)
            s->stats.bytes_written[l->ap.mem] +=
                (uint64_t)trn_ap_elems(&l->ap) * trn_dtype_width(l->ap.dtype);
    }
    l->owner = NULL;
    ctx->open_views--;
}

static trn_status end_view(trn_ctx *ctx, trn_view *view, bool mark, const char *what) {
    trn_sim *s = ctx->sim;
    if (view->slot >= TRN_MAX_VIEWS || s->views[view->slot].owner != ctx)
        return trn_host_api_table.error(
            ctx, "%s of a view this instruction does not hold (a module bug)", what);
    close_slot(ctx, &s->views[view->slot], mark);
    view->base = NULL;
    view->slot = UINT32_MAX;
    return TRN_OK;
}

trn_status trn_api_lend_end(trn_ctx *ctx, trn_view *view) {
    return end_view(ctx, view, true, "lend_end");
}
trn_status trn_api_lend_cancel(trn_ctx *ctx, trn_view *view) {
    return end_view(ctx, view, false, "lend_cancel");
}

void trn_lend_close_all(trn_ctx *ctx, bool mark) {
    trn_sim *s = ctx->sim;
    for (int i = 0; i < TRN_MAX_VIEWS && ctx->open_views; ++i)
        if (s->views[i].owner == ctx) close_slot(ctx, &s->views[i], mark);
}
