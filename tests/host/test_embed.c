/* The embedding API (include/trnsim/trnsim.h) through libtrnsim itself:
 * open with overrides, load, bind, run, read, and each error's kind and
 * fields. Uses only the public header. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "trnsim/trnsim.h"

#define CFG(extra) "plugins = ( { family = \"test\"; module = \"trnsim-test\"; " extra " } );"

static const char copy_prog[] =
    "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4]},"
    " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"bfloat16\", \"shape\": [2, 4]}],"
    " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
    " {\"opcode\": \"TestFail\", \"comment\": \"index 1\", \"message\": \"late\"}]}";

static trnsim_sim *open_cfg(const char *cfg, const char *const *sets, size_t n) {
    trnsim_options o = {.size = sizeof o, .config_text = cfg, .sets = sets, .n_sets = n,
                        .module_dir = TRNSIM_MODULE_DIR};
    return trnsim_open(&o);
}

static void assert_contains(const char *hay, const char *needle) {
    if (!strstr(hay, needle)) fail_msg("'%s' does not contain '%s'", hay, needle);
}

static void versions(void **st) {
    assert_int_equal(trnsim_api_version(), TRNSIM_API_VERSION);
    assert_true(strlen(trnsim_version()) > 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_OK);
}

static void copy_roundtrip(void **st) {
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    assert_non_null(s);
    /* drop the failing instruction: load a program of the copy only */
    const char *prog = "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4]},"
                       " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"bfloat16\", \"shape\": [2, 4]}],"
                       " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}";
    assert_int_equal(trnsim_load_program_text(s, prog, "copy"), 0);
    assert_int_equal(trnsim_cores(s), 1);
    assert_int_equal(trnsim_tensor_count(s), 2);
    trnsim_tensor t;
    assert_int_equal(trnsim_tensor_at(s, 1, &t), 0);
    assert_string_equal(t.name, "y");
    assert_string_equal(t.dtype, "bfloat16");
    assert_int_equal(t.ndim, 2);
    assert_int_equal(t.shape[1], 4);
    assert_int_equal(t.bytes, 16);
    float x[8] = {1.00390625f, 1.01171875f, 3.14159f, -2.5f, 0.001f, 65504.0f, 0.1f, 100.5f};
    assert_int_equal(trnsim_set_tensor(s, "x", -1, x, sizeof x), 0);
    assert_int_equal(trnsim_run(s), 0);
    uint16_t y[8];
    assert_int_equal(trnsim_get_tensor(s, "y", 0, y, sizeof y), 0);
    /* bf16 RNE of each value; 1.00390625 is a tie rounding to even (1.0) */
    const uint16_t want[8] = {0x3f80, 0x3f82, 0x4049, 0xc020, 0x3a83, 0x4780, 0x3dcd, 0x42c9};
    assert_memory_equal(y, want, sizeof y);
    /* the same through the library's own conversions */
    uint16_t z[8];
    assert_int_equal(trnsim_narrow("bf16", x, z, 8), 0);
    assert_memory_equal(z, want, sizeof z);
    float back[8];
    assert_int_equal(trnsim_widen("bfloat16", z, back, 8), 0);
    assert_true(back[0] == 1.0f && back[3] == -2.5f);
    trnsim_close(s);
}

static void run_error_fields(void **st) {
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    assert_non_null(s);
    assert_int_equal(trnsim_load_program_text(s, copy_prog, "late.json"), 0);
    float x[8] = {0};
    assert_int_equal(trnsim_set_tensor(s, "x", -1, x, sizeof x), 0);
    assert_int_not_equal(trnsim_run(s), 0);
    const trnsim_error *e = trnsim_last_error();
    assert_int_equal(e->kind, TRNSIM_ERR_RUN);
    assert_contains(e->message, "late.json: instruction 1 (core 0, opcode TestFail/203, family test)");
    assert_contains(e->message, "late");
    assert_string_equal(e->file, "late.json");
    assert_int_equal(e->instruction, 1);
    assert_int_equal(e->core, 0);
    assert_int_equal(e->opcode, 203);
    assert_string_equal(e->opcode_name, "TestFail");
    /* the next successful call clears it */
    assert_int_equal(trnsim_set_tensor(s, "x", 0, x, sizeof x), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_OK);
    assert_string_equal(trnsim_last_error()->message, "");
    trnsim_close(s);
}

