/* Lent memory (lend / lend_end): views agree with the copying calls bit for
 * bit over random APs, dtypes, ops and overlaps; the guard and its message
 * are the same; WRITE views mark bytes written when they end; the host
 * refuses lending where it must and catches the module bugs it can. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "arith/arith.h"
#include "exec/exec_test.h"
#include "host/test_util.h"

#define TEST_RANDOM_SEED 0x9e3779b97f4a7c15ull
#include "host/test_random.h"

#define PARTS  8
#define PBYTES 1024
#define CFG(extra)                                                                                 \
    "machine = { partitions = 8; sbuf_partition_bytes = 1024; }; " extra                           \
    " plugins = ( { family = \"test\"; module = \"trnsim-test\"; } );"

static trn_sim *open_loaded(bool direct, const char *prog) {
    trn_sim *s;
    trn_error e;
    if (test_open(direct ? CFG("") : CFG("direct_access = false;"), &s, &e)) fail_msg("%s", e.msg);
    if (trn_sim_load_program_text(s, prog, "p.json", &e)) fail_msg("%s\n%s", e.msg, prog);
    return s;
}

/* Same bytes in SBUF of both sims; written everywhere except `holes` random
 * 16-byte gaps. */
static void fill_sbuf(trn_sim *a, trn_sim *b, uint64_t seed, int holes) {
    trn_memory *ma = &a->cores[0].mem[TRN_MEM_SBUF], *mb = &b->cores[0].mem[TRN_MEM_SBUF];
    uint64_t keep = rng_state;
    rng_state = seed;
    for (size_t i = 0; i < (size_t)PARTS * PBYTES; ++i)
        ma->bytes[i] = mb->bytes[i] = (uint8_t)rnd();
    trn_mem_mark_written(ma, 0, (uint64_t)PARTS * PBYTES);
    trn_mem_mark_written(mb, 0, (uint64_t)PARTS * PBYTES);
    for (int h = 0; h < holes; ++h) {
        uint64_t at = rnd() % ((uint64_t)PARTS * PBYTES - 16);
        trn_mem_clear_written(ma, at, 16);
        trn_mem_clear_written(mb, at, 16);
    }
    rng_state = keep;
}

static void assert_same_memory(const trn_sim *a, const trn_sim *b, const char *prog) {
    const trn_memory *ma = &a->cores[0].mem[TRN_MEM_SBUF], *mb = &b->cores[0].mem[TRN_MEM_SBUF];
    size_t n = (size_t)PARTS * PBYTES;
    for (size_t i = 0; i < n; ++i)
        if (ma->bytes[i] != mb->bytes[i])
            fail_msg("byte %zu differs: %02x vs %02x in\n%s", i, ma->bytes[i], mb->bytes[i], prog);
    for (size_t i = 0; i < n / 64; ++i)
        if (ma->written[i] != mb->written[i])
            fail_msg("written map word %zu differs in\n%s", i, prog);
}

/* A random AP of dtype dt inside SBUF, as an operand object. */
static int random_operand(trn_dtype dt, bool distinct, char *buf, size_t len) {
    uint32_t w = trn_dtype_width(dt);
    for (;;) {
        int np = (int)rnd_in(1, 4), ps = (int)rnd_in(distinct ? 1 : 0, 2),
            p0 = (int)rnd_in(0, PARTS - 1);
        if (p0 + (np - 1) * ps >= PARTS) continue;
        int nd = (int)rnd_in(0, 3);
        int64_t step[3], num[3], lo = 0, hi = 0;
        for (int d = 0; d < nd; ++d) {
            num[d] = rnd_in(1, 6);
            int kind = (int)rnd_in(0, 4); /* contiguous-ish steps are likelier */
            step[d] = kind == 0 ? 1 : kind == 1 ? num[d] : rnd_in(distinct ? 1 : -3, 9);
            if (rnd() % 5 == 0) step[d] = -step[d];
            int64_t span = step[d] * (num[d] - 1);
            if (span < 0)
                lo += span;
            else
                hi += span;
        }
        int64_t elems = PBYTES / w, off = rnd_in(-lo, elems - 1);
        if (off + hi >= elems) continue;
        int n = snprintf(
            buf, len,
            "{\"memory\": \"sbuf\", \"dtype\": \"%s\", \"partition\": %d, \"partitions\": %d, "
            "\"partition_step\": %d, \"offset\": %" PRId64 ", \"ap\": [",
            trn_dtype_name(dt), p0, np, ps, off);
        for (int d = 0; d < nd; ++d)
            n += snprintf(buf + n, len - (size_t)n, "%s[%" PRId64 ", %" PRId64 "]", d ? ", " : "",
                          step[d], num[d]);
        if (nd == 0) n += snprintf(buf + n, len - (size_t)n, "[1, 1]");
        snprintf(buf + n, len - (size_t)n, "]}");
        return np * (int)(nd ? 1 : 1);
    }
}

