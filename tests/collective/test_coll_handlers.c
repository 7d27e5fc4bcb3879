/* The handlers through a fake host whose cores each run their own
 * instruction list: disagreement between cores (impossible to write as an
 * SPMD program), nothing written on failure, re-invocations after TRN_WAIT
 * not counted as new collectives, the registry's pairing, and two module
 * instances that share nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_host.h"
#include "registry.h"

extern const trn_plugin_desc trnsim_plugin;

static fake_host H; /* large: not on the stack */

static void open_host(uint32_t cores, const char *settings) {
    char err[256];
    assert_int_equal(fh_open(&H, &trnsim_plugin, settings, cores, err, sizeof err), 0);
}

static void set_inst(uint32_t c, int i, uint32_t it, const char *attrs, int n_in, trn_ap in0,
                     int n_out, trn_ap out) {
    fh_inst *x = &H.prog[c][i];
    x->it = it;
    x->attrs = attrs;
    x->n_in = n_in;
    x->in[0] = in0;
    x->n_out = n_out;
    x->out[0] = out;
    if (H.n_insts[c] < i + 1) H.n_insts[c] = i + 1;
}

/* AllReduce-shaped instruction: input [0, n), output [100, 100 + n). */
static void collective(uint32_t c, int i, const char *attrs, int64_t n_in, int64_t n_out) {
    set_inst(c, i, 48, attrs, 1, fh_ap(0, n_in), 1, fh_ap(100, n_out));
}

static void fill(uint32_t c, uint32_t at, float v, int n) {
    for (int k = 0; k < n; ++k) H.mem[c][at + k] = v + (float)k;
}

static void assert_error(const char *a, const char *b) {
    assert_int_equal(fh_run(&H), -1);
    if (a && !strstr(H.err, a)) fail_msg("message lacks '%s': %s", a, H.err);
    if (b && !strstr(H.err, b)) fail_msg("message lacks '%s': %s", b, H.err);
}

static void test_kind_disagreement_names_both(void **st) {
    (void)st;
    open_host(2, NULL);
    fill(0, 0, 1, 4);
    fill(1, 0, 2, 4);
    collective(0, 0, "{\"kind\": 2, \"reduce_op\": 4}", 4, 4);
    collective(1, 0, "{\"kind\": 4}", 4, 8);
    assert_error("core 1's is kind 4 (AllGather) but core 0's is kind 2 (AllReduce)",
                 "collective #0");
    assert_int_equal(H.err_core, 1);
    fh_close(&H);
}

static void test_op_disagreement_names_both(void **st) {
    (void)st;
    open_host(2, NULL);
    fill(0, 0, 1, 4);
    fill(1, 0, 2, 4);
    collective(0, 0, "{\"kind\": 2, \"reduce_op\": \"add\"}", 4, 4);
    collective(1, 0, "{\"kind\": 2, \"reduce_op\": \"max\"}", 4, 4);
    assert_error("core 1's reduce_op is 8 but core 0's is 4", NULL);
    fh_close(&H);
}

static void test_group_disagreement(void **st) {
    (void)st;
    open_host(4, NULL);
    for (uint32_t c = 0; c < 4; ++c) {
        fill(c, 0, (float)c, 4);
        collective(c, 0,
                   c == 2 ? "{\"kind\": 2, \"reduce_op\": 4, \"replica_groups\": [[0, 1], [2, 3]]}"
                          : "{\"kind\": 2, \"reduce_op\": 4, \"replica_groups\": [[0, 1, 2, 3]]}",
                   4, 4);
    }
    assert_error("core 2's replica_groups is [[0, 1], [2, 3]] but core 0's is [[0, 1, 2, 3]]",
                 NULL);
    fh_close(&H);
}

/* Element counts differ between ranks: an error naming both, and no
 * output written anywhere (core 0 arrived first and waits). */
