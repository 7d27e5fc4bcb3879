/* The reference module's collective kernels (trnsim-collective-ref,
 * docs/plugins.md "Reference modules"): coll_reduce.h and coll_route.h
 * answered by the scalar oracle (coll_oracle.c, the file the kernel tests
 * compare against): doReduction one element at a time with the SSE
 * instructions themselves, the routing as index loops. No blocks, no
 * multi-input folds: the handlers are the fast module's. */
#include "coll_oracle.h"
#include "../coll_reduce.h"
#include "../coll_route.h"

float coll_add1(float x, float acc) { return oracle_addss(x, acc); }
float coll_max1(float x, float acc) { return oracle_maxss(x, acc); }
float coll_min1(float x, float acc) { return oracle_minss(x, acc); }
float coll_mul1(float x, float s) { return oracle_mulss(x, s); }

/* The handlers reject an unsupported op first (coll_reduce_rejects), so the
 * oracle's -1 cannot happen here. */
void coll_reduce(int64_t op, const float *const *ins, size_t n_ins, size_t n, bool has_scale,
                 float scale, float *res) {
    (void)oracle_do_reduction(op, ins, n_ins, n, has_scale, scale, res);
}

void coll_gather_flat(void *dst, const void *const *srcs, size_t n, size_t e, size_t w) {
    oracle_gather_flat(dst, srcs, n, e, w);
}

void coll_gather_rows(void *dst, const void *const *srcs, size_t n, size_t parts, size_t f,
                      size_t w) {
    oracle_gather_rows(dst, srcs, n, parts, f, w);
}

void coll_alltoall_one(void *dst, const void *const *srcs, size_t n, size_t j, size_t c, size_t w) {
    oracle_alltoall(dst, srcs, n, j, n * c, w);
}

void coll_alltoallv_one(void *dst, const void *const *srcs, size_t n, size_t j,
                        const int64_t *counts, size_t w) {
    oracle_alltoallv(dst, srcs, n, j, counts, w);
}
