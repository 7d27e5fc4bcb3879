/* Bound inputs (trn_sim_bind_tensor, memory/memory.h) against copied ones
 * (trn_sim_set_tensor), bit for bit: every program runs on two sims whose
 * memories hold the same random bytes; one binds the input to a buffer
 * (so the memory under it keeps stale bytes that must never be read), the
 * other copies it in. After the run the bound sim settles its bindings and
 * every byte of every memory, the written-byte maps and any error must
 * agree, and the caller's buffer must be untouched. Programs read the
 * input in place (BN, Max), through the copying calls, through a view,
 * write into it, and reduce it across cores. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec_test.h"
#include "host/test_util.h"

#define TEST_RANDOM_SEED 0x9b05688c2b3e6c1full
#include "host/test_random.h"

#define PARTS  16
#define PBYTES 8192
#define HBM    65536
#define CFG                                                                                        \
    "machine = { partitions = 16; sbuf_partition_bytes = 8192; hbm_bytes = 65536; }; "             \
    " plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; }, { family = \"bn\"; module = "    \
    "\"trnsim-bn\"; },"                                                                            \
    " { family = \"search\"; module = \"trnsim-search\"; },"                                       \
    " { family = \"collective\"; module = \"trnsim-collective\"; } );"

static trn_sim *open_loaded(const char *prog) {
    trn_sim *s;
    trn_error e;
    if (test_open(CFG, &s, &e)) fail_msg("%s", e.msg);
    if (trn_sim_load_program_text(s, prog, "p.json", &e)) fail_msg("%s\n%s", e.msg, prog);
    return s;
}

/* The same random fp32 values in both memories, every byte written. */
static void fill_same(trn_memory *a, trn_memory *b) {
    size_t bytes = (size_t)a->partitions * a->partition_bytes;
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        float f = (float)((int64_t)(rnd() >> 20) % 20001 - 10000) / 64.0f;
        memcpy(a->bytes + i, &f, 4);
        memcpy(b->bytes + i, &f, 4);
    }
    trn_mem_mark_written(a, 0, bytes);
    trn_mem_mark_written(b, 0, bytes);
}

static void compare(const trn_sim *a, const trn_sim *b, const char *prog) {
    for (uint32_t c = 0; c < a->ncores; ++c)
        for (int m = 0; m < 3; ++m) {
            const trn_memory *ma = &a->cores[c].mem[m], *mb = &b->cores[c].mem[m];
            size_t n = (size_t)ma->partitions * ma->partition_bytes;
            if (memcmp(ma->bytes, mb->bytes, n)) {
                size_t i = 0;
                while (ma->bytes[i] == mb->bytes[i]) ++i;
                fail_msg("core %u %s byte %zu: bound %02x, copied %02x in\n%s", c, trn_mem_names[m],
                         i, ma->bytes[i], mb->bytes[i], prog);
            }
            if (memcmp(ma->written, mb->written, trn_mem_map_bytes(ma)))
                fail_msg("core %u %s written maps differ in\n%s", c, trn_mem_names[m], prog);
        }
}

static bool any_bound(const trn_sim *s) {
    for (uint32_t c = 0; c < s->ncores; ++c)
        for (int m = 0; m < 3; ++m)
            if (s->cores[c].mem[m].n_bound) return true;
    return false;
}

/* Runs prog both ways with x bound in one (on core bind_core, -1 all) and
 * every other tensor set alike; true when the binding outlived the run
 * (nothing had to copy it in: every read of it was in place). */
