/* State dumps and restore (docs/dumps.md): the whole state of a run
 * between two instructions written to a directory (every tensor of every
 * core as .npy, the memory images and written-byte maps, registers, each
 * module's state, the schedule position, manifest.json), and a run continued
 * from such a directory with the same bits as an uninterrupted one. The
 * options install run hooks (exec/exec.h), so the run loop never calls here. */
#ifndef TRNSIM_HOST_DUMP_H
#define TRNSIM_HOST_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/exec.h"

typedef struct trn_dump_cfg trn_dump_cfg;

/* Dumps and restore (dump/dump.c, docs/dumps.md). After a program is
 * loaded and before trn_sim_run; each checks its directory (a new path or
 * an empty directory where one can be created) at once.
 * dump_at: before core `core` first starts its instruction of stream index
 *   `index` (the index the trace and messages give), write the whole state
 *   to dir.
 * dump_on_error: when the run fails, write the state just before the
 *   failing instruction ran (or at the stop) to dir; the error message then
 *   says where.
 * restore: the next run continues from dir instead of the start (refused
 *   now, with the reason, when dir was made from another program, config
 *   or module). */
int trn_sim_dump_at(trn_sim *s, uint32_t core, uint64_t index, const char *dir, trn_error *e);
int trn_sim_dump_on_error(trn_sim *s, const char *dir, trn_error *e);
int trn_sim_restore(trn_sim *s, const char *dir, trn_error *e);
/* The i-th dump_at (in the order given), when it was written. */
bool trn_sim_dump_written(const trn_sim *s, int i, uint32_t *core, uint64_t *index,
                          const char **dir);

#endif
