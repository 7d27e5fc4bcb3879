#include "ap.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arith.h"

/* Limits that keep every address computation inside int64. */
#define AP_MAX_NUM (1ll << 32)
#define AP_MAX_STEP (1ll << 32)

/* An AP reduced to what the walk needs: runs along the innermost dim. */
typedef struct walk {
    trn_memory *mem;
    uint32_t width;
    uint32_t ndims;        /* after merging contiguous dims, >= 1 */
    int64_t step[TRN_AP_MAX_DIMS], num[TRN_AP_MAX_DIMS];
    int64_t free_elems;
} walk;

void trn_ap_describe(const trn_ap *ap, char *buf, size_t len) {
    int n = snprintf(buf, len, "%s[partitions %u+%u step %u] offset %" PRId64 " ap=[",
                     ap->mem < 3 ? trn_mem_names[ap->mem] : "?", ap->part_start, ap->part_count, ap->part_step,
                     ap->offset);
    for (uint32_t d = 0; d < ap->ndims && d < TRN_AP_MAX_DIMS && n > 0 && (size_t)n < len; ++d)
        n += snprintf(buf + n, len - (size_t)n, "%s[%" PRId64 ",%" PRId64 "]", d ? "," : "", ap->dims[d].step,
                      ap->dims[d].num);
    if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, "] %s", trn_dtype_name(ap->dtype));
}

static int check_fields(const trn_ap_env *env, const trn_ap *ap, trn_error *e) {
    if (ap->core >= env->ncores) return trn_errorf(e, "AP names core %u, the run has %u", ap->core, env->ncores);
    if (ap->mem > TRN_MEM_HBM) return trn_errorf(e, "AP names memory %u (expected 0 sbuf, 1 psum, 2 hbm)", ap->mem);
    if (trn_dtype_width(ap->dtype) == 0) return trn_errorf(e, "AP has unknown dtype %u", ap->dtype);
    if (ap->ndims > TRN_AP_MAX_DIMS) return trn_errorf(e, "AP has %u dims (at most %d)", ap->ndims, TRN_AP_MAX_DIMS);
    if (ap->part_count == 0) return trn_errorf(e, "AP has 0 partitions");
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        if (ap->dims[d].num < 1 || ap->dims[d].num > AP_MAX_NUM)
            return trn_errorf(e, "AP dim %u has num %" PRId64 " (expected 1..2^32)", d, ap->dims[d].num);
        if (ap->dims[d].step > AP_MAX_STEP || ap->dims[d].step < -AP_MAX_STEP)
            return trn_errorf(e, "AP dim %u has step %" PRId64 " (|step| at most 2^32)", d, ap->dims[d].step);
    }
    return 0;
}

int trn_ap_check(const trn_ap_env *env, const trn_ap *ap, trn_error *e) {
    if (check_fields(env, ap, e)) return -1;
    const trn_memory *m = &env->cores[ap->core].mem[ap->mem];
    const char *mname = trn_mem_names[ap->mem];
    uint64_t last_part = (uint64_t)ap->part_start + (uint64_t)(ap->part_count - 1) * ap->part_step;
    if (last_part >= m->partitions)
        return trn_errorf(e, "partition %" PRIu64 " is outside %s (%u partitions)", last_part, mname, m->partitions);
    __int128 lo = ap->offset, hi = ap->offset;
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        __int128 span = (__int128)ap->dims[d].step * (ap->dims[d].num - 1);
        if (span < 0) lo += span; else hi += span;
    }
    uint32_t w = trn_dtype_width(ap->dtype);
    if (lo < 0)
        return trn_errorf(e, "element at byte offset %" PRId64 " is before the start of %s", (int64_t)(lo * w), mname);
    if ((hi + 1) * w > (__int128)m->partition_bytes)
        return trn_errorf(e, "element at byte offset %" PRId64 " (%u bytes) is past the end of %s (%" PRIu64
                          " bytes%s)", (int64_t)(hi * w), w, mname, m->partition_bytes,
                          ap->mem == TRN_MEM_HBM ? "" : " per partition");
    return 0;
}

/* Merge dims that are contiguous in each other so runs are as long as possible. */
static int walk_init(const trn_ap_env *env, const trn_ap *ap, walk *w, trn_error *e) {
    if (trn_ap_check(env, ap, e)) return -1;
    w->mem = &env->cores[ap->core].mem[ap->mem];
    w->width = trn_dtype_width(ap->dtype);
    w->ndims = 0;
    w->free_elems = trn_ap_free_elems(ap);
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        if (ap->dims[d].num == 1) continue;
        if (w->ndims > 0 && w->step[w->ndims - 1] == ap->dims[d].step * ap->dims[d].num) {
            w->num[w->ndims - 1] *= ap->dims[d].num;
            w->step[w->ndims - 1] = ap->dims[d].step;
            continue;
        }
        w->step[w->ndims] = ap->dims[d].step;
        w->num[w->ndims] = ap->dims[d].num;
        ++w->ndims;
    }
    if (w->ndims == 0) {
        w->step[0] = 1;
        w->num[0] = 1;
        w->ndims = 1;
    }
    return 0;
}

