/* Programs through the host library: the text scanner's values against
 * jansson's, JSON errors, placement, operands, dynamic offsets,
 * sub-instructions, settings, multi-core runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec_test.h"
#include "frontend/frontend_int.h"
#include "host/test_util.h"
#define TEST_RANDOM_SEED 0x5ca9a1dULL
#include "host/test_random.h"

static const char cfg[] =
    "plugins = ( { family = \"test\"; module = \"trnsim-test\"; settings = { scale = 3.5; }; } );";

static trn_sim *open_test(void) {
    trn_sim *s;
    trn_error e;
    if (test_open(cfg, &s, &e)) fail_msg("%s", e.msg);
    return s;
}

static void expect_load_error(const char *prog, const char *needle) {
    trn_sim *s = open_test();
    trn_error e = {.msg = ""};
    assert_int_equal(trn_sim_load_program_text(s, prog, "p.json", &e), -1);
    assert_contains(e.msg, needle);
    trn_sim_close(s);
}

static trn_sim *run_ok(const char *prog) {
    trn_sim *s = open_test();
    trn_error e;
    if (trn_sim_load_program_text(s, prog, "p.json", &e) || trn_sim_run(s, &e))
        fail_msg("%s", e.msg);
    return s;
}

static void expect_run_error(const char *prog, const char *needle) {
    trn_sim *s = open_test();
    trn_error e = {.msg = ""};
    assert_int_equal(trn_sim_load_program_text(s, prog, "p.json", &e), 0);
    assert_int_equal(trn_sim_run(s, &e), -1);
    assert_contains(e.msg, needle);
    trn_sim_close(s);
}

#define X4                                                                                         \
    "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 4], "          \
    "\"data\": [1, 2, 3, 4]}"
#define Y4 "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 4]}"

static void json_errors(void **st) {
    expect_load_error("{\n \"tensors\": [,\n]}", "p.json:2:");
    expect_load_error("{\"tensors\": [], \"instructions\": [], \"colour\": 1}",
                      "p.json: program: unknown key 'colour'");
    expect_load_error("{\"tensors\": [" X4
                      "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"z\"]}]}",
                      "p.json: instruction 0 (opcode TestCopy): inputs[0]: no tensor named 'z'");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": "
                      "\"float33\", \"shape\": [1]}],"
                      " \"instructions\": []}",
                      "unknown dtype 'float33'");
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"opcode\": \"NoSuchOp\"}]}",
                      "instruction 0 (opcode NoSuchOp): unknown opcode name 'NoSuchOp'");
    expect_load_error("{\"tensors\": [" X4 "," X4 "], \"instructions\": []}",
                      "tensor 'x': declared twice");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"int8\", "
                      "\"shape\": [1, 2],"
                      " \"data\": [1, 300]}], \"instructions\": []}",
                      "tensor 'x', data: element 1: 300 does not fit int8");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": "
                      "\"float32\", \"shape\": [1, 2],"
                      " \"data\": [1]}], \"instructions\": []}",
                      "'data' must be a list of 2 numbers");
}

/* A failed load leaves no program behind: running afterwards is refused,
 * not a run of the instructions and tensors that did parse. */
static void failed_load_leaves_nothing(void **st) {
    trn_sim *s = open_test();
    trn_error e = {.msg = ""};
    assert_int_equal(
        trn_sim_load_program_text(
            s,
            "{\"tensors\": [" X4 "," Y4 ", {\"name\": \"b\", \"memory\": \"sbuf\","
            " \"dtype\": \"int8\", \"shape\": [1, 2], \"data\": [1, 300]}], \"instructions\": ["
            "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}",
            "p.json", &e),
        -1);
    assert_contains(e.msg, "300 does not fit int8");
    assert_int_equal(trn_sim_run(s, &e), -1);
    assert_contains(e.msg, "no program is loaded");
    float y[4];
    assert_int_equal(trn_sim_get_tensor(s, "y", 0, y, sizeof y, &e), -1);
    assert_int_equal(trn_sim_cores(s), 0);
    trn_sim_close(s);
}

