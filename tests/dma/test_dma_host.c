/* "Nothing written when the instruction fails", seen from the host library:
 * the CLI never saves outputs of a failed run, so these tests run programs
 * through trn_sim (host + the real trnsim-dma module) and read memory back
 * after the failure. */
#include <limits.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/exec.h"

static const char config[] = "plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; } );";

/* A sim whose modules are found beside this test binary (the build dir). */
static trn_sim *open_sim_cfg(const char *cfg, const char *program) {
    static char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    trn_sim_opts o = {.config_text = cfg, .exe_dir = dir};
    trn_sim *s = NULL;
    trn_error e;
    if (trn_sim_open(&s, &o, &e)) fail_msg("open: %s", e.msg);
    if (trn_sim_load_program_text(s, program, "test.json", &e)) fail_msg("load: %s", e.msg);
    return s;
}

static trn_sim *open_sim(const char *program) { return open_sim_cfg(config, program); }

/* A program the static checks refuse when it loads: nothing ever runs. */
static void load_fails_cfg(const char *cfg, const char *program, const char *text) {
    static char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    trn_sim_opts o = {.config_text = cfg, .exe_dir = dir};
    trn_sim *s = NULL;
    trn_error e;
    if (trn_sim_open(&s, &o, &e)) fail_msg("open: %s", e.msg);
    assert_int_not_equal(trn_sim_load_program_text(s, program, "test.json", &e), 0);
    if (!strstr(e.msg, text)) fail_msg("message lacks '%s': %s", text, e.msg);
    trn_sim_close(s);
}

static void load_fails(const char *program, const char *text) {
    load_fails_cfg(config, program, text);
}

static void run_fails(trn_sim *s, const char *text) {
    trn_error e;
    assert_int_not_equal(trn_sim_run(s, &e), 0);
    if (!strstr(e.msg, text)) fail_msg("message lacks '%s': %s", text, e.msg);
}

static void get(trn_sim *s, const char *name, void *buf, size_t bytes) {
    trn_error e;
    if (trn_sim_get_tensor(s, name, 0, buf, bytes, &e)) fail_msg("get %s: %s", name, e.msg);
}

static void assert_all_f32(const float *x, size_t n, float v) {
    for (size_t i = 0; i < n; ++i)
        if (memcmp(&x[i], &v, 4))
            fail_msg("element %zu is %g, expected %g (something was written)", i, x[i], v);
}

/* The second descriptor of a block is bad: the static check refuses the
 * program when it loads, before the first descriptor could write y. */
static void test_block_validates_before_writing(void **st) {
    (void)st;
    load_fails("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
               "\"shape\": [2, 3], \"fill\": 1},"
               " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, "
               "3], \"fill\": 0},"
               " {\"name\": \"z\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, "
               "5], \"fill\": 0}],"
               " \"instructions\": [{\"opcode\": \"DMABlock\", \"descriptors\": ["
               "  {\"opcode\": \"DMADescriptorCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
               "  {\"opcode\": \"DMADescriptorCCE\", \"reduce_op\": 8, \"inputs\": [\"x\", \"x\"], "
               "\"outputs\": [\"z\"]}]}]}",
               "test.json: instruction 0 (core 0, opcode DMABlock/107, family dma): DMABlock: "
               "descriptor 2 of 2: "
               "sub-instruction (opcode DMADescriptorCCE/70): CCE: source 0 has 6 elements, the "
               "destination 5");
}

/* The same through a trigger: every block it could fire is checked. */
static void test_trigger_block_validates_before_writing(void **st) {
    (void)st;
    load_fails("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
               "\"shape\": [2, 3], \"fill\": 1},"
               " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, "
               "3], \"fill\": 0}],"
               " \"instructions\": [{\"opcode\": \"DMATrigger\", \"trigger\": 1, \"blocks\": "
               "[{\"opcode\": \"DMABlock\","
               "  \"descriptors\": [{\"opcode\": \"DMADescriptorCopy\", \"inputs\": [\"x\"], "
               "\"outputs\": [\"y\"]},"
               "                  {\"opcode\": \"DMADescriptorTranspose\", \"inputs\": [\"x\"], "
               "\"outputs\": [\"y\"]}]}]}]}",
               "DMATrigger: block 1 of 1: sub-instruction (opcode DMABlock/107): DMABlock: "
               "descriptor 2 of 2: sub-instruction "
               "(opcode DMADescriptorTranspose/71): transpose: needs 'perm'");
}

