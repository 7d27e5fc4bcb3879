/* The in-process registry: per core a growing list of its collectives, per
 * ordered pair of cores (allocated on first use) a list of sends and one of
 * receives. */
#include "registry.h"

#include <stdlib.h>

typedef struct rec_list {
    coll_record **v;
    size_t n, cap;
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

static int list_push(rec_list *l, coll_record *rec) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        coll_record **v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    rec->seq = l->n;
    l->v[l->n++] = rec;
    return 0;
}

static void list_free(rec_list *l) {
    for (size_t i = 0; i < l->n; ++i) coll_record_free(l->v[i]);
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

int coll_registry_post(coll_registry *r, uint32_t core, coll_record *rec) { return list_push(&r->seq[core], rec); }

coll_record *coll_registry_get(const coll_registry *r, uint32_t core, uint64_t k) {
    const rec_list *l = &r->seq[core];
    return k < l->n ? l->v[k] : NULL;
}

int coll_registry_p2p_post(coll_registry *r, uint32_t src, uint32_t dst, coll_side side, coll_record *rec) {
    channel **ch = &r->chan[(size_t)src * r->cores + dst];
    if (!*ch && !(*ch = calloc(1, sizeof **ch))) return -1;
    return list_push(&(*ch)->side[side], rec);
}

coll_record *coll_registry_p2p_get(const coll_registry *r, uint32_t src, uint32_t dst, coll_side side, uint64_t j) {
    const channel *ch = r->chan[(size_t)src * r->cores + dst];
    if (!ch) return NULL;
    const rec_list *l = &ch->side[side];
    return j < l->n ? l->v[j] : NULL;
}

int coll_registry_each(const coll_registry *r, coll_registry_visit fn, void *arg) {
    for (uint32_t c = 0; c < r->cores; ++c)
        for (size_t i = 0; i < r->seq[c].n; ++i)
            if (fn(arg, COLL_LIST_SEQ, c, r->seq[c].v[i])) return -1;
    for (size_t k = 0; k < (size_t)r->cores * r->cores; ++k)
        for (int side = 0; side < 2 && r->chan[k]; ++side)
            for (size_t i = 0; i < r->chan[k]->side[side].n; ++i)
                if (fn(arg, side == COLL_SEND ? COLL_LIST_SEND : COLL_LIST_RECV, k, r->chan[k]->side[side].v[i]))
                    return -1;
    return 0;
}

int coll_registry_restore_post(coll_registry *r, int list, uint64_t key, coll_record *rec) {
    if (list == COLL_LIST_SEQ) return key < r->cores ? coll_registry_post(r, (uint32_t)key, rec) : -1;
    if (key >= (uint64_t)r->cores * r->cores || (list != COLL_LIST_SEND && list != COLL_LIST_RECV)) return -1;
    return coll_registry_p2p_post(r, (uint32_t)(key / r->cores), (uint32_t)(key % r->cores),
                                  list == COLL_LIST_SEND ? COLL_SEND : COLL_RECV, rec);
}

coll_record *coll_registry_find(const coll_registry *r, int list, uint64_t key, uint64_t seq) {
    if (list == COLL_LIST_SEQ) return key < r->cores ? coll_registry_get(r, (uint32_t)key, seq) : NULL;
    if (key >= (uint64_t)r->cores * r->cores) return NULL;
    return coll_registry_p2p_get(r, (uint32_t)(key / r->cores), (uint32_t)(key % r->cores),
                                 list == COLL_LIST_SEND ? COLL_SEND : COLL_RECV, seq);
}
