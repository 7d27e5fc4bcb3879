/* The reference module's search kernels (trnsim-search-ref, docs/plugins.md
 * "Reference modules"): search_kernels.h answered by the scalar oracle
 * (search_oracle.c, the same file the kernel tests compare against), one
 * element at a time, with no block tests. The handlers are the fast module's.
 *
 * TRNSIM_REF_MUTANT (the tests' planted bug, never installed): the last
 * element of every row is not looked at. */
#include "../search_kernels.h"
#include "search_oracle.h"

#ifdef TRNSIM_REF_MUTANT
#define ROW_LEN(n) ((n)-1)
#else
#define ROW_LEN(n) (n)
#endif

const char *search_kernel_blocks(void) { return "plain"; }

void search_max8_row(const float *data, size_t n, float out[SEARCH_K]) {
    oracle_max8(data, ROW_LEN(n), out);
}

void search_find8_row(const float *data, size_t n, const float vals[SEARCH_K], search_order order,
                      uint32_t idx[SEARCH_K]) {
    oracle_max_index(data, ROW_LEN(n), vals, order == SEARCH_DESCENDING, idx);
}

void search_replace8_row(float *row, const uint32_t idx[SEARCH_K], float sentinel) {
    for (int k = 0; k < SEARCH_K; ++k)
        if (idx[k] != SEARCH_NOT_FOUND) row[idx[k]] = sentinel;
}