static int64_t operand_elems(const char *op) {
    /* partitions times the nums, read back from the text we wrote */
    int np = atoi(strstr(op, "\"partitions\": ") + 14);
    int64_t n = np;
    const char *p = strstr(op, "\"ap\": [") + 7;
    while ((p = strchr(p, '[')) != NULL) {
        const char *c = strchr(p, ',');
        n *= atoll(c + 1);
        p = c;
    }
    return n;
}

static trn_ap operand_ap(trn_sim *s, const char *which, int idx) {
    trn_ap ap = s->prog.insts[0].in[0].ap;
    if (!strcmp(which, "out")) ap = s->prog.insts[0].out[idx].ap;
    return ap;
}

/* One random TestLend against the copying path. */
static void one_case(int iter) {
    static const trn_dtype dts[] = {TRN_DT_FP32,     TRN_DT_BF16,  TRN_DT_FP16,
                                    TRN_DT_INT8,     TRN_DT_INT32, TRN_DT_UINT16,
                                    TRN_DT_FP8_E4M3, TRN_DT_INT64, TRN_DT_FP8_E4M3_X4};
    trn_dtype dt = dts[rnd() % (sizeof dts / sizeof dts[0])];
    char in[512], out[512], prog[2048];
    int64_t n;
    do {
        random_operand(dt, false, in, sizeof in);
        random_operand(dt, rnd() % 4 != 0, out, sizeof out);
        n = operand_elems(in);
    } while (n != operand_elems(out));
    int acc = trn_dtype_reduces(dt) ? (int)rnd_in(0, 3) : 0;
    int mode = acc ? 3 : (int)rnd_in(2, 3);
    snprintf(prog, sizeof prog,
             "{\"instructions\": [{\"opcode\": \"TestLend\", \"mode\": %d, \"acc\": %d, "
             "\"inputs\": [%s], \"outputs\": [%s]}]}",
             mode, acc, in, out);
    trn_sim *a = open_loaded(true, prog), *b = open_loaded(false, prog);
    int holes = (int)rnd_in(0, 3);
    fill_sbuf(a, b, 1000 + (uint64_t)iter, holes);
    trn_error ea = {""}, eb = {""};
    int ra = trn_sim_run(a, &ea), rb = trn_sim_run(b, &eb);
    if (ra != rb)
        fail_msg("direct %d (%s) vs copying %d (%s) in\n%s", ra, ea.msg, rb, eb.msg, prog);
    if (ra) {
        assert_string_equal(ea.msg, eb.msg); /* the uninitialised-read guard says the same */
    } else {
        assert_same_memory(a, b, prog);
        assert_int_equal(b->cores[0].regs[0], TRN_NOT_LENT);
        assert_int_equal(b->cores[0].regs[1], TRN_NOT_LENT);
        assert_int_equal(a->cores[0].regs[0], TRN_LENT);
    }
    (void)operand_ap;
    trn_sim_close(a);
    trn_sim_close(b);
}

static void random_views_match_copying(void **st) {
    (void)st;
    for (int i = 0; i < 2000; ++i) one_case(i);
}

static trn_sim *run_prog(bool direct, const char *prog, trn_error *e, int *rc) {
    trn_sim *s = open_loaded(direct, prog);
    *rc = trn_sim_run(s, e);
    return s;
}

#define X                                                                                          \
    "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 8], "          \
    "\"data\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}"
#define Y "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 8]}"

/* Dense operands: ROWS and BLOCK views; the output becomes written, so a
 * later TestCopy can read it. */