static void placement(void **st) {
    trn_sim *s = run_ok("{\"tensors\": [" X4 "," Y4
                        ",{\"name\": \"h\", \"memory\": \"hbm\", \"dtype\": \"int64\","
                        " \"shape\": [3]}, {\"name\": \"z\", \"memory\": \"sbuf\", \"dtype\": "
                        "\"float16\", \"shape\": [2, 2],"
                        " \"partition\": 3, \"offset\": 1000}], \"instructions\": []}");
    assert_int_equal(s->prog.tensors[0].offset_bytes, 0);
    assert_int_equal(s->prog.tensors[1].offset_bytes, 64); /* after 16 bytes, rounded up to 64 */
    assert_int_equal(s->prog.tensors[2].offset_bytes, 0);  /* its own memory */
    assert_int_equal(s->prog.tensors[3].offset_bytes, 1000);
    assert_int_equal(s->prog.tensors[3].ap.part_start, 3);
    assert_int_equal(s->prog.tensors[3].ap.offset, 500);
    trn_sim_close(s);
    expect_load_error(
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
        "[1, 4],"
        " \"offset\": 196600}], \"instructions\": []}",
        "tensor 'x': needs bytes 196600..196615 of sbuf, which has 196608 per partition");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": "
                      "\"float32\", \"shape\": [129, 4]}],"
                      " \"instructions\": []}",
                      "129 partitions, the machine has 128");
}

/* Sizes and placements that do not fit int64 are refused with their
 * numbers, not wrapped (UBSan names the overflow in the sanitizer build). */
static void huge_shapes_and_offsets(void **st) {
    expect_load_error(
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": \"float32\","
        " \"shape\": [4294967296, 4294967296], \"data\": []}], \"instructions\": []}",
        "p.json: tensor 'x': 'shape' has more than 2^40 elements");
    expect_load_error(
        "{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"int8\","
        " \"shape\": [1, 4294967296, 4294967296, 4294967296]}], \"instructions\": []}",
        "tensor 'x': 'shape' has more than 2^40 elements");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": "
                      "\"float32\", \"shape\": [16],"
                      " \"offset\": 9223372036854775800}], \"instructions\": []}",
                      "tensor 'x': needs bytes 9223372036854775800..9223372036854775863 of hbm, "
                      "which has 268435456");
}

/* A register value added to an operand's offset must not wrap around. */
static void dynamic_offset_overflow(void **st) {
    expect_run_error("{\"tensors\": [" X4 "," Y4 "], \"instructions\": ["
                     "{\"opcode\": \"TestRegs\", \"reg\": 0, \"value\": 9223372036854775807},"
                     "{\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"offset\": 100, "
                     "\"offset_register\": 0}],"
                     " \"outputs\": [\"y\"]}]}",
                     "instruction 1 (core 0, opcode TestCopy/200, family test): inputs[0]: offset "
                     "100 + register 0 "
                     "(9223372036854775807) is outside int64");
    expect_run_error(
        "{\"tensors\": [" X4 "," Y4 "], \"instructions\": ["
        "{\"opcode\": \"TestRegs\", \"reg\": 1, \"value\": -9223372036854775808},"
        "{\"opcode\": \"TestCopy\", \"inputs\": [\"y\"],"
        " \"outputs\": [{\"tensor\": \"x\", \"offset\": -1, \"offset_register\": 1}]}]}",
        "outputs[0]: offset -1 + register 1 (-9223372036854775808) is outside int64");
    /* In int64 but far outside the memory: the usual bounds message, with the
     * byte offset (beyond int64) printed exactly, not wrapped. y starts at
     * element 16: (16 - 1 - 2^63) * 4 bytes. */
    expect_run_error(
        "{\"tensors\": [" X4 "," Y4 "], \"instructions\": ["
        "{\"opcode\": \"TestRegs\", \"reg\": 1, \"value\": -9223372036854775808},"
        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"],"
        " \"outputs\": [{\"tensor\": \"y\", \"offset\": -1, \"offset_register\": 1}]}]}",
        "outputs[0]: element at byte offset -36893488147419103172 is before the start of sbuf");
    expect_run_error(
        "{\"tensors\": [" X4 "," Y4 "], \"instructions\": ["
        "{\"opcode\": \"TestRegs\", \"reg\": 0, \"value\": 9223372036854775000},"
        "{\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"offset_register\": 0}],"
        " \"outputs\": [\"y\"]}]}",
        "inputs[0]: element at byte offset 36893488147419100012 (4 bytes) is past the end of sbuf");
}

