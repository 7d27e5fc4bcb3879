/* The host's side of the ABI 3 state hooks: a module's named arrays become
 * DIR/modules/FAMILY/NAME.npy, and come back from there. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arith/arith.h"
#include "npy/npy.h"
#include "dump/dump_int.h"

struct trn_state_io {
    const char *dump;   /* restore: the dump's directory */
    char dir[PATH_MAX]; /* DIR/modules/FAMILY */
    json_t *names;      /* save: the arrays put so far */
    trn_npy cached;     /* restore: the last array found */
    char cached_name[TRN_STATE_NAME_MAX + 1];
    char err[TRN_ERROR_MAX];
};

static trn_status io_error(trn_state_io *io, const char *fmt, ...) TRN_PRINTF(2, 3);
static trn_status io_error(trn_state_io *io, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->err, sizeof io->err, fmt, ap);
    va_end(ap);
    return TRN_ERR;
}

/* The dtypes a module's state may use: those with a numpy type of their own. */
static const struct {
    trn_dtype dt;
    const char *descr;
} state_dtypes[] = {
    {TRN_DT_INT8, "|i1"},  {TRN_DT_UINT8, "|u1"},  {TRN_DT_INT16, "<i2"}, {TRN_DT_UINT16, "<u2"},
    {TRN_DT_INT32, "<i4"}, {TRN_DT_UINT32, "<u4"}, {TRN_DT_INT64, "<i8"}, {TRN_DT_UINT64, "<u8"},
    {TRN_DT_FP16, "<f2"},  {TRN_DT_FP32, "<f4"},
};

static const char *descr_of(uint32_t dt) {
    for (size_t i = 0; i < sizeof state_dtypes / sizeof state_dtypes[0]; ++i)
        if ((uint32_t)state_dtypes[i].dt == dt) return state_dtypes[i].descr;
    return NULL;
}

static int dtype_of(const char *descr, uint32_t *dt) {
    for (size_t i = 0; i < sizeof state_dtypes / sizeof state_dtypes[0]; ++i)
        if (!strcmp(state_dtypes[i].descr, descr)) {
            *dt = (uint32_t)state_dtypes[i].dt;
            return 0;
        }
    return -1;
}

