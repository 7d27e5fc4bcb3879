/* Generated BIR files and byte-level mutations of them, for comparing the
 * BIR reader's text fast path with its document path (bir_load_compare). */
#ifndef TRNSIM_TEST_BIR_GENERATE_H
#define TRNSIM_TEST_BIR_GENERATE_H

#include <stdint.h>

/* A valid BIR file (the caller frees it); the same seed, the same file.
 * *run: the function to name when loading it (NULL: its only one). */
char *bir_generate(uint32_t seed, const char **run);
/* text with one to three bytes deleted, replaced or inserted. */
char *bir_mutate(const char *text, uint32_t seed);

#endif