static void dense_views_and_written(void **st) {
    (void)st;
    int rc;
    trn_error e = {""};
    trn_sim *s = run_prog(
        true,
        "{\"tensors\": [" X "," Y
        ", {\"name\": \"z\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 8]}],"
        " \"instructions\": [{\"opcode\": \"TestLend\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
        " {\"opcode\": \"TestCopy\", \"inputs\": [\"y\"], \"outputs\": [\"z\"]}]}",
        &e, &rc);
    if (rc) fail_msg("%s", e.msg);
    assert_int_equal(s->cores[0].regs[0], TRN_LENT);
    assert_int_equal(s->cores[0].regs[1], TRN_LENT);
    /* x and y are [2 x 8] of a 1024-byte partition: rows, not one block */
    assert_int_equal(s->cores[0].regs[2], TRN_VIEW_ROWS);
    assert_int_equal(s->cores[0].regs[3], TRN_VIEW_ROWS);
    float z[16];
    if (trn_sim_get_tensor(s, "z", 0, z, sizeof z, &e)) fail_msg("%s", e.msg);
    for (int i = 0; i < 16; ++i) assert_true(z[i] == (float)(i + 1));
    trn_sim_close(s);
    /* one partition, contiguous: a block; a strided AP: neither */
    s = run_prog(true,
                 "{\"tensors\": [" X "," Y "], \"instructions\": [{\"opcode\": \"TestLend\", "
                 "\"inputs\": [{\"tensor\": \"x\", \"partitions\": 1}], "
                 "\"outputs\": [{\"tensor\": \"y\", \"partitions\": 2, \"ap\": [[2, 4]]}]}]}",
                 &e, &rc);
    if (rc) fail_msg("%s", e.msg);
    assert_int_equal(s->cores[0].regs[2], TRN_VIEW_ROWS | TRN_VIEW_BLOCK);
    assert_int_equal(s->cores[0].regs[3], 0);
    trn_sim_close(s);
}

/* The host ends views a handler forgets, and marks them written. */
static void views_ended_at_return(void **st) {
    (void)st;
    int rc;
    trn_error e = {""};
    trn_sim *s = run_prog(
        true,
        "{\"tensors\": [" X "," Y
        ", {\"name\": \"z\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 8]}],"
        " \"instructions\": [{\"opcode\": \"TestLend\", \"misuse\": 2, \"inputs\": [\"x\"], "
        "\"outputs\": [\"y\"]},"
        " {\"opcode\": \"TestCopy\", \"inputs\": [\"y\"], \"outputs\": [\"z\"]}]}",
        &e, &rc);
    if (rc) fail_msg("%s", e.msg);
    for (int i = 0; i < TRN_MAX_VIEWS; ++i) assert_null(s->views[i].owner);
    float z[16];
    if (trn_sim_get_tensor(s, "z", 0, z, sizeof z, &e)) fail_msg("%s", e.msg);
    for (int i = 0; i < 16; ++i) assert_true(z[i] == (float)(i + 1));
    trn_sim_close(s);
}

/* WRITE over an AP that reaches a byte twice, and READ|WRITE over bytes not
 * all written, are not lent: the copying path gives the reference's answer. */
static void refusals_fall_back(void **st) {
    (void)st;
    int rc;
    trn_error e = {""};
    trn_sim *s =
        run_prog(true,
                 "{\"tensors\": [" X "," Y "], \"instructions\": [{\"opcode\": \"TestLend\", "
                 "\"inputs\": [{\"tensor\": \"x\", \"partitions\": 1, \"ap\": [[1, 4]]}], "
                 "\"outputs\": [{\"tensor\": \"y\", \"partitions\": 1, \"ap\": [[0, 4]]}]}]}",
                 &e, &rc);
    if (rc) fail_msg("%s", e.msg);
    assert_int_equal(s->cores[0].regs[0], TRN_LENT);
    assert_int_equal(s->cores[0].regs[1], TRN_NOT_LENT);
    float y[16];
    if (trn_sim_get_tensor(s, "y", 0, y, sizeof y, &e)) fail_msg("%s", e.msg);
    assert_true(y[0] == 4); /* the last of the repeated writes */
    trn_sim_close(s);
    /* accumulate into y, whose element 1 is never written: stores there */
    s = run_prog(true,
                 "{\"tensors\": [" X "," Y "], \"instructions\": ["
                 "{\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"partitions\": 1, "
                 "\"ap\": [[1, 1]]}], "
                 "\"outputs\": [{\"tensor\": \"y\", \"partitions\": 1, \"ap\": [[1, 1]]}]},"
                 "{\"opcode\": \"TestLend\", \"mode\": 3, \"acc\": 1, "
                 "\"inputs\": [{\"tensor\": \"x\", \"partitions\": 1, \"ap\": [[1, 2]]}], "
                 "\"outputs\": [{\"tensor\": \"y\", \"partitions\": 1, \"ap\": [[1, 2]]}]}]}",
                 &e, &rc);
    if (rc) fail_msg("%s", e.msg);
    assert_int_equal(s->cores[0].regs[1], TRN_NOT_LENT);
    if (trn_sim_get_tensor(s, "y", 0, y, sizeof y, &e)) fail_msg("%s", e.msg);
    assert_true(y[0] == 2 && y[1] == 2);
    trn_sim_close(s);
}

