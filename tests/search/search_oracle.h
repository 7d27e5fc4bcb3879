/* The scalar oracle: a plain transliteration of the seed's loops
 * (../shared/seeds/000_ea874edf21d8dbba.txt, section 3), one partition row
 * at a time. The fast kernels in plugins/search are checked against it bit
 * for bit; it is deliberately not clever. */
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

/* 3.3 MatchReplace (IT 90, idx_out NULL) and MaxIndexAndMatchReplace (IT 91).
 * idx_out starts as 0xFFFFFFFF, as in 3.2 (the seed's 3.3 code does not show
 * its initialisation; docs/search.md records the choice). */
void oracle_match_replace(const float *data, size_t n, const float max_vals[8], float sentinel,
                          int descending, float *out, uint32_t *idx_out);

#endif