static void static_operand_bounds(void **st) {
    expect_load_error(
        "{\"tensors\": [" X4
        "], \"instructions\": [{\"opcode\": 200, \"inputs\": [\"x\"], \"outputs\": "
        "[{\"memory\": \"psum\", \"dtype\": \"float32\", \"offset\": 4095, \"ap\": [[1, 2]]}]}]}",
        "p.json: instruction 0 (opcode TestCopy/200, family test), outputs[0]: element at byte "
        "offset 16384 (4 bytes) "
        "is past the end of psum (16384 bytes per partition)");
}

static void get_f32(trn_sim *s, const char *name, float *out, size_t n) {
    trn_error e;
    if (trn_sim_get_tensor(s, name, 0, out, n * sizeof(float), &e)) fail_msg("%s", e.msg);
}

static void operands_and_dynamic_offset(void **st) {
    trn_sim *s = run_ok("{\"tensors\": [" X4 "," Y4 "], \"instructions\": ["
                        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
                        "{\"opcode\": \"TestRegs\", \"reg\": 3, \"value\": 2},"
                        "{\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"ap\": [[1, "
                        "2]], \"offset_register\": 3}],"
                        " \"outputs\": [{\"tensor\": \"y\", \"ap\": [[-1, 2]], \"offset\": 1}]}]}");
    float y[4];
    get_f32(s, "y", y, 4);
    assert_true(y[0] == 4 && y[1] == 3 && y[2] == 3 && y[3] == 4);
    trn_sim_close(s);
}

static void experimental_opcode_by_name_and_number(void **st) {
    trn_sim *s = run_ok("{\"tensors\": [" X4 "," Y4 "], \"instructions\": ["
                        "{\"opcode\": 205, \"outputs\": [\"y\"]}]}");
    float y[4];
    get_f32(s, "y", y, 4); /* the module's setting scale = 3.5 from the config */
    assert_true(y[0] == 3.5f && y[3] == 3.5f);
    trn_sim_close(s);
}

static void sub_instructions_and_error_context(void **st) {
    trn_sim *s = run_ok(
        "{\"tensors\": [" X4 "," Y4 "], \"instructions\": [{\"opcode\": \"TestSub\", \"body\": ["
        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"acc\": 1}]}]}");
    float y[4];
    get_f32(s, "y", y, 4);
    assert_true(y[0] == 2 && y[3] == 8);
    trn_sim_close(s);
    expect_run_error(
        "{\"tensors\": [" X4 "," Y4
        "], \"instructions\": [{\"opcode\": \"TestRegs\"}, {\"opcode\": \"TestSub\","
        " \"body\": [{\"opcode\": \"TestRegs\"}, {\"opcode\": \"TestFail\", \"message\": "
        "\"boom\"}]}]}",
        "p.json: instruction 1 (core 0, opcode TestSub/206, family test): body[1] of 2: "
        "sub-instruction (opcode TestFail/203): boom");
}

/* A failed operand() leaves a zero AP, not the unchecked one: a module that
 * counts its elements anyway (as trnsim-collective's p2p did) gets 0 rather
 * than a product of wild nums (a signed overflow in trn_ap_elems). The
 * dynamic offset keeps the load-time check from refusing the AP first. */
static void failed_operand_is_zeroed(void **st) {
    trn_sim *s = run_ok("{\"tensors\": [" X4
                        "], \"instructions\": [{\"opcode\": \"TestOperandFail\", \"inputs\": "
                        "[{\"tensor\": \"x\", \"offset_register\": 0, \"ap\": [[1, 2147483647], "
                        "[1, 2147483647], [1, 1048577]]}]}]}");
    assert_int_equal(s->cores[0].regs[0], 0);
    assert_int_equal(s->cores[0].regs[1], 0);
    trn_sim_close(s);
}

/* TRN_WAIT is for opcodes that declare TRN_OPF_MAY_WAIT, and never from a
 * sub-instruction: either is a module bug reported as such, not a deadlock. */
static void wait_misuse(void **st) {
    expect_run_error("{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestWaitNoFlag\"}]}",
                     "instruction 0 (core 0, opcode TestWaitNoFlag/208, family test): the handler "
                     "returned TRN_WAIT, "
                     "but its opcode does not declare TRN_OPF_MAY_WAIT");
    expect_run_error(
        "{\"cores\": 2, \"tensors\": [], \"instructions\": [{\"opcode\": \"TestSub\", \"body\": ["
        "{\"opcode\": \"TestRendezvous\"}]}]}",
        "instruction 0 (core 0, opcode TestSub/206, family test): body[0] of 1: sub-instruction "
        "(opcode TestRendezvous/201): a sub-instruction may not wait for other cores");
}

