/* The embedding API of include/trnsim/trnsim.h over the host library
 * (sim.h): a handle, the thread's last error as fields, and where modules
 * are looked for. The CLI and libtrnsim both run this code. */
#define _GNU_SOURCE /* dladdr */
#include "trnsim/trnsim.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arith/arith.h"
#include "embed/embed.h"
#include "modules/modules.h"
#include "exec/exec.h"

#ifndef TRNSIM_VERSION
#define TRNSIM_VERSION "unknown"
#endif

struct trnsim_sim {
    trn_sim *sim;
};

/* ---- the thread's last error ---- */

typedef struct last_error {
    trnsim_error pub;
    trn_error e;
    char file[PATH_MAX];
    char opname[64];
} last_error;

static _Thread_local last_error last = {.pub = {TRNSIM_OK, "", "", -1, -1, -1, ""}};

static void clear_error(void) {
    last.e.msg[0] = 0;
    last.pub = (trnsim_error){TRNSIM_OK, "", "", -1, -1, -1, ""};
}

/* A fresh trn_error for one host call. */
static trn_error *host_error(void) {
    memset(&last.e, 0, sizeof last.e);
    return &last.e;
}

static const char *opcode_name(const trn_sim *s, uint32_t it) {
    if (s && it <= TRN_IT_MAX && trn_sim_registry(s)->table[it].op)
        return trn_sim_registry(s)->table[it].op->name;
    const trn_known_op *k = trn_known_op_by_it(it);
    return k ? k->name : "";
}

static const trnsim_error_kind kinds[] = {
    [TRN_EK_NONE] = TRNSIM_ERR_USAGE,    [TRN_EK_CONFIG] = TRNSIM_ERR_CONFIG,
    [TRN_EK_MODULE] = TRNSIM_ERR_MODULE, [TRN_EK_PROGRAM] = TRNSIM_ERR_PROGRAM,
    [TRN_EK_INPUT] = TRNSIM_ERR_INPUT,   [TRN_EK_RUN] = TRNSIM_ERR_RUN,
};

/* Publish last.e (filled by the host) with the file it is about. */
static int publish(const trn_sim *s, const char *file) {
    trn_error *e = &last.e;
    last.pub.kind = kinds[e->kind];
    last.pub.message = e->msg;
    snprintf(last.file, sizeof last.file, "%s", file ? file : "");
    last.pub.file = last.file;
    last.pub.instruction = e->site.known ? (int64_t)e->site.inst : -1;
    last.pub.core = e->site.known ? e->site.core : -1;
    bool have_it = e->site.known && e->site.it != TRN_ERROR_NO_IT;
    last.pub.opcode = have_it ? (int32_t)e->site.it : -1;
    snprintf(last.opname, sizeof last.opname, "%s", have_it ? opcode_name(s, e->site.it) : "");
    last.pub.opcode_name = last.opname;
    return -1;
}

static int usage(const char *what) {
    trn_errorf(host_error(), "%s", what);
    last.e.kind = TRN_EK_NONE;
    return publish(NULL, NULL);
}

void trn_embed_clear_error(void) { clear_error(); }
trn_error *trn_embed_host_error(void) { return host_error(); }
int trn_embed_publish(const trn_sim *s, const char *file) { return publish(s, file); }
int trn_embed_usage(const char *what) { return usage(what); }

const trnsim_error *trnsim_last_error(void) { return &last.pub; }
unsigned trnsim_api_version(void) { return TRNSIM_API_VERSION; }
const char *trnsim_version(void) { return TRNSIM_VERSION; }

/* ---- open / close ---- */

static void dir_of(char *path) {
    char *slash = strrchr(path, '/');
    if (slash && slash != path)
        *slash = 0;
    else
        snprintf(path, 2, slash ? "/" : ".");
}

/* Where this code lives: the executable, or libtrnsim when loaded as one.
 * Modules are looked for there, as the CLI has always done. */
static bool own_dir(char *buf, size_t len) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    Dl_info info;
    const char *self = dladdr((void *)trnsim_open, &info) && info.dli_fname ? info.dli_fname : exe;
    char real[PATH_MAX];
    /* A library dlopen'd or linked is named by a path; the executable itself
     * may be named as it was invoked ("trnsim", found on PATH), which does
     * not resolve from the working directory: that is the executable. */
    if (!strchr(self, '/') || !realpath(self, real)) snprintf(real, sizeof real, "%s", exe);
    bool is_lib = strcmp(real, exe) != 0;
    snprintf(buf, len, "%s", real[0] ? real : ".");
    dir_of(buf);
    return is_lib;
}

