/* trnsim diff's comparisons (diff.h): operands are read raw from both
 * simulators' memories through the same access pattern and compared
 * byte for byte, element by element. */
#include "runtime/diff.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "frontend/tensor_bounds.h"
#include "runtime/sim_internal.h"

static bool is_packed(int dt) {
    return dt == TRN_DT_FP8_E4M3_X4 || dt == TRN_DT_FP8_E5M2_X4 || dt == TRN_DT_FP4_E2M1_X4;
}

static bool is_signed_int(int dt) {
    return dt == TRN_DT_INT8 || dt == TRN_DT_INT16 || dt == TRN_DT_INT32 || dt == TRN_DT_INT64 || dt < 0;
}

static uint64_t load_bits(const uint8_t *p, uint32_t w) {
    uint64_t u = 0;
    for (uint32_t i = 0; i < w; ++i) u |= (uint64_t)p[i] << (8 * i);
    return u;
}

static int64_t sign_extend(uint64_t u, uint32_t w) {
    return w >= 8 ? (int64_t)u : (int64_t)(u ^ (1ull << (8 * w - 1))) - (int64_t)(1ull << (8 * w - 1));
}

static uint32_t width_of(int dt) { return dt < 0 ? 8 : trn_dtype_width((trn_dtype)dt); }

/* A float's bits as a position on the number line: sign-magnitude folded
 * so that adjacent representable values are adjacent integers (+0 and -0
 * are both 0). e8m0fnu has no sign bit. */
static int64_t float_rank(int dt, uint64_t u) {
    uint32_t bits = 8 * width_of(dt);
    if (dt == TRN_DT_FP8_E8M0FNU) return (int64_t)u;
    uint64_t sign = 1ull << (bits - 1), mag = u & (sign - 1);
    return u & sign ? -(int64_t)mag : (int64_t)mag;
}

bool trn_diff_ulp(int dt, uint64_t a, uint64_t b, uint64_t *ulp) {
    if (dt >= 0 && is_packed(dt)) return false;
    if (dt >= 0 && trn_dtype_is_float((trn_dtype)dt)) {
        uint8_t ba[8], bb[8];
        for (int i = 0; i < 8; ++i) ba[i] = (uint8_t)(a >> (8 * i)), bb[i] = (uint8_t)(b >> (8 * i));
        if (isnan(trn_widen((trn_dtype)dt, ba)) || isnan(trn_widen((trn_dtype)dt, bb))) return false;
        int64_t x = float_rank(dt, a), y = float_rank(dt, b);
        *ulp = x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
        return true;
    }
    uint32_t w = width_of(dt);
    if (is_signed_int(dt)) {
        int64_t x = sign_extend(a, w), y = sign_extend(b, w);
        *ulp = x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
    } else {
        *ulp = a > b ? a - b : b - a;
    }
    return true;
}

static double value_of(int dt, uint64_t u) {
    uint32_t w = width_of(dt);
    if (dt >= 0 && trn_dtype_is_float((trn_dtype)dt)) {
        uint8_t b[8];
        for (int i = 0; i < 8; ++i) b[i] = (uint8_t)(u >> (8 * i));
        return trn_widen((trn_dtype)dt, b);
    }
    return is_signed_int(dt) ? (double)sign_extend(u, w) : (double)u;
}

/* The element at position i of an AP, as [partition, dim 0, ...], and the
 * partition and byte it lives at. */
static int unravel_ap(const trn_ap *ap, int64_t i, int64_t *index, uint64_t *part, uint64_t *byte) {
    int64_t free_n = trn_ap_free_elems(ap), rest = i % free_n, off = ap->offset;
    index[0] = i / free_n;
    for (int d = (int)ap->ndims - 1; d >= 0; --d) {
        index[d + 1] = rest % ap->dims[d].num;
        rest /= ap->dims[d].num;
        off += index[d + 1] * ap->dims[d].step;
    }
    *part = ap->part_start + (uint64_t)index[0] * ap->part_step;
    *byte = (uint64_t)off * width_of((int)ap->dtype);
    return (int)ap->ndims + 1;
}