/* Calls fn for each innermost run: byte address of its first element, element
 * count, element stride (in elements) and index of the first element in the
 * dense buffer. Stops at the first non-zero return. */
typedef int (*run_fn)(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense);

static int walk_runs(const walk *w, const trn_ap *ap, run_fn fn, void *arg) {
    uint32_t inner = w->ndims - 1;
    int64_t n = w->num[inner], stride = w->step[inner];
    int64_t outer = w->free_elems / n;
    int64_t dense = 0;
    for (uint32_t p = 0; p < ap->part_count; ++p) {
        uint64_t base = trn_mem_addr(w->mem, ap->part_start + p * ap->part_step, 0);
        int64_t idx[TRN_AP_MAX_DIMS] = {0};
        for (int64_t o = 0; o < outer; ++o) {
            int64_t elem = ap->offset;
            for (uint32_t d = 0; d < inner; ++d) elem += idx[d] * w->step[d];
            int rc = fn(arg, base + (uint64_t)elem * w->width, n, stride, dense);
            if (rc) return rc;
            dense += n;
            for (int d = (int)inner - 1; d >= 0; --d) {
                if (++idx[d] < w->num[d]) break;
                idx[d] = 0;
            }
        }
    }
    return 0;
}

/* ---- uninitialised-read guard ---- */

typedef struct guard_arg {
    const walk *w;
    uint64_t bad;
} guard_arg;

static int guard_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    guard_arg *g = arg;
    uint32_t wd = g->w->width;
    if (stride == 1) return trn_mem_is_written(g->w->mem, addr, (uint64_t)n * wd, &g->bad) ? 0 : 1;
    for (int64_t i = 0; i < n; ++i)
        if (!trn_mem_is_written(g->w->mem, addr + (uint64_t)(i * stride * wd), wd, &g->bad)) return 1;
    return 0;
}

static int guard_reads(const trn_ap_env *env, const walk *w, const trn_ap *ap, trn_error *e) {
    if (env->allow_uninit) return 0;
    guard_arg g = {w, 0};
    if (!walk_runs(w, ap, guard_run, &g)) return 0;
    uint64_t part = g.bad / w->mem->partition_bytes, off = g.bad % w->mem->partition_bytes;
    if (ap->mem == TRN_MEM_HBM)
        return trn_errorf(e, "reads never-written hbm byte %" PRIu64 " (set allow_uninit_read to allow)", off);
    return trn_errorf(e, "reads never-written %s bytes at partition %" PRIu64 ", byte offset %" PRIu64
                      " (set allow_uninit_read to allow)", trn_mem_names[ap->mem], part, off);
}

/* ---- dense reads ---- */

typedef struct xfer_arg {
    const walk *w;
    trn_dtype dt;
    void *buf;        /* dense buffer */
    trn_acc_op op;
} xfer_arg;

static int read_f32_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    xfer_arg *x = arg;
    const uint8_t *src = x->w->mem->bytes + addr;
    float *dst = (float *)x->buf + dense;
    if (stride == 1) {
        trn_widen_span(x->dt, src, dst, (size_t)n);
        return 0;
    }
    int64_t sb = stride * (int64_t)x->w->width;
    for (int64_t i = 0; i < n; ++i) dst[i] = trn_widen(x->dt, src + i * sb);
    return 0;
}

int trn_ap_read_f32(const trn_ap_env *env, const trn_ap *ap, float *dst, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e)) return -1;
    if (!trn_dtype_widens(ap->dtype))
        return trn_errorf(e, "dtype %s has no fp32 value (packed form: copy it raw)", trn_dtype_name(ap->dtype));
    if (guard_reads(env, &w, ap, e)) return -1;
    xfer_arg x = {&w, ap->dtype, dst, TRN_ACC_COPY};
    walk_runs(&w, ap, read_f32_run, &x);
    return 0;
}

static int read_raw_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    xfer_arg *x = arg;
    uint32_t wd = x->w->width;
    const uint8_t *src = x->w->mem->bytes + addr;
    uint8_t *dst = (uint8_t *)x->buf + dense * wd;
    if (stride == 1) {
        memcpy(dst, src, (size_t)n * wd);
        return 0;
    }
    for (int64_t i = 0; i < n; ++i) memcpy(dst + i * wd, src + i * stride * (int64_t)wd, wd);
    return 0;
}

