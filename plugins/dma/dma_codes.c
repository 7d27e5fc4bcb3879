/* The DMA family's checks and codes (see dma_kernels.h, docs/dma.md): the
 * permutation check, AluOpType -> MemoryReductionOp and the indirect index
 * expansion. Not kernels: the fast module and its reference module
 * (trnsim-dma-ref, docs/plugins.md) share this file. */
#include "dma_kernels.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- transpose ------------------------------------------------------------------ */

bool dma_perm_valid(const int64_t perm[4]) {
    unsigned seen = 0;
    for (int k = 0; k < 4; ++k) {
        if (perm[k] < 0 || perm[k] > 3) return false;
        seen |= 1u << perm[k];
    }
    return seen == 0xFu;
}

/* ---- AluOpType -> MemoryReductionOp --------------------------------------------- */

const char *dma_aluop_name(int64_t aluop) {
    switch (aluop) {
        case DMA_ALU_BYPASS: return "bypass";
        case DMA_ALU_ADD: return "add";
        case DMA_ALU_MAX: return "max";
        case DMA_ALU_MIN: return "min";
        default: return NULL;
    }
}

int dma_aluop_to_memop(int64_t aluop, bool allow_minmax, trn_acc_op *out, char *err,
                       size_t errlen) {
    switch (aluop) {
        case DMA_ALU_BYPASS: *out = TRN_ACC_COPY; return 0;
        case DMA_ALU_ADD: *out = TRN_ACC_ADD; return 0;
        case DMA_ALU_MAX:
            if (allow_minmax) {
                *out = TRN_ACC_MAX;
                return 0;
            }
            break;
        case DMA_ALU_MIN:
            if (allow_minmax) {
                *out = TRN_ACC_MIN;
                return 0;
            }
            break;
        default: break;
    }
    const char *name = dma_aluop_name(aluop);
    char label[48];
    if (name)
        snprintf(label, sizeof label, "%" PRId64 " (%s)", aluop, name);
    else
        snprintf(label, sizeof label, "%" PRId64, aluop);
    snprintf(err, errlen,
             "AluOpType %s has no MemoryReductionOp: the reference accepts only bypass (0) and add "
             "(4)%s",
             label,
             (aluop == DMA_ALU_MAX || aluop == DMA_ALU_MIN)
                 ? " (setting allow_minmax_reduce = true maps max / min)"
                 : "");
    return -1;
}

/* ---- indices ---------------------------------------------------------------------- */

bool dma_index_dtype_ok(trn_dtype dt) {
    switch (dt) {
        case TRN_DT_INT8:
        case TRN_DT_UINT8:
        case TRN_DT_INT16:
        case TRN_DT_UINT16:
        case TRN_DT_INT32:
        case TRN_DT_UINT32:
        case TRN_DT_INT64:
        case TRN_DT_UINT64: return true;
        default: return false;
    }
}

/* One raw index as a signed 64-bit value; uint64 beyond INT64_MAX maps to -1
 * so the range check rejects it. */
static int64_t load_index(trn_dtype dt, const unsigned char *p, size_t j) {
    switch (dt) {
        case TRN_DT_INT8: {
            int8_t v;
            memcpy(&v, p + j, 1);
            return v;
        }
        case TRN_DT_UINT8: return p[j];
        case TRN_DT_INT16: {
            int16_t v;
            memcpy(&v, p + 2 * j, 2);
            return v;
        }
        case TRN_DT_UINT16: {
            uint16_t v;
            memcpy(&v, p + 2 * j, 2);
            return v;
        }
        case TRN_DT_INT32: {
            int32_t v;
            memcpy(&v, p + 4 * j, 4);
            return v;
        }
        case TRN_DT_UINT32: {
            uint32_t v;
            memcpy(&v, p + 4 * j, 4);
            return v;
        }
        case TRN_DT_INT64: {
            int64_t v;
            memcpy(&v, p + 8 * j, 8);
            return v;
        }
        default: {
            uint64_t v;
            memcpy(&v, p + 8 * j, 8);
            return v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
        }
    }
}

/* One element per index, 4-byte indices (the usual case): a loop with no
 * per-element dtype switch. False when an index is out of range (the
 * general loop then finds the first and says which). */
static bool expand_i32(bool is_signed, const void *raw, size_t n, int64_t rows, int64_t *out) {
    uint64_t bad = 0;
    for (size_t j = 0; j < n; ++j) {
        uint32_t u;
        memcpy(&u, (const unsigned char *)raw + 4 * j, 4);
        int64_t v = is_signed ? (int64_t)(int32_t)u : (int64_t)u;
        bad |= (uint64_t)v >= (uint64_t)rows; /* negative ones wrap past rows */
        out[j] = v;
    }
    return bad == 0;
}

int dma_expand_indices(trn_dtype dt, const void *raw, size_t n, int64_t row, int64_t rows,
                       int64_t *out, char *err, size_t errlen) {
    const unsigned char *p = raw;
    if (row == 1 && (dt == TRN_DT_INT32 || dt == TRN_DT_UINT32) &&
        expand_i32(dt == TRN_DT_INT32, raw, n, rows, out))
        return 0;
    for (size_t j = 0; j < n; ++j) {
        int64_t v = load_index(dt, p, j);
        if (v < 0 || v >= rows) {
            if (dt == TRN_DT_UINT64 && v < 0) {
                uint64_t u;
                memcpy(&u, p + 8 * j, 8);
                snprintf(err, errlen,
                         "index %" PRIu64 " at position %zu is outside the table of %" PRId64 " %s",
                         u, j, rows, row == 1 ? "elements" : "rows");
            } else {
                snprintf(err, errlen,
                         "index %" PRId64 " at position %zu is outside the table of %" PRId64 " %s",
                         v, j, rows, row == 1 ? "elements" : "rows");
            }
            return -1;
        }
        for (int64_t t = 0; t < row; ++t) out[(int64_t)j * row + t] = v * row + t;
    }
    return 0;
}