static void tensor_place(const trn_program *p, const trn_ap *ap, trn_diff_found *f) {
    uint64_t part, byte;
    int64_t el;
    f->ndim = unravel_ap(ap, f->first, f->index, &part, &byte);
    const trn_tensor *t = trn_tensor_at(p, (trn_mem)ap->mem, part, byte, &el);
    f->tensor = t ? t->name : NULL;
    f->tensor_ndim = t ? t->ndim : 0;
    int64_t stride = t ? t->count : 1;
    for (int d = 0; t && d < t->ndim; ++d) {
        stride /= t->shape[d];
        f->tensor_index[d] = el / stride;
        el %= stride;
    }
}

/* Compare n elements of width w; fills f's counts and first element. */
static bool compare_elements(const uint8_t *x, const uint8_t *y, int64_t n, int dt, trn_diff_found *f) {
    uint32_t w = width_of(dt);
    f->count = n;
    f->differing = 0;
    f->dtype = dt;
    for (int64_t i = 0; i < n; ++i) {
        if (!memcmp(x + (size_t)i * w, y + (size_t)i * w, w)) continue;
        if (f->differing++ == 0) f->first = i;
    }
    if (!f->differing) return false;
    f->bits[0] = load_bits(x + (size_t)f->first * w, w);
    f->bits[1] = load_bits(y + (size_t)f->first * w, w);
    f->has_value = dt < 0 || !is_packed(dt);
    f->value[0] = f->has_value ? value_of(dt, f->bits[0]) : 0;
    f->value[1] = f->has_value ? value_of(dt, f->bits[1]) : 0;
    f->ulp_known = trn_diff_ulp(dt, f->bits[0], f->bits[1], &f->ulp);
    return true;
}

/* Both sides' bytes of one AP (resolved on a). 1: they differ, 0: equal. */
static int compare_ap(trn_sim *a, trn_sim *b, const trn_ap *ap, trn_diff_found *f, trn_error *e) {
    int64_t n = trn_ap_elems(ap);
    size_t bytes = (size_t)n * width_of((int)ap->dtype);
    uint8_t *x = malloc(bytes ? bytes : 1), *y = malloc(bytes ? bytes : 1);
    int rc = x && y ? 0 : trn_errorf(e, "out of memory for %zu bytes", 2 * bytes);
    trn_ap_env ea = {.cores = a->cores, .ncores = a->ncores, .allow_uninit = true};
    trn_ap_env eb = {.cores = b->cores, .ncores = b->ncores, .allow_uninit = true};
    if (rc == 0) rc = trn_ap_read_raw(&ea, ap, x, e) || trn_ap_read_raw(&eb, ap, y, e) ? -1 : 0;
    if (rc == 0 && compare_elements(x, y, n, (int)ap->dtype, f)) {
        tensor_place(&a->prog, ap, f);
        rc = 1;
    }
    free(x);
    free(y);
    return rc;
}

/* What one side's instruction left in its outputs and its core's registers. */
struct trn_diff_snap {
    trn_step step;
    int n;
    trn_ap *aps;
    uint8_t **bytes;
    int64_t *regs;
    uint32_t nregs;
    size_t size; /* bytes held */
};

void trn_diff_snap_free(trn_diff_snap *d) {
    if (!d) return;
    for (int k = 0; k < d->n; ++k) free(d->bytes[k]);
    free(d->bytes);
    free(d->aps);
    free(d->regs);
    free(d);
}