static bool name_ok(const char *name) {
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > TRN_STATE_NAME_MAX) return false;
    for (size_t i = 0; i < n; ++i)
        if (!(name[i] == '_' || (name[i] >= '0' && name[i] <= '9') ||
              (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z')))
            return false;
    return true;
}

static trn_status io_put(trn_state_io *io, const char *name, uint32_t dtype, uint32_t ndim,
                         const int64_t *shape, const void *data) {
    if (!io->names) return io_error(io, "put: the dump is being read, not written");
    if (!name_ok(name))
        return io_error(io, "put: array name '%s' is not 1..%d of [A-Za-z0-9_]",
                        name ? name : "(null)", TRN_STATE_NAME_MAX);
    const char *descr = descr_of(dtype);
    if (!descr)
        return io_error(
            io, "put %s: dtype %u has no numpy type (use an integer type, float16 or float32)",
            name, dtype);
    if (ndim < 1 || ndim > TRN_STATE_MAX_DIMS)
        return io_error(io, "put %s: %u dims (1..%d)", name, ndim, TRN_STATE_MAX_DIMS);
    for (uint32_t d = 0; d < ndim; ++d)
        if (shape[d] < 0 || shape[d] > (int64_t)1 << 32)
            return io_error(io, "put %s: dim %u is %lld", name, d, (long long)shape[d]);
    size_t i;
    json_t *v;
    json_array_foreach(io->names, i, v) if (!strcmp(json_string_value(v), name)) return io_error(
        io, "put %s: the array was put already", name);
    char path[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/%s.npy", io->dir, name);
    trn_error e;
    if (trn_npy_write(path, descr, (int)ndim, shape, data, &e)) return io_error(io, "%s", e.msg);
    json_array_append_new(io->names, json_string(name));
    return TRN_OK;
}

static trn_lookup io_find(trn_state_io *io, const char *name, uint32_t *dtype, uint32_t *ndim,
                          int64_t shape[TRN_STATE_MAX_DIMS]) {
    if (!name_ok(name)) {
        io_error(io, "find: array name '%s' is not 1..%d of [A-Za-z0-9_]", name ? name : "(null)",
                 TRN_STATE_NAME_MAX);
        return TRN_BADTYPE;
    }
    char path[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/%s.npy", io->dir, name);
    trn_npy_free(&io->cached);
    io->cached_name[0] = 0;
    trn_error e;
    int ok = io->dump ? trn_dump_dump_file(io->dump, path, &e) : 0;
    if (ok > 0) return TRN_ABSENT;
    if (ok < 0) {
        io_error(io, "%s", e.msg);
        return TRN_BADTYPE;
    }
    if (trn_npy_read(path, &io->cached, &e)) {
        io_error(io, "%s", e.msg);
        return TRN_BADTYPE;
    }
    if (dtype_of(io->cached.descr, dtype) || io->cached.ndim < 1 ||
        io->cached.ndim > TRN_STATE_MAX_DIMS) {
        io_error(io, "%s: dtype %s with %d dims is not a module state array", path,
                 io->cached.descr, io->cached.ndim);
        trn_npy_free(&io->cached);
        return TRN_BADTYPE;
    }
    *ndim = (uint32_t)io->cached.ndim;
    for (int d = 0; d < io->cached.ndim; ++d) shape[d] = io->cached.shape[d];
    snprintf(io->cached_name, sizeof io->cached_name, "%s", name);
    return TRN_FOUND;
}

static trn_status io_get(trn_state_io *io, const char *name, void *data, size_t bytes) {
    uint32_t dt, nd;
    int64_t shape[TRN_STATE_MAX_DIMS];
    if (!name_ok(name) || strcmp(io->cached_name, name)) {
        trn_lookup l = io_find(io, name, &dt, &nd, shape);
        if (l == TRN_ABSENT) return io_error(io, "%s/%s.npy: missing from the dump", io->dir, name);
        if (l != TRN_FOUND) return TRN_ERR;
    }
    size_t have = io->cached.count * io->cached.item_size;
    if (have != bytes)
        return io_error(io, "%s/%s.npy: holds %zu bytes, the module expects %zu", io->dir, name,
                        have, bytes);
    memcpy(data, io->cached.data, bytes);
    return TRN_OK;
}

static const trn_state_api state_api = {sizeof(trn_state_api), io_put, io_find, io_get};

/* The ABI 3 hooks of a module, when its descriptor carries them. */
static void hooks(const trn_module *m, trn_state_fn *save, trn_state_fn *restore) {
    const trn_plugin_desc *d = m->desc;
    *save = *restore = NULL;
    if (d->abi_version < 3 ||
        d->size < offsetof(trn_plugin_desc, state_restore) + sizeof(trn_state_fn))
        return;
    *save = d->state_save;
    *restore = d->state_restore;
}

static int module_dir(const char *dir, const trn_module *m, trn_state_io *io, trn_error *e) {
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s/modules", dir);
    int n = snprintf(io->dir, sizeof io->dir, "%s/%s", base, m->desc->family);
    if (n < 0 || (size_t)n >= sizeof io->dir) return trn_errorf(e, "path too long: %s", base);
    return 0;
}

static int call_failed(const trn_module *m, const char *what, const char *err,
                       const trn_state_io *io, trn_error *e) {
    const char *msg = err[0] ? err : io->err[0] ? io->err : "(no message)";
    return trn_errorf(e, "module '%s' (family %s): %s failed: %s", m->desc->name, m->desc->family,
                      what, msg);
}

int trn_dump_modules_save(trn_sim *s, const char *dir, void *mods_json, trn_error *e) {
    json_t *mods = mods_json;
    for (size_t i = 0; i < s->reg.n_mods; ++i) {
        const trn_module *m = &s->reg.mods[i];
        if (!m->live) continue;
        trn_state_fn save, restore;
        hooks(m, &save, &restore);
        json_t *entry =
            json_pack("{s:s, s:s, s:s}", "family", m->desc->family, "module", m->desc->name,
                      "version", m->desc->version ? m->desc->version : "");
        json_array_append_new(mods, entry);
        if (!save && !restore) {
            json_object_set_new(
                entry, "state",
                json_string("none (the module keeps no state between instructions)"));
            continue;
        }
        if (!save || !restore)
            return trn_errorf(e,
                              "module '%s' (family %s) declares %s without %s; a dump needs both",
                              m->desc->name, m->desc->family, save ? "state_save" : "state_restore",
                              save ? "state_restore" : "state_save");
        trn_state_io io = {.names = json_array()};
        char err[512] = "";
        char base[PATH_MAX];
        snprintf(base, sizeof base, "%s/modules", dir);
        if (module_dir(dir, m, &io, e) || trn_dump_mkdir(base, e) || trn_dump_mkdir(io.dir, e)) {
            json_decref(io.names);
            return -1;
        }
        trn_status st = save(m->state, &state_api, &io, err, sizeof err);
        err[sizeof err - 1] = 0;
        json_object_set_new(entry, "state", json_string("saved"));
        json_object_set_new(entry, "arrays", io.names);
        if (st != TRN_OK) return call_failed(m, "state_save", err, &io, e);
    }
    return 0;
}

int trn_dump_modules_restore(trn_sim *s, const char *dir, trn_error *e) {
    for (size_t i = 0; i < s->reg.n_mods; ++i) {
        const trn_module *m = &s->reg.mods[i];
        if (!m->live) continue;
        trn_state_fn save, restore;
        hooks(m, &save, &restore);
        if (!restore) continue;
        trn_state_io io = {.dump = dir};
        char err[512] = "";
        if (module_dir(dir, m, &io, e)) return -1;
        trn_status st = restore(m->state, &state_api, &io, err, sizeof err);
        err[sizeof err - 1] = 0;
        trn_npy_free(&io.cached);
        if (st != TRN_OK) return call_failed(m, "state_restore", err, &io, e);
    }
    return 0;
}