/* The value walk accepts NULL (an absent attribute, a list index past the
 * end) everywhere, as plugin.h says attr() and value_at() return it. */
static void value_walk_of_null(void **st) {
    trn_sim *s = run_ok("{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestKind\"}]}");
    assert_int_equal(s->cores[0].regs[0], TRN_V_NULL);
    assert_int_equal(s->cores[0].regs[1], 0);
    assert_int_equal(s->cores[0].regs[2], 1);
    trn_sim_close(s);
    s = run_ok(
        "{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestKind\", \"v\": [7, 8, 9]}]}");
    assert_int_equal(s->cores[0].regs[0], TRN_V_LIST);
    assert_int_equal(s->cores[0].regs[1], 3);
    assert_int_equal(s->cores[0].regs[2], 0);
    trn_sim_close(s);
}

/* Attributes are validated against the opcode's schema when the program
 * loads, and TestCopy's static check runs then too. */
static void attribute_type_errors(void **st) {
    expect_load_error("{\"tensors\": [" X4 "," Y4
                      "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"],"
                      " \"outputs\": [\"y\"], \"acc\": \"lots\"}]}",
                      "p.json: instruction 0 (opcode TestCopy/200, family test): attribute 'acc' "
                      "of TestCopy must be int, "
                      "found a string");
    expect_load_error("{\"tensors\": [" X4 "," Y4
                      "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"]}]}",
                      "p.json: instruction 0 (core 0, opcode TestCopy/200, family test): expected "
                      "outputs[0], the "
                      "instruction has 0 outputs");
}

static void schema_names_the_closest(void **st) {
    expect_load_error("{\"tensors\": [" X4 "," Y4
                      "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"],"
                      " \"outputs\": [\"y\"], \"accc\": 1}]}",
                      "p.json: instruction 0 (opcode TestCopy/200, family test): unknown attribute "
                      "'accc' for TestCopy; "
                      "did you mean 'acc'?");
    expect_load_error("{\"tensors\": [" X4 "," Y4
                      "], \"instructions\": [{\"opcode\": \"TestCopy\", \"input\": [\"x\"],"
                      " \"outputs\": [\"y\"]}]}",
                      "unknown instruction key 'input' for TestCopy; did you mean 'inputs'?");
    expect_load_error("{\"tensors\": [" X4 "," Y4
                      "], \"instructions\": [{\"opcode\": \"testcopy\", \"inputs\": [\"x\"],"
                      " \"outputs\": [\"y\"]}]}",
                      "p.json: instruction 0 (opcode testcopy): unknown opcode name 'testcopy'; "
                      "did you mean 'TestCopy'?");
    expect_load_error("{\"tensors\": [" X4 "," Y4
                      "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"],"
                      " \"outputs\": [\"y\"], \"acc\": 7}]}",
                      "attribute 'acc' of TestCopy = 7 is outside [0, 3]");
    expect_load_error(
        "{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestSetting\", \"scale\": 1}]}",
        "unknown attribute 'scale' for TestSetting, which takes no attributes");
    expect_load_error(
        "{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestRegs\", \"colour\": 1}]}",
        "unknown attribute 'colour' for TestRegs (its attributes: reg, value)");
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestScatter\", "
                      "\"indices\": [1, 2.5]}]}",
                      "attribute 'indices'[1] of TestScatter must be int, found a number");
}

/* An opcode without a schema (TestKind) takes any attribute, as in ABI 1. */
static void no_schema_takes_anything(void **st) {
    trn_sim *s =
        run_ok("{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestKind\", \"v\": [1, [2]], "
               "\"anything\": {\"k\": 1}}]}");
    assert_int_equal(s->cores[0].regs[0], TRN_V_LIST);
    assert_int_equal(s->cores[0].regs[1], 2);
    trn_sim_close(s);
}

