/* The in-process registry: per core a list of its collectives, per ordered
 * pair of cores (allocated on first use) a list of sends and one of
 * receives. A list holds the records from `base` on: the ones before are
 * dropped once every core got past them (coll_registry_trim), so a loop of
 * collectives runs in flat memory. */
#include "registry.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec_list {
    coll_record **v; /* live records: v[head .. n), v[head] is number `base` */
    size_t head, n, cap;
    uint64_t base;
} rec_list;

typedef struct channel {
    rec_list side[2];
} channel;

struct coll_registry {
    uint32_t cores;
    rec_list *seq;  /* [cores] */
    channel **chan; /* [cores * cores], NULL until used */
};

void coll_record_free(coll_record *rec) {
    if (!rec) return;
    coll_spec_free(&rec->spec);
    free(rec);
}

static size_t list_live(const rec_list *l) { return l->n - l->head; }

static int list_push(rec_list *l, coll_record *rec) {
    if (l->head &&
        l->head >= l->n / 2) { /* most of it dropped: move the rest down (amortised O(1)) */
        memmove(l->v, l->v + l->head, list_live(l) * sizeof *l->v);
        l->n -= l->head;
        l->head = 0;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        coll_record **v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    rec->seq = l->base + list_live(l);
    l->v[l->n++] = rec;
    return 0;
}

static coll_record *list_get(const rec_list *l, uint64_t k) {
    return k >= l->base && k - l->base < list_live(l) ? l->v[l->head + (k - l->base)] : NULL;
}

static void list_drop_front(rec_list *l) {
    coll_record_free(l->v[l->head]);
    l->v[l->head++] = NULL;
    l->base++;
}

static void list_free(rec_list *l) {
    for (size_t i = l->head; i < l->n; ++i) coll_record_free(l->v[i]);
    free(l->v);
}

coll_registry *coll_registry_new(uint32_t cores) {
    coll_registry *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->cores = cores;
    r->seq = calloc(cores ? cores : 1, sizeof *r->seq);
    r->chan = calloc((size_t)(cores ? cores : 1) * (cores ? cores : 1), sizeof *r->chan);
    if (!r->seq || !r->chan) {
        coll_registry_free(r);
        return NULL;
    }
    return r;
}

void coll_registry_free(coll_registry *r) {
    if (!r) return;
    for (uint32_t c = 0; r->seq && c < r->cores; ++c) list_free(&r->seq[c]);
    for (size_t i = 0; r->chan && i < (size_t)r->cores * r->cores; ++i) {
        if (!r->chan[i]) continue;
        list_free(&r->chan[i]->side[0]);
        list_free(&r->chan[i]->side[1]);
        free(r->chan[i]);
    }
    free(r->seq);
    free(r->chan);
    free(r);
}

int coll_registry_post(coll_registry *r, uint32_t core, coll_record *rec) {
    return list_push(&r->seq[core], rec);
}

coll_record *coll_registry_get(const coll_registry *r, uint32_t core, uint64_t k) {
    return list_get(&r->seq[core], k);
}

int coll_registry_p2p_post(coll_registry *r, uint32_t src, uint32_t dst, coll_side side,
                           coll_record *rec) {
    channel **ch = &r->chan[(size_t)src * r->cores + dst];
    if (!*ch && !(*ch = calloc(1, sizeof **ch))) return -1;
    return list_push(&(*ch)->side[side], rec);
}

coll_record *coll_registry_p2p_get(const coll_registry *r, uint32_t src, uint32_t dst,
                                   coll_side side, uint64_t j) {
    const channel *ch = r->chan[(size_t)src * r->cores + dst];
    if (!ch) return NULL;
    return list_get(&ch->side[side], j);
}

static bool held(const coll_record *rec, const coll_record *const *held_recs, size_t n_held) {
    for (size_t i = 0; i < n_held; ++i)
        if (held_recs[i] == rec) return true;
    return false;
}

/* A record can go once it is done, no core waits on it, and no core can
 * still ask for it: every core has posted its own record of that number
 * (the agreement check and the party look up the others' k-th only when
 * posting their own k-th). */
static bool droppable(const rec_list *l, uint64_t every_posted, const coll_record *const *held_recs,
                      size_t n_held) {
    return list_live(l) && l->base < every_posted && l->v[l->head]->done &&
           !held(l->v[l->head], held_recs, n_held);
}

size_t coll_registry_trim(coll_registry *r, const coll_record *const *held_recs, size_t n_held,
                          void (*dropped)(void *arg, const coll_record *rec), void *arg) {
    uint64_t every = UINT64_MAX;
    size_t n = 0;
    for (uint32_t c = 0; c < r->cores; ++c) {
        uint64_t posted = r->seq[c].base + list_live(&r->seq[c]);
        if (posted < every) every = posted;
    }
    for (uint32_t c = 0; c < r->cores; ++c)
        for (rec_list *l = &r->seq[c]; droppable(l, every, held_recs, n_held); ++n) {
            if (dropped) dropped(arg, l->v[l->head]);
            list_drop_front(l);
        }
    return n;
}

size_t coll_registry_trim_channel(coll_registry *r, uint32_t src, uint32_t dst,
                                  const coll_record *const *held_recs, size_t n_held,
                                  void (*dropped)(void *arg, const coll_record *rec), void *arg) {
    channel *ch = r->chan[(size_t)src * r->cores + dst];
    size_t n = 0;
    if (!ch) return 0;
    rec_list *s = &ch->side[COLL_SEND], *v = &ch->side[COLL_RECV];
    /* a send and its receive go together: both posted, both done */
    while (s->base == v->base && droppable(s, UINT64_MAX, held_recs, n_held) &&
           droppable(v, UINT64_MAX, held_recs, n_held)) {
        if (dropped) {
            dropped(arg, s->v[s->head]);
            dropped(arg, v->v[v->head]);
        }
        list_drop_front(s);
        list_drop_front(v);
        n += 2;
    }
    return n;
}

int coll_registry_each(const coll_registry *r, coll_registry_visit fn, void *arg) {
    for (uint32_t c = 0; c < r->cores; ++c)
        for (size_t i = r->seq[c].head; i < r->seq[c].n; ++i)
            if (fn(arg, COLL_LIST_SEQ, c, r->seq[c].v[i])) return -1;
    for (size_t k = 0; k < (size_t)r->cores * r->cores; ++k)
        for (int side = 0; side < 2 && r->chan[k]; ++side)
            for (size_t i = r->chan[k]->side[side].head; i < r->chan[k]->side[side].n; ++i)
                if (fn(arg, side == COLL_SEND ? COLL_LIST_SEND : COLL_LIST_RECV, k,
                       r->chan[k]->side[side].v[i]))
                    return -1;
    return 0;
}

/* The list (list, key) names, made on first use; NULL when there is none. */
static rec_list *list_at(coll_registry *r, int list, uint64_t key) {
    if (list == COLL_LIST_SEQ) return key < r->cores ? &r->seq[key] : NULL;
    if (key >= (uint64_t)r->cores * r->cores || (list != COLL_LIST_SEND && list != COLL_LIST_RECV))
        return NULL;
    channel **ch = &r->chan[key];
    if (!*ch && !(*ch = calloc(1, sizeof **ch))) return NULL;
    return &(*ch)->side[list == COLL_LIST_SEND ? COLL_SEND : COLL_RECV];
}

int coll_registry_restore_post(coll_registry *r, int list, uint64_t key, uint64_t seq,
                               coll_record *rec) {
    rec_list *l = list_at(r, list, key);
    if (!l || seq != l->base + list_live(l)) return -1;
    return list_push(l, rec);
}

int coll_registry_restore_base(coll_registry *r, int list, uint64_t key, uint64_t base) {
    rec_list *l = list_at(r, list, key);
    if (!l || l->n || l->base || base > (UINT64_MAX >> 2)) return -1;
    l->base = base;
    return 0;
}

int coll_registry_each_base(const coll_registry *r, coll_registry_base_visit fn, void *arg) {
    for (uint32_t c = 0; c < r->cores; ++c)
        if (r->seq[c].base && fn(arg, COLL_LIST_SEQ, c, r->seq[c].base)) return -1;
    for (size_t k = 0; k < (size_t)r->cores * r->cores; ++k)
        for (int side = 0; side < 2 && r->chan[k]; ++side)
            if (r->chan[k]->side[side].base &&
                fn(arg, side == COLL_SEND ? COLL_LIST_SEND : COLL_LIST_RECV, k,
                   r->chan[k]->side[side].base))
                return -1;
    return 0;
}

coll_record *coll_registry_find(const coll_registry *r, int list, uint64_t key, uint64_t seq) {
    if (list == COLL_LIST_SEQ)
        return key < r->cores ? coll_registry_get(r, (uint32_t)key, seq) : NULL;
    if (key >= (uint64_t)r->cores * r->cores) return NULL;
    return coll_registry_p2p_get(r, (uint32_t)(key / r->cores), (uint32_t)(key % r->cores),
                                 list == COLL_LIST_SEND ? COLL_SEND : COLL_RECV, seq);
}
