/* The host as a library: open (config + modules), load a program (tensors
 * placed and initialised on every core), move tensor bytes, run. */
#include "exec/exec.h"
#include "frontend/frontend.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arith/arith.h"
#include "memory/memory.h"
#include "program/program.h"
#include "dist/dist.h"
#include "exec/exec_int.h"

/* --against-module FAMILY=PATH: the family's module (its last plugins
 * entry, the one in effect) is loaded from PATH instead. */
static int swap_modules(trn_config *c, const char *const *swaps, size_t n, trn_error *e) {
    for (size_t i = 0; i < n; ++i) {
        const char *eq = strchr(swaps[i], '=');
        if (!eq || eq == swaps[i] || !eq[1])
            return trn_errorf(
                e, "module swap '%s': expected FAMILY=PATH, e.g. search=./my-search.so", swaps[i]);
        trn_plugin_cfg *p = NULL;
        for (size_t k = 0; k < c->n_plugins; ++k)
            if (strlen(c->plugins[k].family) == (size_t)(eq - swaps[i]) &&
                !strncmp(c->plugins[k].family, swaps[i], (size_t)(eq - swaps[i])))
                p = &c->plugins[k];
        if (!p)
            return trn_errorf(e, "module swap '%s': the config loads no module of family '%.*s'",
                              swaps[i], (int)(eq - swaps[i]), swaps[i]);
        char *path = strdup(eq + 1);
        if (!path) return trn_errorf(e, "out of memory");
        free(p->module);
        p->module = path;
    }
    return 0;
}

/* The registry of s, told where to look and what to hand the modules. */
static trn_registry *registry_of(trn_sim *s) {
    s->reg.cfg = &s->cfg;
    s->reg.api = &trn_host_api_table;
    s->reg.module_dir = s->opts.module_dir;
    s->reg.exe_dir = s->opts.exe_dir;
    s->reg.exe_is_library = s->opts.exe_is_library;
    return &s->reg;
}

int trn_sim_open(trn_sim **out, const trn_sim_opts *opts, trn_error *e) {
    trn_sim *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) return trn_errorf(e, "out of memory");
    s->opts = *opts;
    if (!s->opts.trace_out) s->opts.trace_out = stderr;
    int rc = trn_config_load_sets(&s->cfg, opts->config_path,
                                  opts->config_path ? NULL : opts->config_text, opts->sets,
                                  opts->n_sets, e);
    if (rc == 0) rc = swap_modules(&s->cfg, opts->module_swaps, opts->n_module_swaps, e);
    if (rc)
        trn_error_kind_default(e, TRN_EK_CONFIG);
    else if ((rc = trn_loader_load_all(registry_of(s), e)) != 0)
        trn_error_kind_default(e, TRN_EK_MODULE);
    else if ((rc = trn_dist_attach(&s->dist, &s->reg, &s->cfg, e)) != 0)
        trn_error_kind_default(e, TRN_EK_MODULE);
    else if ((rc = trn_observe_add_modules(s, e)) != 0)
        trn_error_kind_default(e, TRN_EK_MODULE);
    if (rc) {
        trn_sim_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

static void free_program(trn_sim *s) {
    trn_dispatch_run_free(s);
    trn_remote_withdraw(&s->dist); /* before the memories it lends go */
    for (uint32_t c = 0; c < s->ncores; ++c) trn_core_state_free(&s->cores[c]);
    free(s->cores);
    s->cores = NULL;
    s->ncores = 0;
    if (s->have_prog) trn_program_free(&s->prog);
    s->have_prog = false;
}

void trn_sim_close(trn_sim *s) {
    if (!s) return;
    if (s->hooks && s->hooks->free) s->hooks->free(s);
    free_program(s);
    trn_observe_free(s);
    trn_loader_unload_all(&s->reg);
    trn_config_free(&s->cfg);
    trn_stats_free(&s->stats);
    free(s);
}

/* ---- initial tensor data ---- */

static int json_number(const json_t *v, double *out) {
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 0;
    }
    const char *t = json_string_value(v);
    if (!t) return -1;
    if (!strcasecmp(t, "inf"))
        *out = INFINITY;
    else if (!strcasecmp(t, "-inf"))
        *out = -INFINITY;
    else if (!strcasecmp(t, "nan"))
        *out = NAN;
    else
        return -1;
    return 0;
}

