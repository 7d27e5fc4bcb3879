#include "fake_host.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct trn_ctx {
    fake_host *h;
    uint32_t core;
    uint64_t index;
    const fh_inst *inst;
    json_t *obj;
    bool failed;
    char err[1024];
};

struct trn_settings {
    json_t *obj;
};

/* ---- errors, where we are ---- */

static trn_status f_error(trn_ctx *ctx, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ctx->failed) {
        char old[1024];
        memcpy(old, ctx->err, sizeof old);
        snprintf(ctx->err, sizeof ctx->err, "%.500s: %.500s", msg, old);
    } else {
        snprintf(ctx->err, sizeof ctx->err, "%s", msg);
    }
    ctx->failed = true;
    return TRN_ERR;
}
static void f_log(trn_ctx *ctx, trn_log_level l, const char *fmt, ...) {
    (void)ctx, (void)l, (void)fmt;
}
static uint32_t f_core_id(const trn_ctx *ctx) { return ctx->core; }
static uint32_t f_core_count(const trn_ctx *ctx) { return ctx->h->cores; }
static uint32_t f_opcode(const trn_ctx *ctx) { return ctx->inst->it; }
static uint64_t f_index(const trn_ctx *ctx) { return ctx->index; }

/* ---- operands and memory: one partition of FH_WORDS fp32 per core ---- */

static int f_operand_count(const trn_ctx *ctx, trn_dir dir) {
    return dir == TRN_IN ? ctx->inst->n_in : ctx->inst->n_out;
}

static trn_status f_operand(trn_ctx *ctx, trn_dir dir, int idx, trn_ap *out) {
    if (idx < 0 || idx >= f_operand_count(ctx, dir))
        return f_error(ctx, "operand %d out of range", idx);
    *out = dir == TRN_IN ? ctx->inst->in[idx] : ctx->inst->out[idx];
    out->core = ctx->core;
    return TRN_OK; /* unlike the real host, no bounds check here: handlers must call check_ap */
}

/* Element k of ap (dense order) -> word index, or -1 out of bounds. */
static int64_t word(const trn_ap *ap, int64_t k) {
    int64_t off = ap->offset;
    for (int d = (int)ap->ndims - 1; d >= 0; --d) {
        off += (k % ap->dims[d].num) * ap->dims[d].step;
        k /= ap->dims[d].num;
    }
    return off >= 0 && off < FH_WORDS ? off : -1;
}

static trn_status f_check(trn_ctx *ctx, const trn_ap *ap, trn_dir dir) {
    (void)dir;
    if (ap->core >= ctx->h->cores) return f_error(ctx, "AP core %u", ap->core);
    if (ap->dtype != TRN_DT_FP32) return f_error(ctx, "fake host: fp32 only");
    for (int64_t k = 0; k < trn_ap_elems(ap); ++k)
        if (word(ap, k) < 0)
            return f_error(ctx, "fake host: element %lld out of bounds", (long long)k);
    return TRN_OK;
}

static trn_status f_read(trn_ctx *ctx, const trn_ap *ap, float *dst) {
    if (f_check(ctx, ap, TRN_IN) != TRN_OK) return TRN_ERR;
    for (int64_t k = 0; k < trn_ap_elems(ap); ++k) dst[k] = ctx->h->mem[ap->core][word(ap, k)];
    return TRN_OK;
}
static trn_status f_read_raw(trn_ctx *ctx, const trn_ap *ap, void *dst) {
    return f_read(ctx, ap, dst);
}

static trn_status f_write(trn_ctx *ctx, const trn_ap *ap, const float *src, trn_acc_op op) {
    if (op != TRN_ACC_COPY) return f_error(ctx, "fake host: copy only");
    if (f_check(ctx, ap, TRN_OUT) != TRN_OK) return TRN_ERR;
    for (int64_t k = 0; k < trn_ap_elems(ap); ++k) ctx->h->mem[ap->core][word(ap, k)] = src[k];
    return TRN_OK;
}
static trn_status f_write_raw(trn_ctx *ctx, const trn_ap *ap, const void *src) {
    return f_write(ctx, ap, src, TRN_ACC_COPY);
}

/* ---- attributes (jansson, as the real host) ---- */

static const trn_value *f_attr(trn_ctx *ctx, const char *key) {
    return ctx->obj ? (const trn_value *)json_object_get(ctx->obj, key) : NULL;
}
static trn_lookup f_value_int(trn_ctx *ctx, const trn_value *v, int64_t *out) {
    if (!json_is_integer((const json_t *)v)) {
        f_error(ctx, "not an integer");
        return TRN_BADTYPE;
    }
    *out = json_integer_value((const json_t *)v);
    return TRN_FOUND;
}
static trn_lookup f_value_float(trn_ctx *ctx, const trn_value *v, double *out) {
    if (!json_is_number((const json_t *)v)) {
        f_error(ctx, "not a number");
        return TRN_BADTYPE;
    }
    *out = json_number_value((const json_t *)v);
    return TRN_FOUND;
}
/* The real host maps an enum attribute's names through the opcode's schema;
 * the names of reduce_op are all these tests use. */
