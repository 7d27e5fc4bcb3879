/* The tensor <-> .npy dtype rules (npy.h, docs/programs.md "Data files")
 * as plans: the exact loads (same bytes, float32 narrowed RNE), numpy's
 * default float64 into float tensors, and any integer array into any
 * integer tensor when every value fits. */
#include "npy/npy.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"

static const char *name_of(const trn_npy *n) { return n->name[0] ? n->name : "npy"; }

static bool is_fp8(trn_dtype dt) { return dt >= TRN_DT_FP8_E3M4 && dt <= TRN_DT_FP8_E5M2; }

static bool is_packed(trn_dtype dt) {
    return dt == TRN_DT_FP8_E4M3_X4 || dt == TRN_DT_FP8_E5M2_X4 || dt == TRN_DT_FP4_E2M1_X4;
}

static const char *unsigned_descr(uint32_t width) {
    switch (width) {
        case 1: return "|u1";
        case 2: return "<u2";
        case 4: return "<u4";
        case 8: return "<u8";
        default: return NULL;
    }
}

/* The integer dtypes' own descr, NULL for the rest. */
static const char *integer_descr(trn_dtype dt) {
    switch (dt) {
        case TRN_DT_INT8: return "|i1";
        case TRN_DT_UINT8: return "|u1";
        case TRN_DT_INT16: return "<i2";
        case TRN_DT_UINT16: return "<u2";
        case TRN_DT_UINT32: return "<u4";
        case TRN_DT_INT32: return "<i4";
        case TRN_DT_UINT64: return "<u8";
        case TRN_DT_INT64: return "<i8";
        default: return NULL;
    }
}

typedef struct npy_rule {
    const char *descr;
    trn_npy_how how;
} npy_rule;

/* The descrs a tensor of dt loads from exactly, and how; returns how many. */
static int load_rules(trn_dtype dt, npy_rule r[3]) {
    if (dt == TRN_DT_FP32) return r[0] = (npy_rule){"<f4", TRN_NPY_COPY}, 1;
    if (dt == TRN_DT_FP32R) return r[0] = (npy_rule){"<f4", TRN_NPY_NARROW}, 1;
    if (dt == TRN_DT_FP16) {
        r[0] = (npy_rule){"<f2", TRN_NPY_COPY};
        r[1] = (npy_rule){"<f4", TRN_NPY_NARROW};
        r[2] = (npy_rule){"<u2", TRN_NPY_COPY};
        return 3;
    }
    if (dt == TRN_DT_BF16) {
        r[0] = (npy_rule){"<f4", TRN_NPY_NARROW};
        r[1] = (npy_rule){"<u2", TRN_NPY_COPY};
        return 2;
    }
    if (is_fp8(dt)) {
        r[0] = (npy_rule){"<f4", TRN_NPY_NARROW};
        r[1] = (npy_rule){"|u1", TRN_NPY_COPY};
        return 2;
    }
    if (integer_descr(dt)) return r[0] = (npy_rule){integer_descr(dt), TRN_NPY_COPY}, 1;
    if (is_packed(dt) && unsigned_descr(trn_dtype_width(dt)))
        return r[0] = (npy_rule){unsigned_descr(trn_dtype_width(dt)), TRN_NPY_COPY}, 1;
    return 0;
}

/* The integer dtypes and their ranges; false for the others. */
static bool int_dtype(trn_dtype dt, bool *is_signed) {
    switch (dt) {
        case TRN_DT_INT8:
        case TRN_DT_INT16:
        case TRN_DT_INT32:
        case TRN_DT_INT64: *is_signed = true; return true;
        case TRN_DT_UINT8:
        case TRN_DT_UINT16:
        case TRN_DT_UINT32:
        case TRN_DT_UINT64: *is_signed = false; return true;
        default: return false;
    }
}

/* An integer descr ("|i1" .. "<u8"): signedness. */
static bool int_descr(const char *d, bool *is_signed) {
    if ((d[1] != 'i' && d[1] != 'u') || d[2] < '1' || d[2] > '8') return false;
    *is_signed = d[1] == 'i';
    return true;
}

/* The conversions beyond the exact rules: float64 into float tensors, and
 * integers of another width or signedness. */
static bool convert_rule(const trn_npy *n, trn_dtype dt, trn_npy_plan *p) {
    bool dst_signed;
    if (strcmp(n->descr, "<f8") == 0 && trn_dtype_is_float(dt) && trn_dtype_widens(dt)) {
        p->how = TRN_NPY_F64;
        return true;
    }
    if (int_descr(n->descr, &p->src_signed) && int_dtype(dt, &dst_signed)) {
        p->how = TRN_NPY_INT;
        return true;
    }
    return false;
}