static void test_count_mismatch_writes_nothing(void **st) {
    (void)st;
    open_host(2, NULL);
    fill(0, 0, 1, 8);
    fill(1, 0, 2, 8);
    fill(0, 100, -5, 8);
    fill(1, 100, -5, 8);
    collective(0, 0, "{\"kind\": 2, \"reduce_op\": 4}", 4, 4);
    collective(1, 0, "{\"kind\": 2, \"reduce_op\": 4}", 8, 8);
    assert_error("AllReduce (kind 2): core 1 contributes 8 elements but core 0 contributes 4",
                 NULL);
    for (uint32_t c = 0; c < 2; ++c)
        for (int k = 0; k < 8; ++k) assert_true(H.mem[c][100 + k] == -5.0f + (float)k);
    fh_close(&H);
}

/* The last arrival checks every output before the first write: core 2's
 * output runs past memory, so cores 0 and 1 keep their old outputs. */
static void test_bad_output_writes_nothing(void **st) {
    (void)st;
    open_host(3, NULL);
    for (uint32_t c = 0; c < 3; ++c) {
        fill(c, 0, (float)c, 4);
        fill(c, 100, -5, 4);
        collective(c, 0, "{\"kind\": 2, \"reduce_op\": 4}", 4, 4);
    }
    H.prog[2][0].out[0] = fh_ap(FH_WORDS - 2, 4);
    assert_error("AllReduce (kind 2): core 2's output", "out of bounds");
    for (uint32_t c = 0; c < 2; ++c)
        for (int k = 0; k < 4; ++k) assert_true(H.mem[c][100 + k] == -5.0f + (float)k);
    fh_close(&H);
}

/* A core called again while it waits stays at the same collective: after
 * five extra calls on core 0, the two collectives still line up (the
 * second reads the first's results). */
static void test_reinvocation_is_not_a_new_collective(void **st) {
    (void)st;
    open_host(2, NULL);
    fill(0, 0, 1, 4);
    fill(1, 0, 10, 4);
    for (uint32_t c = 0; c < 2; ++c) {
        collective(c, 0, "{\"kind\": 2, \"reduce_op\": 4}", 4, 4);
        set_inst(c, 1, 48, "{\"kind\": 4}", 1, fh_ap(100, 4), 1, fh_ap(200, 8));
    }
    for (int r = 0; r < 6; ++r) assert_int_equal(fh_step(&H, 0, 0), TRN_WAIT);
    assert_int_equal(fh_step(&H, 1, 0), TRN_OK); /* completes for both */
    assert_int_equal(fh_step(&H, 1, 1), TRN_WAIT);
    assert_int_equal(fh_step(&H, 0, 0), TRN_OK); /* sees completion */
    assert_int_equal(fh_step(&H, 0, 1), TRN_OK); /* the AllGather completes */
    assert_int_equal(fh_step(&H, 1, 1), TRN_OK);
    for (uint32_t c = 0; c < 2; ++c)
        for (int k = 0; k < 8; ++k) assert_true(H.mem[c][200 + k] == 11.0f + 2.0f * (float)(k % 4));
    fh_close(&H);
}

static void test_send_recv_count_mismatch(void **st) {
    (void)st;
    open_host(2, NULL);
    fill(0, 0, 1, 4);
    set_inst(0, 0, 49, "{\"peer_id\": 1}", 1, fh_ap(0, 4), 0, fh_ap(0, 1));
    set_inst(1, 0, 50, "{\"peer_id\": 0}", 0, fh_ap(0, 1), 1, fh_ap(100, 3));
    assert_error("CollectiveSend #0 from core 0", "the input has 4 elements but the output has 3");
    fh_close(&H);
}

/* Two sends from 0 to 1 pair with the two receives in order. */
static void test_p2p_fifo_order(void **st) {
    (void)st;
    open_host(2, NULL);
    fill(0, 0, 1, 2);
    fill(0, 2, 7, 2);
    set_inst(0, 0, 49, "{\"peer_id\": 1}", 1, fh_ap(0, 2), 0, fh_ap(0, 1));
    set_inst(0, 1, 49, "{\"peer_id\": 1}", 1, fh_ap(2, 2), 0, fh_ap(0, 1));
    set_inst(1, 0, 50, "{\"peer_id\": 0}", 0, fh_ap(0, 1), 1, fh_ap(100, 2));
    set_inst(1, 1, 50, "{\"peer_id\": 0}", 0, fh_ap(0, 1), 1, fh_ap(102, 2));
    assert_int_equal(fh_run(&H), 0);
    assert_true(H.mem[1][100] == 1.0f && H.mem[1][101] == 2.0f);
    assert_true(H.mem[1][102] == 7.0f && H.mem[1][103] == 8.0f);
    fh_close(&H);
}

