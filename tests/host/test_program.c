/* Programs through the host library: JSON errors, placement, operands,
 * dynamic offsets, sub-instructions, settings, multi-core runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_internal.h"
#include "test_util.h"

static const char cfg[] = "plugins = ( { family = \"test\"; module = \"trnsim-test\"; settings = { scale = 3.5; }; } );";

static trn_sim *open_test(void) {
    trn_sim *s;
    trn_error e;
    if (test_open(cfg, &s, &e)) fail_msg("%s", e.msg);
    return s;
}

static void expect_load_error(const char *prog, const char *needle) {
    trn_sim *s = open_test();
    trn_error e = {""};
    assert_int_equal(trn_sim_load_program_text(s, prog, "p.json", &e), -1);
    assert_contains(e.msg, needle);
    trn_sim_close(s);
}

static trn_sim *run_ok(const char *prog) {
    trn_sim *s = open_test();
    trn_error e;
    if (trn_sim_load_program_text(s, prog, "p.json", &e) || trn_sim_run(s, &e)) fail_msg("%s", e.msg);
    return s;
}

static void expect_run_error(const char *prog, const char *needle) {
    trn_sim *s = open_test();
    trn_error e = {""};
    assert_int_equal(trn_sim_load_program_text(s, prog, "p.json", &e), 0);
    assert_int_equal(trn_sim_run(s, &e), -1);
    assert_contains(e.msg, needle);
    trn_sim_close(s);
}

#define X4 "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 4], \"data\": [1, 2, 3, 4]}"
#define Y4 "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 4]}"

static void json_errors(void **st) {
    expect_load_error("{\n \"tensors\": [,\n]}", "p.json:2:");
    expect_load_error("{\"tensors\": [], \"instructions\": [], \"colour\": 1}", "p.json: program: unknown key 'colour'");
    expect_load_error("{\"tensors\": [" X4 "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"z\"]}]}",
                      "p.json: instruction 0: inputs[0]: no tensor named 'z'");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float33\", \"shape\": [1]}],"
                      " \"instructions\": []}", "unknown dtype 'float33'");
    expect_load_error("{\"tensors\": [], \"instructions\": [{\"opcode\": \"NoSuchOp\"}]}",
                      "instruction 0: unknown opcode name 'NoSuchOp'");
    expect_load_error("{\"tensors\": [" X4 "," X4 "], \"instructions\": []}", "tensor 'x': declared twice");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"int8\", \"shape\": [1, 2],"
                      " \"data\": [1, 300]}], \"instructions\": []}", "tensor 'x', data: element 1: 300 does not fit int8");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 2],"
                      " \"data\": [1]}], \"instructions\": []}", "'data' must be a list of 2 numbers");
}

static void placement(void **st) {
    trn_sim *s = run_ok("{\"tensors\": [" X4 "," Y4 ",{\"name\": \"h\", \"memory\": \"hbm\", \"dtype\": \"int64\","
                        " \"shape\": [3]}, {\"name\": \"z\", \"memory\": \"sbuf\", \"dtype\": \"float16\", \"shape\": [2, 2],"
                        " \"partition\": 3, \"offset\": 1000}], \"instructions\": []}");
    assert_int_equal(s->prog.tensors[0].offset_bytes, 0);
    assert_int_equal(s->prog.tensors[1].offset_bytes, 64); /* after 16 bytes, rounded up to 64 */
    assert_int_equal(s->prog.tensors[2].offset_bytes, 0);  /* its own memory */
    assert_int_equal(s->prog.tensors[3].offset_bytes, 1000);
    assert_int_equal(s->prog.tensors[3].ap.part_start, 3);
    assert_int_equal(s->prog.tensors[3].ap.offset, 500);
    trn_sim_close(s);
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 4],"
                      " \"offset\": 196600}], \"instructions\": []}",
                      "tensor 'x': needs bytes 196600..196615 of sbuf, which has 196608 per partition");
    expect_load_error("{\"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [129, 4]}],"
                      " \"instructions\": []}", "129 partitions, the machine has 128");
}

