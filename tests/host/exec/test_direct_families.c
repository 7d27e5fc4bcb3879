/* The stock modules' direct-access fast paths (lent memory) against their
 * copying paths, bit for bit: every program runs twice on identical random
 * memory, once with direct_access on and once off, and every byte of every
 * core's SBUF and HBM, the written-byte maps and any error message must
 * agree. Random shapes, partition steps, strided and reversed dims,
 * in-place and overlapping operands, NaN payloads and infinities. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec_test.h"
#include "host/test_util.h"

#define TEST_RANDOM_SEED 0x243f6a8885a308d3ull
#include "host/test_random.h"

#define PARTS   16
#define PBYTES  4096
#define HBM     65536
#define MACHINE "machine = { partitions = 16; sbuf_partition_bytes = 4096; hbm_bytes = 65536; }; "
/* partitions of 80 KiB: operands past the 1 MiB where the kernels stream their stores */
#define BIG_MACHINE                                                                                \
    "machine = { partitions = 16; sbuf_partition_bytes = 81920; hbm_bytes = 65536; }; "
#define CFG(extra)                                                                                 \
    "%s" extra " plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; }, { family = \"bn\"; "  \
    "module = \"trnsim-bn\"; },"                                                                   \
    " { family = \"search\"; module = \"trnsim-search\"; },"                                       \
    " { family = \"collective\"; module = \"trnsim-collective\"; settings = { multi_lnc = "        \
    "\"allow\"; }; },"                                                                             \
    " { family = \"rng\"; module = \"trnsim-rng\"; } );"

static const char *machine = MACHINE;

static trn_sim *open_loaded(bool direct, const char *prog) {
    trn_sim *s;
    trn_error e;
    char cfg[1024];
    snprintf(cfg, sizeof cfg, direct ? CFG("") : CFG("direct_access = false;"), machine);
    if (test_open(cfg, &s, &e)) fail_msg("%s", e.msg);
    if (trn_sim_load_program_text(s, prog, "p.json", &e)) fail_msg("%s\n%s", e.msg, prog);
    return s;
}

/* fp32 values, mostly ordinary, some specials (NaN payloads, infinities,
 * signed zeros, ties); every byte written but for rare 4-byte holes. */
static void fill(trn_memory *a, trn_memory *b, size_t bytes, bool holes) {
    static const uint32_t special[] = {0x7fc00000u, 0xffc01234u, 0x7fa00001u,
                                       0x7f800000u, 0xff800000u, 0x00000000u,
                                       0x80000000u, 0x3f800000u, 0x00000001u};
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        uint64_t r = rnd();
        uint32_t u;
        if (r % 50 == 0)
            u = special[(r >> 8) % (sizeof special / sizeof special[0])];
        else {
            float f = (float)((int64_t)(r >> 20) % 20001 - 10000) / 64.0f;
            memcpy(&u, &f, 4);
        }
        memcpy(a->bytes + i, &u, 4);
        memcpy(b->bytes + i, &u, 4);
    }
    trn_mem_mark_written(a, 0, bytes);
    trn_mem_mark_written(b, 0, bytes);
    if (!holes) return;
    for (int h = 0; h < 2; ++h) {
        uint64_t at = rnd() % (bytes / 4) * 4;
        trn_mem_clear_written(a, at, 4);
        trn_mem_clear_written(b, at, 4);
    }
}

static void compare(const trn_sim *a, const trn_sim *b, const char *prog) {
    for (uint32_t c = 0; c < a->ncores; ++c)
        for (int m = 0; m < 3; m += 2) { /* sbuf, hbm */
            const trn_memory *ma = &a->cores[c].mem[m], *mb = &b->cores[c].mem[m];
            size_t n = (size_t)ma->partitions * ma->partition_bytes;
            for (size_t i = 0; i < n; ++i)
                if (ma->bytes[i] != mb->bytes[i])
                    fail_msg("core %u %s byte %zu: direct %02x, copying %02x in\n%s", c,
                             trn_mem_names[m], i, ma->bytes[i], mb->bytes[i], prog);
            if (memcmp(ma->written, mb->written, n / 64 * 8))
                fail_msg("core %u %s written maps differ in\n%s", c, trn_mem_names[m], prog);
        }
}