/* Integer dtypes take integers in range; stored little-endian. */
static int store_int(trn_dtype dt, const json_t *v, uint8_t *dst, trn_error *e) {
    if (!json_is_integer(v))
        return trn_errorf(e, "expected an integer for a %s tensor", trn_dtype_name(dt));
    int64_t x = json_integer_value(v);
    uint32_t w = trn_dtype_width(dt);
    bool is_signed =
        dt == TRN_DT_INT8 || dt == TRN_DT_INT16 || dt == TRN_DT_INT32 || dt == TRN_DT_INT64;
    int64_t lo = is_signed ? (w == 8 ? INT64_MIN : -(1ll << (8 * w - 1))) : 0;
    int64_t hi = w == 8 ? INT64_MAX : is_signed ? (1ll << (8 * w - 1)) - 1 : (1ll << (8 * w)) - 1;
    if (x < lo || x > hi)
        return trn_errorf(e, "%" PRId64 " does not fit %s", x, trn_dtype_name(dt));
    uint64_t u = (uint64_t)x;
    for (uint32_t i = 0; i < w; ++i) dst[i] = (uint8_t)(u >> (8 * i));
    return 0;
}

/* A packed x4 element has no one value: its number is the element's raw
 * bits, as its .npy form is (docs/programs.md). */
static int store_value(trn_dtype dt, const json_t *v, uint8_t *dst, trn_error *e) {
    if (!trn_dtype_widens(dt) && !json_is_integer(v))
        return trn_errorf(e,
                          "expected an integer for a %s tensor (a packed x4 element is given as "
                          "its raw bits, 0 .. 2^%u-1)",
                          trn_dtype_name(dt), 8 * trn_dtype_width(dt));
    if (!trn_dtype_is_float(dt) || !trn_dtype_widens(dt)) return store_int(dt, v, dst, e);
    double d;
    if (json_number(v, &d)) return trn_errorf(e, "expected a number or \"inf\", \"-inf\", \"nan\"");
    trn_narrow(dt, (float)d, dst); /* values travel as fp32, then narrow (RNE) */
    return 0;
}

static int tensor_init_bytes(const trn_tensor *t, const json_t *list, const json_t *fill,
                             uint8_t *buf, trn_error *e) {
    uint32_t w = trn_dtype_width(t->dtype);
    for (int64_t i = 0; i < t->count; ++i) {
        const json_t *v = fill ? fill : json_array_get(list, (size_t)i);
        if (store_value(t->dtype, v, buf + i * w, e))
            return trn_error_prefix(e, "element %" PRId64, i);
    }
    return 0;
}

static int init_tensor(trn_sim *s, const trn_tensor *t, trn_error *e) {
    if (!t->init) return 0;
    size_t bytes = (size_t)t->count * trn_dtype_width(t->dtype);
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return trn_errorf(e, "%s: tensor '%s': out of memory for %zu bytes of initial data",
                          s->prog.path, t->name, bytes);
    int rc = 0;
    bool per_core = !strcmp(t->init_kind, "data_per_core");
    const json_t *fill = !strcmp(t->init_kind, "fill") ? t->init : NULL;
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi && rc == 0;
         ++c) { /* the other processes fill theirs */
        const json_t *list = per_core ? json_array_get(t->init, c) : t->init;
        if (c == s->dist.local_lo || per_core) rc = tensor_init_bytes(t, list, fill, buf, e);
        trn_ap ap = t->ap;
        ap.core = c;
        if (rc == 0) rc = trn_ap_write_raw(&env, &ap, buf, e);
    }
    free(buf);
    if (rc) trn_error_prefix(e, "%s: tensor '%s', %s", s->prog.path, t->name, t->init_kind);
    return rc;
}

static const trn_opcode_desc *opcode_schema(void *arg, uint32_t it) {
    const trn_sim *s = arg;
    return it <= TRN_IT_MAX ? s->reg.table[it].op : NULL;
}

/* Large tensors fault in 2 MiB pages (memory/memory.h): a 64 MiB input then
 * costs 32 page faults instead of 16384. */
