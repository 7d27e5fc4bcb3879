/* A small module for the host's tests (family "test"):
 *   TestCopy    (200) read_f32 inputs[0], write_f32 outputs[0] (op attr "acc": 0..3)
 *   TestRendezvous (201) every core waits until all cores have arrived; the
 *               last to arrive reports every core as met (ABI 3 builds)
 *   TestWaitForever (202) always waits (deadlock)
 *   TestFail    (203) fails with the message in attr "message"
 *   TestScatter (204) write_indirect_f32 of inputs[0] into outputs[0] at attr "indices", op attr
 * "acc" TestSetting (205) writes setting "scale" (float) * 1 to every element of outputs[0] TestSub
 * (206) dispatches each instruction of attr "body" TestRegs    (207) reg_write(attr "reg", attr
 * "value") TestWaitNoFlag (208) returns TRN_WAIT without declaring TRN_OPF_MAY_WAIT TestKind (209)
 * register 0 = value_kind(attr "v"), register 1 = value_len of it, register 2 = whether
 * value_at(it, 0) / value_get(it, "k") / value_string(it) are all NULL (an absent "v" is NULL)
 *   TestOperandFail (210) operand(inputs[0]) must fail; register 0 = the
 *               trn_ap_elems of what it left, register 1 = its ndims
 *   TestLend    (220) inputs[0] -> outputs[0] of one dtype through lent
 *               views (attr "mode": the output's TRN_LEND_* bits, "acc" the
 *               op), each side falling back to the copying calls when not
 *               lent; registers 0/1 = the two lend statuses, 2/3 = the two
 *               views' flags; attr "misuse" makes a module bug the host must
 *               catch (1 write_raw while a view is open, 2 no lend_end, 3
 *               dispatch while open, 4 lend_end twice) or 5: lend_cancel the
 *               output and write nothing
 *   TestMet     (221) reports a party through rendezvous_met: attr "cores"
 *               (default: this core alone), "roles" (TRN_PARTY_* per core,
 *               default members), "index" (added to instruction_index() in
 *               every entry), "twice" (report it twice), "in_check" (report
 *               from the static check as well)
 * Settings: scale (float, default 2.0, range [0, 100]), mode (string a|b),
 * fail_init (bool): init fails when true. */
#include <stdlib.h>
#include <string.h>

#include "trnsim/plugin.h"

#define MAX_ROUNDS 1024

typedef struct state {
    double scale;
    uint32_t cores;
    uint32_t *arrived; /* per rendezvous round: how many cores arrived */
    uint32_t *round;   /* per core: rendezvous rounds it has passed */
    uint8_t *waiting;  /* per core: arrived at its current round */
    uint64_t *at;      /* per core: the instruction index it arrived at */
} state;

static trn_status test_copy(const trn_host_api *api, trn_ctx *ctx, void *st) {
    trn_ap in, out;
    int64_t acc = 0;
    if (api->operand(ctx, TRN_IN, 0, &in) || api->operand(ctx, TRN_OUT, 0, &out)) return TRN_ERR;
    if (api->attr_int(ctx, "acc", &acc) == TRN_BADTYPE) return TRN_ERR;
    int64_t n = trn_ap_elems(&in);
    if (n != trn_ap_elems(&out))
        return api->error(ctx, "element counts differ: %lld vs %lld", (long long)n,
                          (long long)trn_ap_elems(&out));
    float *buf = malloc((size_t)n * sizeof(float));
    trn_status rc = api->read_f32(ctx, &in, buf);
    if (rc == TRN_OK) rc = api->write_f32(ctx, &out, buf, (trn_acc_op)acc);
    free(buf);
    return rc;
}

/* Every core met at the rendezvous the last arrival completes. */
static trn_status report_all_met(const trn_host_api *api, trn_ctx *ctx, const state *s) {
#if TRN_ABI_VERSION >= 3
    trn_party *party = malloc(s->cores * sizeof *party);
    if (!party) return api->error(ctx, "out of memory");
    for (uint32_t c = 0; c < s->cores; ++c)
        party[c] = (trn_party){.core = c, .role = TRN_PARTY_MEMBER, .index = s->at[c]};
    trn_status rc = api->rendezvous_met(ctx, party, s->cores);
    free(party);
    return rc;
#else /* the frozen ABI 2 header has no rendezvous_met: such a module reports nothing */
    (void)api, (void)ctx, (void)s;
    return TRN_OK;
#endif
}