trnsim_sim *trnsim_open(const trnsim_options *opts) {
    trn_embed_extra none = {0}; /* no progress display: an embedding program's stderr is its own */
    return trn_embed_open(opts, &none);
}

trnsim_sim *trn_embed_open(const trnsim_options *opts, const trn_embed_extra *extra) {
    trn_embed_extra none = {0};
    if (!extra) extra = &none;
    clear_error();
    trnsim_options o = {.size = sizeof o};
    if (opts && opts->size < offsetof(trnsim_options, format) + sizeof opts->format) {
        usage("trnsim_open: trnsim_options.size is smaller than any version of the struct");
        return NULL;
    }
    if (opts) memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
    trnsim_sim *h = calloc(1, sizeof *h);
    if (!h) {
        usage("out of memory");
        return NULL;
    }
    char dir[PATH_MAX];
    bool is_lib = own_dir(dir, sizeof dir);
    trn_sim_opts so = {.config_path = o.config_path,
                       .config_text = o.config_text,
                       .trace = o.trace != 0,
                       .stats = o.stats != 0,
                       .module_dir = o.module_dir,
                       .exe_dir = dir,
                       .exe_is_library = is_lib,
                       .sets = o.sets,
                       .n_sets = o.n_sets,
                       .format = o.format,
                       .max_instructions = o.max_instructions,
                       .timeout_seconds = o.timeout_seconds,
                       .module_swaps = extra->module_swaps,
                       .n_module_swaps = extra->n_module_swaps,
                       .progress = extra->progress};
    trn_error *e = host_error();
    if (trn_sim_open(&h->sim, &so, e)) {
        publish(NULL, o.config_path   ? o.config_path
                      : o.config_text ? "<config text>"
                                      : "<embedded default config>");
        free(h);
        return NULL;
    }
    return h;
}

void trnsim_close(trnsim_sim *s) {
    if (!s) return;
    trn_sim_close(s->sim);
    free(s);
}

trn_sim *trn_embed_host_sim(trnsim_sim *s) { return s ? s->sim : NULL; }

/* ---- programs and tensors ---- */

#define NEED(s, what)                                                                              \
    do {                                                                                           \
        clear_error();                                                                             \
        if (!(s)) return usage(what ": the simulator handle is NULL");                             \
    } while (0)

int trnsim_load_program_file(trnsim_sim *s, const char *path) {
    NEED(s, "trnsim_load_program_file");
    if (!path) return usage("trnsim_load_program_file: the path is NULL");
    if (trn_sim_load_program(s->sim, path, host_error())) return publish(s->sim, path);
    return 0;
}

int trnsim_load_program_text(trnsim_sim *s, const char *json, const char *name) {
    NEED(s, "trnsim_load_program_text");
    if (!json) return usage("trnsim_load_program_text: the text is NULL");
    if (!name) name = "<program text>";
    if (trn_sim_load_program_text(s->sim, json, name, host_error())) return publish(s->sim, name);
    return 0;
}

int trnsim_cores(const trnsim_sim *s) { return s ? (int)trn_sim_cores(s->sim) : 0; }
int trnsim_tensor_count(const trnsim_sim *s) { return s ? trn_sim_tensor_count(s->sim) : 0; }

static void to_public(const trn_tensor_info *t, trnsim_tensor *out) {
    uint32_t w = trn_dtype_width((trn_dtype)t->dtype);
    *out = (trnsim_tensor){t->name,
                           trn_dtype_name((trn_dtype)t->dtype),
                           t->dtype,
                           t->ndim,
                           t->shape,
                           t->count,
                           (size_t)t->count * w};
}

int trnsim_tensor_at(trnsim_sim *s, int index, trnsim_tensor *out) {
    NEED(s, "trnsim_tensor_at");
    trn_tensor_info t;
    trn_error *e = host_error();
    e->kind = TRN_EK_INPUT;
    if (!out) return usage("trnsim_tensor_at: out is NULL");
    if (trn_sim_tensor_at(s->sim, index, &t, e))
        return publish(s->sim, trn_sim_program_path(s->sim));
    to_public(&t, out);
    return 0;
}

