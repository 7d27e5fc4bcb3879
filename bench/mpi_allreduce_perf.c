/* trnsim-mpi-allreduce-perf: nccl-tests' all_reduce_perf for the MPI
 * transport (docs/mpi.md, docs/benchmarks.md). Run under mpirun, one core
 * per process:
 *
 *     mpirun -np 4 build/trnsim-mpi-allreduce-perf [--min-bytes 8] [--max-bytes 64M] [--factor 2]
 * [--rounds 5]
 *            [--modes exact,mpi,native]
 *
 * For each size it times, round by round in alternation, (1) trnsim's
 * AllReduce (fp32 add) through trnsim-collective-mpi in exact mode, (2) raw
 * MPI_Allreduce on the same buffers, (3) the transport in native mode (odd
 * rounds in the reverse order, so that no side always comes first); and
 * prints nccl-tests' columns (size count type redop time algbw busbw
 * #wrong, busbw = algbw x 2(n-1)/n) for each, then the medians of the paired
 * ratios busbw(exact) / busbw(MPI) and busbw(native) / busbw(MPI).
 * #wrong: exact mode counts elements whose bits differ from the core-order
 * fold computed here; MPI and native count elements outside the documented
 * bound n * eps * sum|x| around it. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

enum { MODE_EXACT = 1, MODE_MPI = 2, MODE_NATIVE = 4 };

typedef struct bench {
    int rank, ranks, rounds, factor, modes;
    size_t min_bytes, max_bytes;
    char exe_dir[1024];
} bench;

static const char *config(const char *reduce, size_t hbm, char *buf, size_t len) {
    snprintf(buf, len,
             "machine = { cores = 1; partitions = 128; sbuf_partition_bytes = 196608; "
             "psum_partition_bytes = 16384;\n"
             "  hbm_bytes = %zu; registers = 64; };\n"
             "plugins = ( { family = \"collective\"; module = \"trnsim-collective-mpi\";\n"
             "  settings = { mpi_reduce = \"%s\"; mpi_timeout = 600.0; }; } );\n",
             hbm, reduce);
    return buf;
}

static int open_sim(const bench *b, const char *reduce, size_t count, const float *x,
                    trn_sim **out) {
    char cfg[1024], prog[1024];
    size_t hbm = 2 * count * sizeof(float) + 4096;
    trn_sim_opts o = {.config_text = config(reduce, hbm, cfg, sizeof cfg), .exe_dir = b->exe_dir};
    trn_error e;
    trn_sim *s = NULL;
    snprintf(prog, sizeof prog,
             "{\"cores\": %d, \"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": "
             "\"float32\", "
             "\"shape\": [%zu]}, {\"name\": \"y\", \"memory\": \"hbm\", \"dtype\": \"float32\", "
             "\"shape\": [%zu]}],"
             " \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllReduce\", "
             "\"reduce_op\": "
             "\"add\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}",
             b->ranks, count, count);
    if (trn_sim_open(&s, &o, &e) || trn_sim_load_program_text(s, prog, "bench", &e) ||
        trn_sim_set_tensor(s, "x", b->rank, x, count * sizeof(float), &e)) {
        fprintf(stderr, "rank %d: %s\n", b->rank, e.msg);
        trn_sim_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* Rank r's input: deterministic, different per rank, magnitudes mixed so
 * that the fold order shows in the bits. */
static void input(int r, size_t count, float *x) {
    uint64_t v = 0x9E3779B97F4A7C15ull * (uint64_t)(r + 1);
    for (size_t i = 0; i < count; ++i) {
        v = v * 6364136223846793005ull + 1442695040888963407ull;
        float u = (float)((v >> 40) & 0xFFFFFF) / 16777216.0f - 0.5f;
        x[i] = u * (float)(1 << ((v >> 20) % 12));
    }
}

typedef struct reference {
    float *sum;  /* the core-order fold */
    double *mag; /* sum of |x| per element */
} reference;

static void make_reference(const bench *b, size_t count, reference *ref) {
    float *x = malloc(count * sizeof *x);
    ref->sum = calloc(count, sizeof *ref->sum);
    ref->mag = calloc(count, sizeof *ref->mag);
    for (int r = 0; r < b->ranks; ++r) {
        input(r, count, x);
        for (size_t i = 0; i < count; ++i) {
            ref->sum[i] = r == 0 ? x[i] : x[i] + ref->sum[i];
            ref->mag[i] += fabs((double)x[i]);
        }
    }
    free(x);
}