static trn_status test_rendezvous(const trn_host_api *api, trn_ctx *ctx, void *vs) {
    state *s = vs;
    uint32_t c = api->core_id(ctx), r = s->round[c];
    if (r >= MAX_ROUNDS) return api->error(ctx, "more than %d rendezvous", MAX_ROUNDS);
    int last = 0;
    if (!s->waiting[c]) { /* first arrival at this instruction */
        s->waiting[c] = 1;
        s->at[c] = api->instruction_index(ctx);
        last = ++s->arrived[r] == s->cores;
    }
    if (s->arrived[r] < s->cores) return TRN_WAIT;
    if (last && report_all_met(api, ctx, s) != TRN_OK) return TRN_ERR;
    s->waiting[c] = 0;
    s->round[c]++;
    return TRN_OK;
}

static trn_status test_wait_forever(const trn_host_api *api, trn_ctx *ctx, void *s) {
    return TRN_WAIT;
}

static trn_status test_wait_no_flag(const trn_host_api *api, trn_ctx *ctx, void *s) {
    return TRN_WAIT;
}

static trn_status test_fail(const trn_host_api *api, trn_ctx *ctx, void *s) {
    const char *m = "test failure";
    api->attr_string(ctx, "message", &m);
    return api->error(ctx, "%s", m);
}

static trn_status test_scatter(const trn_host_api *api, trn_ctx *ctx, void *s) {
    trn_ap in, out;
    int64_t idx[64], acc = 1;
    size_t n = 0;
    if (api->operand(ctx, TRN_IN, 0, &in) || api->operand(ctx, TRN_OUT, 0, &out)) return TRN_ERR;
    if (api->attr_int_array(ctx, "indices", idx, 64, &n) != TRN_FOUND)
        return api->error(ctx, "needs indices");
    if (api->attr_int(ctx, "acc", &acc) == TRN_BADTYPE) return TRN_ERR;
    if ((int64_t)n != trn_ap_elems(&in))
        return api->error(ctx, "one index per input element expected");
    float buf[64];
    if (api->read_f32(ctx, &in, buf)) return TRN_ERR;
    return api->write_indirect_f32(ctx, &out, idx, n, buf, (trn_acc_op)acc);
}

static trn_status test_setting(const trn_host_api *api, trn_ctx *ctx, void *vs) {
    state *s = vs;
    trn_ap out;
    if (api->operand(ctx, TRN_OUT, 0, &out)) return TRN_ERR;
    int64_t n = trn_ap_elems(&out);
    float *buf = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; ++i) buf[i] = (float)s->scale;
    trn_status rc = api->write_f32(ctx, &out, buf, TRN_ACC_COPY);
    free(buf);
    return rc;
}

static trn_status test_sub(const trn_host_api *api, trn_ctx *ctx, void *s) {
    const trn_value *body = api->attr(ctx, "body");
    if (!body || api->value_kind(body) != TRN_V_LIST) return api->error(ctx, "needs a body list");
    for (size_t i = 0; i < api->value_len(body); ++i)
        if (api->dispatch(ctx, api->value_at(body, i)) != TRN_OK)
            return api->error(ctx, "body[%zu] of %zu", i, api->value_len(body));
    return TRN_OK;
}

static trn_status test_regs(const trn_host_api *api, trn_ctx *ctx, void *s) {
    int64_t reg = 0, value = 0;
    api->attr_int(ctx, "reg", &reg);
    api->attr_int(ctx, "value", &value);
    return api->reg_write(ctx, (uint32_t)reg, value);
}

static trn_status test_kind(const trn_host_api *api, trn_ctx *ctx, void *s) {
    const trn_value *v = api->attr(ctx, "v");
    int none = !api->value_at(v, 0) && !api->value_get(v, "k") && !api->value_string(v);
    if (api->reg_write(ctx, 0, api->value_kind(v)) ||
        api->reg_write(ctx, 1, (int64_t)api->value_len(v)))
        return TRN_ERR;
    return api->reg_write(ctx, 2, none);
}

static trn_status test_operand_fail(const trn_host_api *api, trn_ctx *ctx, void *s) {
    trn_ap ap;
    if (api->operand(ctx, TRN_IN, 0, &ap) == TRN_OK)
        return api->error(ctx, "expected operand() to fail");
    if (api->reg_write(ctx, 0, trn_ap_elems(&ap))) return TRN_ERR;
    return api->reg_write(ctx, 1, ap.ndims);
}

#if TRN_ABI_VERSION >= 3 /* TestLend needs lent memory; the frozen ABI 2 header builds without it  \
                          */
