/* Module loading: find, open and check each module the config names, validate
 * its whole descriptor before running any of its code, then init it and
 * commit its opcodes to the flat dispatch table. A module whose init fails
 * leaves nothing behind. */
#define _GNU_SOURCE /* dladdr1 */
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "modules/modules.h"

#ifndef TRNSIM_PLUGIN_DIR
#define TRNSIM_PLUGIN_DIR "/usr/local/lib/trnsim"
#endif

#ifdef TRNSIM_SANITIZE
#define DL_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
#else
#define DL_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif

extern const trn_plugin_desc *const trn_static_plugins[];

/* The size of a version-1 descriptor: a module must carry at least this. */
#define DESC_V1_SIZE (offsetof(trn_plugin_desc, run_begin) + sizeof(void *))
/* Version 2 adds transport and op_size; an ABI 1 opcode entry ends at flags. */
#define DESC_V2_SIZE (offsetof(trn_plugin_desc, op_size) + sizeof(uint32_t))
/* A transport table without the ABI 3 remote-memory calls. */
#define TRANSPORT_V2_SIZE (offsetof(trn_transport_desc, to_root) + sizeof(void *))
/* ABI 3: a descriptor that carries the observer field. */
#define DESC_OBSERVER_END (offsetof(trn_plugin_desc, observer) + sizeof(void *))
#define OP_V1_SIZE        offsetof(trn_opcode_desc, attrs)
#define OP_V2_SIZE        offsetof(trn_opcode_desc, conform)
#define OP_V4_SIZE        sizeof(trn_opcode_desc)

static size_t desc_min_size(uint32_t abi) {
    return abi >= 2 ? DESC_V2_SIZE
                    : DESC_V1_SIZE; /* ABI 3 fields are read only where size covers them */
}
static size_t op_min_size(uint32_t abi) {
    return abi >= 4 ? OP_V4_SIZE : abi >= 2 ? OP_V2_SIZE : OP_V1_SIZE;
}

/* The stride of a module's opcode table: its version's entry, or op_size
 * (0 means the version's own). */
static size_t op_stride(const trn_plugin_desc *d) {
    return d->abi_version >= 2 && d->op_size ? d->op_size : op_min_size(d->abi_version);
}

/* Entry i of the module's own table; only the ABI 1 fields are read through it. */
static const trn_opcode_desc *raw_op(const trn_plugin_desc *d, uint32_t i) {
    return (const trn_opcode_desc *)((const char *)d->ops + (size_t)i * op_stride(d));
}

/* Whether msg starts with its own place: "--set KEY=VALUE: " or
 * "FILE:LINE: " (a settings error names the setting's line); *rest gets
 * what follows it, *place_len its length. */
static bool placed(const char *msg, size_t *place_len, const char **rest) {
    const char *colon = strstr(msg, ": ");
    if (!colon) return false;
    const char *d = colon;
    while (d > msg && d[-1] >= '0' && d[-1] <= '9') --d;
    if (strncmp(msg, "--set ", 6) && (d == colon || d == msg || d[-1] != ':')) return false;
    *place_len = (size_t)(colon - msg);
    *rest = colon + 2;
    return true;
}

/* "FILE:LINE: module 'M' (family F): why". A settings error already names
 * its own place (the setting's line, or the --set option): that one is
 * kept, not another put before it. */
static int module_error(const trn_registry *s, const trn_plugin_cfg *p, trn_error *e) {
    const char *file = p->file ? p->file : s->cfg->file, *rest;
    size_t n;
    if (placed(e->msg, &n, &rest)) {
        char place[TRN_ERROR_MAX], why[TRN_ERROR_MAX];
        snprintf(place, sizeof place, "%.*s", (int)n, e->msg);
        snprintf(why, sizeof why, "%s", rest);
        return trn_errorf(e, "%s: module '%s' (family %s): %s", place, p->module, p->family, why);
    }
    if (p->line < 0)
        return trn_error_prefix(e, "%s: module '%s' (family %s)", file, p->module, p->family);
    return trn_error_prefix(e, "%s:%d: module '%s' (family %s)", file, p->line, p->module,
                            p->family);
}

