/* Moving a participant's data through the host: the fp32 path (widen on
 * read, RNE narrow on write: every reducing kind, and routing between
 * different dtypes) and the raw path (bytes as stored: routing when every
 * AP involved has the same dtype, the reference's memcpy, which keeps
 * integers above 2^24 and NaN payloads). */
#ifndef COLL_XFER_H
#define COLL_XFER_H

#include <stdbool.h>
#include <stddef.h>

#include "trnsim/plugin.h"

/* Does dt have one fp32 value per element (all but the packed x4 forms)? */
bool coll_dtype_has_f32(uint32_t dt);

/* Element width in the dense buffer: the dtype's width when raw, else 4. */
size_t coll_elem_width(const trn_host_api *api, const trn_ap *ap, bool raw);

/* Before the first write: ap is a writable output (bounds, and an fp32
 * value per element on the fp32 path). who names it in the message. */
trn_status coll_check_out(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, bool raw,
                          const char *who);
/* Before the first read: an input on the fp32 path has an fp32 value per
 * element (not a packed x4 form), so that check refuses what the read would. */
trn_status coll_check_in(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, bool raw,
                         const char *who);

trn_status coll_read(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, void *buf, bool raw);
trn_status coll_write(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, const void *buf,
                      bool raw);

#endif
