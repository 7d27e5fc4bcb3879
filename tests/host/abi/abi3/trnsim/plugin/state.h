/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * ABI 3, module state in dumps: the calls a module saves and restores its state
 * through (trn_state_api).
 */
#ifndef TRNSIM_PLUGIN_STATE_H
#define TRNSIM_PLUGIN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "trnsim/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- module state in dumps (ABI 3) ------------------------------------------ */

/* A dump being written or read (trnsim run --dump-at / --restore,
 * docs/cli.md). A module whose state lasts from one instruction to the next
 * (random engines, rendezvous records, trigger counters) saves it as named
 * arrays of plain numbers and reads them back, so a run restored from a dump
 * ends with the same bits as one that was never interrupted. The arrays are
 * .npy files of the dump (modules/FAMILY/NAME.npy), so they should be laid
 * out as a user would read them. */

#define TRN_STATE_MAX_DIMS 4
#define TRN_STATE_NAME_MAX 63 /* [A-Za-z0-9_], not empty */

struct trn_state_api {
    uint32_t size; /* sizeof(trn_state_api) of the host */
    /* Save: one array of dtype (an integer or float dtype of dtype.h, not a
     * packed or fp8 form), C order, ndim 1..TRN_STATE_MAX_DIMS dims >= 0.
     * A name is put at most once. */
    trn_status (*put)(trn_state_io *io, const char *name, uint32_t dtype, uint32_t ndim,
                      const int64_t *shape, const void *data);
    /* Restore: the dtype and shape of a saved array; TRN_ABSENT when the dump
     * has none of that name, TRN_BADTYPE when its file cannot be read (a
     * message is recorded). */
    trn_lookup (*find)(trn_state_io *io, const char *name, uint32_t *dtype, uint32_t *ndim,
                       int64_t shape[TRN_STATE_MAX_DIMS]);
    /* Restore: its bytes; `bytes` must be its whole size. */
    trn_status (*get)(trn_state_io *io, const char *name, void *data, size_t bytes);
};

/* A module's side, trn_state_fn (trn_plugin_desc.state_save / state_restore),
 * is declared with the descriptor in abi.h, as is the trn_state_io handle. */

#ifdef __cplusplus
}
#endif
#endif
