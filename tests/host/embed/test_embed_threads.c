/* Separate libtrnsim handles used from parallel threads (docs/embedding.md,
 * Threads): each thread opens its own simulators over the real families,
 * loads, runs and reads them many times, and must get exactly the bytes a
 * single thread got first; each thread's last error is its own. Built a
 * second time with ThreadSanitizer by .ci/run. Uses only the public header. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trnsim/trnsim.h"

#define THREADS 4
#define ROUNDS  6
#define N       512

/* a tensor of the native program format */
#define T(name, mem, dtype, shape)                                                                 \
    "{\"name\": \"" name "\", \"memory\": \"" mem "\", \"dtype\": \"" dtype "\", "                 \
    "\"shape\": " shape "}"

/* Max + MaxIndexAndMatchReplace (search), BNStats (bn), Rand2 (rng) on one
 * core; an AllReduce (collective) over four cores. */
static const char one_core[] = "{\"tensors\": [" T("x", "sbuf", "float32", "[8, 512]") ", " T(
    "v", "sbuf", "float32",
    "[8, 8]") ", " T("i", "sbuf", "uint32",
                     "[8, 8]") ", " T("st", "sbuf", "float32",
                                      "[8, 6]") ", " T("r", "sbuf", "float32",
                                                       "[8, 64]") "],"
                                                                  " \"instructions\": "
                                                                  "[{\"opcode\": \"BNStats\", "
                                                                  "\"inputs\": [\"x\"], "
                                                                  "\"outputs\": [\"st\"]},"
                                                                  " {\"opcode\": \"Max\", "
                                                                  "\"inputs\": [\"x\"], "
                                                                  "\"outputs\": [\"v\"]},"
                                                                  " {\"opcode\": "
                                                                  "\"MaxIndexAndMatchReplace\", "
                                                                  "\"imm_value\": \"-inf\","
                                                                  " \"inputs\": [\"v\", \"x\"], "
                                                                  "\"outputs\": [\"x\", \"i\"]},"
                                                                  " {\"opcode\": \"Rand2\", "
                                                                  "\"min\": -1.0, \"max\": 1.0, "
                                                                  "\"inputs\": [], \"outputs\": "
                                                                  "[\"r\"]}]}";

static const char four_cores[] =
    "{\"cores\": 4, \"tensors\": [" T("a", "hbm", "float32", "[512]") ", " T(
        "b", "hbm", "float32",
        "[512]") "],"
                 " \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllReduce\","
                 " \"reduce_op\": \"add\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]}]}";

typedef struct result {
    float x[8 * N], v[64], st[48], r[8 * 64], b[4][N];
    uint32_t i[64];
} result;

typedef struct job {
    int id;
    const result *want;
    int failures;
    char why[256];
} job;

static void input(float *x, size_t n, unsigned seed) {
    uint32_t s = 2463534242u ^ seed;
    for (size_t k = 0; k < n; k++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        x[k] = (float)(int32_t)s / 65536.0f;
    }
}

static int fail(job *j, const char *what) {
    if (!j->failures++)
        snprintf(j->why, sizeof j->why, "thread %d: %s: %s", j->id, what,
                 trnsim_last_error()->message);
    return -1;
}

static int run_one_core(job *j, result *out) {
    trnsim_options o = {.size = sizeof o, .module_dir = TRNSIM_MODULE_DIR};
    trnsim_sim *s = trnsim_open(&o);
    if (!s) return fail(j, "open");
    float x[8 * N];
    input(x, 8 * N, 1);
    int rc = trnsim_load_program_text(s, one_core, "one_core") ||
             trnsim_set_tensor(s, "x", -1, x, sizeof x) || trnsim_run(s) ||
             trnsim_get_tensor(s, "x", 0, out->x, sizeof out->x) ||
             trnsim_get_tensor(s, "v", 0, out->v, sizeof out->v) ||
             trnsim_get_tensor(s, "i", 0, out->i, sizeof out->i) ||
             trnsim_get_tensor(s, "st", 0, out->st, sizeof out->st) ||
             trnsim_get_tensor(s, "r", 0, out->r, sizeof out->r);
    if (rc) fail(j, "one-core program");
    trnsim_close(s);
    return rc ? -1 : 0;
}