static void advise_tensors(trn_sim *s) {
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    for (int i = 0; i < s->prog.n_tensors; ++i) {
        const trn_tensor *t = &s->prog.tensors[i];
        if (t->view_of) continue; /* its bytes are its base's */
        for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi; ++c) {
            trn_ap ap = t->ap;
            ap.core = c;
            trn_ap_advise_dense(&env, &ap);
        }
    }
}

static int load_parts(trn_sim *s, const char *path, const char *text, json_t *root, trn_error *e) {
    free_program(s);
    char families[256];
    trn_load_opts o = {.machine = &s->cfg.machine,
                       .default_cores = s->cfg.cores,
                       .max_executions = s->cfg.max_executions,
                       .format = (trn_format)s->opts.format,
                       .unknown_skip = s->cfg.unknown_skip,
                       .families = trn_loader_families(&s->reg, families, sizeof families),
                       .resolve = trn_dispatch_resolve_name,
                       .handled = trn_dispatch_handled,
                       .schema = opcode_schema,
                       .function = s->cfg.bir_function,
                       .arg = s};
    if (root ? trn_program_load_document(&s->prog, path, root, &o, e)
             : trn_program_load(&s->prog, path, text, &o, e))
        return -1;
    s->have_prog = true;
    if (trn_dispatch_check_program(s, e)) return -1;
    uint64_t largest = 0;
    for (int i = 0; i < s->prog.n_tensors; ++i) {
        const trn_tensor *t = &s->prog.tensors[i];
        uint64_t b = (uint64_t)t->count * trn_dtype_width(t->dtype);
        if (b > largest) largest = b;
    }
    if (trn_budget_run(&s->cfg.machine, s->prog.cores, largest, s->max_scratch, &s->run_need_bytes,
                       e))
        return trn_error_prefix(e, "%s", s->prog.path);
    s->ncores = s->prog.cores;
    s->cores = calloc(s->ncores, sizeof *s->cores);
    if (!s->cores) {
        s->ncores = 0;
        return trn_errorf(e, "%s: out of memory for %u cores", s->prog.path, s->prog.cores);
    }
    trn_dist_place(&s->dist, &s->prog, s->cores, s->ncores);
    for (uint32_t c = 0; c < s->ncores; ++c)
        if (trn_core_state_init(&s->cores[c], &s->cfg.machine, e))
            return trn_error_prefix(e, "%s: core %u of %u", s->prog.path, c, s->ncores);
    advise_tensors(s);
    for (int i = 0; i < s->prog.n_tensors; ++i)
        if (init_tensor(s, &s->prog.tensors[i], e)) return -1;
    return trn_dispatch_static_checks(s, e);
}

/* A program that fails to load is dropped whole: no half-parsed instruction
 * list or half-initialised memories stay behind for a later trn_sim_run. */
/* --timeout covers loading too: a load past it is refused, and the next run
 * starts with what loading took already spent. */
static int load_common(trn_sim *s, const char *path, const char *text, json_t *root, trn_error *e) {
    double t0 = trn_now();
    int rc = load_parts(s, path, text, root, e);
    s->load_seconds = trn_now() - t0;
    if (rc == 0 && s->opts.timeout_seconds > 0 && s->load_seconds > s->opts.timeout_seconds)
        rc = trn_errorf(e, "%s: loading took %.3f s, past --timeout %g; nothing ran",
                        path ? path : "program", s->load_seconds, s->opts.timeout_seconds);
    if (rc == 0) return 0;
    free_program(s);
    if (e) e->kind = TRN_EK_PROGRAM;
    return -1;
}

int trn_sim_load_program(trn_sim *s, const char *path, trn_error *e) {
    return load_common(s, path, NULL, NULL, e);
}

int trn_sim_load_program_text(trn_sim *s, const char *text, const char *name, trn_error *e) {
    return load_common(s, name, text, NULL, e);
}

int trn_sim_load_program_document(trn_sim *s, json_t *root, const char *name, trn_error *e) {
    return load_common(s, name, NULL, root, e);
}