static int cases_failed_alike; /* runs where both paths refused the program */

/* Runs prog both ways; returns how many WRITE views the direct run's fast
 * paths stored through (the copying run must store through none). */
static uint64_t run_both(const char *prog, bool holes) {
    trn_sim *a = open_loaded(true, prog), *b = open_loaded(false, prog);
    uint64_t seed = rnd();
    for (uint32_t c = 0; c < a->ncores; ++c)
        for (int m = 0; m < 3; m += 2) {
            rng_state = seed + c * 7 + (uint64_t)m;
            size_t bytes =
                (size_t)a->cores[c].mem[m].partitions * a->cores[c].mem[m].partition_bytes;
            fill(&a->cores[c].mem[m], &b->cores[c].mem[m], bytes, holes);
        }
    rng_state = seed ^ 0x9e3779b97f4a7c15ull;
    trn_error ea = {""}, eb = {""};
    int ra = trn_sim_run(a, &ea), rb = trn_sim_run(b, &eb);
    if (ra != rb) fail_msg("direct %d (%s), copying %d (%s) in\n%s", ra, ea.msg, rb, eb.msg, prog);
    if (ra) {
        assert_string_equal(ea.msg, eb.msg);
        cases_failed_alike++;
    }
    compare(a, b, prog);
    if (b->lent_writes)
        fail_msg("direct_access = false still lent %" PRIu64 " WRITE views in\n%s", b->lent_writes,
                 prog);
    uint64_t fast = a->lent_writes;
    trn_sim_close(a);
    trn_sim_close(b);
    return fast;
}

/* A group's fast path must have stored in place in at least `min` of its
 * cases: a fast path that silently never runs tests nothing. */
static void expect_fast(const char *group, int fast, int cases, int min) {
    printf("%s: the fast path stored in place in %d of %d programs\n", group, fast, cases);
    if (fast < min)
        fail_msg("%s: the fast path ran in only %d of %d programs (expected >= %d)", group, fast,
                 cases, min);
}

/* A random fp32 AP in mem with np partitions and `elems` elements per
 * partition split over up to 3 dims (contiguous rows more often than not). */
static void ap_text_dt(char *buf, size_t len, const char *mem, int np, int64_t elems, bool strided,
                       const char *dt) {
    int parts_avail = !strcmp(mem, "hbm") ? 1 : PARTS;
    int64_t width = strstr(dt, "64") ? 8 : strstr(dt, "16") ? 2 : strstr(dt, "8") ? 1 : 4;
    int64_t pbytes = !strcmp(mem, "hbm") ? HBM : PBYTES, cap = pbytes / width;
    for (;;) {
        int ps = np > 1 ? (int)rnd_in(1, 2) : 1, p0 = (int)rnd_in(0, parts_avail - 1);
        if (p0 + (np - 1) * ps >= parts_avail) continue;
        int64_t step = 1, lo = 0, hi = elems - 1;
        if (strided && rnd() % 2) {
            step = rnd() % 3 ? 2 : -1;
            hi = step > 0 ? (elems - 1) * step : 0;
            lo = step > 0 ? 0 : (elems - 1) * step;
        }
        int64_t off = rnd_in(-lo, cap - 1);
        if (off + hi >= cap) continue;
        snprintf(buf, len,
                 "{\"memory\": \"%s\", \"dtype\": \"%s\", \"partition\": %d, \"partitions\": %d, "
                 "\"partition_step\": %d, \"offset\": %" PRId64 ", \"ap\": [[%" PRId64 ", %" PRId64
                 "]]}",
                 mem, dt, p0, np, ps, off, step, elems);
        return;
    }
}

static void ap_text(char *buf, size_t len, const char *mem, int np, int64_t elems, bool strided) {
    ap_text_dt(buf, len, mem, np, elems, strided, "float32");
}

/* Two fp32 SBUF APs of np partitions from partition 0, e elements each,
 * the second `gap` elements after the first in every partition. */
