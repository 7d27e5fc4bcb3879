#include "memory/memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "common/common.h"

/* Limits that keep every address computation inside int64. */
#define AP_MAX_NUM   (1ll << 32)
#define AP_MAX_STEP  (1ll << 32)
#define AP_MAX_ELEMS (1ll << 30)

/* An AP reduced to what the walk needs: runs along the innermost dim. */
typedef struct walk {
    trn_memory *mem;
    uint32_t width;
    uint32_t ndims; /* after merging contiguous dims, >= 1 */
    int64_t step[TRN_AP_MAX_DIMS], num[TRN_AP_MAX_DIMS];
    int64_t free_elems;
} walk;

void trn_ap_describe(const trn_ap *ap, char *buf, size_t len) {
    int n = snprintf(buf, len, "%s[partitions %u+%u step %u] offset %" PRId64 " ap=[",
                     ap->mem < 3 ? trn_mem_names[ap->mem] : "?", ap->part_start, ap->part_count,
                     ap->part_step, ap->offset);
    for (uint32_t d = 0; d < ap->ndims && d < TRN_AP_MAX_DIMS && n > 0 && (size_t)n < len; ++d)
        n += snprintf(buf + n, len - (size_t)n, "%s[%" PRId64 ",%" PRId64 "]", d ? "," : "",
                      ap->dims[d].step, ap->dims[d].num);
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "] %s", trn_dtype_name(ap->dtype));
}

static int check_fields(const trn_ap_env *env, const trn_ap *ap, trn_error *e) {
    if (ap->core >= env->ncores)
        return trn_errorf(e, "AP names core %u, the run has %u", ap->core, env->ncores);
    if (env->local_hi && (ap->core < env->local_lo || ap->core >= env->local_hi))
        return trn_errorf(
            e,
            "AP names core %u, whose memory is in MPI process %u (this process holds cores "
            "%u..%u); "
            "this transport has no remote-memory calls, so only collectives reach other processes "
            "(docs/mpi.md)",
            ap->core, env->rank_of_div ? ap->core / env->rank_of_div : 0, env->local_lo,
            env->local_hi - 1);
    if (ap->mem > TRN_MEM_HBM)
        return trn_errorf(e, "AP names memory %u (expected 0 sbuf, 1 psum, 2 hbm)", ap->mem);
    if (trn_dtype_width(ap->dtype) == 0) return trn_errorf(e, "AP has unknown dtype %u", ap->dtype);
    if (ap->ndims > TRN_AP_MAX_DIMS)
        return trn_errorf(e, "AP has %u dims (at most %d)", ap->ndims, TRN_AP_MAX_DIMS);
    if (ap->part_count == 0) return trn_errorf(e, "AP has 0 partitions");
    __int128 total = ap->part_count;
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        if (ap->dims[d].num < 1 || ap->dims[d].num > AP_MAX_NUM)
            return trn_errorf(e, "AP dim %u has num %" PRId64 " (expected 1..2^32)", d,
                              ap->dims[d].num);
        if (ap->dims[d].step > AP_MAX_STEP || ap->dims[d].step < -AP_MAX_STEP)
            return trn_errorf(e, "AP dim %u has step %" PRId64 " (|step| at most 2^32)", d,
                              ap->dims[d].step);
        total *= ap->dims[d].num;
    }
    /* Step-0 dims can repeat an address without end; a dense buffer of more
     * than 2^30 elements (4 GiB of fp32) is refused before anyone allocates it. */
    if (total > AP_MAX_ELEMS)
        return trn_errorf(e, "AP visits %.0f elements (at most 2^30)", (double)total);
    return 0;
}