static const trn_tensor *find_named(const trn_sim *s, const char *name, int core, trn_error *e) {
    if (!s->have_prog) {
        trn_errorf(e, "no program is loaded");
        return NULL;
    }
    int i = trn_program_find_tensor(&s->prog, name);
    if (i >= s->prog.n_tensors) {
        trn_errorf(e, "%s: no tensor named '%s'", s->prog.path, name);
        return NULL;
    }
    const trn_tensor *t = &s->prog.tensors[i];
    if (core >= (int)s->ncores || core < -1) {
        trn_errorf(e, "tensor '%s': core %d does not exist (the run has %u cores)", name, core,
                   s->ncores);
        return NULL;
    }
    return t;
}

static const trn_tensor *find_tensor(const trn_sim *s, const char *name, int core, size_t bytes,
                                     trn_error *e) {
    const trn_tensor *t = find_named(s, name, core, e);
    if (!t) return NULL;
    if (bytes != (size_t)t->count * trn_dtype_width(t->dtype)) {
        trn_errorf(e, "tensor '%s': %zu bytes given, the tensor has %" PRId64 " bytes", name, bytes,
                   t->count * (int64_t)trn_dtype_width(t->dtype));
        return NULL;
    }
    return t;
}

int trn_sim_set_tensor(trn_sim *s, const char *name, int core, const void *data, size_t bytes,
                       trn_error *e) {
    const trn_tensor *t = find_tensor(s, name, core, bytes, e);
    if (e) e->kind = TRN_EK_INPUT;
    if (!t) return -1;
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi;
         ++c) { /* a distributed run: this process's cores */
        if (core >= 0 && (uint32_t)core != c) continue;
        trn_ap ap = t->ap;
        ap.core = c;
        trn_memory *m = &s->cores[c].mem[ap.mem];
        if (m->n_bound && trn_ap_check(&env, &ap, NULL) == 0)
            trn_mem_drop_within(m, trn_ap_box(&ap));
        if (trn_ap_write_raw(&env, &ap, data, e)) return -1;
    }
    return 0;
}

/* The tensor's box when its rows abut in one run of partitions: the
 * caller's buffer then holds it row for row. */
static bool bindable_box(const trn_sim *s, const trn_tensor *t, trn_box *box) {
    if (s->dist.transport || s->dist.local_lo != 0 || s->dist.local_hi != s->ncores)
        return false; /* other processes read memory */
    const trn_ap *ap = &t->ap;
    int64_t expect = 1;
    for (int d = (int)ap->ndims - 1; d >= 0; --d) {
        if (ap->dims[d].num == 1) continue;
        if (ap->dims[d].step != expect) return false;
        expect *= ap->dims[d].num;
    }
    if (ap->part_count > 1 && ap->part_step != 1) return false;
    *box = trn_ap_box(ap);
    return box->b_hi - box->b_lo == (uint64_t)expect * trn_dtype_width(ap->dtype);
}

int trn_sim_bind_tensor(trn_sim *s, const char *name, int core, const void *data, size_t bytes,
                        trn_error *e) {
    const trn_tensor *t = find_tensor(s, name, core, bytes, e);
    if (e) e->kind = TRN_EK_INPUT;
    if (!t) return -1;
    uint32_t w = trn_dtype_width(t->dtype);
    if ((uintptr_t)data % w)
        return trn_errorf(e,
                          "tensor '%s': a bound buffer must be aligned to the %u-byte width of %s, "
                          "this one is %u "
                          "byte(s) past it (use an aligned buffer, or copy it in: "
                          "trnsim_set_tensor, Simulator.set)",
                          name, w, trn_dtype_name(t->dtype), (unsigned)((uintptr_t)data % w));
    trn_box box;
    if (!bindable_box(s, t, &box)) return trn_sim_set_tensor(s, name, core, data, bytes, e);
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    if (trn_ap_check(&env, &t->ap, e)) return -1;
    for (uint32_t c = 0; c < s->ncores; ++c) {
        if (core >= 0 && (uint32_t)core != c) continue;
        if (trn_mem_bind(&s->cores[c].mem[t->ap.mem], data, box, e)) return -1;
    }
    return 0;
}

