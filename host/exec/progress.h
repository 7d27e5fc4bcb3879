/* The one-line progress display of a long run on stderr: instructions
 * done of the total, each core's position, elapsed time and ETA
 * (docs/cli.md, "Progress"). The run loop calls trn_progress_tick every
 * TRN_PROGRESS_EVERY + 1 instructions, so a run without a display pays one
 * test of a NULL pointer per instruction. */
#ifndef TRNSIM_HOST_PROGRESS_H
#define TRNSIM_HOST_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TRN_PROGRESS_EVERY 1023u /* a power of two minus one: a mask */

typedef struct trn_progress trn_progress;
struct trn_sim;

/* A display for the run of s that is starting, or NULL when there is none:
 * mode 1 shows it when `out` is a terminal and the run has taken more than
 * a second; 2 always (from the start, one line per update when `out` is not
 * a terminal); 0 never. NULL also when out of memory: a display is no
 * reason to fail a run. */
trn_progress *trn_progress_start(struct trn_sim *s, int mode, FILE *out);
void trn_progress_tick(trn_progress *p, uint64_t executed);
/* The last line (when anything was shown, or the display was forced),
 * then free. */
void trn_progress_finish(trn_progress *p, int failed);

#endif