/* Decimal text of a 128-bit value (byte offsets of wild APs exceed int64). */
static const char *i128_text(__int128 v, char buf[48]) {
    char tmp[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int k = 0;
    if (v < 0) buf[k++] = '-';
    while (n) buf[k++] = tmp[--n];
    buf[k] = 0;
    return buf;
}

int trn_ap_check(const trn_ap_env *env, const trn_ap *ap, trn_error *e) {
    if (check_fields(env, ap, e)) return -1;
    const trn_memory *m = &env->cores[ap->core].mem[ap->mem];
    const char *mname = trn_mem_names[ap->mem];
    uint64_t last_part = (uint64_t)ap->part_start + (uint64_t)(ap->part_count - 1) * ap->part_step;
    if (last_part >= m->partitions)
        return trn_errorf(e, "partition %" PRIu64 " is outside %s (%u partitions)", last_part,
                          mname, m->partitions);
    __int128 lo = ap->offset, hi = ap->offset;
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        __int128 span = (__int128)ap->dims[d].step * (ap->dims[d].num - 1);
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    uint32_t w = trn_dtype_width(ap->dtype);
    char num[48];
    if (lo < 0)
        return trn_errorf(e, "element at byte offset %s is before the start of %s",
                          i128_text(lo * w, num), mname);
    if ((hi + 1) * w > (__int128)m->partition_bytes)
        return trn_errorf(
            e, "element at byte offset %s (%u bytes) is past the end of %s (%" PRIu64 " bytes%s)",
            i128_text(hi * w, num), w, mname, m->partition_bytes,
            ap->mem == TRN_MEM_HBM ? "" : " per partition");
    return 0;
}

trn_box trn_ap_box(const trn_ap *ap) {
    int64_t lo = ap->offset, hi = ap->offset;
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        int64_t span = ap->dims[d].step * (ap->dims[d].num - 1);
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    uint32_t w = trn_dtype_width(ap->dtype);
    return (trn_box){ap->part_start, ap->part_start + (ap->part_count - 1) * ap->part_step + 1,
                     (uint64_t)lo * w, (uint64_t)(hi + 1) * w};
}

/* Merge dims that are contiguous in each other so runs are as long as
 * possible. settle: the walk moves data, so bindings its box meets are
 * copied in first (memory/memory.h); the written map alone needs none. */
static int walk_init_as(const trn_ap_env *env, const trn_ap *ap, walk *w, bool settle,
                        trn_error *e) {
    if (trn_ap_check(env, ap, e)) return -1;
    w->mem = &env->cores[ap->core].mem[ap->mem];
    if (settle && w->mem->n_bound) trn_mem_settle(w->mem, trn_ap_box(ap));
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

static int walk_init(const trn_ap_env *env, const trn_ap *ap, walk *w, trn_error *e) {
    return walk_init_as(env, ap, w, true, e);
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

/* Copy one element of width w (1, 2, 4 or 8 bytes) with a typed load. */
static inline void copy_elem(uint8_t *dst, const uint8_t *src, uint32_t w) {
    switch (w) {
        case 1: *dst = *src; break;
        case 2: memcpy(dst, src, 2); break;
        case 4: memcpy(dst, src, 4); break;
        default: memcpy(dst, src, 8); break;
    }
}

/* Copy n elements with element strides ds / ss (in elements). */
static void copy_strided(uint8_t *dst, int64_t ds, const uint8_t *src, int64_t ss, int64_t n,
                         uint32_t w) {
    if (ds == 1 && ss == 1) {
        memmove(dst, src, (size_t)n * w);
        return;
    }
    int64_t db = ds * (int64_t)w, sb = ss * (int64_t)w;
    switch (w) {
        case 1:
            for (int64_t i = 0; i < n; ++i) dst[i * db] = src[i * sb];
            break;
        case 2:
            for (int64_t i = 0; i < n; ++i) memcpy(dst + i * db, src + i * sb, 2);
            break;
        case 4:
            for (int64_t i = 0; i < n; ++i) memcpy(dst + i * db, src + i * sb, 4);
            break;
        default:
            for (int64_t i = 0; i < n; ++i) memcpy(dst + i * db, src + i * sb, 8);
            break;
    }
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
    /* A strided run whose whole span was written needs no per-element look. */
    int64_t lo = stride > 0 ? 0 : (n - 1) * stride,
            span = (n - 1) * (stride > 0 ? stride : -stride) + 1;
    if (trn_mem_is_written(g->w->mem, addr + (uint64_t)(lo * wd), (uint64_t)(span * wd), NULL))
        return 0;
    for (int64_t i = 0; i < n; ++i) {
        uint64_t a = addr + (uint64_t)(i * stride * wd);
        if (!trn_mem_elem_written(g->w->mem, a, wd))
            return trn_mem_is_written(g->w->mem, a, wd, &g->bad) ? 0 : 1;
    }
    return 0;
}

/* "<what>: <where>, <holder>; <how to fix>" for the never-written byte at
 * mem address addr. */
static int uninit_error(const trn_ap_env *env, const trn_memory *mem, uint32_t kind, uint64_t addr,
                        const char *what, trn_error *e) {
    uint64_t part = addr / mem->partition_bytes, off = addr % mem->partition_bytes;
    char holder[512] = "";
    if (env->namer) env->namer(env->namer_arg, kind, part, off, holder, sizeof holder);
    char where[128];
    if (kind == TRN_MEM_HBM)
        snprintf(where, sizeof where, "hbm byte %" PRIu64, off);
    else
        snprintf(where, sizeof where, "%s bytes at partition %" PRIu64 ", byte offset %" PRIu64,
                 trn_mem_names[kind], part, off);
    if (holder[0]) return trn_errorf(e, "%sreads never-written %s, %s", what, where, holder);
    return trn_errorf(
        e, "%sreads never-written %s (write them first, or set allow_uninit_read to allow)", what,
        where);
}

static int guard_reads(const trn_ap_env *env, const walk *w, const trn_ap *ap, trn_error *e) {
    if (env->allow_uninit) return 0;
    guard_arg g = {w, 0};
    if (!walk_runs(w, ap, guard_run, &g)) return 0;
    return uninit_error(env, w->mem, ap->mem, g.bad, "", e);
}

/* ---- dense reads ---- */

typedef struct xfer_arg {
    const walk *w;
    trn_dtype dt;
    void *buf; /* dense buffer */
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
        return trn_errorf(e, "dtype %s has no fp32 value (packed form: copy it raw)",
                          trn_dtype_name(ap->dtype));
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
    copy_strided(dst, 1, src, stride, n, wd);
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

/* ---- digest ---- */

typedef struct digest_arg {
    const walk *w;
    trn_digest d;
} digest_arg;

static int digest_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    (void)dense;
    digest_arg *g = arg;
    uint32_t wd = g->w->width;
    const uint8_t *src = g->w->mem->bytes + addr;
    if (stride == 1) {
        trn_digest_update(&g->d, src, (size_t)n * wd);
        return 0;
    }
    uint8_t buf[4096];
    int64_t per = (int64_t)(sizeof buf / wd);
    for (int64_t i = 0; i < n; i += per) {
        int64_t k = n - i < per ? n - i : per;
        copy_strided(buf, 1, src + i * stride * (int64_t)wd, stride, k, wd);
        trn_digest_update(&g->d, buf, (size_t)k * wd);
    }
    return 0;
}

int trn_ap_digest(const trn_ap_env *env, const trn_ap *ap, uint64_t *out, trn_error *e) {
    digest_arg g;
    walk w;
    if (walk_init(env, ap, &w, e)) return -1;
    if (guard_reads(env, &w, ap, e)) return -1;
    g.w = &w;
    trn_digest_init(&g.d);
    walk_runs(&w, ap, digest_run, &g);
    *out = trn_digest_final(&g.d);
    return 0;
}

/* ---- dense writes ---- */

/* Mark the elements of one run written. */
static void mark_run(trn_memory *m, uint64_t addr, int64_t n, int64_t stride, uint32_t wd) {
    if (stride == 1) {
        trn_mem_mark_written(m, addr, (uint64_t)n * wd);
        return;
    }
    for (int64_t i = 0; i < n; ++i)
        trn_mem_mark_elem(m, addr + (uint64_t)(i * stride * (int64_t)wd), wd);
}

static int check_op_dtype(const trn_ap *ap, trn_acc_op op, trn_error *e);

/* One element in dt's encoding: copy or accumulate (copy when never written). */
static void put_raw(const walk *w, trn_dtype dt, uint64_t addr, const void *val, trn_acc_op op) {
    uint8_t *dst = w->mem->bytes + addr;
    if (op != TRN_ACC_COPY && trn_mem_elem_written(w->mem, addr, w->width))
        trn_cast_copy_or_accumulate(op, dst, val, dt, NULL); /* dtype checked up front */
    else
        memcpy(dst, val, w->width);
    trn_mem_mark_elem(w->mem, addr, w->width);
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
            trn_accumulate_span(x->op, x->w->mem->bytes + addr + (uint64_t)i * wd, tmp, x->dt, k,
                                NULL);
        }
        return 0;
    }
    for (int64_t i = 0; i < n; ++i)
        put_f32(x->w, x->dt, addr + (uint64_t)(i * stride * (int64_t)wd), src[i], x->op);
    return 0;
}

static int check_write_dtype(const trn_ap *ap, trn_acc_op op, trn_error *e) {
    if (!trn_dtype_widens(ap->dtype))
        return trn_errorf(e, "cannot write fp32 values to dtype %s (packed form: copy it raw)",
                          trn_dtype_name(ap->dtype));
    return check_op_dtype(ap, op, e);
}

int trn_ap_write_f32(const trn_ap_env *env, const trn_ap *ap, const float *src, trn_acc_op op,
                     trn_error *e) {
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
    copy_strided(dst, stride, src, 1, n, wd);
    mark_run(x->w->mem, addr, n, stride, wd);
    return 0;
}

int trn_ap_write_raw(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e)) return -1;
    xfer_arg x = {&w, ap->dtype, (void *)src, TRN_ACC_COPY};
    walk_runs(&w, ap, write_raw_run, &x);
    return 0;
}