static void test_recv_without_send_deadlocks(void **st) {
    (void)st;
    open_host(2, NULL);
    set_inst(1, 0, 50, "{\"peer_id\": 0}", 0, fh_ap(0, 1), 1, fh_ap(100, 3));
    assert_int_equal(fh_run(&H), -1);
    assert_string_equal(H.err, "deadlock");
    fh_close(&H);
}

/* Two instances of the module (two sims in one process) share nothing:
 * one waits in a collective while the other runs its own to completion. */
static void test_instances_share_nothing(void **st) {
    (void)st;
    static fake_host other;
    char err[256];
    open_host(2, NULL);
    assert_int_equal(
        fh_open(&other, &trnsim_plugin, "{\"regime\": \"multiworker\"}", 2, err, sizeof err), 0);
    fill(0, 0, 1, 4);
    for (uint32_t c = 0; c < 2; ++c) collective(c, 0, "{\"kind\": 2, \"reduce_op\": 4}", 4, 4);
    assert_int_equal(fh_step(&H, 0, 0), TRN_WAIT);
    for (int k = 0; k < 4; ++k) other.mem[0][k] = 3.0f;
    other.prog[0][0] = H.prog[0][0];
    other.n_insts[0] = 1;
    assert_int_equal(fh_run(&other), 0); /* multiworker: core 0 alone, 3 x 2 replicas */
    assert_true(other.mem[0][100] == 6.0f);
    assert_int_equal(fh_step(&H, 0, 0), TRN_WAIT); /* still waiting for its own core 1 */
    fh_close(&other);
    fh_close(&H);
}

static void test_settings_rejected(void **st) {
    (void)st;
    char err[256];
    assert_int_equal(fh_open(&H, &trnsim_plugin, "{\"rank_table\": [0, 2, 2]}", 2, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "rank_table must be a permutation of 0..2"));
    assert_int_equal(fh_open(&H, &trnsim_plugin,
                             "{\"regime\": \"multiworker\", \"cores_per_lnc\": 4}", 2, err,
                             sizeof err),
                     -1);
    assert_non_null(strstr(err, "needs cores_per_lnc = 1"));
}

static void test_registry_pairs_in_order(void **st) {
    (void)st;
    coll_registry *r = coll_registry_new(3);
    coll_record *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *c = calloc(1, sizeof *c);
    assert_int_equal(coll_registry_post(r, 1, a), 0);
    assert_int_equal(coll_registry_post(r, 1, b), 0);
    assert_int_equal(a->seq, 0);
    assert_int_equal(b->seq, 1);
    assert_ptr_equal(coll_registry_get(r, 1, 1), b);
    assert_null(coll_registry_get(r, 0, 0));
    assert_null(coll_registry_get(r, 1, 2));
    assert_int_equal(coll_registry_p2p_post(r, 2, 0, COLL_RECV, c), 0);
    assert_ptr_equal(coll_registry_p2p_get(r, 2, 0, COLL_RECV, 0), c);
    assert_null(coll_registry_p2p_get(r, 2, 0, COLL_SEND, 0));
    assert_null(coll_registry_p2p_get(r, 0, 2, COLL_RECV, 0));
    coll_registry_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_disagreement_names_both),
        cmocka_unit_test(test_op_disagreement_names_both),
        cmocka_unit_test(test_group_disagreement),
        cmocka_unit_test(test_count_mismatch_writes_nothing),
        cmocka_unit_test(test_bad_output_writes_nothing),
        cmocka_unit_test(test_reinvocation_is_not_a_new_collective),
        cmocka_unit_test(test_send_recv_count_mismatch),
        cmocka_unit_test(test_p2p_fifo_order),
        cmocka_unit_test(test_recv_without_send_deadlocks),
        cmocka_unit_test(test_instances_share_nothing),
        cmocka_unit_test(test_settings_rejected),
        cmocka_unit_test(test_registry_pairs_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
