#include "coll_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *msg) {
    snprintf(err, errlen, "%s", msg);
    return -1;
}

/* Where id first appeared: encoded row * 2^32 + col + 1, 0 = not yet. */
static int check_ids(const int64_t *flat, const size_t *lens, size_t rows, uint32_t cores,
                     char *err, size_t errlen) {
    uint64_t *seen = calloc(cores ? cores : 1, sizeof *seen);
    if (!seen) return fail(err, errlen, "out of memory");
    size_t at = 0;
    int rc = 0;
    for (size_t r = 0; r < rows && rc == 0; ++r) {
        for (size_t c = 0; c < lens[r] && rc == 0; ++c, ++at) {
            int64_t id = flat[at];
            if (id < 0 || id >= (int64_t)cores) {
                snprintf(err, errlen,
                         "replica_groups[%zu][%zu] = %lld names a rank that does not exist (the "
                         "run has %u cores: "
                         "0..%u)",
                         r, c, (long long)id, cores, cores - 1);
                rc = -1;
            } else if (seen[id]) {
                snprintf(err, errlen,
                         "rank %lld appears twice in replica_groups ([%llu][%llu] and [%zu][%zu])",
                         (long long)id, (unsigned long long)(seen[id] >> 32),
                         (unsigned long long)((seen[id] & 0xffffffffu) - 1), r, c);
                rc = -1;
            } else {
                seen[id] = ((uint64_t)r << 32) | (uint64_t)(c + 1);
            }
        }
    }
    free(seen);
    return rc;
}

int coll_groups_make(coll_groups *g, const int64_t *flat, const size_t *lens, size_t rows,
                     uint32_t cores, char *err, size_t errlen) {
    memset(g, 0, sizeof *g);
    if (rows == 0) {
        g->ids = malloc((cores ? cores : 1) * sizeof *g->ids);
        if (!g->ids) return fail(err, errlen, "out of memory");
        for (uint32_t c = 0; c < cores; ++c) g->ids[c] = c;
        g->n_groups = 1;
        g->size = cores;
        g->all = true;
        return 0;
    }
    for (size_t r = 0; r < rows; ++r) {
        if (lens[r] == 0) {
            snprintf(err, errlen, "replica_groups[%zu] is empty (a group needs at least one rank)",
                     r);
            return -1;
        }
        if (lens[r] != lens[0]) {
            snprintf(err, errlen,
                     "replica_groups[%zu] has %zu ranks but replica_groups[0] has %zu (all groups "
                     "must have the "
                     "same size)",
                     r, lens[r], lens[0]);
            return -1;
        }
    }
    if (check_ids(flat, lens, rows, cores, err, errlen)) return -1;
    g->ids = malloc(rows * lens[0] * sizeof *g->ids);
    if (!g->ids) return fail(err, errlen, "out of memory");
    for (size_t i = 0; i < rows * lens[0]; ++i) g->ids[i] = (uint32_t)flat[i];
    g->n_groups = (uint32_t)rows;
    g->size = (uint32_t)lens[0];
    return 0;
}

void coll_groups_free(coll_groups *g) {
    free(g->ids);
    memset(g, 0, sizeof *g);
}

bool coll_groups_equal(const coll_groups *a, const coll_groups *b) {
    size_t n = (size_t)a->n_groups * a->size;
    return a->n_groups == b->n_groups && a->size == b->size && a->all == b->all &&
           (n == 0 || memcmp(a->ids, b->ids, n * sizeof *a->ids) == 0);
}

bool coll_groups_find(const coll_groups *g, uint32_t core, const uint32_t **members,
                      uint32_t *pos) {
    for (uint32_t r = 0; r < g->n_groups; ++r) {
        const uint32_t *row = g->ids + (size_t)r * g->size;
        for (uint32_t c = 0; c < g->size; ++c) {
            if (row[c] == core) {
                *members = row;
                *pos = c;
                return true;
            }
        }
    }
    return false;
}

