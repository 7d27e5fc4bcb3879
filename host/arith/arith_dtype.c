/* The 20-entry dtype table: names, aliases, widths and the three
 * predicates (widens / is_float / reduces). docs/dtypes.md is the same
 * table in prose; keep the two in step. */
#include "arith/arith.h"

#include <stdio.h>
#include <strings.h>

typedef struct dtype_info {
    const char *name; /* canonical, lower case */
    uint32_t width;   /* bytes: the reference's COPY_SIZE_LUT */
    bool widens;      /* one fp32 value per element */
    bool is_float;
    bool reduces;           /* a live REDUCE_JT entry */
    const char *aliases[6]; /* NULL-terminated, matched case-insensitively */
} dtype_info;

static const dtype_info DTYPES[TRN_DT_COUNT] = {
    [TRN_DT_INT8] = {"int8", 1, true, false, false, {"i8", "s8", NULL}},
    [TRN_DT_UINT8] = {"uint8", 1, true, false, false, {"u8", NULL}},
    [TRN_DT_INT16] = {"int16", 2, true, false, false, {"i16", "s16", NULL}},
    [TRN_DT_FP8_E3M4] = {"float8_e3m4", 1, true, true, true, {"e3m4", "fp8_e3m4", "f8e3m4", NULL}},
    [TRN_DT_FP8_E4M3] = {"float8_e4m3", 1, true, true, true, {"e4m3", "fp8_e4m3", "f8e4m3", NULL}},
    [TRN_DT_FP8_E4M3FN] =
        {"float8_e4m3fn", 1, true, true, false, {"e4m3fn", "fp8_e4m3fn", "f8e4m3fn", NULL}},
    [TRN_DT_FP8_E8M0FNU] = {"float8_e8m0fnu",
                            1,
                            true,
                            true,
                            false,
                            {"e8m0fnu", "e8m0", "fp8_e8m0fnu", "fp8_e8m0", "f8e8m0fnu", NULL}},
    [TRN_DT_FP8_E5M2] = {"float8_e5m2", 1, true, true, true, {"e5m2", "fp8_e5m2", "f8e5m2", NULL}},
    [TRN_DT_FP8_E4M3_X4] = {"float8_e4m3_x4",
                            4,
                            false,
                            true,
                            false,
                            {"float8_e4m3fn_x4", "e4m3_x4", "fp8_e4m3_x4", NULL}},
    [TRN_DT_FP8_E5M2_X4] =
        {"float8_e5m2_x4", 4, false, true, false, {"e5m2_x4", "fp8_e5m2_x4", NULL}},
    [TRN_DT_UINT16] = {"uint16", 2, true, false, false, {"u16", NULL}},
    [TRN_DT_FP4_E2M1_X4] = {"float4_e2m1_x4",
                            2,
                            false,
                            true,
                            false,
                            {"float4_e2m1fn_x4", "e2m1_x4", "fp4_e2m1_x4", "fp4_x4", NULL}},
    [TRN_DT_BF16] = {"bfloat16", 2, true, true, true, {"bf16", NULL}},
    [TRN_DT_FP16] = {"float16", 2, true, true, true, {"fp16", "f16", "half", NULL}},
    [TRN_DT_UINT32] = {"uint32", 4, true, false, false, {"u32", NULL}},
    [TRN_DT_INT32] = {"int32", 4, true, false, true, {"i32", "s32", NULL}},
    [TRN_DT_FP32] = {"float32", 4, true, true, true, {"fp32", "f32", "single", NULL}},
    [TRN_DT_FP32R] = {"float32r", 4, true, true, false, {"fp32r", "f32r", NULL}},
    [TRN_DT_UINT64] = {"uint64", 8, true, false, false, {"u64", NULL}},
    [TRN_DT_INT64] = {"int64", 8, true, false, true, {"i64", "s64", NULL}},
};

static const dtype_info *info(trn_dtype dt) {
    /* The enum may be unsigned or signed: compare as unsigned so a stray
     * negative value is rejected too. */
    if ((unsigned)dt >= TRN_DT_COUNT) return NULL;
    return &DTYPES[dt];
}

uint32_t trn_dtype_width(trn_dtype dt) {
    const dtype_info *d = info(dt);
    return d ? d->width : 0;
}

const char *trn_dtype_name(trn_dtype dt) {
    /* Names for out-of-range ids live in a fixed table so the pointer stays
     * valid without any mutable state; ids beyond it share one string. */
    static const char *const unknown[] = {"dtype20", "dtype21", "dtype22", "dtype23",
                                          "dtype24", "dtype25", "dtype26", "dtype27",
                                          "dtype28", "dtype29", "dtype30", "dtype31"};
    const dtype_info *d = info(dt);
    if (d) return d->name;
    unsigned u = (unsigned)dt;
    if (u >= TRN_DT_COUNT && u < TRN_DT_COUNT + sizeof unknown / sizeof unknown[0])
        return unknown[u - TRN_DT_COUNT];
    return "dtype<unknown>";
}

static bool matches(const dtype_info *d, const char *name) {
    if (strcasecmp(d->name, name) == 0) return true;
    for (size_t i = 0; d->aliases[i]; i++)
        if (strcasecmp(d->aliases[i], name) == 0) return true;
    return false;
}

int trn_dtype_from_name(const char *name, trn_dtype *out, trn_error *e) {
    if (name) {
        for (int i = 0; i < TRN_DT_COUNT; i++) {
            if (matches(&DTYPES[i], name)) {
                if (out) *out = (trn_dtype)i;
                return 0;
            }
        }
    }
    char known[512];
    size_t len = 0;
    known[0] = '\0';
    for (int i = 0; i < TRN_DT_COUNT && len < sizeof known; i++)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                                DTYPES[i].name);
    return trn_errorf(
        e,
        "unknown dtype '%s' (known: %s; case-insensitive, aliases such as fp32, bf16, fp16, "
        "e4m3 are listed in docs/dtypes.md)",
        name ? name : "(null)", known);
}

bool trn_dtype_widens(trn_dtype dt) {
    const dtype_info *d = info(dt);
    return d && d->widens;
}

bool trn_dtype_is_float(trn_dtype dt) {
    const dtype_info *d = info(dt);
    return d && d->is_float;
}

bool trn_dtype_reduces(trn_dtype dt) {
    const dtype_info *d = info(dt);
    return d && d->reduces;
}

const char *const *trn_dtype_aliases(trn_dtype dt) {
    static const char *const none[] = {NULL};
    const dtype_info *d = info(dt);
    return d ? d->aliases : none;
}