/* Reading never-written bytes through a view is the copying path's error. */
static void guard_message_is_the_same(void **st) {
    (void)st;
    const char *prog =
        "{\"tensors\": [" Y ", {\"name\": \"w\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
        "\"shape\": [2, 8]}], \"instructions\": [{\"opcode\": \"TestLend\", \"inputs\": [\"y\"], "
        "\"outputs\": [\"w\"]}]}";
    int ra, rb;
    trn_error ea = {""}, eb = {""};
    trn_sim *a = run_prog(true, prog, &ea, &ra), *b = run_prog(false, prog, &eb, &rb);
    assert_int_equal(ra, -1);
    assert_int_equal(rb, -1);
    assert_string_equal(ea.msg, eb.msg);
    assert_contains(ea.msg, "reads never-written sbuf bytes at partition 0, byte offset 0");
    assert_contains(ea.msg, "tensor 'y'");
    trn_sim_close(a);
    trn_sim_close(b);
}

static void expect_misuse(int misuse, const char *needle) {
    char prog[1024];
    snprintf(prog, sizeof prog,
             "{\"tensors\": [" X "," Y
             "], \"instructions\": [{\"opcode\": \"TestLend\", \"misuse\": %d, "
             "\"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}",
             misuse);
    int rc;
    trn_error e = {""};
    trn_sim *s = run_prog(true, prog, &e, &rc);
    assert_int_equal(rc, -1);
    assert_contains(e.msg, "instruction 0 (core 0, opcode TestLend/220, family test)");
    assert_contains(e.msg, needle);
    for (int i = 0; i < TRN_MAX_VIEWS; ++i) assert_null(s->views[i].owner);
    trn_sim_close(s);
}

static void module_bugs_caught(void **st) {
    (void)st;
    expect_misuse(1, "write_raw while 2 lent view(s) are open (a module bug: lend_end them first)");
    expect_misuse(3, "dispatch while 2 lent view(s) are open");
    expect_misuse(4, "lend_end of a view this instruction does not hold (a module bug)");
}

/* lend_cancel gives a WRITE view back unmarked: the bytes stay never-written. */
static void cancel_leaves_unwritten(void **st) {
    (void)st;
    int rc;
    trn_error e = {""};
    trn_sim *s = run_prog(
        true,
        "{\"tensors\": [" X "," Y
        ", {\"name\": \"z\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 8]}],"
        " \"instructions\": [{\"opcode\": \"TestLend\", \"misuse\": 5, \"inputs\": [\"x\"], "
        "\"outputs\": [\"y\"]},"
        " {\"opcode\": \"TestCopy\", \"inputs\": [\"y\"], \"outputs\": [\"z\"]}]}",
        &e, &rc);
    assert_int_equal(rc, -1);
    assert_contains(e.msg, "instruction 1 (core 0, opcode TestCopy/200, family test)");
    assert_contains(e.msg, "reads never-written sbuf bytes at partition 0, byte offset 64, element "
                           "0 [0, 0] of tensor 'y'");
    trn_sim_close(s);
}

static void config_key_checked(void **st) {
    (void)st;
    trn_sim *s = NULL;
    trn_error e = {""};
    assert_int_equal(test_open(CFG("direct_access = 1;"), &s, &e), -1);
    assert_null(s);
    assert_contains(e.msg, "<config text>:1: direct_access must be true or false");
}