static void static_operand_bounds(void **st) {
    expect_load_error("{\"tensors\": [" X4 "], \"instructions\": [{\"opcode\": 200, \"inputs\": [\"x\"], \"outputs\": "
                      "[{\"memory\": \"psum\", \"dtype\": \"float32\", \"offset\": 4095, \"ap\": [[1, 2]]}]}]}",
                      "p.json: instruction 0 (opcode TestCopy/200, family test), outputs[0]: element at byte offset 16384 (4 bytes) "
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
                        "{\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"ap\": [[1, 2]], \"offset_register\": 3}],"
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
    trn_sim *s = run_ok("{\"tensors\": [" X4 "," Y4 "], \"instructions\": [{\"opcode\": \"TestSub\", \"body\": ["
                        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
                        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"acc\": 1}]}]}");
    float y[4];
    get_f32(s, "y", y, 4);
    assert_true(y[0] == 2 && y[3] == 8);
    trn_sim_close(s);
    expect_run_error("{\"tensors\": [" X4 "," Y4 "], \"instructions\": [{\"opcode\": \"TestRegs\"}, {\"opcode\": \"TestSub\","
                     " \"body\": [{\"opcode\": \"TestRegs\"}, {\"opcode\": \"TestFail\", \"message\": \"boom\"}]}]}",
                     "p.json: instruction 1 (core 0, opcode TestSub/206, family test): body[1] of 2: "
                     "sub-instruction (opcode TestFail/203): boom");
}

static void attribute_type_errors(void **st) {
    expect_run_error("{\"tensors\": [" X4 "," Y4 "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"],"
                     " \"outputs\": [\"y\"], \"acc\": \"lots\"}]}", "attribute 'acc' must be an integer");
    expect_run_error("{\"tensors\": [" X4 "," Y4 "], \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"]}]}",
                     "expected outputs[0], the instruction has 0 outputs");
}

static void multicore_rendezvous_and_deadlock(void **st) {
    trn_sim *s = run_ok("{\"cores\": 4, \"tensors\": [" X4 "," Y4 "], \"instructions\": [{\"opcode\": \"TestRendezvous\"},"
                        "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}, {\"opcode\": \"TestRendezvous\"}]}");
    assert_int_equal(s->stats.count[201], 8); /* 2 rendezvous x 4 cores, each counted once */
    assert_int_equal(s->stats.count[200], 4);
    trn_sim_close(s);
    expect_run_error("{\"cores\": 3, \"tensors\": [], \"instructions\": [{\"opcode\": \"TestRendezvous\"},"
                     " {\"opcode\": \"TestWaitForever\"}]}",
                     "p.json: deadlock: every unfinished core waits and none can proceed: core 0 waits at instruction 1 "
                     "(TestWaitForever/202); core 1 waits at instruction 1");
}

static void per_core_data_and_tensor_io(void **st) {
    trn_sim *s = open_test();
    trn_error e;
    assert_int_equal(trn_sim_load_program_text(s, "{\"cores\": 2, \"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\","
                     " \"dtype\": \"float32\", \"shape\": [2], \"data_per_core\": [[1, 2], [3, \"-inf\"]]}], \"instructions\": []}",
                     "p.json", &e), 0);
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
    trn_sim *s = run_ok("{\"cores\": 3, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\","
                        " \"shape\": [1, 2], \"data_per_core\": [[0, 1], [10, 11], [20, 21]]}," Y4 ","
                        " {\"name\": \"z\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [2]}],"
                        " \"instructions\": [{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"],"
                        " \"outputs\": [{\"tensor\": \"y\", \"ap\": [[1, 2]], \"core_offset\": 1}]},"
                        " {\"opcode\": \"TestCopy\", \"inputs\": [{\"tensor\": \"x\", \"core\": 2}], \"outputs\": [\"z\"]}]}");
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
    expect_load_error("{\"cores\": 2, \"tensors\": [" X4 "], \"instructions\": [{\"opcode\": 200, \"inputs\":"
                      " [{\"tensor\": \"x\", \"core\": 2}], \"outputs\": [\"x\"]}]}",
                      "inputs[0]: core 2 does not exist (the program has 2 cores)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_errors),
        cmocka_unit_test(placement),
        cmocka_unit_test(static_operand_bounds),
        cmocka_unit_test(operands_and_dynamic_offset),
        cmocka_unit_test(experimental_opcode_by_name_and_number),
        cmocka_unit_test(sub_instructions_and_error_context),
        cmocka_unit_test(attribute_type_errors),
        cmocka_unit_test(multicore_rendezvous_and_deadlock),
        cmocka_unit_test(per_core_data_and_tensor_io),
        cmocka_unit_test(remote_operands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
