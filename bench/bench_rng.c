/* RNG family benchmarks: Rand (each algorithm) and Rand2 at [128 x 4096],
 * [128 x 16384] and [128 x 65536] (the size) through the host
 * (program -> dispatch -> trnsim-rng -> SBUF), each against a plain
 * single-stream reference loop of the same generator producing the same
 * number of values in the same run (the reference's code, one element at a time,
 * into a dense buffer). Before and after timing, every partition of the host's output
 * is checked bit for bit against the scalar oracle of tests/rng run from the
 * default state (docs/rng.md: every run starts from {1,1,1,1,1,1}, so every
 * partition holds the same stream until a program seeds it).
 *
 * 65536 uint32 per partition is 256 KiB, more than the default 192 KiB
 * SBUF partition, so the bench config raises sbuf_partition_bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The scalar oracle itself, not a copy. */
#include "../plugins/rng/ref/rng_oracle.c"
/* The PCG32 kernels themselves, to time each path without the host. */
#include "../plugins/rng/rng_isa.c"
#include "../plugins/rng/rng_pcg32.c"
#include "../plugins/rng/rng_pcg32_avx2.c"

static const char rng_config[] = "machine = { partitions = 128; sbuf_partition_bytes = 327680; };\n"
                                 "plugins = ( { family = \"rng\"; module = \"trnsim-rng\"; } );\n";

#define RNG_P 128

/* Three sizes: the 65536 columns and x1/4, x1/16 of it (x1/16 of
 * each under --quick, which also shortens every timing). */
#define RNG_SIZES 3

static size_t rng_cols(int k) {
    static const size_t full[RNG_SIZES] = {4096, 16384, 65536},
                        quick[RNG_SIZES] = {256, 1024, 4096};
    return bench_quick() ? quick[k] : full[k];
}

static double min_s(double full) { return bench_quick() ? full / 10 : full; }

/* ---- the reference loops: one stream, one element at a time ------------ */

typedef struct ref_arg {
    int kind; /* 0 LFSR, 1 PCG32, 2 Philox, 3 XORWOW float */
    size_t n;
    void *out;
} ref_arg;

static uint32_t ref_lfsr(uint32_t *state) {
    uint32_t s = *state;
    uint32_t b = (s >> 31) ^ (s >> 21) ^ (s >> 1) ^ (s >> 0);
    s = (s << 1) | (b & 1);
    *state = s;
    return s;
}