/* A ROWS view of `parts` rows of `elems` fp32 at byte `at` of buf, rows
 * `stride` bytes apart (BLOCK when they abut), as the host fills one. */
static trn_view rows_view(uint8_t *buf, int64_t at, uint32_t parts, int64_t stride, int64_t elems) {
    trn_view v = {.base = buf + at,
                  .part_stride = stride,
                  .parts = parts,
                  .width = 4,
                  .free_elems = elems,
                  .flags =
                      TRN_VIEW_ROWS | (parts == 1 || stride == elems * 4 ? TRN_VIEW_BLOCK : 0u)};
    v.lo = v.base;
    v.hi = v.base + (int64_t)(parts - 1) * stride + elems * 4;
    return v;
}

static void view_bytes(const trn_view *v, uint8_t *mark, const uint8_t *buf, uint8_t bit) {
    for (uint32_t p = 0; p < v->parts; ++p)
        for (int64_t k = 0; k < v->free_elems * v->width; ++k)
            mark[v->base - buf + (int64_t)p * v->part_stride + k] |= bit;
}

/* trn_views_meet against the bytes each view covers: never "apart" for
 * views that share a byte, and exact for rows that step alike. */
static void views_meet_exact_for_rows(void **st) {
    (void)st;
    enum { BUF = 8192 };
    static uint8_t buf[BUF], mark[BUF];
    int apart = 0;
    for (int i = 0; i < 20000; ++i) {
        int64_t stride = 4 * rnd_in(1, 64), stride_b = rnd() % 4 ? stride : 4 * rnd_in(1, 64);
        uint32_t pa = (uint32_t)rnd_in(1, 12), pb = (uint32_t)rnd_in(1, 12);
        int64_t ea = rnd_in(1, stride / 4), eb = rnd_in(1, stride_b / 4);
        int64_t a0 = rnd_in(0, 2000), b0 = rnd_in(0, 2000);
        trn_view a = rows_view(buf, a0, pa, stride, ea), b = rows_view(buf, b0, pb, stride_b, eb);
        memset(mark, 0, sizeof mark);
        view_bytes(&a, mark, buf, 1);
        view_bytes(&b, mark, buf, 2);
        bool shared = false;
        for (size_t k = 0; k < BUF && !shared; ++k) shared = mark[k] == 3;
        bool meet = trn_views_meet(&a, &b), meet_ba = trn_views_meet(&b, &a);
        assert_int_equal(meet, meet_ba);
        if (shared && !meet)
            fail_msg("views share a byte but trn_views_meet says apart: a %" PRId64 " %u x %" PRId64
                     "/%" PRId64 ", b %" PRId64 " %u x %" PRId64 "/%" PRId64,
                     a0, pa, ea, stride, b0, pb, eb, stride_b);
        if ((stride == stride_b || pa == 1 || pb == 1) && shared != meet)
            fail_msg("rows stepping alike: shared %d, trn_views_meet %d: a %" PRId64
                     " %u x %" PRId64 "/%" PRId64 ", b %" PRId64 " %u x %" PRId64 "/%" PRId64,
                     shared, meet, a0, pa, ea, stride, b0, pb, eb, stride_b);
        apart += !meet && a.lo < b.hi && b.lo < a.hi; /* interleaved, told apart */
    }
    printf("interleaved views told apart: %d of 20000\n", apart);
    assert_true(apart > 1000);
    trn_view s = rows_view(buf, 0, 4, 64, 4); /* strided, not ROWS: [lo, hi) decides */
    s.flags = 0;
    trn_view r = rows_view(buf, 32, 4, 64, 4);
    assert_true(trn_views_meet(&s, &r));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_views_match_copying), cmocka_unit_test(dense_views_and_written),
        cmocka_unit_test(views_ended_at_return),      cmocka_unit_test(refusals_fall_back),
        cmocka_unit_test(guard_message_is_the_same),  cmocka_unit_test(module_bugs_caught),
        cmocka_unit_test(config_key_checked),         cmocka_unit_test(cancel_leaves_unwritten),
        cmocka_unit_test(views_meet_exact_for_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