int trn_npy_load_plan(const trn_npy *n, trn_dtype dt, trn_npy_plan *p, trn_error *e) {
    npy_rule rules[3];
    int nrules = (unsigned)dt < TRN_DT_COUNT ? load_rules(dt, rules) : 0;
    if (nrules == 0)
        return trn_errorf(e, "%s: cannot load into a tensor of unknown dtype id %d", name_of(n),
                          (int)dt);
    memset(p, 0, sizeof *p);
    p->dt = dt;
    p->src_item = (uint32_t)n->item_size;
    p->dst_item = trn_dtype_width(dt);
    for (int i = 0; i < nrules; i++)
        if (strcmp(rules[i].descr, n->descr) == 0) {
            p->how = rules[i].how;
            return 0;
        }
    if (convert_rule(n, dt, p)) return 0;
    char list[64] = "";
    size_t at = 0;
    for (int i = 0; i < nrules; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
                               i == 0            ? ""
                               : i + 1 == nrules ? " or "
                                                 : ", ",
                               rules[i].descr);
    return trn_errorf(e, "%s: dtype %s cannot be loaded into a %s tensor (expected %s)", name_of(n),
                      n->descr, trn_dtype_name(dt), list);
}

const char *trn_npy_descr_for(trn_dtype dt, bool raw_bits) {
    if ((unsigned)dt >= TRN_DT_COUNT) return NULL;
    if (dt == TRN_DT_FP32 || dt == TRN_DT_FP32R) return "<f4";
    if (dt == TRN_DT_FP16) return "<f2";
    if (dt == TRN_DT_BF16) return raw_bits ? "<u2" : "<f4";
    if (is_fp8(dt)) return raw_bits ? "|u1" : "<f4";
    if (integer_descr(dt)) return integer_descr(dt);
    return unsigned_descr(trn_dtype_width(dt));
}

int trn_npy_save_plan(trn_dtype dt, bool raw_bits, trn_npy_plan *p, const char **descr,
                      trn_error *e) {
    const char *d = trn_npy_descr_for(dt, raw_bits);
    if (!d) return trn_errorf(e, "cannot write a tensor of unknown dtype id %d", (int)dt);
    memset(p, 0, sizeof *p);
    p->dt = dt;
    p->src_item = trn_dtype_width(dt);
    p->dst_item = (uint32_t)(d[2] - '0');
    bool widen = dt == TRN_DT_FP32R || ((dt == TRN_DT_BF16 || is_fp8(dt)) && !raw_bits);
    p->how = widen ? TRN_NPY_WIDEN : TRN_NPY_COPY;
    *descr = d;
    return 0;
}

/* ---- integers ---- */

/* A little-endian integer of w bytes, sign-extended when signed. */
static uint64_t load_int(const uint8_t *p, uint32_t w, bool is_signed) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < w; ++b) v |= (uint64_t)p[b] << (8 * b);
    if (is_signed && w < 8 && (v >> (8 * w - 1)) & 1) v |= ~0ull << (8 * w);
    return v;
}

static void store_int(uint8_t *dst, uint32_t w, uint64_t v) {
    for (uint32_t b = 0; b < w; ++b) dst[b] = (uint8_t)(v >> (8 * b));
}

static void index_text(const trn_npy *n, size_t k, char *buf, size_t len) {
    size_t at = 0;
    int64_t rest = (int64_t)k, stride = (int64_t)n->count;
    for (int d = 0; d < n->ndim && at < len; ++d) {
        stride = n->shape[d] ? stride / n->shape[d] : 1;
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, d ? ", " : "[",
                               stride ? rest / stride : 0);
        if (stride) rest %= stride;
    }
    if (at < len) snprintf(buf + at, len - at, n->ndim ? "]" : "[]");
}

int trn_npy_plan_check(const trn_npy_plan *p, const trn_npy *n, const void *src, size_t count,
                       size_t first, trn_error *e) {
    if (p->how != TRN_NPY_INT) return 0;
    bool dst_signed = false;
    int_dtype(p->dt, &dst_signed);
    uint32_t dw = p->dst_item, sw = p->src_item;
    int64_t lo = dst_signed ? (dw == 8 ? INT64_MIN : -(1ll << (8 * dw - 1))) : 0;
    uint64_t hi = dst_signed ? (1ull << (8 * dw - 1)) - 1
                  : dw == 8  ? UINT64_MAX
                             : (1ull << (8 * dw)) - 1;
    for (size_t k = 0; k < count; ++k) {
        uint64_t u = load_int((const uint8_t *)src + k * sw, sw, p->src_signed);
        int64_t s = (int64_t)u;
        bool fits = p->src_signed ? (s >= lo && (s < 0 || (uint64_t)s <= hi)) : u <= hi;
        if (fits) continue;
        char idx[160], val[32];
        index_text(n, first + k, idx, sizeof idx);
        if (p->src_signed)
            snprintf(val, sizeof val, "%" PRId64, s);
        else
            snprintf(val, sizeof val, "%" PRIu64, u);
        return trn_errorf(e,
                          "%s: element %zu %s is %s, which does not fit %s (%" PRId64 "..%" PRIu64
                          "); a %s "
                          "array loads into a %s tensor only when every value fits",
                          name_of(n), first + k, idx, val, trn_dtype_name(p->dt), lo, hi, n->descr,
                          trn_dtype_name(p->dt));
    }
    return 0;
}