static bool run_both(const char *prog, const char *const *tensors, int n_tensors, int bind_core) {
    trn_sim *a = open_loaded(prog), *b = open_loaded(prog);
    for (uint32_t c = 0; c < a->ncores; ++c)
        for (int m = 0; m < 3; ++m) fill_same(&a->cores[c].mem[m], &b->cores[c].mem[m]);
    trn_error ea = {""}, eb = {""};
    uint8_t *buf[4] = {0}, *keep[4] = {0};
    for (int k = 0; k < n_tensors; ++k) {
        trn_tensor_info t;
        if (trn_sim_tensor_info(a, tensors[k], &t, &ea)) fail_msg("%s", ea.msg);
        size_t bytes = (size_t)t.count * 4;
        buf[k] = malloc(bytes);
        keep[k] = malloc(bytes);
        for (size_t i = 0; i + 4 <= bytes; i += 4) {
            float f = (float)((int64_t)(rnd() >> 24) % 2001 - 1000) / 16.0f;
            memcpy(buf[k] + i, &f, 4);
        }
        memcpy(keep[k], buf[k], bytes);
        int bound = k == 0; /* the first tensor is the one bound */
        if (bound ? trn_sim_bind_tensor(a, tensors[k], bind_core, buf[k], bytes, &ea)
                  : trn_sim_set_tensor(a, tensors[k], -1, buf[k], bytes, &ea))
            fail_msg("%s", ea.msg);
        if (trn_sim_set_tensor(b, tensors[k], bound ? bind_core : -1, buf[k], bytes, &eb))
            fail_msg("%s", eb.msg);
    }
    int ra = trn_sim_run(a, &ea), rb = trn_sim_run(b, &eb);
    if (ra != rb) fail_msg("bound %d (%s), copied %d (%s) in\n%s", ra, ea.msg, rb, eb.msg, prog);
    if (ra) assert_string_equal(ea.msg, eb.msg);
    bool kept = any_bound(a);
    /* reading the bound tensor back goes through the copying calls */
    trn_tensor_info t;
    trn_sim_tensor_info(a, tensors[0], &t, &ea);
    size_t bytes = (size_t)t.count * 4;
    uint8_t *ga = malloc(bytes), *gb = malloc(bytes);
    int core = bind_core < 0 ? 0 : bind_core;
    if (trn_sim_get_tensor(a, tensors[0], core, ga, bytes, &ea) ||
        trn_sim_get_tensor(b, tensors[0], core, gb, bytes, &eb))
        fail_msg("get: %s %s", ea.msg, eb.msg);
    assert_memory_equal(ga, gb, bytes);
    free(ga);
    free(gb);
    trn_sim_settle_bindings(a);
    compare(a, b, prog);
    for (int k = 0; k < n_tensors; ++k) {
        trn_sim_tensor_info(a, tensors[k], &t, &ea);
        if (memcmp(buf[k], keep[k], (size_t)t.count * 4))
            fail_msg("the run wrote into the bound buffer in\n%s", prog);
        free(buf[k]);
        free(keep[k]);
    }
    trn_sim_close(a);
    trn_sim_close(b);
    return kept;
}

/* x [np, e] fp32 at a random place in sbuf (or hbm), y beside it, v a
 * view of x's shape at x or shifted over y; ops read or write them. */
typedef struct layout {
    int np, p0;
    int64_t e, xoff;
    bool hbm;
    char tensors[1024];
} layout;

static void random_layout(layout *l, int64_t min_e) {
    l->hbm = rnd() % 5 == 0;
    l->np = l->hbm ? 1 : (int)rnd_in(1, PARTS);
    l->p0 = l->hbm ? 0 : (int)rnd_in(0, PARTS - l->np);
    l->e = rnd_in(min_e, 600);
    l->xoff = rnd_in(0, 64) * 4;
    const char *mem = l->hbm ? "hbm" : "sbuf";
    int64_t yoff = l->xoff + l->e * 4 + rnd_in(0, 8) * 4;
    /* v: x's shape, shifted by up to a row: inside x, or partly over y */
    int64_t vlen = l->e, voff = rnd() % 3 ? 0 : rnd_in(0, l->e) * 4;
    snprintf(
        l->tensors, sizeof l->tensors,
        "{\"name\": \"x\", \"memory\": \"%s\", \"dtype\": \"float32\", \"shape\": [%d, %" PRId64
        "], "
        "\"partition\": %d, \"offset\": %" PRId64 "},"
        " {\"name\": \"y\", \"memory\": \"%s\", \"dtype\": \"float32\", \"shape\": [%d, %" PRId64
        "], "
        "\"partition\": %d, \"offset\": %" PRId64 "},"
        " {\"name\": \"v\", \"view_of\": \"x\", \"dtype\": \"float32\", \"shape\": [%d, %" PRId64
        "], "
        "\"offset\": %" PRId64 "},"
        " {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%d, 6], "
        "\"offset\": 7000},"
        " {\"name\": \"m8\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [%d, 8], "
        "\"offset\": 7100}",
        mem, l->np, l->e, l->p0, l->xoff, mem, l->np, l->e, l->p0, yoff, l->np, vlen, voff, l->np,
        l->np);
}