typedef struct mark_arg {
    const walk *w;
} mark_arg;

static int mark_whole_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    (void)dense;
    const walk *w = ((mark_arg *)arg)->w;
    mark_run(w->mem, addr, n, stride, w->width);
    return 0;
}

int trn_ap_mark_written(const trn_ap_env *env, const trn_ap *ap, trn_error *e) {
    walk w;
    if (walk_init_as(env, ap, &w, false, e)) return -1;
    mark_arg m = {&w};
    walk_runs(&w, ap, mark_whole_run, &m);
    return 0;
}

bool trn_ap_all_written(const trn_ap_env *env, const trn_ap *ap) {
    walk w;
    trn_error e;
    if (walk_init_as(env, ap, &w, false, &e)) return false;
    guard_arg g = {&w, 0};
    return walk_runs(&w, ap, guard_run, &g) == 0;
}

/* The first element (in visiting order) with a never-written byte. */
typedef struct first_arg {
    const walk *w;
    int64_t elem;
    uint64_t addr;
} first_arg;

static int first_unwritten_run(void *arg, uint64_t addr, int64_t n, int64_t stride, int64_t dense) {
    first_arg *f = arg;
    uint32_t wd = f->w->width;
    uint64_t bad;
    if (stride == 1) {
        if (trn_mem_is_written(f->w->mem, addr, (uint64_t)n * wd, &bad)) return 0;
        f->elem = dense + (int64_t)((bad - addr) / wd);
        f->addr = addr + (uint64_t)(f->elem - dense) * wd;
        return 1;
    }
    for (int64_t i = 0; i < n; ++i) {
        uint64_t a = addr + (uint64_t)(i * stride * wd);
        if (trn_mem_is_written(f->w->mem, a, wd, NULL)) continue;
        f->elem = dense + i;
        f->addr = a;
        return 1;
    }
    return 0;
}