int trn_ap_read_raw(const trn_ap_env *env, const trn_ap *ap, void *dst, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e)) return -1;
    if (guard_reads(env, &w, ap, e)) return -1;
    xfer_arg x = {&w, ap->dtype, dst, TRN_ACC_COPY};
    walk_runs(&w, ap, read_raw_run, &x);
    return 0;
}

/* ---- dense writes ---- */

static int check_op_dtype(const trn_ap *ap, trn_acc_op op, trn_error *e);

/* One element in dt's encoding: copy or accumulate (copy when never written). */
static void put_raw(const walk *w, trn_dtype dt, uint64_t addr, const void *val, trn_acc_op op) {
    uint8_t *dst = w->mem->bytes + addr;
    if (op != TRN_ACC_COPY && trn_mem_is_written(w->mem, addr, w->width, NULL))
        trn_cast_copy_or_accumulate(op, dst, val, dt, NULL); /* dtype checked up front */
    else
        memcpy(dst, val, w->width);
    trn_mem_mark_written(w->mem, addr, w->width);
}

static void put_f32(const walk *w, trn_dtype dt, uint64_t addr, float v, trn_acc_op op) {
    uint8_t tmp[8];
    trn_narrow(dt, v, tmp);
    put_raw(w, dt, addr, tmp, op);
}

static int write_f32_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    xfer_arg *x = arg;
    const float *src = (const float *)x->buf + dense;
    uint32_t wd = x->w->width;
    if (stride == 1 && x->op == TRN_ACC_COPY) {
        trn_narrow_span(x->dt, src, x->w->mem->bytes + addr, (size_t)n);
        trn_mem_mark_written(x->w->mem, addr, (uint64_t)n * wd);
        return 0;
    }
    if (stride == 1 && trn_mem_is_written(x->w->mem, addr, (uint64_t)n * wd, NULL)) {
        uint8_t tmp[256 * 8];
        for (int64_t i = 0; i < n; i += 256) {
            size_t k = (size_t)(n - i < 256 ? n - i : 256);
            trn_narrow_span(x->dt, src + i, tmp, k);
            trn_accumulate_span(x->op, x->w->mem->bytes + addr + (uint64_t)i * wd, tmp, x->dt, k, NULL);
        }
        return 0;
    }
    for (int64_t i = 0; i < n; ++i) put_f32(x->w, x->dt, addr + (uint64_t)(i * stride * (int64_t)wd), src[i], x->op);
    return 0;
}

static int check_write_dtype(const trn_ap *ap, trn_acc_op op, trn_error *e) {
    if (!trn_dtype_widens(ap->dtype))
        return trn_errorf(e, "cannot write fp32 values to dtype %s (packed form: copy it raw)",
                          trn_dtype_name(ap->dtype));
    return check_op_dtype(ap, op, e);
}

int trn_ap_write_f32(const trn_ap_env *env, const trn_ap *ap, const float *src, trn_acc_op op, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_write_dtype(ap, op, e)) return -1;
    xfer_arg x = {&w, ap->dtype, (void *)src, op};
    walk_runs(&w, ap, write_f32_run, &x);
    return 0;
}

static int write_raw_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    xfer_arg *x = arg;
    uint32_t wd = x->w->width;
    const uint8_t *src = (const uint8_t *)x->buf + dense * wd;
    uint8_t *dst = x->w->mem->bytes + addr;
    if (stride == 1) {
        memcpy(dst, src, (size_t)n * wd);
        trn_mem_mark_written(x->w->mem, addr, (uint64_t)n * wd);
        return 0;
    }
    for (int64_t i = 0; i < n; ++i) {
        uint64_t a = addr + (uint64_t)(i * stride * (int64_t)wd);
        memcpy(x->w->mem->bytes + a, src + i * wd, wd);
        trn_mem_mark_written(x->w->mem, a, wd);
    }
    return 0;
}

int trn_ap_write_raw(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e)) return -1;
    xfer_arg x = {&w, ap->dtype, (void *)src, TRN_ACC_COPY};
    walk_runs(&w, ap, write_raw_run, &x);
    return 0;
}

/* ---- indirect ---- */

/* Byte address of element k of the AP's visiting order. */
static uint64_t element_addr(const trn_ap *ap, const walk *w, int64_t k) {
    int64_t p = k / w->free_elems, f = k % w->free_elems;
    int64_t elem = ap->offset;
    for (int d = (int)ap->ndims - 1; d >= 0; --d) {
        elem += (f % ap->dims[d].num) * ap->dims[d].step;
        f /= ap->dims[d].num;
    }
    return trn_mem_addr(w->mem, ap->part_start + (uint32_t)p * ap->part_step, 0) + (uint64_t)elem * w->width;
}