/* A scatter whose last index is outside the table writes no element. */
static void test_scatter_bad_last_index(void **st) {
    (void)st;
    trn_sim *s = open_sim(
        "{\"tensors\": [{\"name\": \"t\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": "
        "[4], \"fill\": 0},"
        " {\"name\": \"u\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 3], "
        "\"fill\": 5},"
        " {\"name\": \"i\", \"memory\": \"sbuf\", \"dtype\": \"int32\", \"shape\": [1, 3], "
        "\"data\": [0, 1, 4]}],"
        " \"instructions\": [{\"opcode\": \"DMACopy\", \"indirect\": \"scatter\", \"reduce_op\": 4,"
        "  \"inputs\": [\"u\", \"i\"], \"outputs\": [\"t\"]}]}");
    run_fails(s, "index 4 at position 2 is outside the table of 4 elements");
    float t[4];
    get(s, "t", t, sizeof t);
    assert_all_f32(t, 4, 0.0f);
    trn_sim_close(s);
}

/* CCE reads every source before it writes: an unwritten second source
 * leaves the destination alone. */
static void test_cce_uninit_source(void **st) {
    (void)st;
    trn_sim *s = open_sim(
        "{\"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[2, 4], \"fill\": 1},"
        " {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4]},"
        " {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4], "
        "\"fill\": 7}],"
        " \"instructions\": [{\"opcode\": \"DMACopy\", \"mode\": 2, \"reduce_op\": 4,"
        "  \"inputs\": [\"a\", \"b\"], \"outputs\": [\"d\"]}]}");
    run_fails(s, "never-written");
    float d[8];
    get(s, "d", d, sizeof d);
    assert_all_f32(d, 8, 7.0f);
    trn_sim_close(s);
}

/* Big copies whose source is written only in its first half: the whole
 * source is checked before anything lands, for the host's AP-to-AP copy
 * (same dtype) and for the plugin's chunked cast (fp32 -> bf16). */
static void big_copy_uninit_tail(const char *dst_dtype) {
    enum { N = 2 << 20 }; /* 8 MiB of float32 */
    char prog[1024];
    snprintf(prog, sizeof prog,
             "{\"tensors\": [{\"name\": \"src\", \"memory\": \"hbm\", \"dtype\": \"float32\", "
             "\"shape\": [%d], \"offset\": 0},"
             " {\"name\": \"half\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [%d], "
             "\"offset\": 0},"
             " {\"name\": \"dst\", \"memory\": \"hbm\", \"dtype\": \"%s\", \"shape\": [%d], "
             "\"offset\": %d, \"fill\": 0}],"
             " \"instructions\": [{\"opcode\": \"TensorCopy\", \"inputs\": [\"src\"], \"outputs\": "
             "[\"dst\"]}]}",
             N, N / 2, dst_dtype, N, 4 * N);
    trn_sim *s = open_sim(prog);
    float *buf = malloc((size_t)N * sizeof(float));
    for (int i = 0; i < N / 2; ++i) buf[i] = 3.0f;
    trn_error e;
    if (trn_sim_set_tensor(s, "half", -1, buf, (size_t)N / 2 * sizeof(float), &e))
        fail_msg("set: %s", e.msg);
    run_fails(s, "never-written");
    memset(buf, 0xAB, (size_t)N * sizeof(float));
    size_t bytes = strcmp(dst_dtype, "float32") ? (size_t)N * 2 : (size_t)N * 4;
    get(s, "dst", buf, bytes);
    const unsigned char *b = (const unsigned char *)buf;
    for (size_t i = 0; i < bytes; ++i)
        if (b[i]) fail_msg("byte %zu of dst is 0x%02x: something was written", i, b[i]);
    free(buf);
    trn_sim_close(s);
}

static void test_big_copy_uninit_tail(void **st) {
    (void)st;
    big_copy_uninit_tail("float32");
}

static void test_big_cast_uninit_tail(void **st) {
    (void)st;
    big_copy_uninit_tail("bfloat16");
}

/* A named opcode of another (loaded) module inside a block is refused
 * before anything is dispatched: it never runs. */
static void test_block_refuses_foreign_opcode(void **st) {
    (void)st;
    load_fails_cfg("plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; },"
                   "            { family = \"test\"; module = \"trnsim-test\"; } );",
                   "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
                   "\"shape\": [1, 2], \"fill\": 1},"
                   " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
                   "[1, 2], \"fill\": 0}],"
                   " \"instructions\": [{\"opcode\": \"DMABlock\", \"descriptors\": ["
                   "  {\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}]}",
                   "DMABlock: descriptors[0] has opcode TestCopy, expected a descriptor "
                   "instruction (IT 68-72)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_validates_before_writing),
        cmocka_unit_test(test_trigger_block_validates_before_writing),
        cmocka_unit_test(test_scatter_bad_last_index),
        cmocka_unit_test(test_cce_uninit_source),
        cmocka_unit_test(test_big_copy_uninit_tail),
        cmocka_unit_test(test_big_cast_uninit_tail),
        cmocka_unit_test(test_block_refuses_foreign_opcode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
