/* Observers (plugin ABI 3) through the host's own registration: what
 * before / after see (operands, tensors, status, depth, memory before and
 * after the write), waits observed at each attempt, errors, stopping a run
 * from before (the instruction does not run) and from after, removal, and
 * that run_end reports the run's result. */
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec_test.h"
#include "host/test_util.h"

static const char cfg[] = "plugins = ( { family = \"test\"; module = \"trnsim-test\"; } );";

#define MAX_SEEN 64

typedef struct seen {
    char opcode[32];
    uint32_t core, depth, n_in, n_out;
    uint64_t index;
    trn_status status;
    int after;
    char in_tensor[16], out_tensor[16];
    float out_first; /* outputs[0] element 0 when readable, else -1 */
    int64_t out_elems;
} seen;

typedef struct log {
    seen s[MAX_SEEN];
    int n;
    int stop_before_index, stop_after_index; /* -1: never */
    int run_end_calls, run_end_rc;
    int bad_read_refused;
    char error[256];
} log_t;

static void note(const trn_host_api *api, const trn_observation *ob, log_t *l, int after) {
    if (l->n == MAX_SEEN) return;
    seen *x = &l->s[l->n++];
    snprintf(x->opcode, sizeof x->opcode, "%s", ob->opcode);
    x->core = ob->core, x->depth = ob->depth, x->index = ob->index, x->status = ob->status,
    x->after = after;
    x->n_in = ob->n_in, x->n_out = ob->n_out;
    snprintf(x->in_tensor, sizeof x->in_tensor, "%s",
             ob->n_in && ob->in[0].tensor ? ob->in[0].tensor : "-");
    snprintf(x->out_tensor, sizeof x->out_tensor, "%s",
             ob->n_out && ob->out[0].tensor ? ob->out[0].tensor : "-");
    x->out_first = -1;
    x->out_elems = ob->n_out ? trn_ap_elems(&ob->out[0].ap) : 0;
    if (ob->n_out && ob->out[0].resolved && ob->out[0].ap.dtype == TRN_DT_FP32) {
        float v[64];
        if (x->out_elems <= 64 && api->observed_read_f32(ob, &ob->out[0].ap, v) == TRN_OK)
            x->out_first = v[0];
    }
    if (ob->status == TRN_ERR && ob->error) snprintf(l->error, sizeof l->error, "%s", ob->error);
    trn_ap wild = {.core = 0,
                   .mem = TRN_MEM_HBM,
                   .dtype = TRN_DT_FP32,
                   .part_count = 1,
                   .offset = INT64_C(1) << 40,
                   .ndims = 1,
                   .dims = {{1, 4}}};
    float sink[4];
    l->bad_read_refused += api->observed_read_f32(ob, &wild, sink) == TRN_ERR;
}

static trn_status before(const trn_host_api *api, const trn_observation *ob, void *state) {
    log_t *l = state;
    note(api, ob, l, 0);
    if ((int)ob->index == l->stop_before_index)
        return api->observer_stop(ob, "stopped before %s", ob->opcode);
    return TRN_OK;
}

static trn_status after(const trn_host_api *api, const trn_observation *ob, void *state) {
    log_t *l = state;
    note(api, ob, l, 1);
    if ((int)ob->index == l->stop_after_index && ob->depth == 0)
        return api->observer_stop(ob, "stopped after %s", ob->opcode);
    return TRN_OK;
}

static void run_end(const trn_host_api *api, void *state, int rc) {
    (void)api;
    log_t *l = state;
    l->run_end_calls++;
    l->run_end_rc = rc;
}

static const trn_observer_desc observer = {sizeof observer, before, after, run_end};

#define XY                                                                                         \
    "{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 4], "          \
    "\"data\": [7, 8, 9, 10]},"                                                                    \
    "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 4], "          \
    "\"fill\": 0.5}"

static trn_sim *load(const char *prog, log_t *l) {
    trn_sim *s;
    trn_error e;
    if (test_open(cfg, &s, &e) || trn_sim_load_program_text(s, prog, "p.json", &e))
        fail_msg("%s", e.msg);
    memset(l, 0, sizeof *l);
    l->stop_before_index = l->stop_after_index = -1;
    if (trn_sim_add_observer(s, &observer, l, &e)) fail_msg("%s", e.msg);
    return s;
}

static float y0_of(trn_sim *s) {
    float y[4];
    trn_error e;
    if (trn_sim_get_tensor(s, "y", 0, y, sizeof y, &e)) fail_msg("%s", e.msg);
    return y[0];
}

/* before sees y as it was, after sees what TestCopy wrote; a sub-instruction
 * is observed inside its parent at depth 1. */