static int check_indices(const trn_ap *ap, const int64_t *idx, size_t n, trn_error *e) {
    int64_t total = trn_ap_elems(ap);
    for (size_t j = 0; j < n; ++j)
        if (idx[j] < 0 || idx[j] >= total)
            return trn_errorf(e, "index %zu is %" PRId64 ", outside its table of %" PRId64 " elements", j, idx[j], total);
    return 0;
}

int trn_ap_read_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n, float *dst,
                             trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e)) return -1;
    if (!trn_dtype_widens(ap->dtype))
        return trn_errorf(e, "dtype %s has no fp32 value", trn_dtype_name(ap->dtype));
    for (size_t j = 0; j < n; ++j) {
        uint64_t a = element_addr(ap, &w, idx[j]), bad;
        if (!env->allow_uninit && !trn_mem_is_written(w.mem, a, w.width, &bad))
            return trn_errorf(e, "index %zu (element %" PRId64 ") reads never-written %s bytes (set "
                              "allow_uninit_read to allow)", j, idx[j], trn_mem_names[ap->mem]);
    }
    for (size_t j = 0; j < n; ++j) dst[j] = trn_widen(ap->dtype, w.mem->bytes + element_addr(ap, &w, idx[j]));
    return 0;
}

int trn_ap_write_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const float *src, trn_acc_op op, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e) || check_write_dtype(ap, op, e)) return -1;
    for (size_t j = 0; j < n; ++j) put_f32(&w, ap->dtype, element_addr(ap, &w, idx[j]), src[j], op);
    return 0;
}

/* ---- same-dtype transfers with an op ---- */

int trn_ap_check_access(const trn_ap_env *env, const trn_ap *ap, bool reading, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e)) return -1;
    return reading ? guard_reads(env, &w, ap, e) : 0;
}

static int check_op_dtype(const trn_ap *ap, trn_acc_op op, trn_error *e) {
    if (op > TRN_ACC_MAX) return trn_errorf(e, "unknown accumulate op %d", (int)op);
    if (op != TRN_ACC_COPY && !trn_dtype_reduces(ap->dtype))
        return trn_errorf(e, "cast_accumulate: unsupported dtype %s", trn_dtype_name(ap->dtype));
    return 0;
}

static int write_raw_op_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    xfer_arg *x = arg;
    uint32_t wd = x->w->width;
    const uint8_t *src = (const uint8_t *)x->buf + dense * wd;
    if (stride == 1 && trn_mem_is_written(x->w->mem, addr, (uint64_t)n * wd, NULL)) {
        trn_accumulate_span(x->op, x->w->mem->bytes + addr, src, x->dt, (size_t)n, NULL);
        return 0;
    }
    for (int64_t i = 0; i < n; ++i) put_raw(x->w, x->dt, addr + (uint64_t)(i * stride * (int64_t)wd), src + i * wd, x->op);
    return 0;
}

int trn_ap_write_raw_op(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_acc_op op, trn_error *e) {
    if (op == TRN_ACC_COPY) return trn_ap_write_raw(env, ap, src, e);
    walk w;
    if (walk_init(env, ap, &w, e) || check_op_dtype(ap, op, e)) return -1;
    xfer_arg x = {&w, ap->dtype, (void *)src, op};
    walk_runs(&w, ap, write_raw_op_run, &x);
    return 0;
}

int trn_ap_read_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n, void *dst,
                             trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e)) return -1;
    for (size_t j = 0; j < n; ++j) {
        uint64_t a = element_addr(ap, &w, idx[j]), bad;
        if (!env->allow_uninit && !trn_mem_is_written(w.mem, a, w.width, &bad))
            return trn_errorf(e, "index %zu (element %" PRId64 ") reads never-written %s bytes (set "
                              "allow_uninit_read to allow)", j, idx[j], trn_mem_names[ap->mem]);
    }
    for (size_t j = 0; j < n; ++j)
        memcpy((uint8_t *)dst + j * w.width, w.mem->bytes + element_addr(ap, &w, idx[j]), w.width);
    return 0;
}

int trn_ap_write_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const void *src, trn_acc_op op, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e) || check_op_dtype(ap, op, e)) return -1;
    for (size_t j = 0; j < n; ++j)
        put_raw(&w, ap->dtype, element_addr(ap, &w, idx[j]), (const uint8_t *)src + j * w.width, op);
    return 0;
}