static void side_by_side(char *a, char *b, size_t len, int np, int64_t e, int64_t gap) {
    snprintf(
        a, len,
        "{\"memory\": \"sbuf\", \"dtype\": \"float32\", \"partitions\": %d, \"ap\": [[1, %" PRId64
        "]]}",
        np, e);
    snprintf(
        b, len,
        "{\"memory\": \"sbuf\", \"dtype\": \"float32\", \"partitions\": %d, \"offset\": %" PRId64
        ", \"ap\": [[1, %" PRId64 "]]}",
        np, e + gap, e);
}

static void collective_cases(void **st) {
    (void)st;
    int fast = 0;
    static const char *const ops[] = {"add", "max", "min"};
    for (int i = 0; i < 120; ++i) {
        int cores = (int)rnd_in(2, 4), np = (int)rnd_in(1, 8);
        int64_t e = rnd_in(1, 200);
        char in[256], out[256], prog[1024];
        ap_text(in, sizeof in, "sbuf", np, e, i % 3 == 0);
        if (rnd() % 3 == 0)
            snprintf(out, sizeof out, "%s", in); /* in place */
        else
            ap_text(out, sizeof out, "sbuf", np, e, i % 5 == 0);
        snprintf(prog, sizeof prog,
                 "{\"cores\": %d, \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": "
                 "\"AllReduce\", "
                 "\"reduce_op\": \"%s\", \"inputs\": [%s], \"outputs\": [%s]}]}",
                 cores, ops[i % 3], in, out);
        fast += run_both(prog, i % 7 == 0) > 0;
    }
    expect_fast("AllReduce", fast, 120, 30);
    /* input and output side by side in the same partitions: their [lo, hi)
     * ranges interleave but their rows never meet, so the fold runs in place */
    for (int i = 0; i < 12; ++i) {
        int cores = (int)rnd_in(2, 4), np = (int)rnd_in(2, PARTS);
        int64_t e = rnd_in(1, 200), off = rnd_in(0, 200);
        char in[256], out[256], prog[1024];
        side_by_side(in, out, sizeof in, np, e, off);
        snprintf(prog, sizeof prog,
                 "{\"cores\": %d, \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": "
                 "\"AllReduce\", "
                 "\"reduce_op\": \"add\", \"inputs\": [%s], \"outputs\": [%s]}]}",
                 cores, in, out);
        if (!run_both(prog, false))
            fail_msg("side by side rows took the copying path in\n%s", prog);
    }
}

/* AllReduce over [16 x 8192] fp32 on 4 cores: 2 MiB of outputs, so the
 * copies into outputs 1..3 stream their stores; then rows misaligned by
 * one element (the ordinary copy), rows of a length that is not a
 * multiple of 4 (a streamed body and an ordinary tail), and the same in
 * place over blocks of the fold (each block read before it is written). */
static void collective_streamed_outputs(void **st) {
    (void)st;
    machine = BIG_MACHINE;
    static const int64_t cols[4] = {8192, 8191, 8190, 8191};
    static const int64_t in_off[4] = {8200, 8200, 0, 0}, out_off[4] = {0, 1, 8200, 0};
    for (int i = 0; i < 4; ++i) {
        char prog[1024];
        snprintf(prog, sizeof prog,
                 "{\"cores\": 4, \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": "
                 "\"AllReduce\", "
                 "\"reduce_op\": \"add\", \"inputs\": [{\"memory\": \"sbuf\", \"dtype\": "
                 "\"float32\", \"partitions\": 16, "
                 "\"offset\": %" PRId64 ", \"ap\": [[1, %" PRId64
                 "]]}], \"outputs\": [{\"memory\": \"sbuf\", \"dtype\": "
                 "\"float32\", \"partitions\": 16, \"offset\": %" PRId64 ", \"ap\": [[1, %" PRId64
                 "]]}]}]}",
                 in_off[i], cols[i], out_off[i], cols[i]);
        if (!run_both(prog, false))
            fail_msg("a streamed AllReduce took the copying path in\n%s", prog);
    }
    machine = MACHINE;
}