/* The party of attrs "cores" / "roles" / "index", reported once or twice. */
static trn_status report_party(const trn_host_api *api, trn_ctx *ctx) {
    int64_t cores[16], roles[16] = {0}, add = 0, twice = 0;
    size_t n = 0, n_roles = 0;
    trn_party party[16];
    if (api->attr_int_array(ctx, "cores", cores, 16, &n) == TRN_ABSENT)
        cores[0] = api->core_id(ctx), n = 1;
    if (api->attr_int_array(ctx, "roles", roles, 16, &n_roles) == TRN_BADTYPE ||
        api->attr_int(ctx, "index", &add) == TRN_BADTYPE ||
        api->attr_int(ctx, "twice", &twice) == TRN_BADTYPE)
        return TRN_ERR;
    for (size_t i = 0; i < n; ++i)
        party[i] = (trn_party){.core = (uint32_t)cores[i],
                               .role = (uint32_t)roles[i],
                               .index = api->instruction_index(ctx) + (uint64_t)add};
    if (api->rendezvous_met(ctx, party, (uint32_t)n) != TRN_OK) return TRN_ERR;
    return twice ? api->rendezvous_met(ctx, party, (uint32_t)n) : TRN_OK;
}

static trn_status test_met(const trn_host_api *api, trn_ctx *ctx, void *st) {
    (void)st;
    return report_party(api, ctx);
}

static trn_status check_met(const trn_host_api *api, trn_ctx *ctx, void *st) {
    (void)st;
    int64_t in_check = 0;
    if (api->attr_int(ctx, "in_check", &in_check) == TRN_BADTYPE) return TRN_ERR;
    return in_check ? report_party(api, ctx) : TRN_OK;
}

/* Address of element k of a view's visiting order. */
static uint8_t *view_elem(const trn_view *v, int64_t k) {
    int64_t p = k / v->free_elems, f = k % v->free_elems;
    uint8_t *a = v->base + p * v->part_stride;
    for (int d = (int)v->ndims - 1; d >= 0; --d) {
        a += (f % v->num[d]) * v->stride[d];
        f /= v->num[d];
    }
    return a;
}

static trn_status lend_misuse(const trn_host_api *api, trn_ctx *ctx, int64_t misuse, trn_view *in,
                              trn_view *out, const trn_ap *out_ap, const uint8_t *buf) {
    if (misuse == 1) return api->write_raw(ctx, out_ap, buf);
    if (misuse == 3) return api->dispatch(ctx, api->attr(ctx, "misuse"));
    if (misuse == 5) { /* give the output back unused and write nothing */
        if (api->lend_end(ctx, in)) return TRN_ERR;
        return api->lend_cancel(ctx, out);
    }
    if (misuse == 4) {
        trn_view copy = *in;
        if (api->lend_end(ctx, in)) return TRN_ERR;
        return api->lend_end(ctx, &copy);
    }
    (void)out;
    return TRN_OK;
}

static trn_status test_lend(const trn_host_api *api, trn_ctx *ctx, void *st) {
    (void)st;
    trn_ap in, out;
    int64_t mode = TRN_LEND_WRITE, acc = 0, misuse = 0;
    if (!TRN_API_HAS(api, lend)) return api->error(ctx, "the host lends no memory");
    if (api->operand(ctx, TRN_IN, 0, &in) || api->operand(ctx, TRN_OUT, 0, &out)) return TRN_ERR;
    if (api->attr_int(ctx, "mode", &mode) == TRN_BADTYPE ||
        api->attr_int(ctx, "acc", &acc) == TRN_BADTYPE ||
        api->attr_int(ctx, "misuse", &misuse) == TRN_BADTYPE)
        return TRN_ERR;
    int64_t n = trn_ap_elems(&in);
    uint32_t w = api->dtype_width(in.dtype);
    if (n != trn_ap_elems(&out) || in.dtype != out.dtype)
        return api->error(ctx, "one dtype and count expected");
    uint8_t *buf = malloc((size_t)n * w);
    trn_view vi, vo;
    trn_status rc = TRN_ERR;
    trn_lend_status si = api->lend(ctx, &in, TRN_LEND_READ, &vi);
    if (si == TRN_LEND_ERR) goto done;
    trn_lend_status so = api->lend(ctx, &out, (uint32_t)mode, &vo);
    if (so == TRN_LEND_ERR) goto done;
    if (misuse) {
        rc = lend_misuse(api, ctx, misuse, &vi, &vo, &out, buf);
        if (rc != TRN_OK || misuse != 2) goto done; /* 5: nothing written, OK */
    }
    /* The whole source first: the views may alias (copy_raw's semantics). */
    if (si == TRN_LENT)
        for (int64_t k = 0; k < n; ++k) memcpy(buf + k * w, view_elem(&vi, k), w);
    if (so == TRN_LENT)
        for (int64_t k = 0; k < n; ++k) {
            uint8_t *dst = view_elem(&vo, k);
            if (acc == TRN_ACC_COPY)
                memcpy(dst, buf + k * w, w);
            else if (api->accumulate(ctx, (trn_acc_op)acc, dst, buf + k * w, (trn_dtype)out.dtype))
                goto done;
        }
    if (misuse == 2) { /* the host ends both views when the handler returns */
        rc = TRN_OK;
        goto done;
    }
    if (si == TRN_LENT && api->lend_end(ctx, &vi)) goto done;
    if (so == TRN_LENT && api->lend_end(ctx, &vo)) goto done;
    if (si != TRN_LENT && api->read_raw(ctx, &in, buf)) goto done;
    if (so != TRN_LENT && api->write_raw_op(ctx, &out, buf, (trn_acc_op)acc)) goto done;
    if (api->reg_write(ctx, 0, si) || api->reg_write(ctx, 1, so) ||
        api->reg_write(ctx, 2, vi.flags) || api->reg_write(ctx, 3, vo.flags))
        goto done;
    rc = TRN_OK;
done:
    free(buf);
    return rc;
}