static uint32_t ref_pcg32(uint64_t *state) {
    uint64_t oldstate = *state;
    *state = oldstate * 0x5851F42D4C957F2DULL + 0x14057B7EF767814FULL;
    uint32_t xorshifted = (uint32_t)(((oldstate >> 18) ^ oldstate) >> 27);
    uint32_t rot = (uint32_t)(oldstate >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

static void ref_philox(uint32_t ctr[4], const uint32_t key_in[2], uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key_in[0], k1 = key_in[1];
    for (int r = 0; r < 10; ++r) {
        if (r) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c0 = n0, c1 = (uint32_t)p1, c2 = n2, c3 = (uint32_t)p0;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

static uint32_t ref_xorwow(uint32_t s[6]) {
    uint32_t t = s[0] ^ (s[0] >> 2);
    s[0] = s[1];
    s[1] = s[2];
    s[2] = s[3];
    s[3] = s[4];
    s[4] = (s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1));
    s[5] += 362437u;
    return s[5] + s[4];
}

static void ref_loop(void *argp) {
    ref_arg *a = argp;
    uint32_t *u = a->out;
    if (a->kind == 0) {
        uint32_t s = 1;
        for (size_t i = 0; i < a->n; ++i) u[i] = ref_lfsr(&s);
    } else if (a->kind == 1) {
        uint64_t s = 0x100000001ULL;
        for (size_t i = 0; i < a->n; ++i) u[i] = ref_pcg32(&s);
    } else if (a->kind == 2) {
        uint32_t ctr[4] = {1, 1, 1, 1}, key[2] = {1, 1};
        for (size_t i = 0; i < a->n; i += 4) {
            ref_philox(ctr, key, u + i);
            if (++ctr[0] == 0 && ++ctr[1] == 0 && ++ctr[2] == 0) ++ctr[3];
        }
    } else {
        uint32_t s[6] = {1, 1, 1, 1, 1, 1};
        float *f = a->out, lo = 0.0f, hi = 1.0f;
        for (size_t i = 0; i < a->n; ++i) {
            uint32_t r = ref_xorwow(s), bits = (r & 0x7FFFFF) | 0x3F800000;
            float x;
            memcpy(&x, &bits, 4);
            f[i] = lo + (hi - lo) * (x - 1.0f);
        }
    }
}

/* ---- through the host -------------------------------------------------- */

/* One case: the instruction, and what the oracle needs to predict it. */
typedef struct rng_spec {
    const char *kernel, *instr, *dtype;
    int ref_kind;    /* the reference loop timed against */
    int alg;         /* Rand: the algorithm; Rand2: -1 */
    unsigned nlanes; /* Rand2: lanes driving the columns */
    float lo, hi;    /* Rand2: min, max */
} rng_spec;

/* One partition's n values from the default state, by the oracle. */
static void oracle_partition(const rng_spec *c, size_t n, void *out) {
    uint32_t w[24];
    for (int i = 0; i < 24; ++i) w[i] = 1;
    if (c->alg >= 0)
        orc_rand(c->alg, w, out, n);
    else
        orc_rand2(w, c->nlanes, c->lo, c->hi, out, n);
}

/* The first partition of the host's output that differs from the oracle,
 * bit for bit, or -1. */
static int first_mismatch(trn_sim *s, const rng_spec *c, size_t n) {
    uint32_t *got = malloc((size_t)RNG_P * n * 4), *want = malloc(n * 4);
    bench_get(s, "r", got, (size_t)RNG_P * n * 4);
    oracle_partition(c, n, want);
    int p = 0;
    while (p < RNG_P && memcmp(got + (size_t)p * n, want, n * 4) == 0) ++p;
    free(got);
    free(want);
    return p < RNG_P ? p : -1;
}

static void rng_case_at(const rng_spec *c, size_t n) {
    char prog[512], size[48];
    snprintf(prog, sizeof prog,
             "{\"tensors\": [{\"name\": \"r\", \"memory\": \"sbuf\", \"dtype\": \"%s\", \"shape\": "
             "[%d, %zu]}],"
             " \"instructions\": [%s]}",
             c->dtype, RNG_P, n, c->instr);
    trn_sim *s = bench_open(rng_config);
    bench_load(s, prog);
    bench_run(s);
    const int bad = first_mismatch(s, c, n);
    if (bad >= 0) {
        printf("MISMATCH: %s partition %d differs from the scalar oracle; not timing it\n",
               c->kernel, bad);
    } else {
        ref_arg a = {c->ref_kind, (size_t)RNG_P * n, malloc((size_t)RNG_P * n * 4)};
        const bench_job base = {ref_loop, &a};
        bench_paired r;
        bench_compare(bench_run_job(s), &base, 1, min_s(1.0), &r);
        snprintf(size, sizeof size, "[%d x %zu]", RNG_P, n);
        /* every run starts from the default states, so the last one must
         * have left the same values */
        if (first_mismatch(s, c, n) >= 0)
            bench_mismatch_after(c->kernel);
        else
            bench_report(c->kernel, size, (double)RNG_P * (double)n, "val",
                         "single-stream reference loop", &r);
        free(a.out);
    }
    trn_sim_close(s);
}

static void rng_case(const rng_spec *c) {
    for (int k = 0; k < RNG_SIZES; ++k) rng_case_at(c, rng_cols(k));
}

BENCH_CASE(rng_rand) {
    static const char *const names[3] = {"Rand LFSR", "Rand PCG32", "Rand Philox4x32-10"};
    for (int alg = 0; alg < 3; ++alg) {
        char instr[128];
        snprintf(instr, sizeof instr,
                 "{\"opcode\": \"Rand\", \"algorithm\": %d, \"outputs\": [\"r\"]}", alg);
        const rng_spec c = {names[alg], instr, "uint32", alg, alg, 0, 0.0f, 0.0f};
        rng_case(&c);
    }
}

BENCH_CASE(rng_rand2) {
    static const rng_spec cases[2] = {
        {"Rand2 XORWOW [0,1)", "{\"opcode\": \"Rand2\", \"outputs\": [\"r\"]}", "float32", 3, -1, 1,
         0.0f, 1.0f},
        {"Rand2 XORWOW 4x2p [-1,1)",
         "{\"opcode\": \"Rand2\", \"min\": -1, \"max\": 1, \"is_4x2p\": true, \"outputs\": "
         "[\"r\"]}",
         "float32", 3, -1, 4, -1.0f, 1.0f},
    };
    for (int i = 0; i < 2; ++i) rng_case(&cases[i]);
}

/* ---- the PCG32 kernel alone, each path this CPU has -------------------- */

typedef struct pcg_kernel_arg {
    rng_isa isa;
    uint32_t states[RNG_P * RNG_GEN1_WORDS];
    uint32_t *out;
    size_t n;
} pcg_kernel_arg;

static void pcg_kernel_run(void *argp) {
    pcg_kernel_arg *a = argp;
    for (size_t i = 0; i < RNG_P * RNG_GEN1_WORDS; ++i) a->states[i] = 1;
    rng_pcg32_fill(a->isa, a->states, RNG_P, a->out, a->n);
}

static int pcg_kernel_ok(const pcg_kernel_arg *a, const uint32_t *want) {
    for (int p = 0; p < RNG_P; ++p)
        if (memcmp(a->out + (size_t)p * a->n, want, a->n * 4)) return 0;
    return 1;
}

static void pcg_kernel_at(size_t n) {
    const rng_spec c = {"PCG32", "", "uint32", 1, 1, 0, 0.0f, 0.0f};
    uint32_t *want = malloc(n * 4);
    oracle_partition(&c, n, want);
    ref_arg r = {1, (size_t)RNG_P * n, malloc((size_t)RNG_P * n * 4)};
    const bench_job base = {ref_loop, &r};
    pcg_kernel_arg *a = malloc(sizeof *a);
    a->out = malloc((size_t)RNG_P * n * 4);
    a->n = n;
    const rng_isa isas[2] = {RNG_ISA_PORTABLE, RNG_ISA_AVX2};
    for (int i = 0; i < 2; ++i) {
        if (isas[i] == RNG_ISA_AVX2 && rng_isa_best() != RNG_ISA_AVX2) {
            printf("  (no AVX2 on this CPU: the AVX2 path is not timed)\n");
            continue;
        }
        a->isa = isas[i];
        pcg_kernel_run(a);
        char name[48], size[48];
        snprintf(name, sizeof name, "PCG32 kernel, %s%s", rng_isa_name(isas[i]),
                 isas[i] == rng_isa_best() ? " (used)" : "");
        if (!pcg_kernel_ok(a, want)) {
            printf("MISMATCH: %s differs from the scalar oracle; not timing it\n", name);
            continue;
        }
        bench_paired p;
        bench_compare((bench_job){pcg_kernel_run, a}, &base, 1, min_s(1.0), &p);
        snprintf(size, sizeof size, "[%d x %zu]", RNG_P, n);
        if (!pcg_kernel_ok(a, want))
            bench_mismatch_after(name);
        else
            bench_report(name, size, (double)RNG_P * (double)n, "val",
                         "single-stream reference loop", &p);
    }
    free(a->out);
    free(a);
    free(r.out);
    free(want);
}

BENCH_CASE(rng_pcg32_kernel) {
    for (int k = 0; k < RNG_SIZES; ++k) pcg_kernel_at(rng_cols(k));
}