static void multicore_rendezvous_and_deadlock(void **st) {
    trn_sim *s = run_ok("{\"cores\": 4, \"tensors\": [" X4 "," Y4
                        "], \"instructions\": [{\"opcode\": \"TestRendezvous\"},"
                        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}, "
                        "{\"opcode\": \"TestRendezvous\"}]}");
    assert_int_equal(s->stats.count[201], 8); /* 2 rendezvous x 4 cores, each counted once */
    assert_int_equal(s->stats.count[200], 4);
    trn_sim_close(s);
    expect_run_error(
        "{\"cores\": 3, \"tensors\": [], \"instructions\": [{\"opcode\": \"TestRendezvous\"},"
        " {\"opcode\": \"TestWaitForever\"}]}",
        "p.json: deadlock: every unfinished core waits and none can proceed: core 0 waits at "
        "instruction 1 "
        "(TestWaitForever/202); core 1 waits at instruction 1");
}

static void per_core_data_and_tensor_io(void **st) {
    trn_sim *s = open_test();
    trn_error e;
    assert_int_equal(trn_sim_load_program_text(
                         s,
                         "{\"cores\": 2, \"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\","
                         " \"dtype\": \"float32\", \"shape\": [2], \"data_per_core\": [[1, 2], [3, "
                         "\"-inf\"]]}], \"instructions\": []}",
                         "p.json", &e),
                     0);
    float v[2];
    assert_int_equal(trn_sim_get_tensor(s, "x", 1, v, sizeof v, &e), 0);
    assert_true(v[0] == 3 && isinf(v[1]) && v[1] < 0);
    float w[2] = {7, 8};
    assert_int_equal(trn_sim_set_tensor(s, "x", 0, w, sizeof w, &e), 0);
    assert_int_equal(trn_sim_get_tensor(s, "x", 0, v, sizeof v, &e), 0);
    assert_true(v[0] == 7 && v[1] == 8);
    assert_int_equal(trn_sim_set_tensor(s, "x", 0, w, 4, &e), -1);
    assert_contains(e.msg, "tensor 'x': 4 bytes given, the tensor has 8 bytes");
    assert_int_equal(trn_sim_get_tensor(s, "x", 2, v, sizeof v, &e), -1);
    assert_contains(e.msg, "core 2 does not exist");
    trn_sim_close(s);
}

static void remote_operands(void **st) {
    trn_sim *s =
        run_ok("{\"cores\": 3, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": "
               "\"float32\","
               " \"shape\": [1, 2], \"data_per_core\": [[0, 1], [10, 11], [20, 21]]}," Y4 ","
               " {\"name\": \"z\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [2]}],"
               " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"],"
               " \"outputs\": [{\"tensor\": \"y\", \"ap\": [[1, 2]], \"core_offset\": 1}]},"
               " {\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"core\": 2}], "
               "\"outputs\": [\"z\"]}]}");
    trn_error e;
    for (int c = 0; c < 3; ++c) {
        float y[4], z[2];
        assert_int_equal(trn_sim_get_tensor(s, "y", c, y, sizeof y, &e), 0);
        assert_int_equal(trn_sim_get_tensor(s, "z", c, z, sizeof z, &e), 0);
        int from = (c + 2) % 3; /* written by the core before it */
        assert_true(y[0] == (float)(10 * from) && y[1] == (float)(10 * from + 1));
        assert_true(z[0] == 20.0f && z[1] == 21.0f);
    }
    trn_sim_close(s);
    expect_load_error("{\"cores\": 2, \"tensors\": [" X4
                      "], \"instructions\": [{\"opcode\": 200, \"inputs\":"
                      " [{\"tensor\": \"x\", \"core\": 2}], \"outputs\": [\"x\"]}]}",
                      "inputs[0]: core 2 does not exist (the program has 2 cores)");
}

/* trn_scan_value against jansson reading the same text (its oracle): the
 * same value, or NULL from both, and the same end of the value. True when
 * the scanner gave a value. */
static bool scan_value_is_jansson(const char *text) {
    trn_scan sc = {text, strlen(text), 0};
    json_error_t je;
    json_t *want = json_loadb(
        text, sc.n, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    json_t *got = trn_scan_value(&sc);
    bool scalar_refused = want && !json_is_object(want) && !json_is_array(want) && !got;
    if (!scalar_refused &&
        (!want != !got || (want && !json_equal(want, got)) || (got && sc.i != (size_t)je.position)))
        fail_msg("'%s': the scanner gives %s, jansson %s (ends %zu, %d)", text,
                 got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : "nothing",
                 want ? json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT) : "nothing", sc.i,
                 je.position);
    json_decref(want);
    json_decref(got);
    return got != NULL;
}