static long wrong(const bench *b, const float *y, size_t count, const reference *ref, int exact) {
    long bad = 0;
    double eps = ldexp(1.0, -23);
    for (size_t i = 0; i < count; ++i) {
        if (exact)
            bad += memcmp(&y[i], &ref->sum[i], 4) != 0;
        else
            bad += fabs((double)y[i] - (double)ref->sum[i]) > b->ranks * eps * ref->mag[i];
    }
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* Seconds per operation of `iters` operations, the slowest rank's. */
static double time_sim(trn_sim *s, int iters) {
    trn_error e;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i)
        if (trn_sim_run(s, &e)) fprintf(stderr, "run: %s\n", e.msg);
    double dt = (MPI_Wtime() - t0) / iters, worst;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static double time_mpi(const float *x, float *y, size_t count, int iters) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i)
        MPI_Allreduce(x, y, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double dt = (MPI_Wtime() - t0) / iters, worst;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void row(const bench *b, const char *what, size_t bytes, double t, long bad) {
    double algbw = (double)bytes / t / 1e9, busbw = algbw * 2.0 * (b->ranks - 1) / b->ranks;
    if (b->rank == 0)
        printf("%12zu %12zu  float    sum  %-7s %10.1f %8.3f %8.3f %7ld\n", bytes, bytes / 4, what,
               t * 1e6, algbw, busbw, bad);
}

/* One round: every mode once, in order or reversed; MPI's time is the
 * pair's baseline. */
static void round_of(const bench *b, int k, trn_sim *exact, trn_sim *native, const float *x,
                     float *y, size_t count, int iters, double *te, double *tm, double *tn) {
    for (int step = 0; step < 3; ++step) {
        int which = k % 2 ? 2 - step : step;
        if (which == 0 && (b->modes & MODE_EXACT)) *te = time_sim(exact, iters);
        if (which == 1) *tm = time_mpi(x, y, count, iters);
        if (which == 2 && (b->modes & MODE_NATIVE)) *tn = time_sim(native, iters);
    }
}

static int one_size(const bench *b, size_t bytes) {
    size_t count = bytes / sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes);
    input(b->rank, count, x);
    reference ref;
    make_reference(b, count, &ref);
    trn_sim *exact = NULL, *native = NULL;
    if (((b->modes & MODE_EXACT) && open_sim(b, "exact", count, x, &exact)) ||
        ((b->modes & MODE_NATIVE) && open_sim(b, "native", count, x, &native)))
        return -1;
    int iters = bytes <= 65536 ? 50 : bytes <= (1u << 22) ? 10 : 3;
    double te[64] = {0}, tm[64] = {0}, tn[64] = {0}, re[64], rn[64];
    if (exact) time_sim(exact, 1); /* warm: pages faulted in, buffers allocated */
    if (native) time_sim(native, 1);
    time_mpi(x, y, count, 1);
    for (int k = 0; k < b->rounds; ++k) {
        round_of(b, k, exact, native, x, y, count, iters, &te[k], &tm[k], &tn[k]);
        re[k] = exact ? tm[k] / te[k] : 0; /* busbw ratio = inverse time ratio */
        rn[k] = native ? tm[k] / tn[k] : 0;
    }
    trn_error e;
    float *got = malloc(bytes);
    long bad_e = 0, bad_n = 0;
    if (exact) {
        trn_sim_get_tensor(exact, "y", b->rank, got, bytes, &e);
        bad_e = wrong(b, got, count, &ref, 1);
        row(b, "exact", bytes, median(te, b->rounds), bad_e);
    }
    row(b, "mpi", bytes, median(tm, b->rounds), wrong(b, y, count, &ref, 0));
    if (native) {
        trn_sim_get_tensor(native, "y", b->rank, got, bytes, &e);
        bad_n = wrong(b, got, count, &ref, 0);
        row(b, "native", bytes, median(tn, b->rounds), bad_n);
    }
    if (b->rank == 0) {
        printf("%12zu  busbw ratio to MPI_Allreduce (median of %d paired):", bytes, b->rounds);
        if (exact) printf("  exact %.3f", median(re, b->rounds));
        if (native) printf("  native %.3f", median(rn, b->rounds));
        printf("\n");
    }
    fflush(stdout);
    trn_sim_close(exact);
    trn_sim_close(native);
    free(x);
    free(y);
    free(got);
    free(ref.sum);
    free(ref.mag);
    return bad_e ? -1 : 0;
}

/* --modes exact,mpi,native (MPI always runs: it is the baseline). */
static int parse_modes(const char *t) {
    int m = MODE_MPI;
    if (strstr(t, "exact")) m |= MODE_EXACT;
    if (strstr(t, "native")) m |= MODE_NATIVE;
    return m;
}

static size_t parse_size(const char *t) {
    char *end;
    double v = strtod(t, &end);
    if (*end == 'K' || *end == 'k')
        v *= 1024;
    else if (*end == 'M' || *end == 'm')
        v *= 1024 * 1024;
    return (size_t)v;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    bench b = {.rounds = 5,
               .factor = 2,
               .modes = MODE_EXACT | MODE_MPI | MODE_NATIVE,
               .min_bytes = 8,
               .max_bytes = 64u << 20};
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.ranks);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--min-bytes"))
            b.min_bytes = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-bytes"))
            b.max_bytes = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            b.rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--factor"))
            b.factor = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--modes"))
            b.modes = parse_modes(argv[i + 1]);
    }
    if (b.rounds < 1) b.rounds = 1;
    if (b.factor < 2) b.factor = 2;
    if (b.rounds > 64) b.rounds = 64;
    snprintf(b.exe_dir, sizeof b.exe_dir, "%s", argv[0]);
    char *slash = strrchr(b.exe_dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(b.exe_dir, sizeof b.exe_dir, ".");
    if (b.rank == 0) {
        printf("# trnsim-mpi-allreduce-perf: %d processes, 1 core each, fp32 add, %d alternated "
               "rounds per size\n",
               b.ranks, b.rounds);
        printf("# %10s %12s %6s %6s %-7s %10s %8s %8s %7s\n", "size", "count", "type", "redop",
               "mode", "time(us)", "algbw", "busbw", "#wrong");
    }
    int rc = 0;
    for (size_t bytes = b.min_bytes; bytes <= b.max_bytes && rc == 0; bytes *= (size_t)b.factor)
        rc = one_size(&b, bytes);
    MPI_Finalize();
    return rc ? 1 : 0;
}