static int snap_fill(trn_diff_snap *d, trn_sim *s, const trn_step *st, trn_error *e) {
    const trn_inst *in = st->inst;
    trn_ctx ctx = {.sim = s, .core = st->core, .index = st->index, .inst = in, .slot = &s->table[in->it]};
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    d->aps = calloc((size_t)in->n_out + 1, sizeof *d->aps);
    d->bytes = calloc((size_t)in->n_out + 1, sizeof *d->bytes);
    const trn_core_state *cs = &s->cores[st->core];
    d->regs = malloc(cs->nregs * sizeof *d->regs + 1);
    if (!d->aps || !d->bytes || !d->regs) return trn_errorf(e, "out of memory");
    d->nregs = cs->nregs;
    memcpy(d->regs, cs->regs, cs->nregs * sizeof *d->regs);
    for (int k = 0; k < in->n_out; ++k, ++d->n) {
        if (trn_host_api_table.operand(&ctx, TRN_OUT, k, &d->aps[k]) != TRN_OK)
            return trn_errorf(e, "outputs[%d]: %s", k, ctx.err.msg);
        size_t bytes = (size_t)trn_ap_elems(&d->aps[k]) * width_of((int)d->aps[k].dtype);
        if (!(d->bytes[k] = malloc(bytes + 1))) return trn_errorf(e, "outputs[%d]: out of memory for %zu bytes", k, bytes);
        d->size += bytes;
        if (trn_ap_read_raw(&env, &d->aps[k], d->bytes[k], e)) return trn_error_prefix(e, "outputs[%d]", k);
    }
    return 0;
}

trn_diff_snap *trn_diff_snap_take(trn_sim *s, const trn_step *st, trn_error *e) {
    trn_diff_snap *d = calloc(1, sizeof *d);
    if (!d) {
        trn_errorf(e, "out of memory");
        return NULL;
    }
    d->step = *st;
    if (snap_fill(d, s, st, e) == 0) return d;
    trn_diff_snap_free(d);
    return NULL;
}

const trn_step *trn_diff_snap_step(const trn_diff_snap *d) { return &d->step; }
size_t trn_diff_snap_size(const trn_diff_snap *d) { return d->size; }

bool trn_diff_snap_same(const trn_diff_snap *a, const trn_diff_snap *b) {
    return a->step.core == b->step.core && a->step.index == b->step.index &&
           a->step.inst->number == b->step.inst->number;
}

int trn_diff_snap_compare(const trn_sim *s, const trn_diff_snap *a, const trn_diff_snap *b, trn_diff_found *out,
                          int cap) {
    int found = 0;
    for (int k = 0; k < a->n && k < b->n; ++k) {
        trn_diff_found f = {0};
        if (!compare_elements(a->bytes[k], b->bytes[k], trn_ap_elems(&a->aps[k]), (int)a->aps[k].dtype, &f)) continue;
        tensor_place(&s->prog, &a->aps[k], &f);
        snprintf(f.operand, sizeof f.operand, "outputs[%d]", k);
        if (found < cap) out[found] = f;
        ++found;
    }
    trn_diff_found f = {0};
    if (a->nregs == b->nregs &&
        compare_elements((const uint8_t *)a->regs, (const uint8_t *)b->regs, a->nregs, -1, &f)) {
        snprintf(f.operand, sizeof f.operand, "register %" PRId64, f.first);
        f.ndim = 1;
        f.index[0] = f.first;
        if (found < cap) out[found] = f;
        ++found;
    }
    return found;
}

int trn_diff_tensors(trn_sim *a, trn_sim *b, trn_diff_found *out, int cap, trn_error *e) {
    int found = 0;
    for (int i = 0; i < a->prog.n_tensors; ++i) {
        const trn_tensor *t = &a->prog.tensors[i];
        if (t->view_of) continue; /* its bytes are those of the tensor it views */
        for (uint32_t c = a->local_lo; c < a->local_hi; ++c) {
            trn_ap ap = t->ap;
            ap.core = c;
            trn_diff_found f = {0};
            int r = compare_ap(a, b, &ap, &f, e);
            if (r < 0) return trn_error_prefix(e, "tensor '%s' on core %u", t->name, c);
            if (!r) continue;
            snprintf(f.operand, sizeof f.operand, "tensor '%.48s' on core %u", t->name, c);
            if (found < cap) out[found] = f;
            ++found;
        }
    }
    return found;
}

const char *trn_diff_opname(const trn_sim *s, const trn_inst *in) {
    return s->table[in->it].op ? s->table[in->it].op->name : "?";
}

const char *trn_diff_family(const trn_sim *s, const trn_inst *in) {
    return s->table[in->it].owner ? s->table[in->it].owner->desc->family : "-";
}