int trnsim_tensor_find(trnsim_sim *s, const char *name, trnsim_tensor *out) {
    NEED(s, "trnsim_tensor_find");
    if (!name || !out) return usage("trnsim_tensor_find: name or out is NULL");
    trn_tensor_info t;
    trn_error *e = host_error();
    e->kind = TRN_EK_INPUT;
    if (trn_sim_tensor_info(s->sim, name, &t, e))
        return publish(s->sim, trn_sim_program_path(s->sim));
    to_public(&t, out);
    return 0;
}

int trnsim_set_tensor(trnsim_sim *s, const char *name, int core, const void *data, size_t bytes) {
    NEED(s, "trnsim_set_tensor");
    if (!name || (!data && bytes)) return usage("trnsim_set_tensor: name or data is NULL");
    if (trn_sim_set_tensor(s->sim, name, core, data, bytes, host_error()))
        return publish(s->sim, trn_sim_program_path(s->sim));
    return 0;
}

int trnsim_bind_tensor(trnsim_sim *s, const char *name, int core, const void *data, size_t bytes) {
    NEED(s, "trnsim_bind_tensor");
    if (!name || (!data && bytes)) return usage("trnsim_bind_tensor: name or data is NULL");
    if (trn_sim_bind_tensor(s->sim, name, core, data, bytes, host_error()))
        return publish(s->sim, trn_sim_program_path(s->sim));
    return 0;
}

int trnsim_unbind_tensor(trnsim_sim *s, const char *name, int core) {
    NEED(s, "trnsim_unbind_tensor");
    if (!name) return usage("trnsim_unbind_tensor: name is NULL");
    if (trn_sim_unbind_tensor(s->sim, name, core, host_error()))
        return publish(s->sim, trn_sim_program_path(s->sim));
    return 0;
}

int trnsim_get_tensor(trnsim_sim *s, const char *name, int core, void *data, size_t bytes) {
    NEED(s, "trnsim_get_tensor");
    if (!name || (!data && bytes)) return usage("trnsim_get_tensor: name or data is NULL");
    if (trn_sim_get_tensor(s->sim, name, core, data, bytes, host_error()))
        return publish(s->sim, trn_sim_program_path(s->sim));
    return 0;
}

int trnsim_get_written_tensor(trnsim_sim *s, const char *name, int core, void *data, size_t bytes) {
    NEED(s, "trnsim_get_written_tensor");
    if (!name || (!data && bytes)) return usage("trnsim_get_written_tensor: name or data is NULL");
    trn_sim *h = s->sim;
    if (trn_sim_get_written_tensor(h, name, core, data, bytes, host_error()))
        return publish(h, trn_sim_program_path(h));
    return 0;
}

int trnsim_run(trnsim_sim *s) {
    NEED(s, "trnsim_run");
    if (trn_sim_run(s->sim, host_error())) return publish(s->sim, trn_sim_program_path(s->sim));
    return 0;
}

/* ---- conversions ---- */

static int dtype_for_bits(const char *name, trn_dtype *dt) {
    trn_error *e = host_error();
    e->kind = TRN_EK_INPUT;
    if (!name) return usage("the dtype name is NULL");
    if (trn_dtype_from_name(name, dt, e)) return publish(NULL, NULL);
    if (!trn_dtype_widens(*dt)) {
        trn_errorf(e, "%s is a packed form with no single fp32 value per element",
                   trn_dtype_name(*dt));
        return publish(NULL, NULL);
    }
    return 0;
}

int trnsim_widen(const char *dtype, const void *bits, float *out, size_t n) {
    clear_error();
    trn_dtype dt;
    if (dtype_for_bits(dtype, &dt)) return -1;
    if (n && (!bits || !out)) return usage("trnsim_widen: a buffer is NULL");
    if (n) trn_widen_span(dt, bits, out, n);
    return 0;
}

int trnsim_narrow(const char *dtype, const float *in, void *bits, size_t n) {
    clear_error();
    trn_dtype dt;
    if (dtype_for_bits(dtype, &dt)) return -1;
    if (n && (!bits || !in)) return usage("trnsim_narrow: a buffer is NULL");
    if (n) trn_narrow_span(dt, in, bits, n);
    return 0;
}
