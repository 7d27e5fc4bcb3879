/* The native `loop` construct: trips, the loop variable in a register,
 * nesting, zero trips, waits inside a loop, the execution limit, errors
 * with their instruction and execution, and a loaded program whose size
 * does not depend on the trip count. */
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec_test.h"
#include "host/test_util.h"

static const char cfg[] = "plugins = ( { family = \"test\"; module = \"trnsim-test\"; } );";

static trn_sim *open_cfg(const char *c) {
    trn_sim *s;
    trn_error e;
    if (test_open(c, &s, &e)) fail_msg("%s", e.msg);
    return s;
}

static trn_sim *run_ok(const char *prog) {
    trn_sim *s = open_cfg(cfg);
    trn_error e;
    if (trn_sim_load_program_text(s, prog, "p.json", &e) || trn_sim_run(s, &e))
        fail_msg("%s", e.msg);
    return s;
}

static void expect_load_error_cfg(const char *c, const char *prog, const char *needle) {
    trn_sim *s = open_cfg(c);
    trn_error e = {""};
    assert_int_equal(trn_sim_load_program_text(s, prog, "p.json", &e), -1);
    assert_contains(e.msg, needle);
    assert_false(s->have_prog); /* nothing half-loaded stays behind */
    trn_sim_close(s);
}

static void expect_load_error(const char *prog, const char *needle) {
    expect_load_error_cfg(cfg, prog, needle);
}

static void get_f32(trn_sim *s, const char *name, float *out, size_t n) {
    trn_error e;
    if (trn_sim_get_tensor(s, name, 0, out, n * sizeof(float), &e)) fail_msg("%s", e.msg);
}

#define X8                                                                                         \
    "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 8], "          \
    "\"data\": [1, 2, 3, 4, 5, 6, 7, 8]}"
#define Y8                                                                                         \
    "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 8], "          \
    "\"fill\": 0}"

/* Trip k copies the pair x[2k], x[2k+1] to y[2k+1], y[2k]: both operands
 * step by the loop register (0, 2, 4, 6); the output walks its pair backwards. */
static void loop_variable_steps_offsets(void **st) {
    trn_sim *s =
        run_ok("{\"tensors\": [" X8 "," Y8 "], \"instructions\": ["
               "{\"loop\": {\"trips\": 4, \"register\": 2, \"start\": 0, \"step\": 2, \"body\": ["
               "  {\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"ap\": [[1, 2]], "
               "\"offset_register\": 2}],"
               "   \"outputs\": [{\"tensor\": \"y\", \"ap\": [[-1, 2]], \"offset\": 1, "
               "\"offset_register\": 2}]}]}}]}");
    float y[8];
    get_f32(s, "y", y, 8);
    float want[8] = {2, 1, 4, 3, 6, 5, 8, 7};
    for (int i = 0; i < 8; ++i) assert_true(y[i] == want[i]);
    assert_int_equal(s->stats.count[200], 4);
    assert_int_equal(s->cores[0].regs[2], 6); /* the loop variable keeps its last value */
    trn_sim_close(s);
}

/* Nested loops: the inner body runs outer x inner times; accumulate x[0]
 * into y[j] with j the inner variable, so y[j] = 3 * x[0] for j < 2. */
static void nested_loops_and_zero_trips(void **st) {
    trn_sim *s = run_ok(
        "{\"tensors\": [" X8 "," Y8 "], \"instructions\": ["
        "{\"loop\": {\"trips\": 3, \"register\": 0, \"body\": ["
        "  {\"loop\": {\"trips\": 2, \"register\": 1, \"body\": ["
        "    {\"opcode\": \"TestCopy\", \"acc\": 1, \"inputs\": [{\"tensor\": \"x\", \"ap\": [[1, "
        "1]]}],"
        "     \"outputs\": [{\"tensor\": \"y\", \"ap\": [[1, 1]], \"offset_register\": 1}]}]}},"
        "  {\"loop\": {\"trips\": 0, \"body\": [{\"opcode\": \"TestFail\"}]}}]}},"
        "{\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"ap\": [[1, 1]], \"offset\": "
        "7}],"
        " \"outputs\": [{\"tensor\": \"y\", \"ap\": [[1, 1]], \"offset\": 7}]}]}");
    float y[8];
    get_f32(s, "y", y, 8);
    assert_true(y[0] == 3 && y[1] == 3 && y[2] == 0 && y[7] == 8);
    assert_int_equal(s->stats.count[200], 7);
    assert_int_equal(s->stats.count[203], 0);
    assert_int_equal(s->prog.summary.loops, 3);
    assert_int_equal(s->prog.summary.executions, 7);
    assert_int_equal(s->prog.summary.instructions, 3);
    trn_sim_close(s);
}

/* Waiting instructions inside a loop: every core passes every trip's rendezvous. */
static void rendezvous_in_a_loop(void **st) {
    trn_sim *s =
        run_ok("{\"cores\": 3, \"tensors\": [], \"instructions\": ["
               "{\"loop\": {\"trips\": 5, \"body\": [{\"opcode\": \"TestRendezvous\"}]}}]}");
    assert_int_equal(s->stats.count[201], 15);
    trn_sim_close(s);
}

