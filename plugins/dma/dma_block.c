/* The SW-DGE descriptor machinery: DMABlock re-dispatches its descriptor
 * list through the host dispatcher (so descriptors run the same code as
 * inline DMA); DMATrigger keeps a per-trigger fire counter and fires its
 * id-th block, advancing round-robin. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma_state.h"

/* What a list may hold: IT range and the same opcodes by name. */
typedef struct list_kind {
    const char *owner, *key, *want;
    int64_t lo, hi;
    const char *const *names;
} list_kind;

static const char *const descriptor_names[] = {"DMADescriptor",          "DMADescriptorCopy",
                                               "DMADescriptorCCE",       "DMADescriptorTranspose",
                                               "DMADescriptorReplicate", NULL};
static const char *const block_names[] = {"DMABlock", NULL};

static const list_kind DESCRIPTORS = {"DMABlock", "descriptors",   "descriptor", 68,
                                      72,         descriptor_names};
static const list_kind BLOCKS = {"DMATrigger", "blocks", "DMABlock", 107, 107, block_names};

static bool name_ok(const list_kind *k, const char *name) {
    for (const char *const *n = k->names; *n; ++n)
        if (!strcmp(*n, name)) return true;
    return false;
}

static trn_status wrong_opcode(const trn_host_api *api, trn_ctx *ctx, const list_kind *k, size_t i,
                               const char *got) {
    char range[48];
    if (k->lo == k->hi)
        snprintf(range, sizeof range, "IT %" PRId64, k->lo);
    else
        snprintf(range, sizeof range, "IT %" PRId64 "-%" PRId64, k->lo, k->hi);
    return api->error(ctx, "%s: %s[%zu] has opcode %s, expected a %s instruction (%s)", k->owner,
                      k->key, i, got, k->want, range);
}

/* A non-empty list of instruction objects whose opcodes (numbers or names)
 * all belong in it: checked before anything is dispatched. */
static trn_status instruction_list(const trn_host_api *api, trn_ctx *ctx, const list_kind *k,
                                   const trn_value **list, size_t *n) {
    *list = api->attr(ctx, k->key);
    if (!*list || api->value_kind(*list) != TRN_V_LIST)
        return api->error(ctx, "%s: needs '%s', a non-empty list of %s instructions", k->owner,
                          k->key, k->want);
    *n = api->value_len(*list);
    if (*n == 0)
        return api->error(ctx, "%s: '%s' is empty (it needs at least one %s instruction)", k->owner,
                          k->key, k->want);
    for (size_t i = 0; i < *n; ++i) {
        const trn_value *v = api->value_at(*list, i);
        if (api->value_kind(v) != TRN_V_OBJECT)
            return api->error(ctx, "%s: %s[%zu] is not an instruction object", k->owner, k->key, i);
        const trn_value *op = api->value_get(v, "opcode");
        const char *name = op ? api->value_string(op) : NULL;
        if (name && !name_ok(k, name)) return wrong_opcode(api, ctx, k, i, name);
        if (op && api->value_kind(op) == TRN_V_INT) {
            int64_t it;
            if (api->value_int(ctx, op, &it) != TRN_FOUND) return TRN_ERR;
            if (it < k->lo || it > k->hi) {
                char got[24];
                snprintf(got, sizeof got, "%" PRId64, it);
                return wrong_opcode(api, ctx, k, i, got);
            }
        }
        /* a missing or malformed opcode is the dispatcher's error */
    }
    if (api->operand_count(ctx, TRN_IN) || api->operand_count(ctx, TRN_OUT))
        return api->error(ctx, "%s: takes no operands of its own (its %s name them)", k->owner,
                          k->key);
    return TRN_OK;
}

static trn_status dispatch_all(const trn_host_api *api, trn_ctx *ctx, const trn_value *list,
                               size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (api->dispatch(ctx, api->value_at(list, i)))
            /* The host keeps the descriptor's message and prefixes this one. */
            return api->error(ctx, "DMABlock: descriptor %zu of %zu", i + 1, n);
    return TRN_OK;
}

trn_status dma_h_block(const trn_host_api *api, trn_ctx *ctx, void *state) {
    dma_state *st = state;
    const trn_value *list;
    size_t n;
    if (instruction_list(api, ctx, &DESCRIPTORS, &list, &n)) return TRN_ERR;
    /* Validation pass: every descriptor resolves its operands and checks its
     * counts, dtypes and attributes without touching memory, so a bad
     * descriptor anywhere in the list stops the block before the first
     * write. */
    st->dry_run++;
    trn_status s = dispatch_all(api, ctx, list, n);
    st->dry_run--;
    if (s != TRN_OK || st->dry_run || api->checking(ctx)) return s;
    return dispatch_all(api, ctx, list, n);
}

/* ---- DMATrigger ---- */

static dma_trigger *find_trigger(dma_core *c, int64_t id) {
    for (size_t i = 0; i < c->ntrig; ++i)
        if (c->trig[i].id == id) return &c->trig[i];
    return NULL;
}

static dma_trigger *add_trigger(dma_core *c, int64_t id, size_t nblocks) {
    if (c->ntrig == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        dma_trigger *t = realloc(c->trig, cap * sizeof *t);
        if (!t) return NULL;
        c->trig = t;
        c->cap = cap;
    }
    dma_trigger *t = &c->trig[c->ntrig++];
    *t = (dma_trigger){.id = id, .fired = 0, .nblocks = nblocks};
    return t;
}

trn_status dma_h_trigger(const trn_host_api *api, trn_ctx *ctx, void *state) {
    dma_state *st = state;
    const trn_value *blocks;
    size_t n;
    if (instruction_list(api, ctx, &BLOCKS, &blocks, &n)) return TRN_ERR;
    int64_t id = (int64_t)api->instruction_index(ctx);
    bool rr;
    if (api->attr_int(ctx, "trigger", &id) == TRN_BADTYPE ||
        dma_attr_bool(api, ctx, "round_robin", true, &rr))
        return TRN_ERR;
    if (api->checking(ctx)) { /* every block it could fire */
        for (size_t b = 0; b < n; ++b)
            if (api->dispatch(ctx, api->value_at(blocks, b)))
                return api->error(ctx, "DMATrigger: block %zu of %zu", b + 1, n);
        return TRN_OK;
    }
    uint32_t core = api->core_id(ctx);
    if (core >= st->ncores)
        return api->error(ctx, "DMATrigger: core %u has no trigger state (run_begin not called)",
                          core);
    dma_core *c = &st->cores[core];
    dma_trigger *t = find_trigger(c, id);
    if (t && t->nblocks != n)
        return api->error(
            ctx, "DMATrigger: trigger %" PRId64 " owns %zu blocks, but this instruction lists %zu",
            id, t->nblocks, n);
    uint64_t k = t ? t->fired : 0;
    if (!rr && k >= n)
        return api->error(ctx,
                          "DMATrigger: trigger %" PRId64
                          " has fired all %zu of its blocks (fire %" PRIu64
                          "; round_robin is false)",
                          id, n, k + 1);
    if (st->dry_run || api->checking(ctx)) return TRN_OK;
    if (!t && !(t = add_trigger(c, id, n))) return api->error(ctx, "DMATrigger: out of memory");
    size_t b = (size_t)(k % n);
    if (api->dispatch(ctx, api->value_at(blocks, b)))
        return api->error(ctx,
                          "DMATrigger: trigger %" PRId64 ", fire %" PRIu64 ", block %zu of %zu", id,
                          k + 1, b + 1, n);
    t->fired++;
    return TRN_OK;
}
