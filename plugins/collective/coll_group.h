/* Participation: replica groups, source-target pairs, the ring of the
 * implicit permutes, the LNC rule. Pure functions; errors are written into
 * err (errlen bytes) and reported by the caller. Ids are core indices of
 * the run (docs/collective.md, "Ranks and groups"). */
#ifndef COLL_GROUP_H
#define COLL_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct coll_groups {
    uint32_t n_groups; /* >= 1 after coll_groups_make */
    uint32_t size;     /* members per group: every group has the same size */
    bool all;          /* replica_groups was empty: one group of every core */
    uint32_t *ids;     /* n_groups * size member ids, group order as given */
} coll_groups;

/* Build and validate replica_groups given as `rows` lists (flat ids, row
 * lengths). rows == 0 means one group of every core 0..cores-1. Rejects an
 * empty group, unequal group sizes, an id outside 0..cores-1 and an id that
 * appears twice. */
int coll_groups_make(coll_groups *g, const int64_t *flat, const size_t *lens, size_t rows,
                     uint32_t cores, char *err, size_t errlen);
void coll_groups_free(coll_groups *g);
bool coll_groups_equal(const coll_groups *a, const coll_groups *b);

/* The group that holds core: its members (group order) and core's position.
 * False when core is in no group (it does not take part). */
bool coll_groups_find(const coll_groups *g, uint32_t core, const uint32_t **members, uint32_t *pos);

/* Validate src_target_pairs (n_pairs pairs, flat [src, target]...): ids in
 * 0..cores-1, every source once, every target once, and the same set of
 * ranks as sources and as targets (a permutation of the ranks it names).
 * On success *members gets the named ranks in ascending order (malloc'd,
 * *n_members of them) and src_of[k] (for k in members order) the source
 * that sends to members[k]. */
int coll_pairs_make(const int64_t *pairs, size_t n_pairs, uint32_t cores, uint32_t **members,
                    uint32_t **src_of, uint32_t *n_members, char *err, size_t errlen);

/* The implicit ring: the member at position pos receives from its
 * predecessor (pos - 1 mod n) and sends to its successor. */
static inline uint32_t coll_ring_pred(uint32_t pos, uint32_t n) { return (pos + n - 1) % n; }

/* The reference's multi-LNC rule for ReduceScatter, SendRecv and
 * SendRecvCCE: supported only when there is one group and it holds
 * exactly the cores of one LNC (size == cores_per_lnc and every member in
 * the same LNC, rank = core / cores_per_lnc). */
int coll_check_single_lnc(const coll_groups *g, const uint32_t *members, uint32_t n,
                          uint32_t cores_per_lnc, const char *what, char *err, size_t errlen);

/* GetCurProcessingRankID: the position (in a group of n) whose data the
 * member at position pos processes at ring iteration iter (< n): the
 * logical ring position (pos - iter) mod n, through the permutation table
 * (n entries) or the identity when table is NULL. */
uint32_t coll_cur_processing_pos(uint32_t pos, uint32_t n, uint64_t iter, const int64_t *table);

/* members[0..n) sorted into ascending core order, in place. The kinds the
 * reference collects with its scaffolding loop (ins[k] = core k's input for
 * core = 0 .. numReplicas-1, as getRankIdforCore @ 0x272380 does) read replica_groups only
 * for membership and size, so their ranks follow the core ids, not the
 * listing: AllReduce, ReduceScatter, AllGather, AllToAll, AllToAllV. */
void coll_sort_members(uint32_t *members, uint32_t n);

/* Is table[0..n) a permutation of 0..n-1? */
bool coll_is_permutation(const int64_t *table, size_t n);

#endif
