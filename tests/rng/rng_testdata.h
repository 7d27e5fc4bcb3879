/* Reading the published vector files in tests/rng/data (copied from
 * published RNG test vectors with their source headers). */
#ifndef TRNSIM_TESTS_RNG_TESTDATA_H
#define TRNSIM_TESTS_RNG_TESTDATA_H

#include <stddef.h>
#include <stdio.h>

#ifndef RNG_DATA_DIR
#error "RNG_DATA_DIR must name tests/rng/data"
#endif

/* Open data file name; fails the test when it is missing. */
FILE *rng_data_open(const char *name);

/* Read the next line into buf (newline stripped); 0 at end of file. */
int rng_data_line(FILE *f, char *buf, size_t cap);

#endif