static const char *const bn_ops[] = {
    "{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], \"outputs\": [\"st\"]}",
    "{\"opcode\": \"BNStats\", \"inputs\": [\"v\"], \"outputs\": [\"st\"]}",
    "{\"opcode\": \"Max\", \"inputs\": [\"x\"], \"outputs\": [\"m8\"]}",
};
static const char *const other_ops[] = {
    "{\"opcode\": \"TensorCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}",
    "{\"opcode\": \"TensorCopy\", \"inputs\": [\"y\"], \"outputs\": [\"x\"]}",
    "{\"opcode\": \"TensorCopy\", \"inputs\": [\"y\"], \"outputs\": [\"v\"]}",
    "{\"opcode\": \"DMACopy\", \"inputs\": [\"y\"], \"outputs\": [\"x\"], \"accumulate\": true}",
};

/* In-place readers only: the binding must survive in most programs. */
static void readers_in_place(void **st) {
    (void)st;
    int kept = 0, cases = 150;
    for (int i = 0; i < cases; ++i) {
        layout l;
        random_layout(&l, 8);
        char prog[4096];
        int a = (int)(rnd() % 3), b = (int)(rnd() % 3);
        snprintf(prog, sizeof prog, "{\"tensors\": [%s], \"instructions\": [%s, %s]}", l.tensors,
                 l.hbm ? bn_ops[0] : bn_ops[a], l.hbm ? bn_ops[0] : bn_ops[b]);
        if (l.hbm)
            snprintf(prog, sizeof prog, "{\"tensors\": [%s], \"instructions\": [%s]}", l.tensors,
                     other_ops[0]);
        const char *names[] = {"x", "y"};
        kept += run_both(prog, names, 2, -1);
    }
    printf("in-place readers: the binding outlived the run in %d of %d programs\n", kept, cases);
    if (kept < cases / 2)
        fail_msg("the binding was read in place in only %d of %d programs", kept, cases);
}

/* Readers and writers mixed: copies in place of the binding when touched. */
static void readers_and_writers(void **st) {
    (void)st;
    for (int i = 0; i < 200; ++i) {
        layout l;
        random_layout(&l, 8);
        char prog[4096], insts[1024] = "";
        int n = (int)rnd_in(1, 4);
        for (int k = 0; k < n; ++k) {
            const char *op = l.hbm || rnd() % 2 ? other_ops[rnd() % 4] : bn_ops[rnd() % 3];
            if (l.hbm && strstr(op, "BNStats")) op = other_ops[0];
            snprintf(insts + strlen(insts), sizeof insts - strlen(insts), "%s%s", k ? ", " : "",
                     op);
        }
        snprintf(prog, sizeof prog, "{\"tensors\": [%s], \"instructions\": [%s]}", l.tensors,
                 insts);
        const char *names[] = {"x", "y"};
        run_both(prog, names, 2, -1);
    }
}