static void program_error_fields(void **st) {
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    const char *bad = "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4]}],"
                      " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"x\"]},"
                      " {\"opcode\": \"NoSuchOp\"}]}";
    assert_int_not_equal(trnsim_load_program_text(s, bad, "bad.json"), 0);
    const trnsim_error *e = trnsim_last_error();
    assert_int_equal(e->kind, TRNSIM_ERR_PROGRAM);
    assert_contains(e->message, "instruction 1");
    assert_contains(e->message, "unknown opcode name 'NoSuchOp'");
    assert_string_equal(e->file, "bad.json");
    assert_int_equal(e->instruction, 1);
    assert_int_equal(e->core, -1);
    assert_int_equal(e->opcode, -1); /* it never resolved */
    /* a failed load leaves no program */
    assert_int_equal(trnsim_tensor_count(s), 0);
    assert_int_not_equal(trnsim_run(s), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_RUN);
    assert_contains(trnsim_last_error()->message, "no program is loaded");
    trnsim_close(s);
}

static void input_errors(void **st) {
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    assert_int_equal(trnsim_load_program_text(s, copy_prog, "p"), 0);
    float x[8] = {0};
    assert_int_not_equal(trnsim_set_tensor(s, "x", -1, x, 4), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_INPUT);
    assert_contains(trnsim_last_error()->message, "tensor 'x': 4 bytes given, the tensor has 32 bytes");
    assert_int_not_equal(trnsim_get_tensor(s, "nope", 0, x, 4), 0);
    assert_contains(trnsim_last_error()->message, "no tensor named 'nope'");
    assert_int_not_equal(trnsim_set_tensor(s, "x", 3, x, sizeof x), 0);
    assert_contains(trnsim_last_error()->message, "core 3 does not exist (the run has 1 cores)");
    assert_int_not_equal(trnsim_narrow("float33", x, x, 1), 0);
    assert_contains(trnsim_last_error()->message, "unknown dtype 'float33'");
    assert_int_not_equal(trnsim_run(NULL), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
    trnsim_close(s);
}

static void overrides(void **st) {
    /* a module setting and a machine key, checked like the file's */
    const char *ok[] = {"test.scale=7.25", "machine.partitions=4", "unknown_opcode=skip"};
    trnsim_sim *s = open_cfg(CFG(""), ok, 3);
    assert_non_null(s);
    const char *prog = "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [5, 1]}],"
                       " \"instructions\": []}";
    assert_int_not_equal(trnsim_load_program_text(s, prog, "p5"), 0); /* 5 partitions of 4 */
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_PROGRAM);
    trnsim_close(s);

    const char *bad_range[] = {"test.scale=1000"};
    assert_null(open_cfg(CFG(""), bad_range, 1));
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_CONFIG);
    assert_contains(trnsim_last_error()->message, "--set test.scale=1000: ");
    assert_contains(trnsim_last_error()->message, "setting 'scale' = 1000 is outside [0, 100]");

    const char *bad_choice[] = {"test.mode=c"};
    assert_null(open_cfg(CFG(""), bad_choice, 1));
    assert_contains(trnsim_last_error()->message, "setting 'mode' = \"c\" is not one of a|b");

    const char *no_family[] = {"bn.x=1"};
    assert_null(open_cfg(CFG(""), no_family, 1));
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_CONFIG);
    assert_contains(trnsim_last_error()->message, "'bn' is neither machine nor the family of a configured module");

    const char *no_eq[] = {"machine.cores"};
    assert_null(open_cfg(CFG(""), no_eq, 1));
    assert_contains(trnsim_last_error()->message, "--set machine.cores: expected KEY=VALUE");

    const char *unknown_machine[] = {"machine.corez=2"};
    assert_null(open_cfg(CFG(""), unknown_machine, 1));
    assert_contains(trnsim_last_error()->message, "unknown key 'corez' in machine");
}

static void module_error(void **st) {
    assert_null(open_cfg("plugins = ( { family = \"x\"; module = \"trnsim-nope\"; } );", NULL, 0));
    const trnsim_error *e = trnsim_last_error();
    assert_int_equal(e->kind, TRNSIM_ERR_MODULE);
    assert_contains(e->message, "not found; searched " TRNSIM_MODULE_DIR "/trnsim-nope.so");
    assert_string_equal(e->file, "<config text>");
    assert_null(open_cfg("plugins = ( { family = ", NULL, 0));
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_CONFIG);
    assert_contains(trnsim_last_error()->message, "<config text>:1:");
    trnsim_options small = {.size = 8};
    assert_null(trnsim_open(&small));
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(versions),       cmocka_unit_test(copy_roundtrip), cmocka_unit_test(run_error_fields),
        cmocka_unit_test(program_error_fields), cmocka_unit_test(input_errors), cmocka_unit_test(overrides),
        cmocka_unit_test(module_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