#endif

static trn_status init(const trn_host_api *api, const trn_settings *set, void **out, char *err,
                       size_t len) {
    int64_t fail = 0;
    api->setting_int(set, "fail_init", &fail);
    if (fail) {
        strncpy(err, "fail_init is set", len - 1);
        return TRN_ERR;
    }
    state *s = calloc(1, sizeof *s);
    api->setting_float(set, "scale", &s->scale);
    *out = s;
    return TRN_OK;
}

static trn_status run_begin(void *vs, const trn_run_info *info, char *err, size_t len) {
    state *s = vs;
    free(s->arrived);
    free(s->round);
    free(s->waiting);
    free(s->at);
    s->cores = info->cores;
    s->arrived = calloc(MAX_ROUNDS, sizeof *s->arrived);
    s->round = calloc(info->cores, sizeof *s->round);
    s->waiting = calloc(info->cores, 1);
    s->at = calloc(info->cores, sizeof *s->at);
    return TRN_OK;
}

static void fini(void *vs) {
    state *s = vs;
    if (!s) return;
    free(s->arrived);
    free(s->round);
    free(s->waiting);
    free(s->at);
    free(s);
}

/* TestCopy's static check: the element counts, decided without data. */
static trn_status check_copy(const trn_host_api *api, trn_ctx *ctx, void *st) {
    (void)st;
    trn_ap in, out;
    if (api->operand(ctx, TRN_IN, 0, &in) || api->operand(ctx, TRN_OUT, 0, &out)) return TRN_ERR;
    if (trn_ap_elems(&in) != trn_ap_elems(&out))
        return api->error(ctx, "element counts differ: %lld vs %lld", (long long)trn_ap_elems(&in),
                          (long long)trn_ap_elems(&out));
    return TRN_OK;
}

static const trn_attr_desc acc_attrs[] = {
    {.name = "acc",
     .types = TRN_ATTR_INT,
     .def = "0",
     .min = 0,
     .max = 3,
     .help = "trn_acc_op of the write"},
};
static const trn_attr_desc fail_attrs[] = {
    {.name = "message", .types = TRN_ATTR_STRING, .help = "the error text"}};
