/* The cost of observing a run: the TopK-64 [128 x N] program (8 rounds of
 * Max + MaxIndexAndMatchReplace, as bench_search.c builds it) run with the
 * JSONL trace (--trace, digests of every output included) and with the
 * timeline, each against the same program untraced in the same process,
 * alternated (bench_compare). The traced and untraced sims' results are
 * compared bit for bit before and after timing: a trace must not change a
 * bit. The ratio printed is untraced time / traced time, so 0.67 means the
 * traced run takes 1.5x as long. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "observers/observers.h"

static const char config[] = "plugins = ( { family = \"search\"; module = \"trnsim-search\"; } );";

static char *program(size_t P, size_t N) {
    size_t cap = 8192;
    char *buf = malloc(cap);
    int n = snprintf(
        buf, cap,
        "{\"tensors\": ["
        "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]},"
        "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, %zu]},"
        "{\"name\": \"vals\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%zu, 64]},"
        "{\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": [%zu, 64]}],"
        " \"instructions\": [",
        P, N, P, N, P, P);
    for (int r = 0; r < 8; ++r)
        n += snprintf(
            buf + n, cap - (size_t)n,
            "%s{\"opcode\": \"Max\", \"inputs\": [\"%s\"], \"outputs\": [{\"tensor\": \"vals\", "
            "\"offset\": %d,"
            " \"ap\": [[1, 8]]}]},"
            "{\"opcode\": \"MaxIndexAndMatchReplace\", \"imm_value\": \"-inf\","
            " \"inputs\": [{\"tensor\": \"vals\", \"offset\": %d, \"ap\": [[1, 8]]}, \"%s\"],"
            " \"outputs\": [\"y\", {\"tensor\": \"idx\", \"offset\": %d, \"ap\": [[1, 8]]}]}",
            r ? "," : "", r ? "y" : "x", 8 * r, 8 * r, r ? "y" : "x", 8 * r);
    snprintf(buf + n, cap - (size_t)n, "]}");
    return buf;
}

static trn_sim *make(const char *prog, const float *x, size_t bytes) {
    trn_sim *s = bench_open(config);
    bench_load(s, prog);
    bench_set(s, "x", x, bytes);
    return s;
}

/* 1 when the two sims' vals and idx differ in any bit. */
static int differ(trn_sim *a, trn_sim *b, size_t P) {
    size_t n = P * 64 * 4;
    uint8_t *p = malloc(n), *q = malloc(n);
    int d = 0;
    for (int k = 0; k < 2 && !d; ++k) {
        bench_get(a, k ? "idx" : "vals", p, n);
        bench_get(b, k ? "idx" : "vals", q, n);
        d = memcmp(p, q, n) != 0;
    }
    free(p);
    free(q);
    return d;
}

static void observed_at(size_t N, int timeline) {
    const size_t P = 128;
    char *prog = program(P, N);
    size_t bytes = P * N * sizeof(float);
    float *x = malloc(bytes);
    bench_fill_f32(x, P * N, 7, -1000, 1000);
    trn_sim *plain = make(prog, x, bytes), *traced = make(prog, x, bytes);
    char path[] = "/tmp/trnsim-bench-trace-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    trn_error e;
    trn_trace *t = NULL;
    trn_timeline *tl = NULL;
    trn_trace_opts o = {.path = path};
    if (fd < 0 || (timeline ? trn_timeline_begin(traced, path, &tl, &e)
                            : trn_trace_begin(traced, &o, &t, &e))) {
        printf("skipped: cannot start the %s in %s\n", timeline ? "timeline" : "trace", path);
    } else {
        bench_run(plain);
        bench_run(traced);
        if (differ(plain, traced, P)) {
            printf("MISMATCH: the traced run's results differ from the untraced run's; not timing "
                   "it\n");
        } else {
            bench_paired r;
            bench_compare(bench_run_job(traced), &(bench_job){bench_run_job(plain).fn, plain}, 1,
                          bench_quick() ? 0.2 : 2.0, &r);
            char size[48];
            snprintf(size, sizeof size, "%zu x %zu fp32", P, N);
            if (differ(plain, traced, P))
                bench_mismatch_after("TopK-64 traced vs untraced");
            else {
                bench_report(timeline ? "TopK-64 with --timeline"
                                      : "TopK-64 with --trace (digests)",
                             size, (double)(P * N), "row-elem", "the same run untraced", &r);
                printf("  median times: traced %.3f ms, untraced %.3f ms: the trace costs %.2fx\n",
                       r.t * 1e3, r.t_base * 1e3, 1 / r.ratio);
            }
        }
    }
    if (timeline ? trn_timeline_end(traced, tl, &e) : trn_trace_end(traced, t, &e))
        printf("  %s\n", e.msg);
    unlink(path);
    trn_sim_close(plain);
    trn_sim_close(traced);
    free(x);
    free(prog);
}

BENCH_CASE(observe_trace_topk64) {
    observed_at(bench_quick() ? 2048 : 16384, 0);
    observed_at(bench_quick() ? 2048 : 16384, 1);
}