/* ---- the other collective kinds: routing (raw, any one dtype) and
 * ReduceScatter (fp32), each on random operands both ways ---- */

static const char *const route_dtypes[] = {"float32", "bfloat16", "int32", "float8_e4m3", "int64"};

/* One CollectiveCompute of `kind` (plus attrs) over cores. */
static void cc_prog(char *buf, size_t len, int cores, const char *kind, const char *attrs,
                    const char *in, const char *out) {
    snprintf(buf, len,
             "{\"cores\": %d, \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"kind\": "
             "\"%s\"%s, "
             "\"inputs\": [%s], \"outputs\": [%s]}]}",
             cores, kind, attrs, in, out);
}

/* An AP of np partitions x e elements: SBUF, or HBM when it has one
 * partition and a coin says so. */
static void any_ap(char *buf, size_t len, int np, int64_t e, bool strided, const char *dt) {
    ap_text_dt(buf, len, np == 1 && rnd() % 2 ? "hbm" : "sbuf", np, e, strided, dt);
}

/* Program i of the random routing group: kind i % 7 (6: CollectiveSend /
 * Recv pairs). In place (output = input) now and then, which must take
 * the copying path (it reads every input first) and still agree. */
static void route_prog(char *prog, size_t len, int i) {
    int cores = (int)rnd_in(2, 4), np = (int)rnd_in(1, 6);
    int64_t f = rnd_in(1, 24) * cores; /* per partition; divisible by cores */
    const char *dt = route_dtypes[rnd() % (i % 7 == 1 ? 1 : 5)]; /* ReduceScatter: fp32 */
    bool strided = i % 4 == 0, in_place = rnd() % 5 == 0;
    char in[256], out[256], attrs[512] = "";
    any_ap(in, sizeof in, np, f, strided, dt);
    switch (i % 7) {
        case 0: /* AllGather, flat or per partition */
            if (rnd() % 2) snprintf(attrs, sizeof attrs, ", \"cc_dim\": 1");
            any_ap(out, sizeof out, np, f * cores, i % 3 == 0, dt);
            cc_prog(prog, len, cores, "AllGather", attrs, in, out);
            return;
        case 1: { /* ReduceScatter: np * f / cores per member, as 1 or np rows */
            static const char *const ops[] = {"add", "max", "min"};
            snprintf(attrs, sizeof attrs, ", \"reduce_op\": \"%s\"", ops[rnd() % 3]);
            if (rnd() % 2)
                any_ap(out, sizeof out, 1, np * f / cores, false, dt);
            else
                any_ap(out, sizeof out, np, f / cores, strided, dt);
            cc_prog(prog, len, cores, "ReduceScatter", attrs, in, out);
            return;
        }
        case 2: /* AllToAll */
            if (in_place)
                snprintf(out, sizeof out, "%s", in);
            else
                any_ap(out, sizeof out, np, f, i % 3 == 0, dt);
            cc_prog(prog, len, cores, "AllToAll", "", in, out);
            return;
        case 3: { /* AllToAllV: a circulant send_counts, so every row and column sums to np * f */
            int64_t total = np * f, c[4] = {0}, left = total;
            for (int k = 0; k + 1 < cores; ++k) left -= c[k] = rnd_in(0, left);
            c[cores - 1] = left;
            char *a = attrs + snprintf(attrs, sizeof attrs, ", \"send_counts\": [");
            for (int r = 0; r < cores; ++r) {
                a += sprintf(a, "%s[", r ? ", " : "");
                for (int k = 0; k < cores; ++k)
                    a += sprintf(a, "%s%" PRId64, k ? ", " : "", c[(k - r + cores) % cores]);
                a += sprintf(a, "]");
            }
            sprintf(a, "]");
            any_ap(out, sizeof out, np, f, i % 3 == 0, dt);
            cc_prog(prog, len, cores, "AllToAllV", attrs, in, out);
            return;
        }
        case 4: { /* Permute (a random permutation of the cores), PermuteImplicit or SendRecv */
            if (in_place)
                snprintf(out, sizeof out, "%s", in);
            else
                any_ap(out, sizeof out, np, f, i % 3 == 0, dt);
            int pick = (int)(rnd() % 3);
            if (pick == 0) {
                int perm[4] = {0, 1, 2, 3};
                for (int k = cores - 1; k > 0; --k) {
                    int r = (int)(rnd() % (uint64_t)(k + 1)), t = perm[k];
                    perm[k] = perm[r], perm[r] = t;
                }
                char *a = attrs + snprintf(attrs, sizeof attrs, ", \"src_target_pairs\": [");
                for (int k = 0; k < cores; ++k)
                    a += sprintf(a, "%s[%d, %d]", k ? ", " : "", k, perm[k]);
                sprintf(a, "]");
            } else if (pick == 2) {
                snprintf(attrs, sizeof attrs, ", \"peer_offset\": %d", (int)rnd_in(1, cores - 1));
            }
            cc_prog(prog, len, cores,
                    pick == 0   ? "Permute"
                    : pick == 1 ? "PermuteImplicit"
                                : "SendRecv",
                    attrs, in, out);
            return;
        }
        case 5: /* the identity (PermuteReduce) */
            if (in_place)
                snprintf(out, sizeof out, "%s", in);
            else
                any_ap(out, sizeof out, np, f, i % 3 == 0, dt);
            cc_prog(prog, len, cores, "PermuteReduce", "", in, out);
            return;
        default: /* CollectiveSend from the even cores to the next odd one */
            any_ap(out, sizeof out, np, f, i % 3 == 0, dt);
            snprintf(prog, len,
                     "{\"cores\": 4, \"instructions\": [{\"opcode\": \"CollectiveSend\", "
                     "\"peer_id\": [1, -1, 3, -1], "
                     "\"inputs\": [%s]}, {\"opcode\": \"CollectiveRecv\", \"peer_id\": [-1, 0, -1, "
                     "2], \"outputs\": [%s]}]}",
                     in, out);
            return;
    }
}