bool trn_ap_first_unwritten(const trn_ap_env *env, const trn_ap *ap, int64_t *elem,
                            uint64_t *addr) {
    walk w;
    trn_error e;
    if (walk_init_as(env, ap, &w, false, &e)) return false;
    first_arg f = {&w, 0, 0};
    if (!walk_runs(&w, ap, first_unwritten_run, &f)) return false;
    *elem = f.elem;
    *addr = f.addr;
    return true;
}

/* ---- indirect ---- */

/* Byte address of element k of the AP's visiting order. */
static uint64_t element_addr(const trn_ap *ap, const walk *w, int64_t k) {
    if (ap->part_count == 1 && ap->ndims == 1) /* a flat table: no divisions */
        return trn_mem_addr(w->mem, ap->part_start, 0) +
               (uint64_t)((ap->offset + k * ap->dims[0].step) * w->width);
    int64_t p = k / w->free_elems, f = k % w->free_elems;
    int64_t elem = ap->offset;
    for (int d = (int)ap->ndims - 1; d >= 0; --d) {
        elem += (f % ap->dims[d].num) * ap->dims[d].step;
        f /= ap->dims[d].num;
    }
    return trn_mem_addr(w->mem, ap->part_start + (uint32_t)p * ap->part_step, 0) +
           (uint64_t)elem * w->width;
}