static void sees_operands_and_memory(void **st) {
    log_t l;
    trn_sim *s = load("{\"tensors\": [" XY "], \"instructions\": ["
                      "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
                      "{\"opcode\": \"TestSub\", \"body\": [{\"opcode\": \"TestCopy\", \"inputs\": "
                      "[{\"tensor\": \"y\", \"ap\": [[1, 3]]}],"
                      "  \"outputs\": [{\"tensor\": \"x\", \"offset\": 1, \"ap\": [[1, 3]]}]}]}]}",
                      &l);
    trn_error e;
    if (trn_sim_run(s, &e)) fail_msg("%s", e.msg);
    assert_int_equal(l.n, 6); /* copy before/after, sub before, its copy before/after, sub after */
    assert_string_equal(l.s[0].opcode, "TestCopy");
    assert_int_equal(l.s[0].after, 0);
    assert_true(l.s[0].out_first == 0.5f); /* y's fill, before the write */
    assert_string_equal(l.s[0].in_tensor, "x");
    assert_string_equal(l.s[0].out_tensor, "y");
    assert_int_equal(l.s[0].out_elems, 4);
    assert_int_equal(l.s[1].after, 1);
    assert_int_equal(l.s[1].status, TRN_OK);
    assert_true(l.s[1].out_first == 7.0f); /* what it wrote */
    assert_string_equal(l.s[2].opcode, "TestSub");
    assert_int_equal(l.s[2].depth, 0);
    assert_int_equal(l.s[2].index, 1);
    assert_string_equal(l.s[3].opcode, "TestCopy");
    assert_int_equal(l.s[3].depth, 1);
    assert_int_equal(l.s[3].index, 1); /* a sub-instruction has its parent's index */
    assert_int_equal(l.s[3].out_elems, 3);
    assert_true(l.s[4].out_first == 7.0f);
    assert_string_equal(l.s[5].opcode, "TestSub");
    assert_int_equal(l.s[5].after, 1);
    assert_int_equal(l.bad_read_refused, 6); /* an AP outside memory is refused every time */
    assert_int_equal(l.run_end_calls, 1);
    assert_int_equal(l.run_end_rc, 0);
    trn_sim_close(s);
}

/* Two cores at a rendezvous: core 0 waits (observed as a wait), core 1
 * completes, core 0's retry completes. */
static void sees_each_wait(void **st) {
    log_t l;
    trn_sim *s = load(
        "{\"cores\": 2, \"tensors\": [], \"instructions\": [{\"opcode\": \"TestRendezvous\"}]}",
        &l);
    trn_error e;
    if (trn_sim_run(s, &e)) fail_msg("%s", e.msg);
    assert_int_equal(l.n, 6);
    int want_core[] = {0, 0, 1, 1, 0, 0};
    trn_status want_st[] = {TRN_OK, TRN_WAIT, TRN_OK, TRN_OK, TRN_OK, TRN_OK};
    for (int i = 0; i < 6; ++i) {
        assert_int_equal(l.s[i].core, want_core[i]);
        assert_int_equal(l.s[i].after, i % 2);
        assert_int_equal(l.s[i].status, want_st[i]);
    }
    trn_sim_close(s);
}

static void sees_the_error(void **st) {
    log_t l;
    trn_sim *s = load(
        "{\"tensors\": [], \"instructions\": [{\"opcode\": \"TestFail\", \"message\": \"boom\"}]}",
        &l);
    trn_error e;
    assert_int_equal(trn_sim_run(s, &e), -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.s[1].status, TRN_ERR);
    assert_contains(l.error, "boom");
    assert_int_equal(l.run_end_calls, 1);
    assert_int_equal(l.run_end_rc, -1);
    trn_sim_close(s);
}

#define TWO_COPIES                                                                                 \
    "{\"tensors\": [" XY                                                                           \
    "], \"instructions\": [{\"opcode\": \"TestRegs\", \"reg\": 1, \"value\": 5},"                  \
    "{\"opcode\": \"TestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}"

/* Stopped in before: the copy never runs and y keeps its fill. */
static void stop_before_skips_the_instruction(void **st) {
    log_t l;
    trn_sim *s = load(TWO_COPIES, &l);
    l.stop_before_index = 1;
    trn_error e;
    assert_int_equal(trn_sim_run(s, &e), -1);
    assert_contains(e.msg, "p.json: instruction 1 (core 0, opcode TestCopy/200, family test): "
                           "stopped before TestCopy");
    assert_true(y0_of(s) == 0.5f);
    assert_int_equal(l.n, 3); /* regs before/after, copy before */
    assert_int_equal(l.run_end_rc, -1);
    trn_sim_close(s);
}

/* Stopped in after: the copy ran, then the run ends with the message. */
static void stop_after_ends_the_run(void **st) {
    log_t l;
    trn_sim *s = load(TWO_COPIES, &l);
    l.stop_after_index = 1;
    trn_error e;
    assert_int_equal(trn_sim_run(s, &e), -1);
    assert_contains(
        e.msg, "instruction 1 (core 0, opcode TestCopy/200, family test): stopped after TestCopy");
    assert_true(y0_of(s) == 7.0f);
    trn_sim_close(s);
}

static void removed_observer_sees_nothing(void **st) {
    log_t l;
    trn_sim *s = load(TWO_COPIES, &l);
    trn_sim_remove_observer(s, &observer, &l);
    assert_int_equal(s->n_observers, 0);
    trn_error e;
    if (trn_sim_run(s, &e)) fail_msg("%s", e.msg);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.run_end_calls, 0);
    assert_true(y0_of(s) == 7.0f);
    trn_sim_close(s);
}

static void short_observer_table_refused(void **st) {
    trn_sim *s;
    trn_error e;
    if (test_open(cfg, &s, &e)) fail_msg("%s", e.msg);
    trn_observer_desc small = {sizeof(uint32_t), before, NULL, NULL};
    assert_int_equal(trn_sim_add_observer(s, &small, NULL, &e), -1);
    assert_contains(e.msg, "an observer needs a trn_observer_desc of its size");
    trn_sim_close(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sees_operands_and_memory),
        cmocka_unit_test(sees_each_wait),
        cmocka_unit_test(sees_the_error),
        cmocka_unit_test(stop_before_skips_the_instruction),
        cmocka_unit_test(stop_after_ends_the_run),
        cmocka_unit_test(removed_observer_sees_nothing),
        cmocka_unit_test(short_observer_table_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