static const trn_plugin_desc *find_static(const char *module) {
    for (const trn_plugin_desc *const *d = trn_static_plugins; *d; ++d)
        if ((*d)->name && strcmp((*d)->name, module) == 0) return *d;
    return NULL;
}

/* Candidate directories in search order; returns the count. */
static size_t search_dirs(const trn_registry *s, char dirs[][1024], size_t max) {
    size_t n = 0;
    if (s->module_dir && n < max) snprintf(dirs[n++], 1024, "%s", s->module_dir);
    const char *env = getenv("TRNSIM_PLUGIN_PATH");
    if (env) {
        char *copy = strdup(env), *save = NULL;
        for (char *t = strtok_r(copy, ":", &save); t && n < max; t = strtok_r(NULL, ":", &save))
            snprintf(dirs[n++], 1024, "%s", t);
        free(copy);
    }
    for (size_t i = 0; i < s->cfg->n_paths && n < max; ++i)
        snprintf(dirs[n++], 1024, "%s", s->cfg->plugin_paths[i]);
    if (s->exe_dir && n < max) snprintf(dirs[n++], 1024, "%s", s->exe_dir);
#ifdef TRNSIM_PLUGIN_RELDIR /* an installed tree, wherever its prefix went */
    if (s->exe_dir && n < max) snprintf(dirs[n++], 1024, "%s/%s", s->exe_dir, TRNSIM_PLUGIN_RELDIR);
#endif
    /* libtrnsim installed in LIBDIR has its modules in LIBDIR/trnsim */
    if (s->exe_dir && s->exe_is_library && n < max)
        snprintf(dirs[n++], 1024, "%s/trnsim", s->exe_dir);
    if (n < max) snprintf(dirs[n++], 1024, "%s", TRNSIM_PLUGIN_DIR);
    return n;
}

/* The ELF symbol behind a loaded descriptor: not code, and (when the symbol
 * records a size, as compilers do) at least as large as a version-1
 * descriptor and as the size it claims, so that reading the descriptor never
 * reads past the symbol. Static modules are checked by the compiler. */