/* For n indirect accesses into the table ap: is the whole table written?
 * One range scan of the table's written map (a word per 64 bytes) then
 * stands for n per-element checks; asked only when the scan is the
 * cheaper of the two, so false may also mean "not asked". */
static bool table_written(const trn_ap_env *env, const trn_ap *ap, const walk *w, size_t n) {
    uint64_t table_words = (uint64_t)trn_ap_elems(ap) * w->width / 64 + 1;
    return table_words <= 4 * (uint64_t)n && trn_ap_all_written(env, ap);
}

static int check_indices(const trn_ap *ap, const int64_t *idx, size_t n, trn_error *e) {
    int64_t total = trn_ap_elems(ap);
    for (size_t j = 0; j < n; ++j)
        if (idx[j] < 0 || idx[j] >= total)
            return trn_errorf(e,
                              "index %zu is %" PRId64 ", outside its table of %" PRId64 " elements",
                              j, idx[j], total);
    return 0;
}

int trn_ap_read_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                             float *dst, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e)) return -1;
    if (!trn_dtype_widens(ap->dtype))
        return trn_errorf(e, "dtype %s has no fp32 value", trn_dtype_name(ap->dtype));
    bool guarded = env->allow_uninit || table_written(env, ap, &w, n);
    for (size_t j = 0; j < n && !guarded; ++j) {
        uint64_t a = element_addr(ap, &w, idx[j]), bad;
        if (!env->allow_uninit && !trn_mem_elem_written(w.mem, a, w.width) &&
            !trn_mem_is_written(w.mem, a, w.width, &bad)) {
            char what[96];
            snprintf(what, sizeof what, "index %zu (element %" PRId64 ") ", j, idx[j]);
            return uninit_error(env, w.mem, ap->mem, bad, what, e);
        }
    }
    for (size_t j = 0; j < n; ++j)
        dst[j] = trn_widen(ap->dtype, w.mem->bytes + element_addr(ap, &w, idx[j]));
    return 0;
}

int trn_ap_write_indirect_f32(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const float *src, trn_acc_op op, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e) || check_write_dtype(ap, op, e))
        return -1;
    for (size_t j = 0; j < n; ++j) put_f32(&w, ap->dtype, element_addr(ap, &w, idx[j]), src[j], op);
    return 0;
}

/* ---- same-dtype transfers with an op ---- */

int trn_ap_check_access(const trn_ap_env *env, const trn_ap *ap, bool reading, trn_error *e) {
    walk w;
    if (walk_init_as(env, ap, &w, false, e)) return -1;
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
    for (int64_t i = 0; i < n; ++i)
        put_raw(x->w, x->dt, addr + (uint64_t)(i * stride * (int64_t)wd), src + i * wd, x->op);
    return 0;
}

int trn_ap_write_raw_op(const trn_ap_env *env, const trn_ap *ap, const void *src, trn_acc_op op,
                        trn_error *e) {
    if (op == TRN_ACC_COPY) return trn_ap_write_raw(env, ap, src, e);
    walk w;
    if (walk_init(env, ap, &w, e) || check_op_dtype(ap, op, e)) return -1;
    xfer_arg x = {&w, ap->dtype, (void *)src, op};
    walk_runs(&w, ap, write_raw_op_run, &x);
    return 0;
}

int trn_ap_read_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                             void *dst, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e)) return -1;
    bool guarded = env->allow_uninit || table_written(env, ap, &w, n);
    for (size_t j = 0; j < n && !guarded; ++j) {
        uint64_t a = element_addr(ap, &w, idx[j]), bad;
        if (!env->allow_uninit && !trn_mem_elem_written(w.mem, a, w.width) &&
            !trn_mem_is_written(w.mem, a, w.width, &bad)) {
            char what[96];
            snprintf(what, sizeof what, "index %zu (element %" PRId64 ") ", j, idx[j]);
            return uninit_error(env, w.mem, ap->mem, bad, what, e);
        }
    }
    for (size_t j = 0; j < n; ++j)
        copy_elem((uint8_t *)dst + j * w.width, w.mem->bytes + element_addr(ap, &w, idx[j]),
                  w.width);
    return 0;
}