/* A random JSON value into text (with repeated keys, escapes, fractions
 * and null now and then, which the scanner hands to jansson). */
static void random_json(char *text, size_t cap, size_t *len, int depth) {
    static const char *const scalars[] = {"0",      "-12",     "9223372036854775807",
                                          "true",   "false",   "\"k\"",
                                          "\"k2\"", "\"a b\"", "\"\"",
                                          "null",   "2.5",     "\"\\n\"",
                                          "1e2",    "-0"};
    int kind = (int)rnd_in(depth ? 0 : 1, depth > 9 ? 0 : 2);
    if (*len + 64 > cap) kind = 0;
    if (kind == 0) {
        const char *t = scalars[rnd_in(0, (int64_t)(sizeof scalars / sizeof scalars[0]) - 1)];
        *len += (size_t)snprintf(text + *len, cap - *len, "%s", t);
        return;
    }
    text[(*len)++] = kind == 1 ? '[' : '{';
    for (int k = 0, m = (int)rnd_in(0, 4); k < m && *len + 64 < cap; ++k) {
        if (k) text[(*len)++] = ',';
        if (kind == 2)
            *len += (size_t)snprintf(text + *len, cap - *len, "\"%c\": ", 'a' + (int)rnd_in(0, 5));
        random_json(text, cap, len, depth + 1);
    }
    text[(*len)++] = kind == 1 ? ']' : '}';
    text[*len] = 0;
}

static void scanned_values_are_jansson_values(void **state) {
    (void)state;
    static const char *const known[] = {
        "{}",
        "[]",
        " { \"a\" : [1, -2, 0, -0, 9223372036854775807] } tail",
        "{\"a\": 1, \"a\": 2}", /* a repeated key: refused by both */
        "{\"a\": {\"b\": 1, \"b\": 1}}",
        "{\"\": true, \"x\": false}",
        "[\"a\\\"b\"]",
        "[\"\\u00e9\"]",
        "[\"\xc3\xa9\"]", /* escapes, UTF-8: jansson's */
        "[null]",
        "[1.5]",
        "[1e3]",
        "[01]",
        "[-]",
        "[9223372036854775808]",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\" 1}",
        "{1: 2}",
        "[",
        "{\"a\": [1, {\"b\": [",
        "[[[[[[[[[1]]]]]]]]]",
        "[[[[[[[[[[[[[[[[[[[[\"deep\"]]]]]]]]]]]]]]]]]]]]",
        "[true, false, \"x\", {\"k\": [[], {}]}]",
        "[tru]",
        "[falsey]"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i) scan_value_is_jansson(known[i]);
    /* random values, mostly valid JSON, now and then with one byte changed */
    char text[4096];
    int built = 0;
    for (int n = 0; n < 20000; ++n) {
        size_t len = 0;
        random_json(text, sizeof text, &len, 0);
        if (rnd_in(0, 3) == 0 && len > 1)
            text[rnd_in(0, (int64_t)len - 1)] = "{}[],:\"1 "[rnd_in(0, 8)];
        built += scan_value_is_jansson(text);
    }
    /* the comparison covered values, not only refusals */
    if (built < 5000) fail_msg("only %d of 20000 values built", built);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scanned_values_are_jansson_values),
        cmocka_unit_test(json_errors),
        cmocka_unit_test(placement),
        cmocka_unit_test(failed_load_leaves_nothing),
        cmocka_unit_test(static_operand_bounds),
        cmocka_unit_test(huge_shapes_and_offsets),
        cmocka_unit_test(dynamic_offset_overflow),
        cmocka_unit_test(wait_misuse),
        cmocka_unit_test(value_walk_of_null),
        cmocka_unit_test(failed_operand_is_zeroed),
        cmocka_unit_test(operands_and_dynamic_offset),
        cmocka_unit_test(experimental_opcode_by_name_and_number),
        cmocka_unit_test(sub_instructions_and_error_context),
        cmocka_unit_test(attribute_type_errors),
        cmocka_unit_test(schema_names_the_closest),
        cmocka_unit_test(no_schema_takes_anything),
        cmocka_unit_test(multicore_rendezvous_and_deadlock),
        cmocka_unit_test(per_core_data_and_tensor_io),
        cmocka_unit_test(remote_operands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