static int run_four_cores(job *j, result *out) {
    trnsim_options o = {.size = sizeof o, .module_dir = TRNSIM_MODULE_DIR};
    trnsim_sim *s = trnsim_open(&o);
    if (!s) return fail(j, "open");
    int rc = trnsim_load_program_text(s, four_cores, "four_cores");
    for (int c = 0; c < 4 && !rc; c++) {
        float a[N];
        input(a, N, 10u + (unsigned)c);
        rc = trnsim_set_tensor(s, "a", c, a, sizeof a);
    }
    rc = rc || trnsim_run(s);
    for (int c = 0; c < 4 && !rc; c++)
        rc = trnsim_get_tensor(s, "b", c, out->b[c], sizeof out->b[c]);
    if (rc) fail(j, "four-core program");
    trnsim_close(s);
    return rc ? -1 : 0;
}

/* An error of this thread's own: its message names this thread's tensor. */
static void own_error(job *j) {
    trnsim_options o = {.size = sizeof o, .module_dir = TRNSIM_MODULE_DIR};
    trnsim_sim *s = trnsim_open(&o);
    if (!s) {
        fail(j, "open");
        return;
    }
    char name[32];
    snprintf(name, sizeof name, "nothing_%d", j->id);
    float x = 0;
    if (trnsim_load_program_text(s, one_core, "one_core") ||
        !trnsim_set_tensor(s, name, -1, &x, sizeof x))
        fail(j, "a set of a missing tensor succeeded");
    else if (!strstr(trnsim_last_error()->message, name) ||
             trnsim_last_error()->kind != TRNSIM_ERR_INPUT)
        fail(j, "another thread's error");
    trnsim_close(s);
}

static void *worker(void *arg) {
    job *j = arg;
    static _Thread_local result got;
    for (int k = 0; k < ROUNDS && !j->failures; k++) {
        memset(&got, 0, sizeof got);
        if ((k + j->id) % 2 ? run_four_cores(j, &got) : run_one_core(j, &got)) break;
        int same = (k + j->id) % 2 ? !memcmp(got.b, j->want->b, sizeof got.b)
                                   : !memcmp(got.x, j->want->x, sizeof got.x) &&
                                         !memcmp(got.v, j->want->v, sizeof got.v) &&
                                         !memcmp(got.i, j->want->i, sizeof got.i) &&
                                         !memcmp(got.st, j->want->st, sizeof got.st) &&
                                         !memcmp(got.r, j->want->r, sizeof got.r);
        if (!same && !j->failures++)
            snprintf(j->why, sizeof j->why,
                     "thread %d round %d: bytes differ from the one-thread run", j->id, k);
        own_error(j);
    }
    return NULL;
}

int main(void) {
    static result want;
    job solo = {.id = -1};
    if (run_one_core(&solo, &want) || run_four_cores(&solo, &want)) {
        fprintf(stderr, "%s\n", solo.why);
        return 1;
    }
    /* a known answer, so the comparison is not of two wrong runs: the
     * AllReduce of four ranks is their fp32 sum in rank order */
    float a[4][N];
    for (int c = 0; c < 4; c++) input(a[c], N, 10u + (unsigned)c);
    for (int k = 0; k < N; k++) {
        float sum = ((a[0][k] + a[1][k]) + a[2][k]) + a[3][k];
        if (memcmp(&sum, &want.b[2][k], sizeof sum)) {
            fprintf(stderr, "AllReduce element %d: %g, expected %g\n", k, want.b[2][k], sum);
            return 1;
        }
    }
    /* One simulator held open across the threads keeps every module mapped.
     * Otherwise a module unloaded by one thread's close can be loaded again
     * where another thread's memory was just mapped and unmapped; ld.so maps
     * it with its own mmap, which ThreadSanitizer does not see, so TSan
     * takes the module's static data for that thread's memory and reports
     * a race on it (3 runs in 12 on machine C). The threads still open,
     * load, run and close their own simulators concurrently. */
    trnsim_options o = {.size = sizeof o, .module_dir = TRNSIM_MODULE_DIR};
    trnsim_sim *pin = trnsim_open(&o);
    if (!pin) {
        fprintf(stderr, "open: %s\n", trnsim_last_error()->message);
        return 1;
    }
    pthread_t t[THREADS];
    job jobs[THREADS];
    for (int k = 0; k < THREADS; k++) {
        jobs[k] = (job){.id = k, .want = &want};
        if (pthread_create(&t[k], NULL, worker, &jobs[k])) return 1;
    }
    int bad = 0;
    for (int k = 0; k < THREADS; k++) {
        pthread_join(t[k], NULL);
        if (jobs[k].failures) fprintf(stderr, "%s\n", jobs[k].why), bad = 1;
    }
    trnsim_close(pin);
    if (!bad) printf("%d threads x %d rounds: the one-thread bytes every time\n", THREADS, ROUNDS);
    return bad;
}