#define SCATTER_CHUNK 2048 /* addresses: 16 KiB */

int trn_ap_write_indirect_raw(const trn_ap_env *env, const trn_ap *ap, const int64_t *idx, size_t n,
                              const void *src, trn_acc_op op, trn_error *e) {
    walk w;
    if (walk_init(env, ap, &w, e) || check_indices(ap, idx, n, e) || check_op_dtype(ap, op, e))
        return -1;
    const uint8_t *s = src;
    /* Accumulating into elements that were all written: no per-element
     * bookkeeping, so independent updates overlap their memory latency.
     * A table known to be written whole takes its addresses in chunks that
     * stay in L1, in index order as before. */
    if (op != TRN_ACC_COPY && table_written(env, ap, &w, n)) {
        uint64_t chunk[SCATTER_CHUNK];
        /* a flat table, element_addr's first case with the products hoisted */
        bool flat = ap->part_count == 1 && ap->ndims == 1;
        uint64_t flat_base =
            trn_mem_addr(w.mem, ap->part_start, 0) + (uint64_t)(ap->offset * (int64_t)w.width);
        int64_t flat_step = flat ? ap->dims[0].step * (int64_t)w.width : 0;
        for (size_t j0 = 0; j0 < n; j0 += SCATTER_CHUNK) {
            size_t c = n - j0 < SCATTER_CHUNK ? n - j0 : SCATTER_CHUNK;
            if (flat)
                for (size_t k = 0; k < c; ++k)
                    chunk[k] = flat_base + (uint64_t)(idx[j0 + k] * flat_step);
            else
                for (size_t k = 0; k < c; ++k) chunk[k] = element_addr(ap, &w, idx[j0 + k]);
            trn_accumulate_scatter(op, w.mem->bytes, chunk, s + j0 * w.width, ap->dtype, c, NULL);
        }
        return 0;
    }
    uint64_t *addr = op != TRN_ACC_COPY ? malloc((n ? n : 1) * sizeof *addr) : NULL;
    bool all_written = addr != NULL;
    for (size_t j = 0; addr && j < n; ++j) {
        addr[j] = element_addr(ap, &w, idx[j]);
        all_written = all_written && trn_mem_elem_written(w.mem, addr[j], w.width);
    }
    if (all_written)
        trn_accumulate_scatter(op, w.mem->bytes, addr, s, ap->dtype, n, NULL);
    else
        for (size_t j = 0; j < n; ++j)
            put_raw(&w, ap->dtype, addr ? addr[j] : element_addr(ap, &w, idx[j]), s + j * w.width,
                    op);
    free(addr);
    return 0;
}

/* ---- AP -> AP copy of one dtype ---- */

/* Visits an AP's runs one at a time, so two APs can be walked together. */
typedef struct run_iter {
    const walk *w;
    const trn_ap *ap;
    uint32_t p;
    int64_t o, outer, idx[TRN_AP_MAX_DIMS];
    uint64_t addr;
    int64_t left, stride;
} run_iter;

static void iter_load(run_iter *it) {
    const walk *w = it->w;
    uint32_t inner = w->ndims - 1;
    int64_t elem = it->ap->offset;
    for (uint32_t d = 0; d < inner; ++d) elem += it->idx[d] * w->step[d];
    it->addr = trn_mem_addr(w->mem, it->ap->part_start + it->p * it->ap->part_step, 0) +
               (uint64_t)elem * w->width;
    it->left = w->num[inner];
    it->stride = w->step[inner];
}

static void iter_init(run_iter *it, const walk *w, const trn_ap *ap) {
    memset(it, 0, sizeof *it);
    it->w = w;
    it->ap = ap;
    it->outer = w->free_elems / w->num[w->ndims - 1];
    iter_load(it);
}

/* Consume k elements of the current run; 0 when the AP is exhausted. */
static int iter_advance(run_iter *it, int64_t k) {
    it->addr += (uint64_t)(k * it->stride * (int64_t)it->w->width);
    it->left -= k;
    if (it->left > 0) return 1;
    if (++it->o < it->outer) {
        for (int d = (int)it->w->ndims - 2; d >= 0; --d) {
            if (++it->idx[d] < it->w->num[d]) break;
            it->idx[d] = 0;
        }
    } else {
        it->o = 0;
        memset(it->idx, 0, sizeof it->idx);
        if (++it->p >= it->ap->part_count) return 0;
    }
    iter_load(it);
    return 1;
}

