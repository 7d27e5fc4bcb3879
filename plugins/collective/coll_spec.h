/* What one core's CollectiveCompute says: its attributes, read through the
 * host API and validated, so that every core's k-th collective can be
 * compared with the others' (docs/collective.md lists the attributes). */
#ifndef COLL_SPEC_H
#define COLL_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll_group.h"
#include "trnsim/plugin.h"

/* CollectiveKind (the reference's switch at InstCollectiveCompute+0xF8). */
enum {
    COLL_SEND_RECV = 0,
    COLL_SEND_RECV_CCE = 1,
    COLL_ALL_REDUCE = 2,
    COLL_REDUCE_SCATTER = 3,
    COLL_ALL_GATHER = 4,
    COLL_ALL_TO_ALL = 5,
    COLL_ALL_TO_ALL_V = 6,
    COLL_PERMUTE = 7,
    COLL_PERMUTE_REDUCE = 8,
    COLL_PERMUTE_IMPLICIT = 9,
    COLL_PERMUTE_REDUCE_IMPLICIT = 10
};

typedef struct coll_spec {
    int64_t kind;
    int64_t op;     /* reduce_op (AluOpType), reducing kinds only */
    bool has_scale; /* `scale` given (reducing kinds) */
    float scale;
    int64_t cc_dim;      /* AllGather: 1 = per partition, else flat */
    int64_t peer_offset; /* SendRecv / SendRecvCCE: receive from position + offset */
    coll_groups groups;  /* replica_groups (every kind but Permute and identity) */
    int64_t *pairs;      /* Permute: src_target_pairs, flat [src, target]... */
    size_t n_pairs;
    int64_t *counts; /* AllToAllV: send_counts, n x n flat */
    size_t n_counts;
} coll_spec;

/* The routing arm a kind takes: kinds 8 and everything outside 0..10 fall
 * to the reference's default arm, an identity copy. */
bool coll_kind_is_identity(int64_t kind);
/* Kinds that fold through doReduction: 1, 2, 3, 10. */
bool coll_kind_reduces(int64_t kind);
const char *coll_kind_name(int64_t kind);

/* Read and validate this instruction's attributes. Errors are recorded
 * with api->error. */
trn_status coll_spec_read(const trn_host_api *api, trn_ctx *ctx, uint32_t cores, coll_spec *sp);
void coll_spec_free(coll_spec *sp);

/* 0 if two cores' specs agree; else -1 with a message naming both values. */
int coll_spec_compare(const coll_spec *a, uint32_t core_a, const coll_spec *b, uint32_t core_b,
                      char *err, size_t errlen);

/* Read a list of integer lists (replica_groups, src_target_pairs,
 * send_counts): flat values plus row lengths (malloc'd). *rows = 0 and
 * NULLs when the attribute is absent or empty. */
trn_status coll_read_int_rows(const trn_host_api *api, trn_ctx *ctx, const char *key,
                              int64_t **flat, size_t **lens, size_t *rows);

#endif
