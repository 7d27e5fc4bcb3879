/* The routing kinds as pure functions on dense buffers (the layout read
 * from / written through an AP: [partitions][elements per partition]).
 * Elements are opaque `w` bytes (w = 4 for the fp32 path, the dtype's width
 * for the raw same-dtype path); positions are a member's index in its group.
 * None of these functions fails: the caller validated the counts. */
#ifndef COLL_ROUTE_H
#define COLL_ROUTE_H

#include <stddef.h>
#include <stdint.h>

/* AllGather, flat (cc_dim != 1): dst = src_0 ++ src_1 ++ ... (each e elements). */
void coll_gather_flat(void *dst, const void *const *srcs, size_t n, size_t e, size_t w);

/* AllGather per partition (cc_dim == 1): every src is [parts][f]; dst is
 * [parts][n*f] with dst[p][j*f + i] = src_j[p][i]. */
void coll_gather_rows(void *dst, const void *const *srcs, size_t n, size_t parts, size_t f,
                      size_t w);

/* AllToAll, the output of the member at position j: every src has n*c
 * elements; dst[i*c + e] = src_i[j*c + e]. */
void coll_alltoall_one(void *dst, const void *const *srcs, size_t n, size_t j, size_t c, size_t w);

/* AllToAllV, the output of the member at position j. counts is n*n:
 * counts[i*n + k] elements go from member i to member k, taken from i's
 * input in order k = 0.. (no gaps) and placed in k's output in order
 * i = 0.. (no gaps). */
void coll_alltoallv_one(void *dst, const void *const *srcs, size_t n, size_t j,
                        const int64_t *counts, size_t w);

#endif