static trn_lookup f_attr_int(trn_ctx *ctx, const char *key, int64_t *out) {
    const trn_value *v = f_attr(ctx, key);
    const char *name = json_string_value((const json_t *)v);
    static const struct {
        const char *name;
        int64_t value;
    } ops[] = {{"bypass", 0}, {"add", 4}, {"max", 8}, {"min", 9}};
    for (size_t i = 0; name && !strcmp(key, "reduce_op") && i < sizeof ops / sizeof ops[0]; ++i)
        if (!strcmp(name, ops[i].name)) {
            *out = ops[i].value;
            return TRN_FOUND;
        }
    return v ? f_value_int(ctx, v, out) : TRN_ABSENT;
}
static trn_lookup f_attr_float(trn_ctx *ctx, const char *key, double *out) {
    const trn_value *v = f_attr(ctx, key);
    return v ? f_value_float(ctx, v, out) : TRN_ABSENT;
}
static trn_lookup f_attr_string(trn_ctx *ctx, const char *key, const char **out) {
    const json_t *v = (const json_t *)f_attr(ctx, key);
    if (!v) return TRN_ABSENT;
    if (!json_is_string(v)) {
        f_error(ctx, "not a string");
        return TRN_BADTYPE;
    }
    *out = json_string_value(v);
    return TRN_FOUND;
}
static trn_value_kind f_value_kind(const trn_value *v) {
    switch (json_typeof((const json_t *)v)) {
        case JSON_INTEGER: return TRN_V_INT;
        case JSON_REAL: return TRN_V_FLOAT;
        case JSON_STRING: return TRN_V_STRING;
        case JSON_ARRAY: return TRN_V_LIST;
        case JSON_OBJECT: return TRN_V_OBJECT;
        case JSON_TRUE:
        case JSON_FALSE: return TRN_V_BOOL;
        default: return TRN_V_NULL;
    }
}
static size_t f_value_len(const trn_value *v) { return json_array_size((const json_t *)v); }
static const trn_value *f_value_at(const trn_value *v, size_t i) {
    return (const trn_value *)json_array_get((const json_t *)v, i);
}
static const trn_value *f_value_get(const trn_value *v, const char *k) {
    return (const trn_value *)json_object_get((const json_t *)v, k);
}

/* ---- registers, settings, dtypes ---- */

static trn_status f_reg_read(trn_ctx *ctx, uint32_t r, int64_t *out) {
    if (r >= 16) return f_error(ctx, "register %u", r);
    *out = ctx->h->regs[ctx->core][r];
    return TRN_OK;
}
static trn_status f_reg_write(trn_ctx *ctx, uint32_t r, int64_t v) {
    if (r >= 16) return f_error(ctx, "register %u does not exist", r);
    ctx->h->regs[ctx->core][r] = v;
    return TRN_OK;
}
static trn_lookup f_setting_int(const trn_settings *s, const char *key, int64_t *out) {
    json_t *v = json_object_get(s->obj, key);
    if (!v) return TRN_ABSENT;
    *out = json_integer_value(v);
    return TRN_FOUND;
}
static trn_lookup f_setting_float(const trn_settings *s, const char *key, double *out) {
    json_t *v = json_object_get(s->obj, key);
    if (!v) return TRN_ABSENT;
    *out = json_number_value(v);
    return TRN_FOUND;
}
static trn_lookup f_setting_string(const trn_settings *s, const char *key, const char **out) {
    json_t *v = json_object_get(s->obj, key);
    if (!v) return TRN_ABSENT;
    *out = json_string_value(v);
    return TRN_FOUND;
}
static trn_lookup f_setting_int_array(const trn_settings *s, const char *key, int64_t *out,
                                      size_t cap, size_t *n) {
    json_t *v = json_object_get(s->obj, key);
    *n = 0;
    if (!v) return TRN_ABSENT;
    *n = json_array_size(v);
    if (*n > cap) return TRN_BADTYPE;
    for (size_t i = 0; i < *n; ++i) out[i] = json_integer_value(json_array_get(v, i));
    return TRN_FOUND;
}
static uint32_t f_width(trn_dtype dt) { return dt == TRN_DT_FP32 ? 4 : 0; }
static const char *f_name(trn_dtype dt) { return dt == TRN_DT_FP32 ? "float32" : "other"; }

static int f_checking(const trn_ctx *ctx) {
    (void)ctx;
    return 0;
}

