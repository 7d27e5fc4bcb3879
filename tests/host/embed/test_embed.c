/* The embedding API (include/trnsim/trnsim.h) through libtrnsim itself:
 * open with overrides, load, bind, run, read, and each error's kind and
 * fields. Uses only the public header. */
#include <math.h>
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
    "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, "
    "4]},"
    " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"bfloat16\", \"shape\": [2, 4]}],"
    " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
    " {\"opcode\": \"TestFail\", \"comment\": \"index 1\", \"message\": \"late\"}]}";

static trnsim_sim *open_cfg(const char *cfg, const char *const *sets, size_t n) {
    trnsim_options o = {.size = sizeof o,
                        .config_text = cfg,
                        .sets = sets,
                        .n_sets = n,
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
    const char *prog =
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[2, 4]},"
        " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"bfloat16\", \"shape\": [2, 4]}],"
        " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": "
        "[\"y\"]}]}";
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
    assert_contains(e->message,
                    "late.json: instruction 1 (core 0, opcode TestFail/203, family test)");
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
    const char *bad =
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[2, 4]}],"
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
    assert_contains(trnsim_last_error()->message,
                    "tensor 'x': 4 bytes given, the tensor has 32 bytes");
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

/* API 4: a get that refuses bytes nothing wrote names the first element;
 * once they are written it reads what trnsim_get_tensor reads. */
