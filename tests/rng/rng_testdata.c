#include "rng_testdata.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

FILE *rng_data_open(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", RNG_DATA_DIR, name);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open vector file %s", path);
    return f;
}

int rng_data_line(FILE *f, char *buf, size_t cap) {
    if (!fgets(buf, (int)cap, f)) return 0;
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
    return 1;
}
