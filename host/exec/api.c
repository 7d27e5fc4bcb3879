/* The one host API table handed to every module (plugin.h). Each entry
 * adapts a host service to the executing instruction's context and turns
 * host errors into the instruction's recorded error. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arith/arith.h"
#include "program/program.h"
#include "exec/exec.h"
#include "dist/dist.h"
#include "modules/modules.h"
#include "exec/exec_int.h"

/* ---- errors and logging ---- */

static trn_status api_error(trn_ctx *ctx, const char *fmt, ...) {
    char msg[TRN_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ctx->failed)
        trn_error_prefix(&ctx->err, "%s", msg); /* add context to the first message */
    else { /* the first message: the run loop leaves err unset until now */
        snprintf(ctx->err.msg, sizeof ctx->err.msg, "%s", msg);
        ctx->err.site = (trn_error_site){0};
        ctx->err.kind = TRN_EK_NONE;
    }
    ctx->failed = true;
    return TRN_ERR;
}

static trn_status host_error(trn_ctx *ctx, const trn_error *e) {
    return api_error(ctx, "%s", e->msg);
}

static void api_log(trn_ctx *ctx, trn_log_level level, const char *fmt, ...) {
    const trn_sim *s = ctx->sim;
    if (level == TRN_LOG_TRACE && !s->opts.trace) return;
    if (level == TRN_LOG_INFO && !s->opts.trace) return;
    static const char *const names[] = {"error", "warning", "info", "trace"};
    FILE *out = s->opts.trace_out ? s->opts.trace_out : stderr;
    fprintf(out, "%s: core %u #%llu: ", names[level <= TRN_LOG_TRACE ? level : TRN_LOG_TRACE],
            ctx->core, (unsigned long long)ctx->index);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

/* ---- where we are ---- */

static uint32_t api_core_id(const trn_ctx *ctx) { return ctx->core; }
static uint32_t api_core_count(const trn_ctx *ctx) { return ctx->sim->ncores; }
static uint32_t api_opcode(const trn_ctx *ctx) { return ctx->inst->it; }
static uint64_t api_index(const trn_ctx *ctx) { return ctx->index; }

/* ---- operands ---- */

static int api_operand_count(const trn_ctx *ctx, trn_dir dir) {
    return dir == TRN_OUT ? ctx->inst->n_out : ctx->inst->n_in;
}

/* On failure *out is all zero (trn_ap_elems 0), never the unchecked AP: a
 * module that looks at it anyway does no arithmetic on wild fields. */
static trn_status api_operand(trn_ctx *ctx, trn_dir dir, int idx, trn_ap *out) {
    trn_error e;
    if (trn_ctx_operand(ctx, dir, idx, out, &e) == 0) return TRN_OK;
    memset(out, 0, sizeof *out);
    return host_error(ctx, &e);
}

int trn_ctx_operand(const trn_ctx *ctx, trn_dir dir, int idx, trn_ap *out, trn_error *e) {
    const char *what = dir == TRN_OUT ? "outputs" : "inputs";
    int n = api_operand_count(ctx, dir);
    if (idx < 0 || idx >= n)
        return trn_errorf(e, "expected %s[%d], the instruction has %d %s", what, idx, n, what);
    const trn_operand *op = dir == TRN_OUT ? &ctx->inst->out[idx] : &ctx->inst->in[idx];
    *out = op->ap;
    int64_t cores = ctx->sim->ncores;
    out->core = op->core >= 0 ? (uint32_t)op->core
                              : (uint32_t)((ctx->core + op->core_offset % cores + cores) % cores);
    if (op->offset_register >= 0 && ctx->checking) return 0; /* decided when it runs */
    /* A program's own operand in its static check: trn_dispatch_check_program
     * checked its fields and bounds at load, against memories of the sizes
     * every core has, so only the core it names is new. One this process
     * cannot reach takes the full check below, which words the refusal. */
    if (ctx->checking && ctx->depth == 0 && out->core >= ctx->sim->dist.local_lo &&
        out->core < ctx->sim->dist.local_hi)
        return 0;
    if (op->offset_register >= 0) {
        const trn_core_state *cs = &ctx->sim->cores[ctx->core];
        if ((uint32_t)op->offset_register >= cs->nregs)
            return trn_errorf(e, "%s[%d]: offset_register %d, the core has %u registers", what, idx,
                              op->offset_register, cs->nregs);
        int64_t reg = cs->regs[op->offset_register];
        if (__builtin_add_overflow(out->offset, reg, &out->offset))
            return trn_errorf(
                e, "%s[%d]: offset %" PRId64 " + register %d (%" PRId64 ") is outside int64", what,
                idx, op->ap.offset, op->offset_register, reg);
    }
    trn_ap_env env = trn_ctx_env(ctx);
    trn_error why;
    if (trn_ap_check(&env, out, &why)) return trn_errorf(e, "%s[%d]: %s", what, idx, why.msg);
    /* Operands without a dynamic offset were checked against their tensor
     * when the program loaded; the others (and sub-instructions', parsed
     * now) are checked here. */
    bool checked = op->offset_register < 0 && ctx->depth == 0;
    if (op->tensor >= 0 && !checked && trn_tensor_check_ap(&ctx->sim->prog, op->tensor, out, &why))
        return trn_errorf(e, "%s[%d]: %s", what, idx, why.msg);
    return 0;
}

/* ---- transfers ---- */

/* A static check moves no data: a module bug, said as such. */
static trn_status not_in_check(trn_ctx *ctx, const char *what) {
    return api_error(
        ctx, "%s is not available in a static check (a module bug: a check decides without data)",
        what);
}

/* --stats: the bytes a transfer moved, by memory (elements times width). */
static void count_bytes(trn_ctx *ctx, const trn_ap *ap, int64_t n, bool written) {
    trn_stats *st = &ctx->sim->stats;
    if (ap->mem > TRN_MEM_HBM) return;
    uint64_t b = (uint64_t)n * trn_dtype_width((trn_dtype)ap->dtype);
    (written ? st->bytes_written : st->bytes_read)[ap->mem] += b;
}

/* A transfer: refused in a static check; on another process's core
 * (remote.c) inside an epoch on its owner: fetched first, a write pushed
 * back after; on success counted for --stats (ap, n elements, written or
 * read). */
#define TRANSFER(call, ap, n, written)                                                             \
    do {                                                                                           \
        if (ctx->checking) return not_in_check(ctx, __func__ + 4);                                 \
        trn_ap_env env = trn_ctx_env(ctx);                                                         \
        trn_error e, e_end;                                                                        \
        trn_remote_txn txn;                                                                        \
        if (trn_ctx_remote_begin(ctx, ap, written, &txn, &e)) return host_error(ctx, &e);          \
        bool bad = (call) != 0;                                                                    \
        if (trn_ctx_remote_end(ctx, &txn, !bad, &e_end) && !bad) return host_error(ctx, &e_end);   \
        if (bad) return host_error(ctx, &e);                                                       \
        if (ctx->sim->opts.stats) count_bytes(ctx, ap, n, written);                                \
        return TRN_OK;                                                                             \
    } while (0)

/* While views are open, the lent bytes may change under the copying calls'
 * feet and the written map is not yet up to date: no writes then. */
static trn_status views_open(trn_ctx *ctx, const char *what) {
    return api_error(ctx, "%s while %u lent view(s) are open (a module bug: lend_end them first)",
                     what, ctx->open_views);
}

#define WRITE_TRANSFER(...)                                                                        \
    do {                                                                                           \
        if (ctx->open_views) return views_open(ctx, __func__ + 4);                                 \
        TRANSFER(__VA_ARGS__);                                                                     \
    } while (0)

static trn_status api_read_f32(trn_ctx *ctx, const trn_ap *ap, float *dst) {
    TRANSFER(trn_ap_read_f32(&env, ap, dst, &e), ap, trn_ap_elems(ap), false);
}
static trn_status api_read_raw(trn_ctx *ctx, const trn_ap *ap, void *dst) {
    TRANSFER(trn_ap_read_raw(&env, ap, dst, &e), ap, trn_ap_elems(ap), false);
}
static trn_status api_write_f32(trn_ctx *ctx, const trn_ap *ap, const float *src, trn_acc_op op) {
    WRITE_TRANSFER(trn_ap_write_f32(&env, ap, src, op, &e), ap, trn_ap_elems(ap), true);
}
static trn_status api_write_raw(trn_ctx *ctx, const trn_ap *ap, const void *src) {
    WRITE_TRANSFER(trn_ap_write_raw(&env, ap, src, &e), ap, trn_ap_elems(ap), true);
}
static trn_status api_read_indirect(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n,
                                    float *dst) {
    TRANSFER(trn_ap_read_indirect_f32(&env, ap, idx, n, dst, &e), ap, (int64_t)n, false);
}
static trn_status api_write_indirect(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n,
                                     const float *src, trn_acc_op op) {
    WRITE_TRANSFER(trn_ap_write_indirect_f32(&env, ap, idx, n, src, op, &e), ap, (int64_t)n, true);
}

static bool has_dynamic_operand(const trn_inst *in) {
    for (int i = 0; i < in->n_in; ++i)
        if (in->in[i].offset_register >= 0) return true;
    for (int i = 0; i < in->n_out; ++i)
        if (in->out[i].offset_register >= 0) return true;
    return false;
}

/* In a static check: bounds but no uninitialised-read guard (that depends on
 * what ran before), and nothing when an operand's offset is dynamic. */
static trn_status api_check_ap(trn_ctx *ctx, const trn_ap *ap, trn_dir dir) {
    trn_ap_env env = trn_ctx_env(ctx);
    trn_error e;
    if (ctx->checking && has_dynamic_operand(ctx->inst)) return TRN_OK;
    if (ctx->checking) env.allow_uninit = true;
    trn_remote_txn txn; /* reading another process's core: its written bits first */
    if (dir == TRN_IN && !env.allow_uninit && trn_ctx_remote_begin(ctx, ap, false, &txn, &e))
        return host_error(ctx, &e);
    if (trn_ap_check_access(&env, ap, dir == TRN_IN, &e)) return host_error(ctx, &e);
    return TRN_OK;
}
static trn_status api_write_raw_op(trn_ctx *ctx, const trn_ap *ap, const void *src, trn_acc_op op) {
    WRITE_TRANSFER(trn_ap_write_raw_op(&env, ap, src, op, &e), ap, trn_ap_elems(ap), true);
}
static trn_status api_read_indirect_raw(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx,
                                        size_t n, void *dst) {
    TRANSFER(trn_ap_read_indirect_raw(&env, ap, idx, n, dst, &e), ap, (int64_t)n, false);
}
static trn_status api_write_indirect_raw(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx,
                                         size_t n, const void *src, trn_acc_op op) {
    WRITE_TRANSFER(trn_ap_write_indirect_raw(&env, ap, idx, n, src, op, &e), ap, (int64_t)n, true);
}

static trn_status api_copy_raw(trn_ctx *ctx, const trn_ap *dst, const trn_ap *src, trn_acc_op op) {
    if (ctx->checking) return not_in_check(ctx, "copy_raw");
    if (ctx->open_views) return views_open(ctx, "copy_raw");
    trn_ap_env env = trn_ctx_env(ctx);
    trn_error e, e_end;
    trn_remote_txn src_txn,
        txn; /* the source first (a fetch, done with its owner), then dst's epoch */
    if (trn_ctx_remote_begin(ctx, src, false, &src_txn, &e) ||
        trn_ctx_remote_begin(ctx, dst, true, &txn, &e))
        return host_error(ctx, &e);
    bool bad = trn_ap_copy_raw(&env, dst, src, op, &e) != 0;
    if (trn_ctx_remote_end(ctx, &txn, !bad, &e_end) && !bad) return host_error(ctx, &e_end);
    if (bad) return host_error(ctx, &e);
    if (ctx->sim->opts.stats) {
        count_bytes(ctx, src, trn_ap_elems(src), false);
        count_bytes(ctx, dst, trn_ap_elems(dst), true);
    }
    return TRN_OK;
}

static int api_uninit_allowed(const trn_ctx *ctx) { return trn_ctx_env(ctx).allow_uninit; }

/* ---- attributes ---- */

static const trn_value *api_attr(trn_ctx *ctx, const char *key) {
    const json_t *obj = ctx->inst->obj;
    if (json_object_size(obj) == 0) return NULL; /* a simple instruction's: no key to hash */
    return (const trn_value *)json_object_get(obj, key);
}

static trn_lookup value_int(trn_ctx *ctx, const trn_value *v, const char *key, int64_t *out) {
    const json_t *j = (const json_t *)v;
    if (json_is_integer(j))
        *out = json_integer_value(j);
    else if (json_is_boolean(j))
        *out = json_is_true(j);
    else if (json_is_real(j) && json_real_value(j) == floor(json_real_value(j)) &&
             fabs(json_real_value(j)) < 9e18)
        *out = (int64_t)json_real_value(j);
    else {
        api_error(ctx, "attribute '%s' must be an integer", key);
        return TRN_BADTYPE;
    }
    return TRN_FOUND;
}

static trn_lookup value_float(trn_ctx *ctx, const trn_value *v, const char *key, double *out) {
    const json_t *j = (const json_t *)v;
    if (json_is_number(j)) {
        *out = json_number_value(j);
        return TRN_FOUND;
    }
    const char *s = json_string_value(j);
    if (s && (!strcasecmp(s, "inf") || !strcasecmp(s, "+inf") || !strcasecmp(s, "infinity")))
        *out = INFINITY;
    else if (s && (!strcasecmp(s, "-inf") || !strcasecmp(s, "-infinity")))
        *out = -INFINITY;
    else if (s && !strcasecmp(s, "nan"))
        *out = NAN;
    else {
        api_error(ctx, "attribute '%s' must be a number or \"inf\", \"-inf\", \"nan\"", key);
        return TRN_BADTYPE;
    }
    return TRN_FOUND;
}

/* The schema's entry of an ENUM attribute of the executing opcode, or NULL. */
static const trn_attr_desc *enum_attr(const trn_ctx *ctx, const char *key) {
    const trn_attr_desc *a =
        ctx->slot && ctx->slot->op ? trn_schema_find(ctx->slot->op, key) : NULL;
    return a && (a->types & TRN_ATTR_ENUM) ? a : NULL;
}

static trn_lookup api_attr_int(trn_ctx *ctx, const char *key, int64_t *out) {
    const trn_value *v = api_attr(ctx, key);
    const trn_attr_desc *a = v && json_is_string((const json_t *)v) ? enum_attr(ctx, key) : NULL;
    const trn_enum_desc *x = a ? trn_schema_enum_entry(a, (const json_t *)v) : NULL;
    if (x) {
        *out = x->value;
        return TRN_FOUND;
    }
    return v ? value_int(ctx, v, key, out) : TRN_ABSENT;
}

static trn_lookup api_attr_enum(trn_ctx *ctx, const char *key, int64_t *out) {
    const trn_attr_desc *a = enum_attr(ctx, key);
    if (!a) {
        api_error(ctx, "attribute '%s' is not an enum of this opcode's schema (a module bug)", key);
        return TRN_BADTYPE;
    }
    const trn_value *v = api_attr(ctx, key);
    if (!v) return TRN_ABSENT;
    const trn_enum_desc *x = trn_schema_enum_entry(a, (const json_t *)v);
    if (x) {
        *out = x->value;
        return TRN_FOUND;
    }
    return value_int(ctx, v, key,
                     out); /* an ENUM | INT number, range-checked when the program loaded */
}

static int api_checking(const trn_ctx *ctx) { return ctx->checking; }

static trn_lookup api_attr_float(trn_ctx *ctx, const char *key, double *out) {
    const trn_value *v = api_attr(ctx, key);
    return v ? value_float(ctx, v, key, out) : TRN_ABSENT;
}

static trn_lookup api_attr_string(trn_ctx *ctx, const char *key, const char **out) {
    const json_t *v = (const json_t *)api_attr(ctx, key);
    if (!v) return TRN_ABSENT;
    if (!json_is_string(v)) {
        api_error(ctx, "attribute '%s' must be a string", key);
        return TRN_BADTYPE;
    }
    const trn_attr_desc *a = enum_attr(ctx, key);
    const trn_enum_desc *x = a ? trn_schema_enum_entry(a, v) : NULL;
    *out = x ? x->name : json_string_value(v); /* an alias reads as its canonical name */
    return TRN_FOUND;
}

static trn_lookup api_attr_int_array(trn_ctx *ctx, const char *key, int64_t *out, size_t cap,
                                     size_t *n) {
    const json_t *v = (const json_t *)api_attr(ctx, key);
    if (!v) return TRN_ABSENT;
    if (!json_is_array(v)) {
        api_error(ctx, "attribute '%s' must be a list of integers", key);
        return TRN_BADTYPE;
    }
    *n = json_array_size(v);
    if (*n > cap) {
        api_error(ctx, "attribute '%s' has %zu entries, at most %zu expected", key, *n, cap);
        return TRN_BADTYPE;
    }
    for (size_t i = 0; i < *n; ++i)
        if (value_int(ctx, (const trn_value *)json_array_get(v, i), key, &out[i]) != TRN_FOUND)
            return TRN_BADTYPE;
    return TRN_FOUND;
}

static trn_value_kind api_value_kind(const trn_value *v) {
    if (!v) return TRN_V_NULL; /* absent: attr() and value_at() give NULL */
    switch (json_typeof((const json_t *)v)) {
        case JSON_TRUE:
        case JSON_FALSE: return TRN_V_BOOL;
        case JSON_INTEGER: return TRN_V_INT;
        case JSON_REAL: return TRN_V_FLOAT;
        case JSON_STRING: return TRN_V_STRING;
        case JSON_ARRAY: return TRN_V_LIST;
        case JSON_OBJECT: return TRN_V_OBJECT;
        default: return TRN_V_NULL;
    }
}

static size_t api_value_len(const trn_value *v) { return json_array_size((const json_t *)v); }
static const trn_value *api_value_at(const trn_value *v, size_t i) {
    return (const trn_value *)json_array_get((const json_t *)v, i);
}
static const trn_value *api_value_get(const trn_value *v, const char *key) {
    return (const trn_value *)json_object_get((const json_t *)v, key);
}
static const char *api_value_string(const trn_value *v) {
    return json_string_value((const json_t *)v);
}
static trn_lookup api_value_int(trn_ctx *ctx, const trn_value *v, int64_t *out) {
    return v ? value_int(ctx, v, "(value)", out) : TRN_ABSENT;
}
static trn_lookup api_value_float(trn_ctx *ctx, const trn_value *v, double *out) {
    return v ? value_float(ctx, v, "(value)", out) : TRN_ABSENT;
}

/* ---- registers ---- */

static trn_status api_reg_read(trn_ctx *ctx, uint32_t reg, int64_t *out) {
    if (ctx->checking) return not_in_check(ctx, "reg_read");
    const trn_core_state *cs = &ctx->sim->cores[ctx->core];
    if (reg >= cs->nregs)
        return api_error(ctx, "register %u does not exist (the core has %u)", reg, cs->nregs);
    *out = cs->regs[reg];
    return TRN_OK;
}

static trn_status api_reg_write(trn_ctx *ctx, uint32_t reg, int64_t value) {
    if (ctx->checking) return not_in_check(ctx, "reg_write");
    trn_core_state *cs = &ctx->sim->cores[ctx->core];
    if (reg >= cs->nregs)
        return api_error(ctx, "register %u does not exist (the core has %u)", reg, cs->nregs);
    cs->regs[reg] = value;
    return TRN_OK;
}

/* ---- settings ---- */

static const trn_setting_val *setting(const trn_settings *s, const char *key, trn_setting_type t) {
    const trn_setting_val *v = trn_settings_find(s, key);
    return v && v->desc->type == t ? v : NULL;
}

static trn_lookup api_setting_int(const trn_settings *s, const char *key, int64_t *out) {
    const trn_setting_val *v = setting(s, key, TRN_SET_INT);
    if (!v) v = setting(s, key, TRN_SET_BOOL);
    if (!v) return TRN_ABSENT;
    *out = v->i;
    return TRN_FOUND;
}

static trn_lookup api_setting_float(const trn_settings *s, const char *key, double *out) {
    const trn_setting_val *v = setting(s, key, TRN_SET_FLOAT);
    if (!v) return TRN_ABSENT;
    *out = v->f;
    return TRN_FOUND;
}

static trn_lookup api_setting_string(const trn_settings *s, const char *key, const char **out) {
    const trn_setting_val *v = setting(s, key, TRN_SET_STRING);
    if (!v) return TRN_ABSENT;
    *out = v->s;
    return TRN_FOUND;
}

static trn_lookup api_setting_int_array(const trn_settings *s, const char *key, int64_t *out,
                                        size_t cap, size_t *n) {
    const trn_setting_val *v = setting(s, key, TRN_SET_INT_ARRAY);
    if (!v) return TRN_ABSENT;
    *n = v->n;
    if (v->n > cap) return TRN_BADTYPE;
    memcpy(out, v->arr, v->n * sizeof(int64_t));
    return TRN_FOUND;
}

/* ---- arithmetic core ---- */

static float api_widen(trn_dtype dt, const void *src) {
    return trn_dtype_widens(dt) ? trn_widen(dt, src) : NAN;
}
static void api_narrow(trn_dtype dt, float v, void *dst) {
    if (trn_dtype_widens(dt)) trn_narrow(dt, v, dst);
}
static trn_status api_accumulate(trn_ctx *ctx, trn_acc_op op, void *dst, const void *src,
                                 trn_dtype dt) {
    trn_error e;
    if (trn_cast_copy_or_accumulate(op, dst, src, dt, &e)) return host_error(ctx, &e);
    return TRN_OK;
}
static uint32_t api_dtype_width(trn_dtype dt) { return trn_dtype_width(dt); }
static const char *api_dtype_name(trn_dtype dt) { return trn_dtype_name(dt); }

/* ---- shared services (ABI 3) ---- */

static const void *api_service(const trn_settings *self, const char *name, uint32_t min_version) {
    return self ? trn_services_lookup(self->owner, name, min_version) : NULL;
}

/* What a module keeps between instructions, against machine.max_bytes. */
static trn_status api_keep_bytes(trn_ctx *ctx, int64_t delta) {
    trn_sim *s = ctx->sim;
    const char *who = ctx->slot && ctx->slot->owner ? ctx->slot->owner->desc->name : "?";
    trn_error e;
    if (trn_budget_keep(&s->cfg.machine, s->run_need_bytes, &s->kept_bytes, delta, who, &e))
        return host_error(ctx, &e);
    return TRN_OK;
}

const trn_host_api trn_host_api_table = {
    .abi_version = TRN_ABI_VERSION,
    .size = sizeof(trn_host_api),
    .error = api_error,
    .log = api_log,
    .core_id = api_core_id,
    .core_count = api_core_count,
    .opcode = api_opcode,
    .instruction_index = api_index,
    .operand_count = api_operand_count,
    .operand = api_operand,
    .read_f32 = api_read_f32,
    .read_raw = api_read_raw,
    .write_f32 = api_write_f32,
    .write_raw = api_write_raw,
    .read_indirect_f32 = api_read_indirect,
    .write_indirect_f32 = api_write_indirect,
    .attr_int = api_attr_int,
    .attr_float = api_attr_float,
    .attr_string = api_attr_string,
    .attr_int_array = api_attr_int_array,
    .attr = api_attr,
    .value_kind = api_value_kind,
    .value_len = api_value_len,
    .value_at = api_value_at,
    .value_get = api_value_get,
    .value_int = api_value_int,
    .value_float = api_value_float,
    .dispatch = trn_dispatch_sub,
    .reg_read = api_reg_read,
    .reg_write = api_reg_write,
    .setting_int = api_setting_int,
    .setting_float = api_setting_float,
    .setting_string = api_setting_string,
    .setting_int_array = api_setting_int_array,
    .widen = api_widen,
    .narrow = api_narrow,
    .accumulate = api_accumulate,
    .dtype_width = api_dtype_width,
    .dtype_name = api_dtype_name,
    .check_ap = api_check_ap,
    .write_raw_op = api_write_raw_op,
    .read_indirect_raw = api_read_indirect_raw,
    .write_indirect_raw = api_write_indirect_raw,
    .value_string = api_value_string,
    .copy_raw = api_copy_raw,
    .uninit_allowed = api_uninit_allowed,
    .attr_enum = api_attr_enum,
    .checking = api_checking,
    .service = api_service,
    .observed_read_raw = trn_observed_read_raw,
    .observed_read_f32 = trn_observed_read_f32,
    .observer_stop = trn_observer_stop,
    .observed_digest = trn_observed_digest,
    .lend = trn_api_lend,
    .lend_end = trn_api_lend_end,
    .lend_cancel = trn_api_lend_cancel,
    .rendezvous_met = trn_api_rendezvous_met,
    .keep_bytes = api_keep_bytes,
};