static int check_symbol(const trn_plugin_desc *d, const char *path, trn_error *e) {
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(d, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return 0; /* nothing to check against */
    unsigned type = ELF64_ST_TYPE(sym->st_info);
    if (type == STT_FUNC || type == STT_GNU_IFUNC)
        return trn_errorf(
            e, "%s: '%s' is not a data symbol (a module exports a const trn_plugin_desc)", path,
            TRN_PLUGIN_SYMBOL);
    if (sym->st_size == 0) return 0; /* size not recorded: nothing to compare */
    if (sym->st_size < DESC_V1_SIZE)
        return trn_errorf(
            e, "%s: '%s' is %zu bytes, smaller than the %zu bytes of a version-1 descriptor", path,
            TRN_PLUGIN_SYMBOL, (size_t)sym->st_size, (size_t)DESC_V1_SIZE);
    if (d->size > sym->st_size)
        return trn_errorf(e, "%s: the descriptor says it is %u bytes, its symbol has %zu", path,
                          d->size, (size_t)sym->st_size);
    return 0;
}

/* "; did you mean 'X'?" for a module name nothing answered: the built-in
 * modules and the .so files of the search directories. */
static const char *module_suggestion(const char *mod, char dirs[][1024], size_t nd, char *buf,
                                     size_t len) {
    enum { MAX_CANDS = 256 };
    const char *cands[MAX_CANDS];
    char *owned[MAX_CANDS];
    size_t n = 0, n_owned = 0;
    for (const trn_plugin_desc *const *d = trn_static_plugins; *d && n < MAX_CANDS; ++d)
        cands[n++] = (*d)->name;
    for (size_t i = 0; i < nd && n < MAX_CANDS; ++i) {
        DIR *dir = opendir(dirs[i]);
        for (struct dirent *de; dir && n < MAX_CANDS && (de = readdir(dir)) != NULL;) {
            size_t l = strlen(de->d_name);
            if (l <= 3 || strcmp(de->d_name + l - 3, ".so")) continue;
            char *name = strndup(de->d_name, l - 3);
            if (name) cands[n++] = owned[n_owned++] = name;
        }
        if (dir) closedir(dir);
    }
    const char *base = mod;
    char stripped[1024];
    size_t l = strlen(mod);
    if (l > 3 && !strcmp(mod + l - 3, ".so") && l - 3 < sizeof stripped) {
        snprintf(stripped, sizeof stripped, "%.*s", (int)(l - 3), mod);
        base = stripped;
    }
    trn_suggest_text(base, cands, n, buf, len);
    for (size_t i = 0; i < n_owned; ++i) free(owned[i]);
    return buf;
}

static int open_module(trn_registry *s, trn_module *m, trn_error *e) {
    const char *mod = m->cfg->module;
    char dirs[16][1024], path[2048], tried[4096] = "";
    size_t n = 0, used = 0;
    if (strchr(mod, '/')) {
        snprintf(path, sizeof path, "%s", mod);
        if (access(path, R_OK) != 0) return trn_errorf(e, "not found at %s", path);
    } else {
        /* a file name (NAME.so) is looked for in the working folder first, as a path would be */
        size_t nd = 0;
        if (strstr(mod, ".so")) snprintf(dirs[nd++], 1024, ".");
        nd += search_dirs(s, dirs + nd, 16 - nd);
        const char *ext = strstr(mod, ".so") ? "" : ".so";
        for (n = 0; n < nd; ++n) {
            snprintf(path, sizeof path, "%s/%s%s", dirs[n], mod, ext);
            if (access(path, R_OK) == 0) break;
            if (used < sizeof tried) /* past the end: the list is cut, never overrun */
                used += (size_t)snprintf(tried + used, sizeof tried - used, "%s%s",
                                         used ? ", " : "", path);
        }
        if (n == nd && !trn_family_built(m->cfg->family)) {
            char hint[300];
            return trn_errorf(
                e,
                "not found: this trnsim was built without family '%s' (configure the build with %s "
                "to add it); searched %s",
                m->cfg->family, trn_family_build_hint(m->cfg->family, hint, sizeof hint), tried);
        }
        char hint[300];
        if (n == nd)
            return trn_errorf(e, "not found; searched %s%s", tried,
                              module_suggestion(mod, dirs, nd, hint, sizeof hint));
    }
    m->dl = dlopen(path, DL_FLAGS);
    if (!m->dl) return trn_errorf(e, "dlopen failed: %s", dlerror());
    m->path = strdup(path);
    m->desc = dlsym(m->dl, TRN_PLUGIN_SYMBOL);
    if (!m->desc)
        return trn_errorf(e, "%s exports no '%s' symbol: not a trnsim plugin", path,
                          TRN_PLUGIN_SYMBOL);
    return check_symbol(m->desc, path, e);
}

static int find_module(trn_registry *s, trn_module *m, trn_error *e) {
    const trn_plugin_desc *d = strchr(m->cfg->module, '/') ? NULL : find_static(m->cfg->module);
    if (d) {
        m->desc = d;
        m->path = strdup("(built in)");
        return 0;
    }
    return open_module(s, m, e);
}

/* ---- descriptor validation (no module code runs here) ---- */

static int check_header(const trn_plugin_desc *d, const trn_plugin_cfg *p, trn_error *e) {
    if (d->abi_version < TRN_ABI_MIN_VERSION || d->abi_version > TRN_ABI_VERSION)
        return trn_errorf(e, "built for plugin ABI version %u; this trnsim accepts versions %u..%u",
                          d->abi_version, TRN_ABI_MIN_VERSION, TRN_ABI_VERSION);
    if (d->size < desc_min_size(d->abi_version))
        return trn_errorf(e, "descriptor size %u is smaller than the %zu bytes of ABI version %u",
                          d->size, desc_min_size(d->abi_version), d->abi_version);
    if (d->abi_version >= 2 && d->op_size && d->op_size < op_min_size(d->abi_version))
        return trn_errorf(
            e,
            "op_size %u is smaller than the %zu bytes of an ABI version %u opcode entry (use "
            "TRN_PLUGIN_HEADER)",
            d->op_size, op_min_size(d->abi_version), d->abi_version);
    if (!d->name || !d->family || !d->version)
        return trn_errorf(e, "descriptor lacks a name, family or version");
    if (strcmp(d->family, p->family) != 0)
        return trn_errorf(e, "the module says it is family '%s', the config says '%s'", d->family,
                          p->family);
    if ((d->n_ops && !d->ops) || (d->n_settings && !d->settings) || (d->n_quirks && !d->quirks))
        return trn_errorf(e, "descriptor has a count without its table");
    if (d->n_ops > TRN_IT_MAX + 1) /* more would repeat an IT; do not read that far */
        return trn_errorf(e, "descriptor has %u opcodes (at most %u ITs exist)", d->n_ops,
                          TRN_IT_MAX + 1);
    if (d->n_settings > TRN_DESC_MAX_ENTRIES || d->n_quirks > TRN_DESC_MAX_ENTRIES)
        return trn_errorf(e, "descriptor has %u settings and %u quirks (at most %u of each)",
                          d->n_settings, d->n_quirks, TRN_DESC_MAX_ENTRIES);
    return 0;
}

/* A loaded module's table lies inside the module's own mapped file, from
 * its first byte to its last: a count larger than the table it describes
 * would make the host read past it into whatever follows, or fault. Where
 * the table ends inside the module's image, the entries past the real table
 * are still refused by the checks that follow (names, handlers), and the
 * kit's TRN_TABLE macros make the mistake hard to write. */
static int table_inside(const trn_module *m, const void *table, size_t n, size_t entry,
                        const char *what, trn_error *e) {
    if (!m->dl || n == 0) return 0;
    Dl_info self, first, last;
    const char *p = table;
    if (!dladdr(m->desc, &self) || !dladdr(p, &first) || !dladdr(p + n * entry - 1, &last) ||
        first.dli_fbase != self.dli_fbase || last.dli_fbase != self.dli_fbase)
        return trn_errorf(
            e,
            "descriptor's %s table of %zu entries runs past the module's image (is n_%s = %zu "
            "the table's length?)",
            what, n, what, n);
    return 0;
}

/* Every pointer the host follows lies in the module's image (or is NULL,
 * which the checks below report by name). A wild one, e.g. read from past
 * the end of a real table, is refused before it is dereferenced. */
static bool in_image(const trn_module *m, const void *p) {
    if (!m->dl || !p) return true;
    Dl_info self, at;
    return dladdr(m->desc, &self) && dladdr(p, &at) && at.dli_fbase == self.dli_fbase;
}

static int check_pointers(const trn_module *m, trn_error *e) {
    const trn_plugin_desc *d = m->desc;
    for (uint32_t i = 0; i < d->n_ops; ++i)
        if (!in_image(m, raw_op(d, i)->name) ||
            !in_image(m, (const void *)(uintptr_t)raw_op(d, i)->handler) ||
            (d->abi_version >= 4 && !in_image(m, raw_op(d, i)->conform)))
            return trn_errorf(
                e, "opcode entry %u points outside the module (is n_ops = %u the table's length?)",
                i, d->n_ops);
    for (uint32_t i = 0; i < d->n_settings; ++i) {
        const trn_setting_desc *s = &d->settings[i];
        if (!in_image(m, s->key) || !in_image(m, s->def) || !in_image(m, s->choices) ||
            !in_image(m, s->help))
            return trn_errorf(
                e,
                "settings entry %u points outside the module (is n_settings = %u the table's "
                "length?)",
                i, d->n_settings);
    }
    for (uint32_t i = 0; i < d->n_quirks; ++i) {
        const trn_quirk_desc *q = &d->quirks[i];
        if (!in_image(m, q->name) || !in_image(m, q->setting) || !in_image(m, q->def) ||
            !in_image(m, q->summary))
            return trn_errorf(
                e,
                "quirk entry %u points outside the module (is n_quirks = %u the table's length?)",
                i, d->n_quirks);
    }
    for (uint32_t i = 0; i < m->n_exports; ++i)
        if (!in_image(m, m->exports[i].name) || !in_image(m, m->exports[i].iface))
            return trn_errorf(e,
                              "exported service entry %u points outside the module (is n_exports = "
                              "%u the table's "
                              "length?)",
                              i, m->n_exports);
    for (uint32_t i = 0; i < m->n_needs; ++i) {
        const trn_service_need *n = &m->needs[i];
        if (!in_image(m, n->name) || !in_image(m, n->family) || !in_image(m, n->module))
            return trn_errorf(
                e,
                "needed service entry %u points outside the module (is n_needs = %u the table's "
                "length?)",
                i, m->n_needs);
    }
    return 0;
}

static int check_tables(const trn_module *m, trn_error *e) {
    const trn_plugin_desc *d = m->desc;
    return table_inside(m, d->ops, d->n_ops, op_stride(d), "ops", e) ||
                   table_inside(m, d->settings, d->n_settings, sizeof *d->settings, "settings",
                                e) ||
                   table_inside(m, d->quirks, d->n_quirks, sizeof *d->quirks, "quirks", e) ||
                   table_inside(m, m->exports, m->n_exports, sizeof *m->exports, "exports", e) ||
                   table_inside(m, m->needs, m->n_needs, sizeof *m->needs, "needs", e)
               ? -1
               : check_pointers(m, e);
}

/* The module's opcode table in the host's layout: each entry copied with
 * the stride the module was built with, fields it lacks zero (absent). */
static int copy_ops(trn_module *m, trn_error *e) {
    const trn_plugin_desc *d = m->desc;
    size_t stride = op_stride(d);
    size_t take = stride < sizeof(trn_opcode_desc) ? stride : sizeof(trn_opcode_desc);
    m->ops = calloc(d->n_ops ? d->n_ops : 1, sizeof *m->ops);
    if (!m->ops) return trn_errorf(e, "out of memory");
    for (uint32_t i = 0; i < d->n_ops; ++i) {
        memcpy(&m->ops[i], (const char *)d->ops + i * stride, take);
        /* bytes past an older version's entry are not that version's fields */
        if (d->abi_version < 4) m->ops[i].conform = NULL;
    }
    return 0;
}

static int check_op(const trn_module *m, uint32_t i, trn_error *e) {
    const trn_opcode_desc *op = &m->ops[i];
    uint32_t known = m->desc->abi_version >= 3
                         ? TRN_OPF_MAY_WAIT | TRN_OPF_NO_ATTRS | TRN_OPF_STREAMS
                     : m->desc->abi_version >= 2 ? TRN_OPF_MAY_WAIT | TRN_OPF_NO_ATTRS
                                                 : TRN_OPF_MAY_WAIT;
    if (!op->name || !*op->name || !op->handler)
        return trn_errorf(e, "opcode entry %u lacks a name or handler", i);
    if (op->flags & ~known)
        return trn_errorf(
            e, "opcode %s has flags 0x%x; this trnsim knows only 0x%x for ABI version %u modules",
            op->name, op->flags, known, m->desc->abi_version);
    if (table_inside(m, op->attrs, op->n_attrs, sizeof *op->attrs, "attrs", e) ||
        table_inside(m, op->operands, op->n_operands, sizeof *op->operands, "operands", e))
        return trn_error_prefix(e, "opcode %s", op->name);
    if ((op->flags & TRN_OPF_NO_ATTRS) && op->n_attrs)
        return trn_errorf(e, "opcode %s has TRN_OPF_NO_ATTRS and %u attributes", op->name,
                          op->n_attrs);
    if (op->it > TRN_IT_MAX || (op->it > TRN_IT_REF_MAX && op->it < TRN_IT_EXP_MIN))
        return trn_errorf(e,
                          "opcode %s has IT %u (expected 0..%u, or the experimental range %u..%u)",
                          op->name, op->it, TRN_IT_REF_MAX, TRN_IT_EXP_MIN, TRN_IT_MAX);
    for (uint32_t j = 0; j < i; ++j) {
        const trn_opcode_desc *o = &m->ops[j];
        if (o->it == op->it)
            return trn_errorf(e, "registers IT %u twice (%s and %s)", op->it, o->name, op->name);
        if (o->name && strcmp(o->name, op->name) == 0)
            return trn_errorf(e, "registers the opcode name %s twice", op->name);
    }
    return trn_schema_check_desc(op, e);
}

static int check_conflicts(const trn_registry *s, const trn_module *m, trn_error *e) {
    const trn_plugin_desc *d = m->desc;
    for (uint32_t i = 0; i < d->n_ops; ++i) {
        const trn_slot *slot = &s->table[m->ops[i].it];
        if (slot->op)
            return trn_errorf(e,
                              "IT %u (%s) is already registered by module '%s' (family %s); use "
                              "replaces = \"%s\" "
                              "to replace that family",
                              m->ops[i].it, m->ops[i].name, slot->owner->desc->name,
                              slot->owner->desc->family, slot->owner->desc->family);
        for (int it = 0; it <= (int)TRN_IT_MAX; ++it)
            if (s->table[it].op && strcmp(s->table[it].op->name, m->ops[i].name) == 0)
                return trn_errorf(e, "opcode name %s is already registered by module '%s'",
                                  m->ops[i].name, s->table[it].owner->desc->name);
    }
    return 0;
}

static int check_quirks(const trn_plugin_desc *d, trn_error *e) {
    for (uint32_t i = 0; i < d->n_quirks; ++i)
        if (!d->quirks[i].name || !*d->quirks[i].name)
            return trn_errorf(e, "quirk entry %u has no name", i);
    return 0;
}

static const trn_observer_desc *observer_of(const trn_plugin_desc *d) {
    return d->abi_version >= 3 && d->size >= DESC_OBSERVER_END ? d->observer : NULL;
}

/* An ABI 3 observer table lies in the module and is at least its size. */
static int check_observer(const trn_module *m, trn_error *e) {
    const trn_observer_desc *o = observer_of(m->desc);
    if (!o) return 0;
    if (table_inside(m, o, 1, sizeof o->size, "observer", e)) return -1;
    if (o->size < sizeof *o)
        return trn_errorf(
            e,
            "its observer table says it is %u bytes, an ABI 3 one is %zu (set .size = "
            "sizeof(trn_observer_desc))",
            o->size, sizeof *o);
    return table_inside(m, o, 1, sizeof *o, "observer", e);
}

const trn_observer_desc *trn_loader_observer(const trn_module *m) {
    return m->live ? observer_of(m->desc) : NULL;
}

/* The descriptor on its own: header, opcode table, settings schema, quirks,
 * service lists. */
static int validate(trn_module *m, trn_error *e) {
    if (check_header(m->desc, m->cfg, e)) return -1;
    trn_services_read(m);
    if (trn_services_check_desc(m, e) || check_tables(m, e) || check_observer(m, e) ||
        copy_ops(m, e))
        return -1;
    for (uint32_t i = 0; i < m->desc->n_ops; ++i)
        if (check_op(m, i, e)) return -1;
    return trn_settings_check_schema(m->desc, e) || check_quirks(m->desc, e) ? -1 : 0;
}

/* ---- life cycle ---- */

/* Unregister and fini, keeping the code mapped. */
static void finish(trn_registry *s, trn_module *m) {
    if (!m->live) return;
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it)
        if (s->table[it].owner == m) s->table[it] = (trn_slot){NULL, NULL};
    s->names_ready = false;
    if (m->desc->fini) m->desc->fini(m->state);
    m->live = false;
}

