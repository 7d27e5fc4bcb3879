/* "Did you mean": the closest of a set of known names to a misspelled one,
 * for messages about unknown keys, settings and names. */
#ifndef TRNSIM_HOST_SUGGEST_H
#define TRNSIM_HOST_SUGGEST_H

#include <stddef.h>

/* The candidate nearest to word (optimal string alignment distance, letters
 * compared without case), or NULL when none is near enough to be a likely
 * typo: at most 1 edit for names up to 4 letters, else a third of the
 * longer name. cands may hold NULL entries, which are ignored. */
const char *trn_suggest(const char *word, const char *const *cands, size_t n);

/* "; did you mean 'X'?" into buf when trn_suggest finds X, else "". */
const char *trn_suggest_text(const char *word, const char *const *cands, size_t n, char *buf, size_t len);

#endif
