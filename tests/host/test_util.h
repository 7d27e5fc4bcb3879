/* Shared helpers of the host tests. */
#ifndef TRNSIM_TEST_UTIL_H
#define TRNSIM_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "exec/exec.h"

#ifndef TRNSIM_MODULE_DIR
#define TRNSIM_MODULE_DIR "."
#endif

/* Asserts that text contains needle, printing both when it does not. */
#define assert_contains(text, needle)                                                              \
    do {                                                                                           \
        if (!strstr((text), (needle))) fail_msg("expected \"%s\" in \"%s\"", (needle), (text));    \
    } while (0)

static inline int test_open(const char *config_text, trn_sim **s, trn_error *e) {
    trn_sim_opts o = {.config_text = config_text, .exe_dir = TRNSIM_MODULE_DIR};
    return trn_sim_open(s, &o, e);
}

#endif