static void unload(trn_registry *s, trn_module *m) {
    finish(s, m);
    trn_settings_free(&m->settings);
    free(m->need_export);
    if (m->dl) dlclose(m->dl);
    free(m->path);
    free(m->ops);
    const trn_plugin_cfg *cfg = m->cfg;
    memset(m, 0, sizeof *m);
    m->cfg = cfg;
}

static int replace_family(trn_registry *s, const trn_module *m, trn_error *e) {
    const char *fam = m->cfg->replaces;
    int found = 0;
    for (trn_module *o = s->mods; o < m; ++o)
        if (o->live && strcmp(o->desc->family, fam) == 0) {
            unload(s, o);
            found = 1;
        }
    if (!found)
        return trn_errorf(e, "replaces = \"%s\", but no earlier module of that family is loaded",
                          fam);
    return 0;
}

static int init_module(trn_registry *s, trn_module *m, trn_error *e) {
    if (trn_settings_build(s->cfg, m->cfg, m->desc, &m->settings, e))
        return trn_error_kind_default(e, TRN_EK_CONFIG);
    m->settings.owner = m;
    if (m->desc->init) {
        char msg[512] = "";
        if (m->desc->init(s->api, &m->settings, &m->state, msg, sizeof msg) != TRN_OK) {
            msg[sizeof msg - 1] = 0; /* a module may leave it unterminated */
            return trn_errorf(e, "init failed: %s", msg[0] ? msg : "(no message)");
        }
    }
    for (uint32_t i = 0; i < m->desc->n_ops; ++i)
        s->table[m->ops[i].it] = (trn_slot){&m->ops[i], m};
    s->names_ready = false;
    m->live = true;
    return 0;
}