const trn_host_api fh_api = {
    .checking = f_checking,
    .abi_version = TRN_ABI_VERSION,
    .size = sizeof(trn_host_api),
    .error = f_error,
    .log = f_log,
    .core_id = f_core_id,
    .core_count = f_core_count,
    .opcode = f_opcode,
    .instruction_index = f_index,
    .operand_count = f_operand_count,
    .operand = f_operand,
    .read_f32 = f_read,
    .read_raw = f_read_raw,
    .write_f32 = f_write,
    .write_raw = f_write_raw,
    .attr_int = f_attr_int,
    .attr_float = f_attr_float,
    .attr_string = f_attr_string,
    .attr = f_attr,
    .value_kind = f_value_kind,
    .value_len = f_value_len,
    .value_at = f_value_at,
    .value_get = f_value_get,
    .value_int = f_value_int,
    .value_float = f_value_float,
    .reg_read = f_reg_read,
    .reg_write = f_reg_write,
    .setting_int = f_setting_int,
    .setting_float = f_setting_float,
    .setting_string = f_setting_string,
    .setting_int_array = f_setting_int_array,
    .dtype_width = f_width,
    .dtype_name = f_name,
    .check_ap = f_check,
};

trn_ap fh_ap(uint32_t offset, int64_t n) {
    trn_ap ap;
    memset(&ap, 0, sizeof ap);
    ap.mem = TRN_MEM_HBM;
    ap.dtype = TRN_DT_FP32;
    ap.part_count = 1;
    ap.part_step = 1;
    ap.offset = offset;
    ap.ndims = 1;
    ap.dims[0].step = 1;
    ap.dims[0].num = n;
    return ap;
}

int fh_open(fake_host *h, const trn_plugin_desc *desc, const char *settings_json, uint32_t cores,
            char *err, size_t errlen) {
    memset(h, 0, sizeof *h);
    h->desc = desc;
    h->cores = cores;
    /* defaults from the schema, then the overrides (the host's job) */
    json_t *obj = json_object();
    for (uint32_t i = 0; i < desc->n_settings; ++i) {
        const trn_setting_desc *d = &desc->settings[i];
        if (d->type == TRN_SET_STRING)
            json_object_set_new(obj, d->key, json_string(d->def));
        else if (d->type == TRN_SET_INT)
            json_object_set_new(obj, d->key, json_integer(atoll(d->def)));
        else if (d->type == TRN_SET_INT_ARRAY)
            json_object_set_new(obj, d->key, json_array());
    }
    if (settings_json) {
        json_t *o = json_loads(settings_json, 0, NULL);
        json_object_update(obj, o);
        json_decref(o);
    }
    trn_settings s = {obj};
    trn_status st = desc->init(&fh_api, &s, &h->state, err, errlen);
    json_decref(obj);
    if (st != TRN_OK) return -1;
    trn_run_info info = {sizeof info, cores, 1, 16};
    return desc->run_begin(h->state, &info, err, errlen) == TRN_OK ? 0 : -1;
}

void fh_close(fake_host *h) {
    if (h->desc && h->state) h->desc->fini(h->state);
    h->state = NULL;
}

static trn_handler handler_of(const fake_host *h, uint32_t it) {
    for (uint32_t i = 0; i < h->desc->n_ops; ++i)
        if (h->desc->ops[i].it == it) return h->desc->ops[i].handler;
    return NULL;
}

trn_status fh_step(fake_host *h, uint32_t c, int i) {
    const fh_inst *in = &h->prog[c][i];
    trn_ctx ctx = {.h = h, .core = c, .index = (uint64_t)i, .inst = in};
    if (in->attrs) ctx.obj = json_loads(in->attrs, 0, NULL);
    trn_handler fn = handler_of(h, in->it);
    ++h->calls[c];
    trn_status st =
        fn ? fn(&fh_api, &ctx, h->state) : f_error(&ctx, "no handler for IT %u", in->it);
    if (st == TRN_ERR) {
        snprintf(h->err, sizeof h->err, "%s", ctx.err);
        h->err_core = (int)c;
    }
    json_decref(ctx.obj);
    return st;
}

int fh_run(fake_host *h) {
    int pc[FH_MAX_CORES] = {0};
    bool waiting[FH_MAX_CORES] = {0};
    for (;;) {
        bool progress = false, left = false;
        for (uint32_t c = 0; c < h->cores; ++c) {
            while (pc[c] < h->n_insts[c]) {
                trn_status st = fh_step(h, c, pc[c]);
                if (st == TRN_ERR) return -1;
                if (st == TRN_WAIT) {
                    progress |= !waiting[c];
                    waiting[c] = true;
                    break;
                }
                waiting[c] = false;
                ++pc[c];
                progress = true;
            }
            left |= pc[c] < h->n_insts[c];
        }
        if (!left) return 0;
        if (!progress) {
            snprintf(h->err, sizeof h->err, "deadlock");
            h->err_core = -1;
            return -1;
        }
    }
}
