/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * ABI 3, lent memory: the memory under an AP addressed in place
 * (trn_view), the lend() modes and the view shapes.
 */
#ifndef TRNSIM_PLUGIN_LEND_H
#define TRNSIM_PLUGIN_LEND_H

#include <stdint.h>

#include "trnsim/plugin/ap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ABI 3: lent memory (direct access) ------------------------------ */

/* How a module wants to use memory lent to it (lend()).
 *   READ   read-only: every element passes the uninitialised-read guard
 *          first (the same check and message as read_raw).
 *   WRITE  write-only: the module stores every element; the bytes count as
 *          written from lend_end (or the handler's return) on.
 *   READ | WRITE  read-modify-write (accumulate in place): lent only when
 *          every byte is already written, so no element needs the
 *          "accumulate into never-written stores" rule. */
#define TRN_LEND_READ  0x1u
#define TRN_LEND_WRITE 0x2u

/* Shape flags of a view. ROWS: in each partition the AP's elements lie
 * contiguously in visiting order (row p starts at base + p*part_stride and
 * holds free_elems elements). BLOCK: ROWS, and the rows abut, so the whole
 * AP is one run of trn_ap_elems() elements from base. */
#define TRN_VIEW_ROWS  0x1u
#define TRN_VIEW_BLOCK 0x2u

/* Memory under an AP, addressed in place. Element (p, i0..i3) of the AP's
 * visiting order is at
 *   base + p*part_stride + sum_d(i_d * stride[d])      (bytes)
 * with ndims, num[] the AP's own dims (an AP of 0 dims is one dim of 1).
 * Elements are in the dtype's memory layout (docs/dtypes.md), unaligned in
 * general (memcpy, or check the address, before a typed load). Views may
 * alias each other: [lo, hi) holds every byte of this one. */
typedef struct trn_view {
    uint8_t *base;
    int64_t part_stride;
    int64_t stride[TRN_AP_MAX_DIMS];
    int64_t num[TRN_AP_MAX_DIMS];
    uint32_t ndims, parts, width, dtype;
    uint32_t flags;     /* TRN_VIEW_* */
    uint32_t mode;      /* TRN_LEND_* it was lent with */
    int64_t free_elems; /* elements per partition */
    const uint8_t *lo, *hi;
    uint32_t slot; /* the host's; keep as given */
} trn_view;

/* What lend() did. NOT_LENT is not an error: the AP or the mode does not
 * allow direct access here (see lend), so use the copying calls. */
typedef enum trn_lend_status { TRN_LENT = 0, TRN_NOT_LENT = 1, TRN_LEND_ERR = -1 } trn_lend_status;

#ifdef __cplusplus
}
#endif
#endif