/* A million trips load as three entries: memory does not follow the trip count. */
static void program_size_independent_of_trips(void **st) {
    trn_sim *s = open_cfg(cfg);
    trn_error e;
    if (trn_sim_load_program_text(s,
                                  "{\"tensors\": [" X8 "," Y8
                                  "], \"instructions\": [{\"loop\": {\"trips\": 1000000,"
                                  " \"body\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], "
                                  "\"outputs\": [\"y\"]}]}}]}",
                                  "p.json", &e))
        fail_msg("%s", e.msg);
    assert_int_equal(s->prog.n_insts, 3);
    assert_int_equal(s->prog.summary.executions, 1000000);
    trn_sim_close(s);
}

static void execution_limit(void **st) {
    expect_load_error(
        "{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 1000000000, \"body\": "
        "[{\"opcode\": \"TestRegs\"}]}}]}",
        "p.json: the program executes 1000000000 instructions per core (loops multiplied out), "
        "more "
        "than the limit of 100000000; raise max_executions in the config");
    /* Nested trips multiply (2^31 * 2^31 * 2^31 saturates). */
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 2147483648, "
                      "\"body\": [{\"loop\": "
                      "{\"trips\": 2147483648, \"body\": [{\"loop\": {\"trips\": 2147483648, "
                      "\"body\": [{\"opcode\": "
                      "\"TestRegs\"}]}}]}}]}}]}",
                      "executes at least 18446744073709551615 instructions");
    static const char small[] =
        "max_executions = 10; plugins = ( { family = \"test\"; module = \"trnsim-test\"; } );";
    expect_load_error_cfg(small,
                          "{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestRegs\"}, "
                          "{\"loop\": {\"trips\": 10,"
                          " \"body\": [{\"opcode\": \"TestRegs\"}]}}]}",
                          "executes 11 instructions per core");
    trn_sim *s = open_cfg(small);
    trn_error e;
    assert_int_equal(
        trn_sim_load_program_text(s,
                                  "{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 10,"
                                  " \"body\": [{\"opcode\": \"TestRegs\"}]}}]}",
                                  "p.json", &e),
        0);
    trn_sim_close(s);
    trn_sim *bad;
    trn_sim_opts o = {.config_text = "max_executions = 0;", .exe_dir = TRNSIM_MODULE_DIR};
    assert_int_equal(trn_sim_open(&bad, &o, &e), -1);
    assert_contains(e.msg, "max_executions must be a positive integer");
}

static void loop_errors(void **st) {
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestRegs\"}, {\"loop\": "
                      "{\"body\": []}}]}",
                      "p.json: loop (instruction 1): 'trips' is required");
    expect_load_error(
        "{\"tensors\": [], \"instructions\": [{\"loop\": {\"trip\": 2, \"body\": []}}]}",
        "loop (instruction 0): unknown key 'trip' (did you mean 'trips'?)");
    expect_load_error(
        "{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": -1, \"body\": []}}]}",
        "loop (instruction 0): 'trips' = -1 is outside [0, 4611686018427387904]");
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 2, "
                      "\"register\": 64, \"body\": []}}]}",
                      "loop (instruction 0): 'register' = 64 is outside [0, 63]");
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 3, \"start\": "
                      "9223372036854775807,"
                      " \"body\": []}}]}",
                      "the loop variable's last value start + (trips-1)*step is outside int64");
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 2}}]}",
                      "loop (instruction 0): 'body' must be a list of instructions");
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 2, \"body\": "
                      "[]}, \"opcode\": 1}]}",
                      "loop (instruction 0): unknown key 'opcode'");
    /* Instructions inside a body are numbered on, depth first. */
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": 2, \"body\": "
                      "[{\"opcode\": \"TestRegs\"},"
                      " {\"opcode\": \"Nope\"}]}}]}",
                      "p.json: instruction 2 (opcode Nope): unknown opcode name 'Nope'");
}

/* A run-time error inside a loop names the instruction and which execution of it failed. */
static void run_error_names_execution(void **st) {
    trn_sim *s = open_cfg(cfg);
    trn_error e = {""};
    assert_int_equal(trn_sim_load_program_text(
                         s,
                         "{\"tensors\": [" X8 "," Y8 "], \"instructions\": ["
                         "{\"loop\": {\"trips\": 5, \"register\": 0, \"step\": 3, \"body\": ["
                         "  {\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"ap\": "
                         "[[1, 2]], \"offset_register\": 0}],"
                         "   \"outputs\": [{\"tensor\": \"y\", \"ap\": [[1, 2]]}]}]}}]}",
                         "p.json", &e),
                     0);
    assert_int_equal(trn_sim_run(s, &e), -1);
    /* Trips 0..2 read x[0..1], x[3..4], x[6..7]; trip 3 would read elements
     * 9..10, past x's 8 elements (bytes 0..31): the dynamic offset takes the
     * operand out of its tensor, which the run refuses at that execution. */
    assert_contains(
        e.msg, "p.json: instruction 1 (core 0, opcode TestCopy/200, family test, execution 3)");
    assert_contains(
        e.msg, "inputs[0]: leaves tensor 'x': element 0 (partition 0, bytes 36..39) is outside the "
               "tensor, which holds partitions 0..0 of sbuf, bytes 0..31");
    trn_sim_close(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loop_variable_steps_offsets),
        cmocka_unit_test(nested_loops_and_zero_trips),
        cmocka_unit_test(rendezvous_in_a_loop),
        cmocka_unit_test(program_size_independent_of_trips),
        cmocka_unit_test(execution_limit),
        cmocka_unit_test(loop_errors),
        cmocka_unit_test(run_error_names_execution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