static const trn_attr_desc scatter_attrs[] = {
    {.name = "indices",
     .types = TRN_ATTR_LIST,
     .elem = TRN_ATTR_INT,
     .len_max = 64,
     .help = "where each element goes"},
    {.name = "acc",
     .types = TRN_ATTR_INT,
     .def = "0",
     .min = 0,
     .max = 3,
     .help = "trn_acc_op of the write"},
};
static const trn_attr_desc sub_attrs[] = {
    {.name = "body",
     .types = TRN_ATTR_LIST | TRN_ATTR_OBJECT,
     .elem = TRN_ATTR_OBJECT,
     .help = "instructions dispatched at run time (not validated at load: the dispatcher's tests)"},
};
static const trn_attr_desc regs_attrs[] = {
    {.name = "reg", .types = TRN_ATTR_INT, .def = "0", .help = "register"},
    {.name = "value", .types = TRN_ATTR_INT, .def = "0", .help = "value written"},
};
#if TRN_ABI_VERSION >= 3
static const trn_attr_desc lend_attrs[] = {
    {.name = "mode",
     .types = TRN_ATTR_INT,
     .def = "2",
     .min = 1,
     .max = 3,
     .help = "TRN_LEND_* of the output"},
    {.name = "acc",
     .types = TRN_ATTR_INT,
     .def = "0",
     .min = 0,
     .max = 3,
     .help = "trn_acc_op of the write"},
    {.name = "misuse",
     .types = TRN_ATTR_INT,
     .def = "0",
     .min = 0,
     .max = 5,
     .help = "a module bug to make, or 5: cancel"},
};
static const trn_attr_desc met_attrs[] = {
    {.name = "cores",
     .types = TRN_ATTR_LIST,
     .elem = TRN_ATTR_INT,
     .len_max = 16,
     .help = "the party's cores"},
    {.name = "roles",
     .types = TRN_ATTR_LIST,
     .elem = TRN_ATTR_INT,
     .len_max = 16,
     .help = "TRN_PARTY_* of each"},
    {.name = "index",
     .types = TRN_ATTR_INT,
     .def = "0",
     .help = "added to each entry's instruction index"},
    {.name = "twice",
     .types = TRN_ATTR_BOOL,
     .def = "false",
     .help = "report twice (a module bug)"},
    {.name = "in_check",
     .types = TRN_ATTR_BOOL,
     .def = "false",
     .help = "report from the static check (a module bug)"},
};
#endif
static const trn_operand_desc copy_operands[] = {
    {TRN_IN, "src", 0, "any dtype"},
    {TRN_OUT, "dst", 0, "as many elements as src"},
};

static const trn_opcode_desc ops[] = {
    {.it = 200,
     .name = "TestCopy",
     .handler = test_copy,
     TRN_ARRAY(attrs, acc_attrs),
     TRN_ARRAY(operands, copy_operands),
     .check = check_copy},
    {.it = 201,
     .name = "TestRendezvous",
     .handler = test_rendezvous,
     .flags = TRN_OPF_MAY_WAIT | TRN_OPF_NO_ATTRS},
    {.it = 202,
     .name = "TestWaitForever",
     .handler = test_wait_forever,
     .flags = TRN_OPF_MAY_WAIT | TRN_OPF_NO_ATTRS},
    {.it = 203, .name = "TestFail", .handler = test_fail, TRN_ARRAY(attrs, fail_attrs)},
    {.it = 204, .name = "TestScatter", .handler = test_scatter, TRN_ARRAY(attrs, scatter_attrs)},
    {.it = 205, .name = "TestSetting", .handler = test_setting, .flags = TRN_OPF_NO_ATTRS},
    {.it = 206,
     .name = "TestSub",
     .handler = test_sub,
     TRN_ARRAY(attrs, sub_attrs),
     .check = test_sub},
    {.it = 207, .name = "TestRegs", .handler = test_regs, TRN_ARRAY(attrs, regs_attrs)},
    /* a module bug the host must catch */
    {.it = 208, .name = "TestWaitNoFlag", .handler = test_wait_no_flag, .flags = TRN_OPF_NO_ATTRS},
    /* no schema: "v" may be anything (the value walk's tests) */
    {.it = 209, .name = "TestKind", .handler = test_kind},
    {.it = 210, .name = "TestOperandFail", .handler = test_operand_fail, .flags = TRN_OPF_NO_ATTRS},
#if TRN_ABI_VERSION >= 3
    {.it = 220, .name = "TestLend", .handler = test_lend, TRN_ARRAY(attrs, lend_attrs)},
    {.it = 221,
     .name = "TestMet",
     .handler = test_met,
     TRN_ARRAY(attrs, met_attrs),
     .check = check_met},
#endif
};

static const trn_setting_desc settings[] = {
    {"scale", TRN_SET_FLOAT, "2.0", 0, 100, NULL, "value TestSetting writes"},
    {"mode", TRN_SET_STRING, "a", 0, -1, "a|b", "a choice"},
    {"fail_init", TRN_SET_BOOL, "false", 0, -1, NULL, "make init fail"},
};

static const trn_quirk_desc quirks[] = {
    {"test.example_quirk", "mode", "a", "a quirk of the test module"},
};

TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    TRN_PLUGIN_HEADER,      .name = TEST_PLUGIN_NAME,
    .family = "test",       .version = "1",
    TRN_OPS(ops),           TRN_SETTINGS(settings),
    .quirks = quirks,       .n_quirks = 1,
    .init = init,           .fini = fini,
    .run_begin = run_begin,
};
