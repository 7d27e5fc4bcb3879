/* The JSONL trace: an observer that writes one record per executed
 * instruction (docs/observability.md has the format). Records are built in
 * one buffer and handed to stdio, whose buffer is bounded (TRACE_BUFFER),
 * so the file grows as the run goes and memory does not. */
#include "observers/observers.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "common/common.h"
#include "exec/exec.h"

#define TRACE_BUFFER (1u << 16)

struct trn_trace {
    trn_sim *sim;
    trn_obs_file out;
    char *filter_text;
    trn_trace_filter filter;
    uint64_t limit, records;
    uint32_t values;
    bool limit_hit;
    trn_strbuf line;
    uint8_t *vals; /* scratch for --trace-values */
    size_t vals_cap;
};

static const char *status_name(trn_status st) {
    return st == TRN_OK ? "ok" : st == TRN_WAIT ? "wait" : "error";
}

/* The BIR context "function F, block B, BIR name 'N'" as fields; anything
 * else as it is. */
static void put_where(trn_strbuf *b, const char *where) {
    if (!where) return;
    const char *blk = strstr(where, ", block "), *name = strstr(where, ", BIR name '");
    size_t wl = strlen(where);
    if (!strncmp(where, "function ", 9) && blk && name && name > blk && wl > 0 &&
        where[wl - 1] == '\'') {
        trn_sb_printf(b, ",\"bir\":{\"function\":\"%.*s\",\"block\":\"%.*s\",\"name\":\"%.*s\"}",
                      (int)(blk - where - 9), where + 9, (int)(name - blk - 8), blk + 8,
                      (int)(where + wl - 1 - (name + 12)), name + 12);
        return;
    }
    trn_sb_printf(b, ",\"where\":");
    trn_sb_json_string(b, where);
}

static void put_ap(trn_strbuf *b, const trn_ap *ap) {
    trn_sb_printf(b,
                  "\"ap\":{\"core\":%u,\"partition\":%u,\"partitions\":%u,\"partition_step\":%u,"
                  "\"offset\":%" PRId64 ",\"dims\":[",
                  ap->core, ap->part_start, ap->part_count, ap->part_step, ap->offset);
    for (uint32_t d = 0; d < ap->ndims && d < TRN_AP_MAX_DIMS; ++d)
        trn_sb_printf(b, "%s[%" PRId64 ",%" PRId64 "]", d ? "," : "", ap->dims[d].step,
                      ap->dims[d].num);
    trn_sb_printf(b, "]}");
}

/* One element's value: a JSON number, or "nan" / "inf" / "-inf". */
static void put_value(trn_strbuf *b, trn_dtype dt, const uint8_t *p) {
    if (trn_dtype_is_float(dt) && trn_dtype_widens(dt)) {
        float v = trn_widen(dt, p);
        if (isnan(v))
            trn_sb_printf(b, "\"nan\"");
        else if (isinf(v))
            trn_sb_printf(b, v > 0 ? "\"inf\"" : "\"-inf\"");
        else
            trn_sb_printf(b, "%.9g", (double)v);
        return;
    }
    uint32_t w = trn_dtype_width(dt);
    uint64_t u = 0;
    memcpy(&u, p, w < 8 ? w : 8);
    const char *name = trn_dtype_name(dt);
    if (name[0] == 'i' && w < 8 && (u >> (8 * w - 1)) & 1)
        u |= ~UINT64_C(0) << (8 * w); /* sign-extend */
    if (name[0] == 'i')
        trn_sb_printf(b, "%" PRId64, (int64_t)u);
    else
        trn_sb_printf(b, "%" PRIu64, u);
}

/* The first K elements in visiting order: only the partitions that hold
 * them are read. */