int trn_sim_unbind_tensor(trn_sim *s, const char *name, int core, trn_error *e) {
    const trn_tensor *t = find_named(s, name, core, e);
    if (e) e->kind = TRN_EK_INPUT;
    if (!t) return -1;
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    if (trn_ap_check(&env, &t->ap, e)) return -1;
    for (uint32_t c = 0; c < s->ncores; ++c)
        if (core < 0 || (uint32_t)core == c)
            trn_mem_settle(&s->cores[c].mem[t->ap.mem], trn_ap_box(&t->ap));
    return 0;
}

void trn_sim_settle_bindings(trn_sim *s) {
    for (uint32_t c = 0; c < s->ncores; ++c)
        for (int m = 0; m < 3; ++m) trn_mem_settle_all(&s->cores[c].mem[m]);
}

int trn_sim_set_tensor_copy(trn_sim *s, const char *name, uint32_t core, const void *data,
                            size_t bytes, trn_error *e) {
    const trn_tensor *t = find_tensor(s, name, (int)core, bytes, e);
    if (!t) return -1;
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    trn_ap ap = t->ap;
    ap.core = core;
    return trn_ap_write_raw(&env, &ap, data, e);
}

int trn_sim_get_tensor(trn_sim *s, const char *name, int core, void *data, size_t bytes,
                       trn_error *e) {
    const trn_tensor *t = find_tensor(s, name, core, bytes, e);
    if (e) e->kind = TRN_EK_INPUT;
    if (!t) return -1;
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    trn_ap ap = t->ap;
    ap.core = core < 0 ? 0 : (uint32_t)core;
    return trn_ap_read_raw(&env, &ap, data, e);
}

int trn_sim_run_start(trn_sim *s, trn_error *e) {
    int rc = !s->have_prog                         ? trn_errorf(e, "no program is loaded")
             : trn_dist_check_program(&s->dist, e) ? -1
                                                   : trn_dispatch_run_start(s, e);
    if (rc && e) e->kind = TRN_EK_RUN;
    return rc;
}

int trn_sim_step(trn_sim *s, trn_step *out, trn_error *e) {
    int rc = trn_dispatch_step(s, out, e);
    if (rc < 0 && e) e->kind = TRN_EK_RUN;
    return rc;
}

void trn_sim_run_end(trn_sim *s) { trn_dispatch_run_free(s); }

/* A tensor's spans on a core another process holds: NULL runs, to skip. */
typedef struct skip_arg {
    trn_sim_span_fn fn;
    void *ctx;
} skip_arg;

static int skip_span(void *arg, uint8_t *bytes, size_t len, trn_error *e) {
    (void)bytes;
    const skip_arg *k = arg;
    return k->fn(k->ctx, NULL, len, e);
}

int trn_sim_fill_tensor(trn_sim *s, const char *name, int core, trn_sim_span_fn fill, void *ctx,
                        trn_error *e) {
    if (e) e->kind = TRN_EK_INPUT;
    if (!s->have_prog) return trn_errorf(e, "no program is loaded");
    int i = trn_program_find_tensor(&s->prog, name);
    if (i >= s->prog.n_tensors)
        return trn_errorf(e, "%s: no tensor named '%s'", s->prog.path, name);
    const trn_tensor *t = &s->prog.tensors[i];
    if (core >= (int)s->ncores || core < -1)
        return trn_errorf(e, "tensor '%s': core %d does not exist (the run has %u cores)", name,
                          core, s->ncores);
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    trn_ap ap = t->ap;
    if (core >= 0 && !trn_dist_is_local(&s->dist, (uint32_t)core)) {
        skip_arg k = {fill, ctx};
        ap.core = (uint32_t)core;
        return trn_ap_spans(&env, &ap, false, skip_span, &k, e);
    }
    ap.core = core >= 0 ? (uint32_t)core : s->dist.local_lo;
    if (trn_ap_spans(&env, &ap, true, fill, ctx, e)) return -1;
    for (uint32_t c = s->dist.local_lo; core < 0 && c < s->dist.local_hi;
         ++c) { /* the same bytes on every local core */
        if (c == s->dist.local_lo) continue;
        ap.core = c;
        if (trn_ap_spans_copy(&env, &ap, s->dist.local_lo, e)) return -1;
    }
    return 0;
}