/* Several cores: bound on all or one; AllReduce reads and writes it. */
static void across_cores(void **st) {
    (void)st;
    static const char *const ops[] = {
        "{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllReduce\", \"reduce_op\": \"add\", "
        "\"inputs\": [\"x\"], "
        "\"outputs\": [\"y\"]}",
        "{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllReduce\", \"reduce_op\": \"max\", "
        "\"inputs\": [\"x\"], "
        "\"outputs\": [\"x\"]}",
        "{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], \"outputs\": [\"st\"]}",
    };
    for (int i = 0; i < 60; ++i) {
        layout l;
        do random_layout(&l, 8);
        while (l.hbm);
        int cores = (int)rnd_in(2, 4), bind_core = rnd() % 2 ? -1 : (int)rnd_in(0, cores - 1);
        char prog[4096];
        snprintf(prog, sizeof prog,
                 "{\"cores\": %d, \"tensors\": [%s], \"instructions\": [%s, %s]}", cores, l.tensors,
                 ops[rnd() % 3], ops[rnd() % 3]);
        const char *names[] = {"x", "y"};
        run_both(prog, names, 2, bind_core);
    }
}

/* Bind, rebind, set and unbind: which bytes the tensor holds after each. */
static void lifetime(void **st) {
    (void)st;
    const char *prog = "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": "
                       "\"float32\", \"shape\": [4, 16]},"
                       " {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
                       "\"shape\": [4, 6], \"offset\": 4096}],"
                       " \"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], "
                       "\"outputs\": [\"st\"]}]}";
    trn_sim *s = open_loaded(prog);
    trn_error e;
    float a[64], b[64], got[64];
    for (int i = 0; i < 64; ++i) a[i] = (float)i, b[i] = (float)(100 - i);
    assert_int_equal(trn_sim_bind_tensor(s, "x", -1, a, sizeof a, &e), 0);
    assert_int_equal(trn_sim_run(s, &e), 0);
    assert_int_equal(s->cores[0].mem[TRN_MEM_SBUF].n_bound, 1); /* read in place */
    a[5] = 77.0f; /* a change between runs is what the next run, and a get, reads */
    assert_int_equal(trn_sim_get_tensor(s, "x", 0, got, sizeof got, &e), 0);
    assert_true(got[5] == 77.0f);
    /* the get copied it in: later changes to a are no longer seen */
    assert_int_equal(s->cores[0].mem[TRN_MEM_SBUF].n_bound, 0);
    a[5] = 5.0f;
    assert_int_equal(trn_sim_get_tensor(s, "x", 0, got, sizeof got, &e), 0);
    assert_true(got[5] == 77.0f);
    /* rebinding supersedes without a copy; set ends the binding */
    assert_int_equal(trn_sim_bind_tensor(s, "x", -1, a, sizeof a, &e), 0);
    assert_int_equal(trn_sim_bind_tensor(s, "x", -1, b, sizeof b, &e), 0);
    assert_int_equal(s->cores[0].mem[TRN_MEM_SBUF].n_bound, 1);
    assert_int_equal(trn_sim_set_tensor(s, "x", -1, a, sizeof a, &e), 0);
    assert_int_equal(s->cores[0].mem[TRN_MEM_SBUF].n_bound, 0);
    assert_int_equal(trn_sim_get_tensor(s, "x", 0, got, sizeof got, &e), 0);
    assert_memory_equal(got, a, sizeof a);
    /* unbind copies the buffer in: the buffer may then change or go */
    assert_int_equal(trn_sim_bind_tensor(s, "x", -1, b, sizeof b, &e), 0);
    assert_int_equal(trn_sim_unbind_tensor(s, "x", -1, &e), 0);
    assert_int_equal(s->cores[0].mem[TRN_MEM_SBUF].n_bound, 0);
    memset(b, 0, sizeof b);
    assert_int_equal(trn_sim_get_tensor(s, "x", 0, got, sizeof got, &e), 0);
    for (int i = 0; i < 64; ++i) assert_true(got[i] == (float)(100 - i));
    trn_sim_close(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(readers_in_place),
                                       cmocka_unit_test(readers_and_writers),
                                       cmocka_unit_test(across_cores), cmocka_unit_test(lifetime)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