static void collective_route_cases(void **st) {
    (void)st;
    int fast[7] = {0}, runs[7] = {0};
    static const char *const names[7] = {"AllGather",
                                         "ReduceScatter",
                                         "AllToAll",
                                         "AllToAllV",
                                         "Permute / PermuteImplicit / SendRecv",
                                         "PermuteReduce (identity)",
                                         "CollectiveSend / Recv"};
    for (int i = 0; i < 7 * 40; ++i) {
        char prog[2048];
        route_prog(prog, sizeof prog, i);
        fast[i % 7] += run_both(prog, i % 9 == 0) > 0;
        runs[i % 7]++;
    }
    for (int k = 0; k < 7; ++k) expect_fast(names[k], fast[k], runs[k], 12);
}

/* Each kind on operands side by side in the same partitions (their rows
 * never meet) must take the fast path. */
static void collective_route_side_by_side(void **st) {
    (void)st;
    for (int i = 0; i < 6; ++i) {
        int cores = 2 + i % 3, np = (int)rnd_in(2, PARTS);
        int64_t f = rnd_in(1, 20) * cores, gap = rnd_in(0, 50);
        char in[256], out[256], prog[2048];
        side_by_side(in, out, sizeof in, np, f, gap);
        cc_prog(prog, sizeof prog, cores, "AllToAll", "", in, out);
        if (!run_both(prog, false))
            fail_msg("side by side rows took the copying path in\n%s", prog);
        cc_prog(prog, sizeof prog, cores, "PermuteImplicit", "", in, out);
        if (!run_both(prog, false))
            fail_msg("side by side rows took the copying path in\n%s", prog);
        snprintf(out, sizeof out,
                 "{\"memory\": \"sbuf\", \"dtype\": \"float32\", \"partitions\": %d, \"offset\": "
                 "%" PRId64 ", \"ap\": [[1, %" PRId64 "]]}",
                 np, f + gap, f * cores);
        cc_prog(prog, sizeof prog, cores, "AllGather", ", \"cc_dim\": 1", in, out);
        if (!run_both(prog, false))
            fail_msg("side by side rows took the copying path in\n%s", prog);
        snprintf(out, sizeof out,
                 "{\"memory\": \"sbuf\", \"dtype\": \"float32\", \"partitions\": %d, \"offset\": "
                 "%" PRId64 ", \"ap\": [[1, %" PRId64 "]]}",
                 np, f + gap, f / cores);
        cc_prog(prog, sizeof prog, cores, "ReduceScatter", ", \"reduce_op\": \"add\"", in, out);
        if (!run_both(prog, false))
            fail_msg("side by side rows took the copying path in\n%s", prog);
    }
}

