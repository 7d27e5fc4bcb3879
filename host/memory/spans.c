#include "memory/memory.h"

#include <string.h>

#include "arith/arith.h"

/* Bytes per partition of a dense AP, or 0 when its free dims are not
 * row-major contiguous. */
static uint64_t dense_bytes(const trn_ap *ap) {
    int64_t expect = 1;
    for (int d = (int)ap->ndims - 1; d >= 0; --d) {
        if (ap->dims[d].num == 1) continue;
        if (ap->dims[d].step != expect) return 0;
        expect *= ap->dims[d].num;
    }
    return (uint64_t)expect * trn_dtype_width(ap->dtype);
}

static int check_dense(const trn_ap_env *env, const trn_ap *ap, uint64_t *run, trn_error *e) {
    if (trn_ap_check(env, ap, e)) return -1;
    *run = dense_bytes(ap);
    if (*run == 0) {
        char d[256];
        trn_ap_describe(ap, d, sizeof d);
        return trn_errorf(e, "%s: not contiguous within a partition, cannot be moved in place", d);
    }
    return 0;
}

/* Calls visit(mem, addr, len) for each run of adjacent partitions. */
typedef int (*run_visit)(void *arg, trn_memory *m, uint64_t addr, uint64_t len, trn_error *e);

static int for_each_run(const trn_ap_env *env, const trn_ap *ap, uint32_t core, run_visit visit,
                        void *arg, trn_error *e) {
    uint64_t run;
    if (check_dense(env, ap, &run, e)) return -1;
    trn_memory *m = &env->cores[core].mem[ap->mem];
    if (m->n_bound) trn_mem_settle(m, trn_ap_box(ap)); /* the bytes are handed out in place */
    uint64_t first = (uint64_t)ap->offset * trn_dtype_width(ap->dtype);
    /* runs of whole partitions laid end to end merge into one */
    bool adjacent = ap->part_step == 1 && first == 0 && run == m->partition_bytes;
    uint32_t per = adjacent ? ap->part_count : 1;
    for (uint32_t p = 0; p < ap->part_count; p += per) {
        uint64_t addr = trn_mem_addr(m, ap->part_start + p * ap->part_step, first);
        if (visit(arg, m, addr, run * per, e)) return -1;
    }
    return 0;
}

typedef struct span_arg {
    trn_span_fn fn;
    void *ctx;
    bool writing;
} span_arg;

static int visit_span(void *arg, trn_memory *m, uint64_t addr, uint64_t len, trn_error *e) {
    span_arg *s = arg;
    if (s->fn(s->ctx, m->bytes + addr, (size_t)len, e)) return -1;
    if (s->writing) trn_mem_mark_written(m, addr, len);
    return 0;
}

int trn_ap_spans(const trn_ap_env *env, const trn_ap *ap, bool writing, trn_span_fn fn, void *ctx,
                 trn_error *e) {
    span_arg s = {fn, ctx, writing};
    return for_each_run(env, ap, ap->core, visit_span, &s, e);
}

typedef struct copy_arg {
    const trn_ap_env *env;
    const trn_ap *ap;
    uint32_t to;
} copy_arg;

static int visit_copy(void *arg, trn_memory *from, uint64_t addr, uint64_t len, trn_error *e) {
    (void)e;
    copy_arg *c = arg;
    trn_memory *to = &c->env->cores[c->to].mem[c->ap->mem];
    memcpy(to->bytes + addr, from->bytes + addr, (size_t)len);
    trn_mem_mark_written(to, addr, len);
    return 0;
}

int trn_ap_spans_copy(const trn_ap_env *env, const trn_ap *ap, uint32_t from, trn_error *e) {
    if (from >= env->ncores)
        return trn_errorf(e, "AP names core %u, the run has %u", from, env->ncores);
    if (trn_ap_check(env, ap, e)) return -1;
    trn_memory *to = &env->cores[ap->core].mem[ap->mem];
    if (to->n_bound) trn_mem_drop_within(to, trn_ap_box(ap)); /* overwritten whole */
    copy_arg c = {env, ap, ap->core};
    return for_each_run(env, ap, from, visit_copy, &c, e);
}

void trn_ap_advise_dense(const trn_ap_env *env, const trn_ap *ap) {
    uint64_t run = dense_bytes(ap);
    if (run == 0 || ap->core >= env->ncores || ap->mem > TRN_MEM_HBM || ap->part_count == 0) return;
    trn_memory *m = &env->cores[ap->core].mem[ap->mem];
    uint64_t first = (uint64_t)ap->offset * trn_dtype_width(ap->dtype);
    uint64_t lo = trn_mem_addr(m, ap->part_start, first);
    uint64_t hi =
        trn_mem_addr(m, ap->part_start + (ap->part_count - 1) * ap->part_step, first) + run;
    if (hi > (uint64_t)m->partitions * m->partition_bytes || run * ap->part_count < (hi - lo) / 2)
        return;
    trn_mem_advise_dense(m, lo, hi - lo);
}