/* float64 -> fp32 (RNE, as numpy's astype(float32)), then narrowed to the
 * tensor's dtype (RNE) exactly as a float32 file would be, through a small
 * float32 block on the stack. */
static void doubles(trn_dtype dt, const uint8_t *src, uint8_t *dst, size_t count) {
    float tmp[512];
    uint32_t w = trn_dtype_width(dt);
    for (size_t at = 0; at < count; at += 512) {
        size_t k = count - at < 512 ? count - at : 512;
        for (size_t i = 0; i < k; ++i) {
            double d;
            memcpy(&d, src + (at + i) * 8, 8);
            tmp[i] = (float)d;
        }
        if (dt == TRN_DT_FP32)
            memcpy(dst + at * 4, tmp, k * sizeof(float));
        else
            trn_narrow_span(dt, tmp, dst + at * w, k);
    }
}

void trn_npy_plan_apply(const trn_npy_plan *p, const void *src, void *dst, size_t count) {
    if (count == 0) return;
    switch (p->how) {
        case TRN_NPY_COPY: memcpy(dst, src, count * p->src_item); break;
        case TRN_NPY_NARROW: trn_narrow_span(p->dt, (const float *)src, dst, count); break;
        case TRN_NPY_WIDEN: trn_widen_span(p->dt, src, (float *)dst, count); break;
        case TRN_NPY_F64: doubles(p->dt, src, dst, count); break;
        case TRN_NPY_INT:
            for (size_t k = 0; k < count; ++k)
                store_int(
                    (uint8_t *)dst + k * p->dst_item, p->dst_item,
                    load_int((const uint8_t *)src + k * p->src_item, p->src_item, p->src_signed));
            break;
    }
}

/* ---- whole arrays (npy.h) ---- */

static bool shapes_equal(int na, const int64_t *a, int nb, const int64_t *b) {
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i]) return false;
    return true;
}

int trn_npy_to_tensor(const trn_npy *n, trn_dtype dt, int ndim, const int64_t *shape, void *dst,
                      trn_error *e) {
    if ((unsigned)dt >= TRN_DT_COUNT)
        return trn_errorf(e, "%s: cannot load into a tensor of unknown dtype id %d", name_of(n),
                          (int)dt);
    if (ndim < 0 || !shapes_equal(n->ndim, n->shape, ndim, shape)) {
        char a[256], b[256];
        return trn_errorf(e, "%s: shape %s does not match the tensor's shape %s", name_of(n),
                          trn_npy_format_shape(a, sizeof a, n->ndim, n->shape),
                          trn_npy_format_shape(b, sizeof b, ndim < 0 ? 0 : ndim, shape));
    }
    trn_npy_plan p;
    if (trn_npy_load_plan(n, dt, &p, e)) return -1;
    if (n->count && !n->data) return trn_errorf(e, "%s: no data", name_of(n));
    /* every value checked before anything is stored: a refused array leaves the tensor as it was */
    if (trn_npy_plan_check(&p, n, n->data, n->count, 0, e)) return -1;
    trn_npy_plan_apply(&p, n->data, dst, n->count);
    return 0;
}

int trn_npy_from_tensor(trn_dtype dt, const void *src, size_t count, bool raw_bits, void **out_data,
                        const char **out_descr, trn_error *e) {
    trn_npy_plan p;
    const char *descr;
    *out_data = NULL;
    *out_descr = NULL;
    if (trn_npy_save_plan(dt, raw_bits, &p, &descr, e)) return -1;
    size_t item = p.dst_item;
    if (count > SIZE_MAX / item)
        return trn_errorf(e, "%s tensor of %zu elements is too large", trn_dtype_name(dt), count);
    if (count && !src)
        return trn_errorf(e, "%s tensor: no data for %zu elements", trn_dtype_name(dt), count);
    void *buf = malloc(count ? count * item : 1);
    if (!buf)
        return trn_errorf(e, "out of memory for %zu bytes (%s tensor)", count * item,
                          trn_dtype_name(dt));
    trn_npy_plan_apply(&p, src, buf, count);
    *out_data = buf;
    *out_descr = descr;
    return 0;
}
