/* trnsim public header: the 20 BIR dtype ids.
 *
 * Part of the plugin contract (see plugin.h). Ids and byte widths are the
 * reference's (COPY_SIZE_LUT {1,1,2,1,1,1,1,1,4,4,2,2,2,2,4,4,4,4,8,8}).
 * Ids 3, 4, 7, 12..17 and 19 are named by the reference; the other ten are
 * this project's names, chosen consistently with their widths
 * (docs/dtypes.md has the table).
 */
#ifndef TRNSIM_DTYPE_H
#define TRNSIM_DTYPE_H

typedef enum trn_dtype {
    TRN_DT_INT8 = 0,
    TRN_DT_UINT8 = 1,
    TRN_DT_INT16 = 2,
    TRN_DT_FP8_E3M4 = 3,
    TRN_DT_FP8_E4M3 = 4,
    TRN_DT_FP8_E4M3FN = 5,  /* OCP e4m3fn: no Inf, NaN = S.1111.111 */
    TRN_DT_FP8_E8M0FNU = 6, /* OCP e8m0fnu: unsigned power of two, 0xFF NaN */
    TRN_DT_FP8_E5M2 = 7,
    TRN_DT_FP8_E4M3_X4 = 8, /* four packed E4M3 codes (copy only) */
    TRN_DT_FP8_E5M2_X4 = 9, /* four packed E5M2 codes (copy only) */
    TRN_DT_UINT16 = 10,
    TRN_DT_FP4_E2M1_X4 = 11, /* four packed fp4 e2m1 codes (copy only) */
    TRN_DT_BF16 = 12,
    TRN_DT_FP16 = 13,
    TRN_DT_UINT32 = 14,
    TRN_DT_INT32 = 15,
    TRN_DT_FP32 = 16,
    TRN_DT_FP32R = 17, /* stored as fp32; copy only in the reduce path */
    TRN_DT_UINT64 = 18,
    TRN_DT_INT64 = 19,
    TRN_DT_COUNT = 20
} trn_dtype;

#endif