int coll_pairs_make(const int64_t *pairs, size_t n_pairs, uint32_t cores, uint32_t **members,
                    uint32_t **src_of, uint32_t *n_members, char *err, size_t errlen) {
    /* src_at[t] = 1 + index of the pair whose target is t; is_src[s] likewise. */
    size_t *tgt_pair = calloc(cores ? cores : 1, sizeof *tgt_pair);
    size_t *src_pair = calloc(cores ? cores : 1, sizeof *src_pair);
    int rc = 0;
    if (!tgt_pair || !src_pair) rc = fail(err, errlen, "out of memory");
    for (size_t k = 0; k < n_pairs && rc == 0; ++k) {
        int64_t s = pairs[2 * k], t = pairs[2 * k + 1];
        for (int side = 0; side < 2 && rc == 0; ++side) {
            int64_t id = side ? t : s;
            if (id < 0 || id >= (int64_t)cores) {
                snprintf(err, errlen,
                         "src_target_pairs[%zu][%d] = %lld names a rank that does not exist (the "
                         "run has %u "
                         "cores: 0..%u)",
                         k, side, (long long)id, cores, cores - 1);
                rc = -1;
            }
        }
        if (rc) break;
        if (src_pair[s]) {
            snprintf(err, errlen,
                     "src_target_pairs is not a permutation: rank %lld is the source of pairs "
                     "[%zu] and [%zu]",
                     (long long)s, src_pair[s] - 1, k);
            rc = -1;
        } else if (tgt_pair[t]) {
            snprintf(err, errlen,
                     "src_target_pairs is not a permutation: rank %lld is the target of pairs "
                     "[%zu] and [%zu]",
                     (long long)t, tgt_pair[t] - 1, k);
            rc = -1;
        } else {
            src_pair[s] = k + 1;
            tgt_pair[t] = k + 1;
        }
    }
    uint32_t n = 0;
    for (uint32_t c = 0; c < cores && rc == 0; ++c) {
        if (!src_pair[c] != !tgt_pair[c]) {
            snprintf(err, errlen,
                     "src_target_pairs is not a permutation: rank %u is a %s but not a %s", c,
                     src_pair[c] ? "source" : "target", src_pair[c] ? "target" : "source");
            rc = -1;
        }
        n += src_pair[c] ? 1 : 0;
    }
    if (rc == 0) {
        *members = malloc((n ? n : 1) * sizeof **members);
        *src_of = malloc((n ? n : 1) * sizeof **src_of);
        if (!*members || !*src_of) {
            free(*members);
            free(*src_of);
            rc = fail(err, errlen, "out of memory");
        } else {
            uint32_t m = 0;
            for (uint32_t c = 0; c < cores; ++c) {
                if (!tgt_pair[c]) continue;
                (*members)[m] = c;
                (*src_of)[m] = (uint32_t)pairs[2 * (tgt_pair[c] - 1)];
                ++m;
            }
            *n_members = n;
        }
    }
    free(tgt_pair);
    free(src_pair);
    return rc;
}

/* The reference's two texts, in the order it lists
 * them: ReduceScatter's first, SendRecv / SendRecvCCE's second. */
static const char *lnc_text(const char *what) {
    return strcmp(what, "ReduceScatter") == 0 ? "multiple LNCs aren't yet supported"
                                              : "Multiple LNCs are not supported yet";
}

int coll_check_single_lnc(const coll_groups *g, const uint32_t *members, uint32_t n,
                          uint32_t cores_per_lnc, const char *what, char *err, size_t errlen) {
    if (g->n_groups > 1 || n != cores_per_lnc) {
        snprintf(err, errlen,
                 "%s: %s (the reference's rule): the group has %u ranks in %u "
                 "group(s) but an LNC has cores_per_lnc = %u cores; use one group of exactly the "
                 "cores of one "
                 "LNC, or set multi_lnc = \"allow\"",
                 what, lnc_text(what), n, g->n_groups, cores_per_lnc);
        return -1;
    }
    for (uint32_t i = 1; i < n; ++i) {
        if (members[i] / cores_per_lnc != members[0] / cores_per_lnc) {
            snprintf(err, errlen,
                     "%s: %s (the reference's rule): rank %u is in LNC %u but rank %u "
                     "is in LNC %u (cores_per_lnc = %u)",
                     what, lnc_text(what), members[0], members[0] / cores_per_lnc, members[i],
                     members[i] / cores_per_lnc, cores_per_lnc);
            return -1;
        }
    }
    return 0;
}

uint32_t coll_cur_processing_pos(uint32_t pos, uint32_t n, uint64_t iter, const int64_t *table) {
    uint32_t q = (uint32_t)((pos + n - (uint32_t)(iter % n)) % n);
    return table ? (uint32_t)table[q] : q;
}

void coll_sort_members(uint32_t *members, uint32_t n) {
    for (uint32_t i = 1; i < n; ++i) { /* insertion sort: groups are small */
        uint32_t v = members[i], j = i;
        for (; j > 0 && members[j - 1] > v; --j) members[j] = members[j - 1];
        members[j] = v;
    }
}

bool coll_is_permutation(const int64_t *table, size_t n) {
    bool ok = true;
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (!seen) return false;
    for (size_t i = 0; i < n && ok; ++i) {
        if (table[i] < 0 || (uint64_t)table[i] >= n || seen[table[i]])
            ok = false;
        else
            seen[table[i]] = 1;
    }
    free(seen);
    return ok;
}