static void put_values(trn_trace *t, const trn_host_api *api, const trn_observation *ob,
                       const trn_ap *ap) {
    int64_t per = trn_ap_free_elems(ap), k = (int64_t)t->values, n = trn_ap_elems(ap);
    if (k > n) k = n;
    trn_ap head = *ap;
    head.part_count = (uint32_t)((k + per - 1) / per);
    uint32_t w = trn_dtype_width(ap->dtype);
    size_t bytes = (size_t)trn_ap_elems(&head) * w;
    if (bytes > t->vals_cap) {
        uint8_t *grown = realloc(t->vals, bytes);
        if (!grown) return;
        t->vals = grown, t->vals_cap = bytes;
    }
    if (api->observed_read_raw(ob, &head, t->vals) != TRN_OK) return;
    trn_sb_printf(&t->line, ",\"values\":[");
    for (int64_t i = 0; i < k; ++i) {
        if (i) trn_sb_putc(&t->line, ',');
        put_value(&t->line, ap->dtype, t->vals + i * w);
    }
    trn_sb_printf(&t->line, "],\"bits\":[");
    for (int64_t i = 0; i < k; ++i) {
        uint64_t u = 0;
        memcpy(&u, t->vals + i * w, w < 8 ? w : 8);
        trn_sb_printf(&t->line, "%s\"0x%0*" PRIx64 "\"", i ? "," : "", (int)(2 * w), u);
    }
    trn_sb_putc(&t->line, ']');
}

static void put_operands(trn_trace *t, const trn_host_api *api, const trn_observation *ob,
                         bool outputs) {
    const trn_obs_operand *ops = outputs ? ob->out : ob->in;
    uint32_t n = outputs ? ob->n_out : ob->n_in;
    trn_strbuf *b = &t->line;
    trn_sb_printf(b, ",\"%s\":[", outputs ? "outputs" : "inputs");
    for (uint32_t k = 0; k < n; ++k) {
        const trn_ap *ap = &ops[k].ap;
        trn_sb_printf(b, "%s{\"kind\":\"%s\"", k ? "," : "", ops[k].tensor ? "tensor" : "memory");
        if (ops[k].tensor) {
            trn_sb_printf(b, ",\"tensor\":");
            trn_sb_json_string(b, ops[k].tensor);
        }
        if (!ops[k].resolved) {
            trn_sb_printf(b, ",\"resolved\":false}");
            continue;
        }
        int64_t elems = trn_ap_elems(ap);
        trn_sb_printf(b, ",\"memory\":\"%s\",\"dtype\":\"%s\",", trn_mem_names[ap->mem],
                      trn_dtype_name(ap->dtype));
        put_ap(b, ap);
        trn_sb_printf(b, ",\"elements\":%" PRId64 ",\"bytes\":%" PRId64, elems,
                      elems * trn_dtype_width(ap->dtype));
        uint64_t digest;
        if (outputs && ob->status == TRN_OK && api->observed_digest(ob, ap, &digest) == TRN_OK)
            trn_sb_printf(b, ",\"digest\":\"%016" PRIx64 "\"", digest);
        if (outputs && ob->status == TRN_OK && t->values) put_values(t, api, ob, ap);
        trn_sb_putc(b, '}');
    }
    trn_sb_putc(b, ']');
}

/* The cores the module reported meeting (rendezvous_met). */
static void put_party(trn_strbuf *b, const trn_observation *ob) {
    static const char *const role[] = {"member", "sender", "receiver"};
    if (!ob->party) return;
    trn_sb_printf(b, ",\"party\":[");
    for (uint32_t i = 0; i < ob->n_party; ++i)
        trn_sb_printf(b, "%s{\"core\":%u,\"index\":%" PRIu64 ",\"role\":\"%s\"}", i ? "," : "",
                      ob->party[i].core, ob->party[i].index,
                      role[ob->party[i].role <= TRN_PARTY_RECEIVER ? ob->party[i].role : 0]);
    trn_sb_putc(b, ']');
}

static void emit(trn_trace *t) {
    trn_sb_putc(&t->line, '\n');
    if (t->line.failed)
        trn_obs_file_fail(&t->out, ENOMEM);
    else
        trn_obs_file_write(&t->out, t->line.text, t->line.len);
    trn_sb_clear(&t->line);
}

static trn_status fail_run(trn_trace *t, const trn_host_api *api, const trn_observation *ob) {
    return api->observer_stop(ob, "--trace %s: writing failed: %s", t->out.path,
                              strerror(t->out.err));
}