/* Conservative: could the two APs touch a common byte? */
static bool may_overlap(const trn_ap *a, const walk *wa, const trn_ap *b, const walk *wb) {
    if (a->core != b->core || a->mem != b->mem) return false;
    uint64_t lo[2], hi[2];
    const trn_ap *ap[2] = {a, b};
    const walk *w[2] = {wa, wb};
    for (int k = 0; k < 2; ++k) {
        int64_t elo = ap[k]->offset, ehi = ap[k]->offset;
        for (uint32_t d = 0; d < ap[k]->ndims; ++d) {
            int64_t span = ap[k]->dims[d].step * (ap[k]->dims[d].num - 1);
            if (span < 0)
                elo += span;
            else
                ehi += span;
        }
        uint32_t plast = ap[k]->part_start + (ap[k]->part_count - 1) * ap[k]->part_step;
        lo[k] = trn_mem_addr(w[k]->mem, ap[k]->part_start, 0) + (uint64_t)elo * w[k]->width;
        hi[k] = trn_mem_addr(w[k]->mem, plast, 0) + (uint64_t)(ehi + 1) * w[k]->width;
    }
    return lo[0] < hi[1] && lo[1] < hi[0];
}

static void copy_chunk(const walk *wd, const run_iter *di, const run_iter *si, int64_t k,
                       trn_dtype dt, trn_acc_op op) {
    uint32_t w = wd->width;
    uint8_t *dst = wd->mem->bytes + di->addr;
    const uint8_t *src = si->w->mem->bytes + si->addr;
    if (op == TRN_ACC_COPY) {
        copy_strided(dst, di->stride, src, si->stride, k, w);
        mark_run(wd->mem, di->addr, k, di->stride, w);
    } else if (di->stride == 1 && si->stride == 1 &&
               trn_mem_is_written(wd->mem, di->addr, (uint64_t)k * w, NULL)) {
        trn_accumulate_span(op, dst, src, dt, (size_t)k, NULL);
    } else {
        for (int64_t i = 0; i < k; ++i)
            put_raw(wd, dt, di->addr + (uint64_t)(i * di->stride * (int64_t)w),
                    src + i * si->stride * (int64_t)w, op);
    }
}

int trn_ap_copy_raw(const trn_ap_env *env, const trn_ap *dst, const trn_ap *src, trn_acc_op op,
                    trn_error *e) {
    walk wd, ws;
    if (walk_init(env, src, &ws, e) || walk_init(env, dst, &wd, e) || check_op_dtype(dst, op, e))
        return -1;
    if (src->dtype != dst->dtype)
        return trn_errorf(e, "copy_raw needs one dtype, got %s -> %s", trn_dtype_name(src->dtype),
                          trn_dtype_name(dst->dtype));
    if (trn_ap_elems(src) != trn_ap_elems(dst))
        return trn_errorf(e, "copy_raw: %lld source elements, %lld destination elements",
                          (long long)trn_ap_elems(src), (long long)trn_ap_elems(dst));
    if (guard_reads(env, &ws, src, e)) return -1;
    if (may_overlap(src, &ws, dst, &wd)) { /* read everything first, as the semantics say */
        size_t bytes = (size_t)trn_ap_elems(src) * ws.width;
        void *tmp = malloc(bytes ? bytes : 1);
        if (!tmp) return trn_errorf(e, "out of memory for a %zu-byte copy", bytes);
        xfer_arg x = {&ws, src->dtype, tmp, TRN_ACC_COPY};
        walk_runs(&ws, src, read_raw_run, &x);
        int rc = trn_ap_write_raw_op(env, dst, tmp, op, e);
        free(tmp);
        return rc;
    }
    run_iter si, di;
    iter_init(&si, &ws, src);
    iter_init(&di, &wd, dst);
    for (;;) {
        int64_t k = si.left < di.left ? si.left : di.left;
        copy_chunk(&wd, &di, &si, k, dst->dtype, op);
        if (!iter_advance(&si, k) || !iter_advance(&di, k)) break;
    }
    return 0;
}
