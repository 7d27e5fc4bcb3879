/* trnsim diff's comparisons (diff.h): operands are read raw from both
 * simulators' memories through the same access pattern and compared
 * byte for byte, element by element; so are their written-byte maps, asked
 * of the memory module byte range by byte range. */
#include "observers/observers.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "program/program.h"
#include "memory/memory.h"
#include "exec/exec.h"

static bool is_packed(int dt) {
    return dt == TRN_DT_FP8_E4M3_X4 || dt == TRN_DT_FP8_E5M2_X4 || dt == TRN_DT_FP4_E2M1_X4;
}

static bool is_signed_int(int dt) {
    return dt == TRN_DT_INT8 || dt == TRN_DT_INT16 || dt == TRN_DT_INT32 || dt == TRN_DT_INT64 ||
           dt < 0;
}

static uint64_t load_bits(const uint8_t *p, uint32_t w) {
    uint64_t u = 0;
    for (uint32_t i = 0; i < w; ++i) u |= (uint64_t)p[i] << (8 * i);
    return u;
}

static int64_t sign_extend(uint64_t u, uint32_t w) {
    return w >= 8 ? (int64_t)u
                  : (int64_t)(u ^ (1ull << (8 * w - 1))) - (int64_t)(1ull << (8 * w - 1));
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
        for (int i = 0; i < 8; ++i)
            ba[i] = (uint8_t)(a >> (8 * i)), bb[i] = (uint8_t)(b >> (8 * i));
        if (isnan(trn_widen((trn_dtype)dt, ba)) || isnan(trn_widen((trn_dtype)dt, bb)))
            return false;
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
static bool compare_elements(const uint8_t *x, const uint8_t *y, int64_t n, int dt,
                             trn_diff_found *f) {
    uint32_t w = width_of(dt);
    f->count = n;
    f->differing = 0;
    f->dtype = dt;
    bool valued = dt >= 0 && !is_packed(dt);
    for (int64_t i = 0; i < n; ++i) {
        if (!memcmp(x + (size_t)i * w, y + (size_t)i * w, w)) continue;
        if (f->differing++ == 0) f->first = i;
        if (valued && isnan(value_of(dt, load_bits(x + (size_t)i * w, w))) &&
            isnan(value_of(dt, load_bits(y + (size_t)i * w, w))))
            ++f->nan_pairs;
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

/* ---- written bytes ---- */

static void set_bits(uint64_t *bits, uint64_t from, uint64_t n) {
    for (; n && (from & 63); --n, ++from) bits[from >> 6] |= 1ull << (from & 63);
    for (; n >= 64; n -= 64, from += 64) bits[from >> 6] = ~0ull;
    for (; n; --n, ++from) bits[from >> 6] |= 1ull << (from & 63);
}

/* Which of the len bytes at addr were written, as bits from pos on: one
 * query for a run written whole, one more per byte that was not. */
static void query_run(const trn_memory *m, uint64_t addr, uint64_t len, uint64_t *bits,
                      uint64_t pos) {
    uint64_t end = addr + len, bad;
    while (addr < end) {
        if (trn_mem_is_written(m, addr, end - addr, &bad)) {
            set_bits(bits, pos, end - addr);
            return;
        }
        set_bits(bits, pos, bad - addr);
        pos += bad - addr + 1;
        addr = bad + 1;
    }
}

/* Which bytes of an AP (checked, on a core of s) were ever written: one
 * bit per byte, in the AP's visiting order, into bits (zeroed, enough
 * words). The memory module answers through its query; the map's layout
 * is its business. */
static void written_bits(const trn_sim *s, const trn_ap *ap, uint64_t *bits) {
    const trn_memory *m = &trn_sim_core_state(s, ap->core)->mem[ap->mem];
    uint32_t w = width_of((int)ap->dtype), nd = ap->ndims;
    int64_t step = nd ? ap->dims[nd - 1].step : 1, num = nd ? ap->dims[nd - 1].num : 1;
    int64_t outer = trn_ap_free_elems(ap) / num;
    uint64_t pos = 0;
    for (uint32_t p = 0; p < ap->part_count; ++p) {
        uint32_t part = ap->part_start + p * ap->part_step;
        for (int64_t o = 0; o < outer; ++o) {
            int64_t off = ap->offset, rest = o;
            for (int d = (int)nd - 2; d >= 0; --d) {
                off += (rest % ap->dims[d].num) * ap->dims[d].step;
                rest /= ap->dims[d].num;
            }
            if (step == 1) { /* the innermost dim is one run of bytes */
                query_run(m, trn_mem_addr(m, part, (uint64_t)off * w), (uint64_t)num * w, bits,
                          pos);
                pos += (uint64_t)num * w;
                continue;
            }
            for (int64_t i = 0; i < num; ++i, pos += w)
                query_run(m, trn_mem_addr(m, part, (uint64_t)(off + i * step) * w), w, bits, pos);
        }
    }
}

static size_t written_words(int64_t n, uint32_t w) { return ((size_t)n * w + 63) / 64 + 1; }

/* The written bits of an AP, allocated; NULL when out of memory. */
static uint64_t *written_of(const trn_sim *s, const trn_ap *ap) {
    uint64_t *bits =
        calloc(written_words(trn_ap_elems(ap), width_of((int)ap->dtype)), sizeof *bits);
    if (bits) written_bits(s, ap, bits);
    return bits;
}

/* Compare two written maps of n elements: false when equal; else f names
 * the element of the first byte only one side wrote, which side, that
 * byte's place in it, and how many elements hold such a byte. x / y are
 * the elements' bytes (for the report). */
static bool compare_written(const uint64_t *wa, const uint64_t *wb, const uint8_t *x,
                            const uint8_t *y, int64_t n, int dt, trn_diff_found *f) {
    uint32_t w = width_of(dt);
    uint64_t last = UINT64_MAX, first = 0;
    int64_t elements = 0;
    for (size_t k = 0; k < written_words(n, w); ++k)
        for (uint64_t d = wa[k] ^ wb[k]; d; d &= d - 1) {
            uint64_t byte = k * 64 + (uint64_t)__builtin_ctzll(d);
            if (!elements) first = byte;
            if (byte / w != last) last = byte / w, ++elements;
        }
    if (!elements) return false;
    *f = (trn_diff_found){.kind = TRN_DIFF_WRITTEN,
                          .dtype = dt,
                          .count = n,
                          .differing = elements,
                          .first = (int64_t)(first / w),
                          .byte = (uint32_t)(first % w),
                          .written_by = (wa[first >> 6] >> (first & 63)) & 1 ? 0 : 1};
    f->bits[0] = load_bits(x + (size_t)f->first * w, w);
    f->bits[1] = load_bits(y + (size_t)f->first * w, w);
    f->has_value = !is_packed(dt);
    f->value[0] = f->has_value ? value_of(dt, f->bits[0]) : 0;
    f->value[1] = f->has_value ? value_of(dt, f->bits[1]) : 0;
    f->ulp_known = trn_diff_ulp(dt, f->bits[0], f->bits[1], &f->ulp);
    return true;
}

/* Both sides' bytes of one AP (resolved on a). 1: they differ, 0: equal. */
/* Both sides' bytes and written maps of one AP (resolved on a): how many
 * of the two comparisons differ (f[0], f[1]), -1 on an error. */
static int compare_ap(trn_sim *a, trn_sim *b, const trn_ap *ap, trn_diff_found f[2], trn_error *e) {
    int64_t n = trn_ap_elems(ap);
    size_t bytes = (size_t)n * width_of((int)ap->dtype);
    uint8_t *x = malloc(bytes ? bytes : 1), *y = malloc(bytes ? bytes : 1);
    int rc = x && y ? 0 : trn_errorf(e, "out of memory for %zu bytes", 2 * bytes);
    trn_ap_env ea = trn_sim_env(a), eb = trn_sim_env(b);
    if (rc == 0) rc = trn_ap_read_raw(&ea, ap, x, e) || trn_ap_read_raw(&eb, ap, y, e) ? -1 : 0;
    if (rc == 0 && compare_elements(x, y, n, (int)ap->dtype, &f[rc]))
        tensor_place(trn_sim_program(a), ap, &f[rc++]);
    uint64_t *wa = rc >= 0 ? written_of(a, ap) : NULL, *wb = rc >= 0 ? written_of(b, ap) : NULL;
    if (rc >= 0 && (!wa || !wb))
        rc = trn_errorf(e, "out of memory for the written-byte maps of %zu bytes", bytes);
    if (rc >= 0 && compare_written(wa, wb, x, y, n, (int)ap->dtype, &f[rc]))
        tensor_place(trn_sim_program(a), ap, &f[rc++]);
    free(wa);
    free(wb);
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
    uint64_t **written; /* each output's written bytes, a bit each in visiting order */
    int64_t *regs;
    uint32_t nregs;
    size_t size; /* bytes held */
};

void trn_diff_snap_free(trn_diff_snap *d) {
    if (!d) return;
    for (int k = 0; k < d->n; ++k) free(d->bytes[k]), free(d->written[k]);
    free(d->bytes);
    free(d->written);
    free(d->aps);
    free(d->regs);
    free(d);
}

static int snap_fill(trn_diff_snap *d, trn_sim *s, const trn_step *st, trn_error *e) {
    const trn_inst *in = st->inst;
    trn_ap_env env = trn_sim_env(s);
    d->aps = calloc((size_t)in->n_out + 1, sizeof *d->aps);
    d->bytes = calloc((size_t)in->n_out + 1, sizeof *d->bytes);
    d->written = calloc((size_t)in->n_out + 1, sizeof *d->written);
    const trn_core_state *cs = trn_sim_core_state(s, st->core);
    d->regs = malloc(cs->nregs * sizeof *d->regs + 1);
    if (!d->aps || !d->bytes || !d->written || !d->regs) return trn_errorf(e, "out of memory");
    d->nregs = cs->nregs;
    memcpy(d->regs, cs->regs, cs->nregs * sizeof *d->regs);
    for (int k = 0; k < in->n_out; ++k, ++d->n) {
        if (trn_sim_step_output(s, st, k, &d->aps[k], e))
            return trn_error_prefix(e, "outputs[%d]", k);
        size_t bytes = (size_t)trn_ap_elems(&d->aps[k]) * width_of((int)d->aps[k].dtype);
        if (!(d->bytes[k] = malloc(bytes + 1)))
            return trn_errorf(e, "outputs[%d]: out of memory for %zu bytes", k, bytes);
        d->size += bytes;
        if (trn_ap_read_raw(&env, &d->aps[k], d->bytes[k], e))
            return trn_error_prefix(e, "outputs[%d]", k);
        if (!(d->written[k] = written_of(s, &d->aps[k])))
            return trn_errorf(e, "outputs[%d]: out of memory for the written-byte map of %zu bytes",
                              k, bytes);
        d->size += bytes / 8;
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

int trn_diff_snap_compare(const trn_sim *s, const trn_diff_snap *a, const trn_diff_snap *b,
                          trn_diff_found *out, int cap) {
    int found = 0;
    for (int k = 0; k < a->n && k < b->n; ++k) {
        int64_t n = trn_ap_elems(&a->aps[k]);
        int dt = (int)a->aps[k].dtype;
        trn_diff_found f[2] = {{0}};
        int m = compare_elements(a->bytes[k], b->bytes[k], n, dt, &f[0]);
        m += compare_written(a->written[k], b->written[k], a->bytes[k], b->bytes[k], n, dt, &f[m]);
        for (int j = 0; j < m; ++j, ++found) {
            tensor_place(trn_sim_program(s), &a->aps[k], &f[j]);
            snprintf(f[j].operand, sizeof f[j].operand, "outputs[%d]", k);
            if (found < cap) out[found] = f[j];
        }
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
    const trn_program *pa = trn_sim_program(a);
    for (int i = 0; i < pa->n_tensors; ++i) {
        const trn_tensor *t = &pa->tensors[i];
        if (t->view_of) continue; /* its bytes are those of the tensor it views */
        for (uint32_t c = trn_sim_dist_c(a)->local_lo; c < trn_sim_dist_c(a)->local_hi; ++c) {
            trn_ap ap = t->ap;
            ap.core = c;
            trn_diff_found f[2] = {{0}};
            int r = compare_ap(a, b, &ap, f, e);
            if (r < 0) return trn_error_prefix(e, "tensor '%s' on core %u", t->name, c);
            for (int j = 0; j < r; ++j, ++found) {
                snprintf(f[j].operand, sizeof f[j].operand, "tensor '%.48s' on core %u", t->name,
                         c);
                if (found < cap) out[found] = f[j];
            }
        }
    }
    return found;
}

const char *trn_diff_opname(const trn_sim *s, const trn_inst *in) {
    const trn_slot *sl = &trn_sim_registry(s)->table[in->it];
    return sl->op ? sl->op->name : "?";
}

const char *trn_diff_family(const trn_sim *s, const trn_inst *in) {
    const trn_slot *sl = &trn_sim_registry(s)->table[in->it];
    return sl->owner ? sl->owner->desc->family : "-";
}
