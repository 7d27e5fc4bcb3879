/* trnsim conform's speed: generated search programs on the stock module
 * against trnsim-search-ref (and through the BIR front end), cases per
 * second as the command reports them (`trnsim conform --json`), through the
 * trnsim beside this binary. The target: 10,000 single-family cases in
 * under a minute on 2 cores. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* A number member of the one-line JSON summary. */
static double member(const char *json, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(json, k);
    return p ? strtod(p + strlen(k), NULL) : -1;
}

static void conform_case(const char *what, const char *args) {
    char dir[PATH_MAX], cmd[PATH_MAX + 512];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    int cases = bench_quick() ? 500 : 10000;
    snprintf(cmd, sizeof cmd, "'%s/trnsim' conform --family search %s --cases %d --seed 1 --json",
             dir, args, cases);
    FILE *f = popen(cmd, "r");
    static char out[1 << 16];
    size_t len = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[len] = 0;
    int st = f ? pclose(f) : -1;
    if (st != 0 || member(out, "cases") != cases) {
        printf("%-40s skipped: %s exited %d\n", what, cmd, st);
        return;
    }
    const char *fam = strstr(out, "\"families\"");
    printf("%-40s %6d cases in %7.2f s = %7.0f cases/s, valid ratio %.3f, %g differ\n", what, cases,
           member(out, "seconds"), member(out, "cases_per_second"),
           fam ? member(fam, "valid_ratio") : -1, member(out, "differ"));
}

BENCH_CASE(conform_search_ref) {
    conform_case("conform search vs trnsim-search-ref", "--module search=trnsim-search-ref");
}

BENCH_CASE(conform_search_bir) {
    conform_case("conform search native vs BIR", "--frontends native,bir");
}