int trn_sim_drain_tensor(trn_sim *s, const char *name, int core, trn_sim_span_fn drain, void *ctx,
                         trn_error *e) {
    if (e) e->kind = TRN_EK_INPUT;
    if (!s->have_prog) return trn_errorf(e, "no program is loaded");
    int i = trn_program_find_tensor(&s->prog, name);
    if (i >= s->prog.n_tensors)
        return trn_errorf(e, "%s: no tensor named '%s'", s->prog.path, name);
    if (core >= (int)s->ncores || core < -1)
        return trn_errorf(e, "tensor '%s': core %d does not exist (the run has %u cores)", name,
                          core, s->ncores);
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    trn_ap ap = s->prog.tensors[i].ap;
    ap.core = core < 0 ? 0 : (uint32_t)core;
    return trn_ap_spans(&env, &ap, false, drain, ctx, e);
}

int trn_sim_run(trn_sim *s, trn_error *e) {
    int rc = !s->have_prog                         ? trn_errorf(e, "no program is loaded")
             : trn_dist_check_program(&s->dist, e) ? -1
                                                   : trn_dispatch_run(s, e);
    if (rc && e) e->kind = TRN_EK_RUN;
    return rc;
}

/* Core `core` of tensor t: 0, or -1 naming its first never-written element. */
static int check_core_written(trn_sim *s, const trn_tensor *t, uint32_t core, trn_error *e) {
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores};
    trn_ap ap = t->ap;
    ap.core = core;
    int64_t el;
    uint64_t addr;
    if (!trn_ap_first_unwritten(&env, &ap, &el, &addr)) return 0;
    const trn_memory *m = &s->cores[core].mem[t->mem];
    char index[160], where[96];
    trn_tensor_coords(t, el, index, sizeof index);
    if (t->mem == TRN_MEM_HBM)
        snprintf(where, sizeof where, "hbm byte %" PRIu64, addr);
    else
        snprintf(where, sizeof where, "%s partition %" PRIu64 ", byte offset %" PRIu64,
                 trn_mem_names[t->mem], addr / m->partition_bytes, addr % m->partition_bytes);
    if (e) e->kind = TRN_EK_INPUT;
    return trn_errorf(e,
                      "tensor '%s' on core %u: element %" PRId64
                      " %s (%s) was never written, so it holds no value",
                      t->name, core, el, index, where);
}

int trn_sim_check_written(trn_sim *s, const char *name, int core, trn_error *e) {
    if (e) e->kind = TRN_EK_INPUT;
    if (!s->have_prog) return trn_errorf(e, "no program is loaded");
    int i = trn_program_find_tensor(&s->prog, name);
    if (i >= s->prog.n_tensors)
        return trn_errorf(e, "%s: no tensor named '%s'", s->prog.path, name);
    if (core >= (int)s->ncores || core < -1)
        return trn_errorf(e, "tensor '%s': core %d does not exist (the run has %u cores)", name,
                          core, s->ncores);
    const trn_dist *d = &s->dist;
    for (uint32_t c = d->local_lo; c < d->local_hi; ++c)
        if ((core < 0 || (uint32_t)core == c) && check_core_written(s, &s->prog.tensors[i], c, e))
            return -1;
    return 0;
}

int trn_sim_get_written_tensor(trn_sim *s, const char *name, int core, void *data, size_t bytes,
                               trn_error *e) {
    if (trn_sim_get_tensor(s, name, core, data, bytes, e)) return -1;
    /* the tensor exists (the read checked it): read again as an instruction
     * reads, refusing bytes nothing wrote, and say which element */
    const trn_tensor *t = &s->prog.tensors[trn_program_find_tensor(&s->prog, name)];
    trn_ap_env env = {.cores = s->cores,
                      .ncores = s->ncores,
                      .namer = trn_tensor_name_byte,
                      .namer_arg = &s->prog};
    trn_ap ap = t->ap;
    ap.core = core < 0 ? 0 : (uint32_t)core;
    if (trn_ap_all_written(&env, &ap)) return 0;
    trn_ap_read_raw(&env, &ap, data, e);
    e->kind = TRN_EK_INPUT;
    return trn_error_prefix(e,
                            "tensor '%s' on core %u: nothing wrote some of its bytes, so they "
                            "hold no value; the get",
                            name, ap.core);
}