static void get_written_tensor(void **st) {
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    assert_int_equal(trnsim_load_program_text(s, copy_prog, "p"), 0);
    float x[8], got[8];
    assert_int_not_equal(trnsim_get_written_tensor(s, "x", 0, got, sizeof got), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_INPUT);
    assert_contains(trnsim_last_error()->message,
                    "tensor 'x' on core 0: nothing wrote some of its bytes, so they hold no value; "
                    "the get: reads never-written sbuf bytes at partition 0, byte offset 0, "
                    "element 0 [0, 0] of tensor 'x'");
    /* the unchecked read stays */
    assert_int_equal(trnsim_get_tensor(s, "x", 0, got, sizeof got), 0);
    for (int i = 0; i < 8; i++) x[i] = (float)i + 0.5f;
    x[7] = 0; /* written zeros are values */
    assert_int_equal(trnsim_set_tensor(s, "x", -1, x, sizeof x), 0);
    assert_int_equal(trnsim_get_written_tensor(s, "x", 0, got, sizeof got), 0);
    assert_memory_equal(got, x, sizeof x);
    assert_int_not_equal(trnsim_get_written_tensor(s, "nope", 0, got, 4), 0);
    assert_contains(trnsim_last_error()->message, "no tensor named 'nope'");
    assert_int_not_equal(trnsim_get_written_tensor(NULL, "x", 0, got, 4), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
    trnsim_close(s);
}

/* Bound inputs: the same bytes out as set ones; each bad argument one error
 * naming the tensor, and nothing bound. */
static void bind_tensor(void **st) {
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    const char *prog =
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[2, 4]},"
        " {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"bfloat16\", \"shape\": [2, 4]}],"
        " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": "
        "[\"y\"]}]}";
    assert_int_equal(trnsim_load_program_text(s, prog, "copy"), 0);
    float x[8] = {1.00390625f, 1.01171875f, 3.14159f, -2.5f, 0.001f, 65504.0f, 0.1f, 100.5f};
    uint16_t by_set[8], by_bind[8];
    assert_int_equal(trnsim_set_tensor(s, "x", -1, x, sizeof x), 0);
    assert_int_equal(trnsim_run(s), 0);
    assert_int_equal(trnsim_get_tensor(s, "y", 0, by_set, sizeof by_set), 0);
    float zero[8] = {0};
    assert_int_equal(trnsim_set_tensor(s, "x", -1, zero, sizeof zero), 0);
    assert_int_equal(trnsim_bind_tensor(s, "x", -1, x, sizeof x), 0);
    assert_int_equal(trnsim_run(s), 0);
    assert_int_equal(trnsim_get_tensor(s, "y", 0, by_bind, sizeof by_bind), 0);
    assert_memory_equal(by_set, by_bind, sizeof by_set);
    assert_int_equal(trnsim_unbind_tensor(s, "x", -1), 0);

    assert_int_not_equal(trnsim_bind_tensor(s, "x", -1, x, 4), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_INPUT);
    assert_string_equal(trnsim_last_error()->message,
                        "tensor 'x': 4 bytes given, the tensor has 32 bytes");
    assert_string_equal(trnsim_last_error()->file, "copy");
    char raw[40];
    assert_int_not_equal(
        trnsim_bind_tensor(s, "x", -1, raw + ((uintptr_t)raw % 4 == 3 ? 2 : 1), sizeof x), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_INPUT);
    assert_contains(trnsim_last_error()->message,
                    "tensor 'x': a bound buffer must be aligned to the 4-byte width of "
                    "float32, this one is ");
    assert_contains(trnsim_last_error()->message,
                    "(use an aligned buffer, or copy it in: trnsim_set_tensor, Simulator.set)");
    assert_int_not_equal(trnsim_bind_tensor(s, "nope", -1, x, sizeof x), 0);
    assert_contains(trnsim_last_error()->message, "copy: no tensor named 'nope'");
    assert_int_not_equal(trnsim_bind_tensor(s, "x", 2, x, sizeof x), 0);
    assert_contains(trnsim_last_error()->message,
                    "tensor 'x': core 2 does not exist (the run has 1 cores)");
    assert_int_not_equal(trnsim_bind_tensor(s, "x", -1, NULL, sizeof x), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
    assert_string_equal(trnsim_last_error()->message, "trnsim_bind_tensor: name or data is NULL");
    assert_int_not_equal(trnsim_unbind_tensor(s, "nope", -1), 0);
    assert_contains(trnsim_last_error()->message, "copy: no tensor named 'nope'");
    assert_int_not_equal(trnsim_bind_tensor(NULL, "x", -1, x, sizeof x), 0);
    assert_string_equal(trnsim_last_error()->message,
                        "trnsim_bind_tensor: the simulator handle is NULL");
    /* none of the refused calls bound anything: x still holds the unbound copy */
    float got[8];
    assert_int_equal(trnsim_get_tensor(s, "x", 0, got, sizeof got), 0);
    assert_memory_equal(got, x, sizeof x);
    trnsim_close(s);
}

static void overrides(void **st) {
    /* a module setting and a machine key, checked like the file's */
    const char *ok[] = {"test.scale=7.25", "machine.partitions=4", "unknown_opcode=skip"};
    trnsim_sim *s = open_cfg(CFG(""), ok, 3);
    assert_non_null(s);
    const char *prog = "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": "
                       "\"float32\", \"shape\": [5, 1]}],"
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
    assert_contains(trnsim_last_error()->message,
                    "'bn' is neither machine nor the family of a configured module");

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

/* ---- programs built in memory (API version 2) ---- */

/* A program with data, a slice operand, an attribute, a loop and two cores,
 * built in memory: TestCopy x[:, 1:3] -> y (accumulating, twice) into bf16. */
static trnsim_program *build_copy(void) {
    trnsim_program *p = trnsim_program_new();
    assert_non_null(p);
    assert_int_equal(trnsim_program_set(p, "cores", trnsim_value_int(2)), 0);
    const int64_t xs[2] = {2, 4}, ys[2] = {2, 2};
    const double data[8] = {1.00390625, 1.01171875, 3.14159, -2.5, 0.001, 65504.0, 0.1, 100.5};
    trnsim_value *more = trnsim_value_object();
    assert_int_equal(trnsim_value_set(more, "data", trnsim_value_floats(data, 8)), 0);
    assert_int_equal(trnsim_program_tensor(p, "x", "sbuf", "float32", 2, xs, more), 0);
    trnsim_value *ymore = trnsim_value_object();
    assert_int_equal(trnsim_value_set(ymore, "fill", trnsim_value_float(-INFINITY)), 0);
    assert_int_equal(trnsim_program_tensor(p, "y", "sbuf", "bfloat16", 2, ys, ymore), 0);
    assert_int_equal(trnsim_program_tensor(p, "z", "sbuf", "float32", 2, ys, NULL), 0);
    trnsim_operand slice = {.size = sizeof slice,
                            .tensor = "x",
                            .given = TRNSIM_OPND_OFFSET,
                            .offset = 1,
                            .ndims = 1,
                            .ap = {{1, 2}}};
    trnsim_value *in = trnsim_value_list(), *out = trnsim_value_list();
    assert_int_equal(trnsim_value_append(in, trnsim_value_operand(&slice)), 0);
    assert_int_equal(trnsim_value_append(out, trnsim_value_string("z")), 0);
    assert_int_equal(trnsim_program_instruction(p, "TestCopy", in, out, NULL), 0);
    trnsim_value *la = trnsim_value_object();
    assert_int_equal(trnsim_value_set(la, "register", trnsim_value_int(0)), 0);
    assert_int_equal(trnsim_program_loop_begin(p, 2, la), 0);
    in = trnsim_value_list();
    out = trnsim_value_list();
    trnsim_value *attrs = trnsim_value_object();
    assert_int_equal(trnsim_value_append(in, trnsim_value_string("z")), 0);
    assert_int_equal(trnsim_value_append(out, trnsim_value_string("y")), 0);
    assert_int_equal(trnsim_value_set(attrs, "acc", trnsim_value_int(0)), 0);
    assert_int_equal(trnsim_program_instruction_it(p, 200, in, out, attrs), 0); /* TestCopy by IT */
    assert_int_equal(trnsim_program_loop_end(p), 0);
    return p;
}

static void run_and_read(trnsim_sim *s, uint16_t y[8]) {
    assert_int_equal(trnsim_cores(s), 2);
    assert_int_equal(trnsim_tensor_count(s), 3);
    assert_int_equal(trnsim_run(s), 0);
    assert_int_equal(trnsim_get_tensor(s, "y", 0, y, 8), 0);
    assert_int_equal(trnsim_get_tensor(s, "y", 1, y + 4, 8), 0);
}

static void built_program_matches_json(void **st) {
    trnsim_program *p = build_copy();
    char *text = trnsim_program_to_json(p);
    assert_non_null(text);
    assert_contains(text, "\"fill\": \"-inf\"");
    trnsim_sim *a = open_cfg(CFG(""), NULL, 0), *b = open_cfg(CFG(""), NULL, 0);
    assert_int_equal(trnsim_load_program_text(a, text, "copy.json"), 0);
    assert_int_equal(trnsim_load_program(b, p, "copy.json"), 0);
    trnsim_program_free(p); /* the sim keeps its own copy */
    uint16_t ya[8], yb[8];
    run_and_read(a, ya);
    run_and_read(b, yb);
    /* bf16 RNE of x[:, 1:3] on both cores: 1.01171875, 3.14159, 65504, 0.1 */
    const uint16_t want[8] = {0x3f82, 0x4049, 0x4780, 0x3dcd, 0x3f82, 0x4049, 0x4780, 0x3dcd};
    assert_memory_equal(ya, want, sizeof want);
    assert_memory_equal(yb, want, sizeof want);
    for (int i = 0; i < 3; ++i) {
        trnsim_tensor ta, tb;
        assert_int_equal(trnsim_tensor_at(a, i, &ta), 0);
        assert_int_equal(trnsim_tensor_at(b, i, &tb), 0);
        assert_string_equal(ta.name, tb.name);
        assert_string_equal(ta.dtype, tb.dtype);
        assert_int_equal(ta.bytes, tb.bytes);
    }
    trnsim_free(text);
    trnsim_close(a);
    trnsim_close(b);
}

/* One bad program both ways: the same kind, message, file and fields. */
static void same_refusal(trnsim_program *p, const char *needle, int64_t instruction) {
    char *text = trnsim_program_to_json(p);
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    assert_int_not_equal(trnsim_load_program_text(s, text, "bad.json"), 0);
    trnsim_error want = *trnsim_last_error();
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", want.message);
    assert_int_not_equal(trnsim_load_program(s, p, "bad.json"), 0);
    const trnsim_error *got = trnsim_last_error();
    assert_int_equal(got->kind, TRNSIM_ERR_PROGRAM);
    assert_int_equal(want.kind, TRNSIM_ERR_PROGRAM);
    assert_string_equal(got->message, msg);
    assert_contains(got->message, needle);
    assert_string_equal(got->file, "bad.json");
    assert_int_equal(got->instruction, instruction);
    assert_int_equal(trnsim_tensor_count(s), 0); /* nothing left loaded */
    trnsim_free(text);
    trnsim_program_free(p);
    trnsim_close(s);
}

static trnsim_program *one_tensor(const char *dtype) {
    trnsim_program *p = trnsim_program_new();
    const int64_t shape[2] = {2, 4};
    assert_int_equal(trnsim_program_tensor(p, "x", "sbuf", dtype, 2, shape, NULL), 0);
    return p;
}

static void add_copy(trnsim_program *p, const char *opcode, trnsim_value *src,
                     trnsim_value *attrs) {
    trnsim_value *in = trnsim_value_list(), *out = trnsim_value_list();
    assert_int_equal(trnsim_value_append(in, src), 0);
    assert_int_equal(trnsim_value_append(out, trnsim_value_string("x")), 0);
    assert_int_equal(trnsim_program_instruction(p, opcode, in, out, attrs), 0);
}

static void built_program_errors_match_json(void **st) {
    trnsim_program *p = one_tensor("float32");
    add_copy(p, "TestCopy", trnsim_value_string("x"), NULL);
    add_copy(p, "TestCopyy", trnsim_value_string("x"), NULL);
    same_refusal(p, "instruction 1 (opcode TestCopyy): unknown opcode name 'TestCopyy'", 1);

    p = one_tensor("float33");
    same_refusal(p, "bad.json: tensor 'x': unknown dtype 'float33'", -1);

    p = one_tensor("float32");
    add_copy(p, "TestCopy", trnsim_value_string("w"), NULL);
    same_refusal(p, "bad.json: instruction 0 (opcode TestCopy): inputs[0]: no tensor named 'w'", 0);

    p = one_tensor("float32");
    trnsim_operand past = {.size = sizeof past,
                           .tensor = "x",
                           .given = TRNSIM_OPND_OFFSET,
                           .offset = 3,
                           .ndims = 1,
                           .ap = {{1, 4}}};
    add_copy(p, "TestCopy", trnsim_value_operand(&past), NULL);
    same_refusal(
        p, "instruction 0 (opcode TestCopy/200, family test), inputs[0]: leaves tensor 'x'", 0);

    p = one_tensor("float32");
    trnsim_value *attrs = trnsim_value_object();
    assert_int_equal(trnsim_value_set(attrs, "acc", trnsim_value_int(9)), 0);
    add_copy(p, "TestCopy", trnsim_value_string("x"), attrs);
    same_refusal(p, "attribute 'acc' of TestCopy = 9 is outside [0, 3]", 0);

    p = one_tensor("float32");
    attrs = trnsim_value_object();
    assert_int_equal(trnsim_value_set(attrs, "acx", trnsim_value_int(1)), 0);
    add_copy(p, "TestCopy", trnsim_value_string("x"), attrs);
    same_refusal(p, "unknown attribute 'acx' for TestCopy; did you mean 'acc'?", 0);
}

static void builder_usage_errors(void **st) {
    trnsim_program *p = one_tensor("float32");
    const int64_t shape[1] = {4};
    trnsim_value *more = trnsim_value_object();
    assert_int_equal(trnsim_value_set(more, "offset", trnsim_value_int(0)), 0);
    assert_int_not_equal(trnsim_value_set(more, "offset", trnsim_value_int(64)), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_PROGRAM);
    assert_string_equal(trnsim_last_error()->message,
                        "trnsim_value_set: key 'offset' is set twice (a native program's objects "
                        "take each key once)");
    trnsim_value_free(more);
    more = trnsim_value_object();
    assert_int_equal(trnsim_value_set(more, "name", trnsim_value_string("again")), 0);
    assert_int_not_equal(trnsim_program_tensor(p, "y", "hbm", "float32", 1, shape, more), 0);
    assert_string_equal(
        trnsim_last_error()->message,
        "tensor 'y': key 'name' is set twice (a native program's objects take each key once)");
    assert_int_not_equal(trnsim_program_loop_end(p), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
    assert_string_equal(trnsim_last_error()->message, "trnsim_program_loop_end: no loop is open");
    assert_int_equal(trnsim_program_loop_begin(p, 1, NULL), 0);
    trnsim_sim *s = open_cfg(CFG(""), NULL, 0);
    assert_int_not_equal(trnsim_load_program(s, p, "open"), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
    assert_contains(trnsim_last_error()->message, "a loop is still open");
    assert_int_equal(trnsim_program_loop_end(p), 0);
    assert_int_equal(trnsim_load_program(s, p, "open"), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_OK);
    trnsim_operand five = {.size = sizeof five, .tensor = "x", .ndims = 5};
    assert_null(trnsim_value_operand(&five));
    assert_contains(trnsim_last_error()->message, "ndims must be 0 (the default AP) .. 4");
    assert_int_not_equal(trnsim_value_append(NULL, trnsim_value_int(1)), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
    assert_int_not_equal(trnsim_load_program(NULL, p, NULL), 0);
    assert_int_equal(trnsim_last_error()->kind, TRNSIM_ERR_USAGE);
    trnsim_program_free(p);
    trnsim_close(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(versions),
        cmocka_unit_test(copy_roundtrip),
        cmocka_unit_test(run_error_fields),
        cmocka_unit_test(program_error_fields),
        cmocka_unit_test(input_errors),
        cmocka_unit_test(get_written_tensor),
        cmocka_unit_test(bind_tensor),
        cmocka_unit_test(overrides),
        cmocka_unit_test(module_error),
        cmocka_unit_test(built_program_matches_json),
        cmocka_unit_test(built_program_errors_match_json),
        cmocka_unit_test(builder_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