static void dma_cases(void **st) {
    (void)st;
    int fast = 0;
    for (int i = 0; i < 150; ++i) {
        char src[256], dst[256], prog[1024];
        int np = (int)rnd_in(1, 8);
        int64_t e = rnd_in(1, 64);
        ap_text(src, sizeof src, "sbuf", np, e, i % 4 == 0);
        if (i % 2) { /* transpose [np, e] -> [e, np] into HBM or SBUF rows */
            if (rnd() % 4 == 0)
                snprintf(dst, sizeof dst, "%s", src);
            else
                ap_text(dst, sizeof dst, rnd() % 2 ? "hbm" : "sbuf", 1, e * np, false);
            snprintf(prog, sizeof prog,
                     "{\"instructions\": [{\"opcode\": \"DMACopy\", \"mode\": 1, \"perm\": [0, 1, "
                     "3, 2], "
                     "\"shape\": [1, 1, %d, %" PRId64 "], \"inputs\": [%s], \"outputs\": [%s]}]}",
                     np, e, src, dst);
        } else {
            ap_text(dst, sizeof dst, "sbuf", np, e, i % 3 == 0);
            snprintf(prog, sizeof prog,
                     "{\"instructions\": [{\"opcode\": \"TensorCopy\", \"inputs\": [%s], "
                     "\"outputs\": [%s]}]}",
                     src, dst);
        }
        fast += run_both(prog, i % 6 == 0) > 0;
    }
    expect_fast("DMA transpose and copy", fast, 150, 30);
    for (int i = 0; i < 12; ++i) { /* side by side in the same partitions: in place */
        char src[256], dst[256], prog[1024];
        int np = (int)rnd_in(2, PARTS);
        int64_t e = rnd_in(1, 200), gap = rnd_in(0, 200);
        if (i % 2)
            side_by_side(src, dst, sizeof src, np, e, gap);
        else
            side_by_side(dst, src, sizeof src, np, e, gap);
        snprintf(prog, sizeof prog,
                 "{\"instructions\": [{\"opcode\": \"TensorCopy\", \"inputs\": [%s], \"outputs\": "
                 "[%s]}]}",
                 src, dst);
        if (!run_both(prog, false))
            fail_msg("side by side rows took the copying path in\n%s", prog);
    }
}

static void bn_cases(void **st) {
    (void)st;
    for (int i = 0; i < 100; ++i) {
        char x[256], out[256], prog[1024];
        int np = (int)rnd_in(1, 8);
        ap_text(x, sizeof x, "sbuf", np, rnd_in(1, 300), i % 4 == 0);
        ap_text(out, sizeof out, "sbuf", np, 6, false);
        snprintf(
            prog, sizeof prog,
            "{\"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [%s], \"outputs\": [%s]}]}",
            x, out);
        run_both(prog, i % 6 == 0);
    }
}