static trn_status trace_after(const trn_host_api *api, const trn_observation *ob, void *state) {
    trn_trace *t = state;
    if (t->limit_hit || !trn_trace_filter_keeps(&t->filter, ob)) return TRN_OK;
    trn_strbuf *b = &t->line;
    trn_sb_printf(b,
                  "{\"type\":\"instruction\",\"core\":%u,\"index\":%" PRIu64 ",\"number\":%" PRIu64
                  ",\"depth\":%u,\"it\":%u,\"opcode\":",
                  ob->core, ob->index, ob->number, ob->depth, ob->it);
    trn_sb_json_string(b, ob->opcode);
    trn_sb_printf(b, ",\"module\":");
    trn_sb_json_string(b, ob->module);
    trn_sb_printf(b, ",\"family\":");
    trn_sb_json_string(b, ob->family);
    put_where(b, ob->where);
    trn_sb_printf(b, ",\"status\":\"%s\",\"start_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64,
                  status_name(ob->status), ob->start_ns, ob->duration_ns);
    if (ob->status == TRN_ERR && ob->error) {
        trn_sb_printf(b, ",\"error\":");
        trn_sb_json_string(b, ob->error);
    }
    put_party(b, ob);
    put_operands(t, api, ob, false);
    put_operands(t, api, ob, true);
    trn_sb_putc(b, '}');
    emit(t);
    if (++t->records == t->limit) {
        t->limit_hit = true;
        trn_sb_printf(b,
                      "{\"type\":\"limit\",\"records\":%" PRIu64
                      ",\"message\":\"--trace-limit %" PRIu64
                      " reached: later instructions are not traced\"}",
                      t->records, t->limit);
        emit(t);
    }
    return t->out.failed ? fail_run(t, api, ob) : TRN_OK;
}

static void trace_run_end(const trn_host_api *api, void *state, int rc) {
    (void)api;
    trn_trace *t = state;
    trn_sb_printf(&t->line,
                  "{\"type\":\"end\",\"status\":\"%s\",\"records\":%" PRIu64
                  ",\"limit_reached\":%s}",
                  rc ? "error" : "ok", t->records, t->limit_hit ? "true" : "false");
    emit(t);
}

static const trn_observer_desc trace_observer = {
    .size = sizeof trace_observer, .after = trace_after, .run_end = trace_run_end};

static void header(trn_trace *t, const trn_sim *s) {
    trn_strbuf *b = &t->line;
    trn_sb_printf(b, "{\"type\":\"header\",\"format\":\"trnsim-trace\",\"version\":1,\"program\":");
    trn_sb_json_string(b, trn_sim_program(s) ? trn_sim_program(s)->path : NULL);
    trn_sb_printf(b, ",\"config\":");
    trn_sb_json_string(b, trn_sim_config_file(s));
    trn_sb_printf(
        b, ",\"cores\":%u,\"digest\":\"xxh64\",\"values\":%u,\"limit\":%" PRIu64 ",\"filter\":",
        trn_sim_cores(s), t->values, t->limit);
    trn_sb_json_string(b, t->filter_text);
    trn_sb_putc(b, '}');
    emit(t);
}

static void free_trace(trn_trace *t) {
    if (!t) return;
    trn_sb_free(&t->line);
    free(t->vals);
    free(t->filter_text);
    free(t);
}

int trn_trace_begin(trn_sim *s, const trn_trace_opts *o, trn_trace **out, trn_error *e) {
    *out = NULL;
    if (o->values > TRN_TRACE_MAX_VALUES)
        return trn_errorf(e, "--trace-values=%u: at most %u elements per output", o->values,
                          TRN_TRACE_MAX_VALUES);
    trn_trace *t = calloc(1, sizeof *t);
    if (!t) return trn_errorf(e, "out of memory for the trace");
    t->sim = s, t->limit = o->limit, t->values = o->values;
    if (o->filter && !(t->filter_text = strdup(o->filter))) {
        free_trace(t);
        return trn_errorf(e, "out of memory for the trace");
    }
    if (trn_trace_filter_parse(s, o->filter, &t->filter, e)) {
        free_trace(t);
        return -1;
    }
    if (trn_obs_file_open(&t->out, "--trace", o->path, o->part, TRACE_BUFFER, e)) {
        free_trace(t);
        return -1;
    }
    if (trn_sim_add_observer(s, &trace_observer, t, e)) {
        trn_error ignored;
        trn_obs_file_close(&t->out, &ignored);
        free_trace(t);
        return -1;
    }
    header(t, s);
    *out = t;
    return 0;
}

int trn_trace_end(trn_sim *s, trn_trace *t, trn_error *e) {
    if (!t) return 0;
    trn_sim_remove_observer(s, &trace_observer, t);
    int rc = trn_obs_file_close(&t->out, e);
    free_trace(t);
    return rc;
}