const trn_transport_desc *trn_loader_transport(const trn_module *m) {
    const trn_plugin_desc *d = m->desc;
    if (!m->live || d->abi_version < 2 || d->size < DESC_V2_SIZE || !d->transport) return NULL;
    return d->transport;
}

/* At most one transport; it must carry the ABI 2 calls. */
static int check_transports(const trn_registry *s, trn_error *e) {
    const trn_module *first = NULL;
    for (size_t i = 0; i < s->n_mods; ++i) {
        const trn_transport_desc *t = trn_loader_transport(&s->mods[i]);
        if (!t) continue;
        if (first)
            return trn_errorf(e, "modules '%s' and '%s' both bring a transport (at most one may)",
                              first->desc->name, s->mods[i].desc->name);
        if (t->size < TRANSPORT_V2_SIZE || !t->attach || !t->idle || !t->allgather || !t->agree ||
            !t->to_root)
            return trn_errorf(e, "module '%s': its transport table lacks a call",
                              s->mods[i].desc->name);
        first = &s->mods[i];
    }
    return 0;
}

/* The replaced family is unloaded before the conflict check. */
static int start_one(trn_registry *s, trn_module *m, trn_error *e) {
    if (m->cfg->replaces && replace_family(s, m, e)) return -1;
    if (check_conflicts(s, m, e)) return -1;
    return init_module(s, m, e);
}

