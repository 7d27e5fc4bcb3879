/* The scalar oracle: a plain transliteration of the reference's loops
 * (doInstMatchReplaceWithOptionalMaxIndex @ 0x1f3250 and the Max-8 insertion; docs/search.md), one
 * partition row at a time. The fast kernels in plugins/search are checked against it bit for bit;
 * it is deliberately not clever. */
#ifndef TRNSIM_SEARCH_ORACLE_H
#define TRNSIM_SEARCH_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/* 3.1 Max (IT 88). */
void oracle_max8(const float *data, size_t n, float slot[8]);

/* 3.2 MaxIndex (IT 89). descending != 0 runs the slot loop from 7 down to 0
 * (the setting duplicate_match_order = "descending"). */
void oracle_max_index(const float *data, size_t n, const float max_vals[8], int descending,
                      uint32_t out_idx[8]);

/* MatchReplace (IT 90, idx_out NULL) and MaxIndexAndMatchReplace (IT 91).
 * idx_out starts as 0xFFFFFFFF, as in MaxIndex (how the reference's
 * doInstMatchReplaceWithOptionalMaxIndex @ 0x1f3250 initialises it is not
 * known; docs/search.md records the choice). */
void oracle_match_replace(const float *data, size_t n, const float max_vals[8], float sentinel,
                          int descending, float *out, uint32_t *idx_out);

#endif