static void search_cases(void **st) {
    (void)st;
    int fast = 0;
    for (int i = 0; i < 120; ++i) {
        char data[256], vals[256], idx[256], prog[2048];
        int np = (int)rnd_in(1, 8);
        ap_text(data, sizeof data, "sbuf", np, rnd_in(8, 200), i % 4 == 0);
        ap_text(vals, sizeof vals, "sbuf", np, 8, false);
        ap_text_dt(idx, sizeof idx, "hbm", np > 1 ? 1 : 1, 8, false, "uint32");
        /* Max into vals, then a TopK round in place: strike the 8 out (or,
         * every third case, MatchReplace into the values' own AP) */
        if (np > 1) ap_text_dt(idx, sizeof idx, "sbuf", np, 8, false, "uint32");
        if (i % 3)
            snprintf(
                prog, sizeof prog,
                "{\"instructions\": [{\"opcode\": \"Max\", \"inputs\": [%s], \"outputs\": [%s]},"
                " {\"opcode\": \"MaxIndexAndMatchReplace\", \"imm_value\": \"-inf\", \"inputs\": "
                "[%s, %s], "
                "\"outputs\": [%s, %s]}]}",
                data, vals, vals, data, data, idx);
        else
            snprintf(
                prog, sizeof prog,
                "{\"instructions\": [{\"opcode\": \"Max\", \"inputs\": [%s], \"outputs\": [%s]},"
                " {\"opcode\": \"MatchReplace\", \"imm_value\": 0.5, \"inputs\": [%s, %s], "
                "\"outputs\": [%s]}]}",
                data, vals, vals, data, data);
        fast += run_both(prog, i % 6 == 0) > 0;
    }
    expect_fast("TopK strike-out and MatchReplace", fast, 120, 10);
}

/* One Rand / Rand2 instruction (alg 0 LFSR, 1 PCG32, 2 Philox, 3 Rand2
 * XORWOW) into a random AP: rows apart, rows abutting (a whole SBUF
 * partition, or HBM), strided, one partition visited again and again. */
static void rng_inst(char *buf, size_t len, int alg, int i) {
    const char *dt = alg == 3 ? "float32" : "uint32";
    char ap[256];
    int np = (int)rnd_in(1, PARTS);
    switch (i % 4) {
        case 0: ap_text_dt(ap, sizeof ap, "sbuf", np, rnd_in(1, 300), i % 8 == 0, dt); break;
        case 1:
            snprintf(
                ap, sizeof ap,
                "{\"memory\": \"sbuf\", \"dtype\": \"%s\", \"partition\": %d, \"partitions\": %d, "
                "\"ap\": [[1, %d]]}",
                dt, (int)rnd_in(0, PARTS - np), np, PBYTES / 4);
            break;
        case 2: ap_text_dt(ap, sizeof ap, "hbm", 1, rnd_in(1, 2000), i % 8 == 2, dt); break;
        default:
            snprintf(
                ap, sizeof ap,
                "{\"memory\": \"sbuf\", \"dtype\": \"%s\", \"partition\": 3, \"partitions\": %d, "
                "\"partition_step\": 0, \"ap\": [[1, %d]]}",
                dt, (int)rnd_in(2, 4), (int)rnd_in(1, 100));
    }
    if (alg == 3)
        snprintf(buf, len,
                 "{\"opcode\": \"Rand2\", \"min\": -2.5, \"max\": 3.0, \"is_4x2p\": %d, "
                 "\"outputs\": [%s]}",
                 i % 3 == 0, ap);
    else
        snprintf(buf, len, "{\"opcode\": \"Rand\", \"algorithm\": %d, \"outputs\": [%s]}", alg, ap);
}

/* Two generating instructions in a row, so the second also shows that the
 * engine states advanced alike on both paths. */
static void rng_cases(void **st) {
    (void)st;
    int fast = 0;
    for (int i = 0; i < 160; ++i) {
        char a[512], b[512], prog[1200];
        rng_inst(a, sizeof a, i % 4, i);
        rng_inst(b, sizeof b, (i / 4) % 4, i + 1);
        snprintf(prog, sizeof prog, "{\"instructions\": [%s, %s]}", a, b);
        fast += run_both(prog, false) > 0;
    }
    expect_fast("Rand / Rand2 into lent rows", fast, 160, 60);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(collective_cases),
        cmocka_unit_test(collective_streamed_outputs),
        cmocka_unit_test(collective_route_cases),
        cmocka_unit_test(collective_route_side_by_side),
        cmocka_unit_test(dma_cases),
        cmocka_unit_test(bn_cases),
        cmocka_unit_test(search_cases),
        cmocka_unit_test(rng_cases),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    printf("programs both paths refused alike: %d\n", cases_failed_alike);
    return rc;
}
