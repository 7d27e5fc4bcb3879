/* .npy conversions beyond the exact loads (npy.h): float64 arrays into
 * float tensors (to fp32 RNE, then narrowed RNE as a float32 file is), and
 * integer arrays into integer tensors of another width or signedness when
 * every value fits. */
#ifndef TRNSIM_HOST_NPY_CONVERT_H
#define TRNSIM_HOST_NPY_CONVERT_H

#include "common/error.h"
#include "frontend/npy.h"

/* Convert n's data (shape already checked) into dst, a tensor of dt.
 * 0: done; 1: no such conversion (the caller reports the dtypes); -1: a
 * value that does not fit, with a message naming its index and value. */
int trn_npy_convert(const trn_npy *n, trn_dtype dt, void *dst, trn_error *e);

#endif