/* Three stages: every module is found and its descriptor validated (no
 * module code runs, so a broken one is refused before it can replace
 * anything); every service need is matched to an export; then, in config
 * order, each replaces, registers and inits. */
int trn_loader_load_all(trn_registry *s, trn_error *e) {
    s->mods = calloc(s->cfg->n_plugins + 1, sizeof *s->mods);
    if (!s->mods) return trn_errorf(e, "out of memory");
    for (size_t i = 0; i < s->cfg->n_plugins; ++i) {
        trn_module *m = &s->mods[i];
        m->cfg = &s->cfg->plugins[i];
        s->n_mods = i + 1;
        if (find_module(s, m, e) || validate(m, e)) {
            unload(s, m);
            return module_error(s, m->cfg, e);
        }
    }
    size_t failed = 0;
    if (trn_services_resolve(s, &failed, e)) return module_error(s, s->mods[failed].cfg, e);
    for (size_t i = 0; i < s->n_mods; ++i) {
        trn_module *m = &s->mods[i];
        if (start_one(s, m, e)) {
            unload(s, m); /* nothing of a failed module stays registered */
            return module_error(s, m->cfg, e);
        }
    }
    if (check_transports(s, e)) return -1;
    s->loaded = true;
    return 0;
}

/* Every fini runs before any module is unmapped, so a fini may still use a
 * service of a module listed after it. */
void trn_loader_unload_all(trn_registry *s) {
    for (size_t i = s->n_mods; i-- > 0;) finish(s, &s->mods[i]);
    for (size_t i = s->n_mods; i-- > 0;) unload(s, &s->mods[i]);
    free(s->mods);
    s->mods = NULL;
    s->n_mods = 0;
}

const char *trn_loader_families(const trn_registry *s, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < s->n_mods && n < len; ++i)
        if (s->mods[i].live)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", s->mods[i].desc->family);
    if (!n) snprintf(buf, len, "none");
    return buf;
}
