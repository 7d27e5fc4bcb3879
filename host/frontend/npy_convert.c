/* .npy arrays as numpy users write them (docs/programs.md, "Data files"):
 * numpy's default float64 into float tensors, and any integer array into
 * any integer tensor when every value fits. Kept apart from npy.c's exact
 * loads: these are the conversions that can round or refuse a value. */
#include "frontend/npy_convert.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"

static bool is_float_dtype(trn_dtype dt) { return trn_dtype_is_float(dt) && trn_dtype_widens(dt); }

/* The integer dtypes and their ranges; false for the others. */
static bool int_range(trn_dtype dt, bool *is_signed, uint32_t *width) {
    switch (dt) {
    case TRN_DT_INT8: case TRN_DT_INT16: case TRN_DT_INT32: case TRN_DT_INT64: *is_signed = true; break;
    case TRN_DT_UINT8: case TRN_DT_UINT16: case TRN_DT_UINT32: case TRN_DT_UINT64: *is_signed = false; break;
    default: return false;
    }
    *width = trn_dtype_width(dt);
    return true;
}

/* An integer descr ("|i1" .. "<u8"): signedness and width. */
static bool int_descr(const char *d, bool *is_signed, uint32_t *width) {
    if ((d[1] != 'i' && d[1] != 'u') || d[2] < '1' || d[2] > '8') return false;
    *is_signed = d[1] == 'i';
    *width = (uint32_t)(d[2] - '0');
    return true;
}

/* Element i of a little-endian integer array, as a signed or unsigned 64-bit value. */
static void load_int(const uint8_t *p, uint32_t w, bool is_signed, int64_t *s, uint64_t *u) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < w; ++b) v |= (uint64_t)p[b] << (8 * b);
    if (is_signed && w < 8 && (v >> (8 * w - 1)) & 1) v |= ~0ull << (8 * w);
    *u = v;
    *s = (int64_t)v;
}

static void store_int(uint8_t *dst, uint32_t w, uint64_t v) {
    for (uint32_t b = 0; b < w; ++b) dst[b] = (uint8_t)(v >> (8 * b));
}

static void index_text(const trn_npy *n, size_t k, char *buf, size_t len) {
    size_t at = 0;
    int64_t rest = (int64_t)k, stride = (int64_t)n->count;
    for (int d = 0; d < n->ndim && at < len; ++d) {
        stride = n->shape[d] ? stride / n->shape[d] : 1;
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, d ? ", " : "[", stride ? rest / stride : 0);
        if (stride) rest %= stride;
    }
    if (at < len) snprintf(buf + at, len - at, n->ndim ? "]" : "[]");
}

static int ints(const trn_npy *n, trn_dtype dt, bool src_signed, uint32_t sw, void *dst, trn_error *e) {
    bool dst_signed;
    uint32_t dw;
    int_range(dt, &dst_signed, &dw);
    int64_t lo = dst_signed ? (dw == 8 ? INT64_MIN : -(1ll << (8 * dw - 1))) : 0;
    uint64_t hi = dst_signed ? (1ull << (8 * dw - 1)) - 1 : dw == 8 ? UINT64_MAX : (1ull << (8 * dw)) - 1;
    for (size_t k = 0; k < n->count; ++k) {
        int64_t s;
        uint64_t u;
        load_int((const uint8_t *)n->data + k * sw, sw, src_signed, &s, &u);
        bool fits = src_signed ? (s >= lo && (s < 0 || (uint64_t)s <= hi)) : u <= hi;
        if (!fits) { /* found before anything is stored: a refused file leaves the tensor as it was */
            char idx[160], val[32];
            index_text(n, k, idx, sizeof idx);
            if (src_signed) snprintf(val, sizeof val, "%" PRId64, s);
            else snprintf(val, sizeof val, "%" PRIu64, u);
            return trn_errorf(e, "%s: element %zu %s is %s, which does not fit %s (%" PRId64 "..%" PRIu64 "); a %s "
                              "array loads into a %s tensor only when every value fits", n->name, k, idx, val,
                              trn_dtype_name(dt), lo, hi, n->descr, trn_dtype_name(dt));
        }
    }
    for (size_t k = 0; k < n->count; ++k) {
        int64_t s;
        uint64_t u;
        load_int((const uint8_t *)n->data + k * sw, sw, src_signed, &s, &u);
        store_int((uint8_t *)dst + k * dw, dw, u);
    }
    return 0;
}

/* float64 -> fp32 (RNE, as numpy's astype(float32)), then narrowed to the
 * tensor's dtype (RNE) exactly as a float32 file would be. */
static int doubles(const trn_npy *n, trn_dtype dt, void *dst, trn_error *e) {
    float *tmp = malloc(n->count ? n->count * sizeof(float) : 1);
    if (!tmp) return trn_errorf(e, "%s: out of memory converting %zu float64 values", n->name, n->count);
    for (size_t k = 0; k < n->count; ++k) {
        double d;
        memcpy(&d, (const uint8_t *)n->data + k * 8, 8);
        tmp[k] = (float)d;
    }
    if (dt == TRN_DT_FP32) memcpy(dst, tmp, n->count * sizeof(float));
    else trn_narrow_span(dt, tmp, dst, n->count);
    free(tmp);
    return 0;
}

int trn_npy_convert(const trn_npy *n, trn_dtype dt, void *dst, trn_error *e) {
    bool s_signed, d_signed;
    uint32_t sw, dw;
    if (strcmp(n->descr, "<f8") == 0 && is_float_dtype(dt)) return doubles(n, dt, dst, e);
    if (int_descr(n->descr, &s_signed, &sw) && int_range(dt, &d_signed, &dw)) return ints(n, dt, s_signed, sw, dst, e);
    return 1;
}
