#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include "modules/modules.h"

#include "common/common.h"
#include "modules/modules_int.h"

#include <errno.h>
#include <inttypes.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

extern const char trn_embedded_config[];

#define EMBEDDED_NAME "<embedded default config>"

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

/* "file:line: message", or "--set KEY=VALUE: message" for a setting given
 * on the command line. */
static int cfg_error(const trn_config *c, const config_setting_t *at, trn_error *e,
                     const char *what) {
    const char *file;
    int line;
    trn_cfg_where(at, c->file, &file, &line);
    if (line < 0) return trn_errorf(e, "%s: %s", file, what);
    return trn_errorf(e, "%s:%d: %s", file, line, what);
}

static size_t count_keys(const char *const *keys) {
    size_t n = 0;
    while (keys[n]) ++n;
    return n;
}

static int known_key(const char *key, const char *const *keys) {
    for (; *keys; ++keys)
        if (strcmp(key, *keys) == 0) return 1;
    return 0;
}

/* Every member of a group must be one of keys. */
static int check_keys(const trn_config *c, const config_setting_t *group, const char *const *keys,
                      const char *where, trn_error *e) {
    int n = config_setting_length(group);
    for (int i = 0; i < n; ++i) {
        const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
        const char *name = config_setting_name(m);
        if (name && !known_key(name, keys)) {
            char buf[400], hint[128];
            trn_suggest_text(name, keys, count_keys(keys), hint, sizeof hint);
            snprintf(buf, sizeof buf, "unknown key '%s' in %s%s", name, where, hint);
            return cfg_error(c, m, e, buf);
        }
    }
    return 0;
}

static int get_u64(const trn_config *c, const config_setting_t *g, const char *key, uint64_t min,
                   uint64_t max, uint64_t *out, trn_error *e) {
    const config_setting_t *s = config_setting_get_member(g, key);
    if (!s) return 0;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) {
        char buf[160];
        snprintf(buf, sizeof buf, "machine.%s must be an integer", key);
        return cfg_error(c, s, e, buf);
    }
    long long v = config_setting_get_int64(s);
    if (v < 0 || (uint64_t)v < min || (uint64_t)v > max) {
        char buf[200];
        snprintf(buf, sizeof buf, "machine.%s = %lld is outside [%" PRIu64 ", %" PRIu64 "]", key, v,
                 min, max);
        return cfg_error(c, s, e, buf);
    }
    *out = (uint64_t)v;
    return 0;
}

static int parse_machine(trn_config *c, const config_setting_t *m, trn_error *e) {
    static const char *const keys[] = {"cores",
                                       "partitions",
                                       "sbuf_partition_bytes",
                                       "psum_partition_bytes",
                                       "hbm_bytes",
                                       "registers",
                                       "allow_uninit_read",
                                       "max_bytes",
                                       "max_instruction_bytes",
                                       NULL};
    if (!m) return 0;
    if (!config_setting_is_group(m)) return cfg_error(c, m, e, "machine must be a group { ... }");
    if (check_keys(c, m, keys, "machine", e)) return -1;
    uint64_t cores = c->cores, parts = c->machine.partitions, regs = c->machine.registers;
    if (get_u64(c, m, "cores", 1, 1024, &cores, e) ||
        get_u64(c, m, "partitions", 1, 128, &parts, e) ||
        get_u64(c, m, "sbuf_partition_bytes", 64, 1ull << 24, &c->machine.sbuf_partition_bytes,
                e) ||
        get_u64(c, m, "psum_partition_bytes", 64, 1ull << 24, &c->machine.psum_partition_bytes,
                e) ||
        get_u64(c, m, "hbm_bytes", 64, 1ull << 36, &c->machine.hbm_bytes, e) ||
        get_u64(c, m, "registers", 1, 4096, &regs, e) ||
        get_u64(c, m, "max_bytes", 1, 1ull << 50, &c->machine.max_bytes, e) ||
        get_u64(c, m, "max_instruction_bytes", 1, 1ull << 50, &c->machine.max_instruction_bytes, e))
        return -1;
    c->cores = (uint32_t)cores;
    c->machine.partitions = (uint32_t)parts;
    c->machine.registers = (uint32_t)regs;
    const config_setting_t *u = config_setting_get_member(m, "allow_uninit_read");
    if (u) {
        if (config_setting_type(u) != CONFIG_TYPE_BOOL)
            return cfg_error(c, u, e, "machine.allow_uninit_read must be true or false");
        c->allow_uninit = config_setting_get_bool(u);
    }
    return 0;
}

static int get_str_member(const trn_config *c, const config_setting_t *g, const char *key,
                          bool required, char **out, trn_error *e) {
    const config_setting_t *s = config_setting_get_member(g, key);
    if (!s) {
        if (!required) return 0;
        char buf[160];
        snprintf(buf, sizeof buf, "plugin entry has no '%s'", key);
        return cfg_error(c, g, e, buf);
    }
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        char buf[160];
        snprintf(buf, sizeof buf, "'%s' must be a string", key);
        return cfg_error(c, s, e, buf);
    }
    *out = dupstr(config_setting_get_string(s));
    return *out ? 0 : trn_errorf(e, "out of memory");
}

static int parse_plugins(trn_config *c, const config_setting_t *list, trn_error *e) {
    static const char *const keys[] = {"family", "module", "replaces", "settings", NULL};
    if (!list) return 0;
    if (!config_setting_is_list(list) && !config_setting_is_array(list))
        return cfg_error(c, list, e, "plugins must be a list ( {...}, ... )");
    int n = config_setting_length(list);
    c->plugins = calloc((size_t)n + 1, sizeof *c->plugins);
    if (!c->plugins) return trn_errorf(e, "out of memory");
    for (int i = 0; i < n; ++i) {
        const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
        trn_plugin_cfg *p = &c->plugins[c->n_plugins++];
        const char *file;
        trn_cfg_where(g, c->file, &file, &p->line);
        if (!(p->file = strdup(file))) return trn_errorf(e, "out of memory");
        if (!config_setting_is_group(g))
            return cfg_error(c, g, e, "each plugins entry must be a group { ... }");
        if (check_keys(c, g, keys, "a plugins entry", e) ||
            get_str_member(c, g, "family", true, &p->family, e) ||
            get_str_member(c, g, "module", true, &p->module, e) ||
            get_str_member(c, g, "replaces", false, &p->replaces, e))
            return -1;
        /* the entry's messages name where its module was written: an entry that
         * overrides a base config's module is the overriding file's, not the base's */
        trn_cfg_where(config_setting_get_member(g, "module"), c->file, &file, &p->line);
        free(p->file);
        if (!(p->file = strdup(file))) return trn_errorf(e, "out of memory");
        const config_setting_t *s = config_setting_get_member(g, "settings");
        if (s && !config_setting_is_group(s))
            return cfg_error(c, s, e, "settings must be a group { ... }");
        p->settings = s;
    }
    return 0;
}

static int parse_paths(trn_config *c, const config_setting_t *list, trn_error *e) {
    if (!list) return 0;
    if (!config_setting_is_list(list) && !config_setting_is_array(list))
        return cfg_error(c, list, e, "plugin_paths must be a list of strings");
    int n = config_setting_length(list);
    c->plugin_paths = calloc((size_t)n + 1, sizeof(char *));
    if (!c->plugin_paths) return trn_errorf(e, "out of memory");
    for (int i = 0; i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(list, (unsigned)i);
        if (config_setting_type(s) != CONFIG_TYPE_STRING)
            return cfg_error(c, s, e, "plugin_paths must be a list of strings");
        const char *p = config_setting_get_string(s), *file;
        int line;
        trn_cfg_where(s, c->file, &file, &line);
        const char *slash =
            line >= 0 && c->dir ? strrchr(file, '/') : NULL; /* relative to the file that says it */
        char buf[4096];
        if (p[0] != '/' && slash)
            snprintf(buf, sizeof buf, "%.*s/%s", (int)(slash - file), file, p);
        else if (p[0] != '/' && line >= 0 && c->dir)
            snprintf(buf, sizeof buf, "%s/%s", c->dir, p);
        else
            snprintf(buf, sizeof buf, "%s", p);
        if (!(c->plugin_paths[c->n_paths++] = strdup(buf))) return trn_errorf(e, "out of memory");
    }
    return 0;
}

static int parse_root(trn_config *c, trn_error *e) {
    static const char *const keys[] = {
        "machine",      "unknown_opcode", "max_executions", "direct_access",
        "bir_function", "plugins",        "plugin_paths",   NULL};
    config_t *lc = c->lc;
    const config_setting_t *root = config_root_setting(lc);
    if (check_keys(c, root, keys, "the top level", e)) return -1;
    if (parse_machine(c, config_setting_get_member(root, "machine"), e)) return -1;
    const config_setting_t *u = config_setting_get_member(root, "unknown_opcode");
    if (u) {
        const char *v =
            config_setting_type(u) == CONFIG_TYPE_STRING ? config_setting_get_string(u) : "";
        if (strcmp(v, "error") == 0)
            c->unknown_skip = false;
        else if (strcmp(v, "skip") == 0)
            c->unknown_skip = true;
        else
            return cfg_error(c, u, e, "unknown_opcode must be \"error\" or \"skip\"");
    }
    const config_setting_t *mx = config_setting_get_member(root, "max_executions");
    c->max_executions = TRN_DEFAULT_MAX_EXECUTIONS;
    if (mx) {
        int t = config_setting_type(mx);
        long long v =
            t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 ? config_setting_get_int64(mx) : 0;
        if (v < 1)
            return cfg_error(
                c, mx, e,
                "max_executions must be a positive integer (instruction executions per core)");
        c->max_executions = (uint64_t)v;
    }
    const config_setting_t *bf = config_setting_get_member(root, "bir_function");
    if (bf) {
        if (config_setting_type(bf) != CONFIG_TYPE_STRING || !*config_setting_get_string(bf))
            return cfg_error(c, bf, e, "bir_function must be a function name (a non-empty string)");
        c->bir_function = config_setting_get_string(bf);
    }
    const config_setting_t *da = config_setting_get_member(root, "direct_access");
    if (da) {
        if (config_setting_type(da) != CONFIG_TYPE_BOOL)
            return cfg_error(c, da, e, "direct_access must be true or false");
        c->no_direct = !config_setting_get_bool(da);
    }
    if (parse_paths(c, config_setting_get_member(root, "plugin_paths"), e)) return -1;
    return parse_plugins(c, config_setting_get_member(root, "plugins"), e);
}

/* ---- directories where a config file is expected ----
 * libconfig's scanner ends the process (flex: "input in flex scanner
 * failed", exit status 2) when read() fails, as it does on a directory. So
 * the config and every file it @includes (libconfig resolves those as given,
 * relative to the working directory) are checked first: none may be a
 * directory. Everything else (a missing file, a syntax error, nesting too
 * deep) libconfig reports itself. */

#define INCLUDE_SCAN_DEPTH 10  /* libconfig's own nesting limit */
#define INCLUDE_SCAN_FILES 256 /* bounds the work on a self-including file */

static int scan_includes(const char *file, const char *text, int depth, int *budget, trn_error *e);

static int check_config_path(const char *from, int line, const char *path, int depth, int *budget,
                             trn_error *e) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (S_ISDIR(st.st_mode)) {
        if (from)
            return trn_errorf(e, "%s:%d: @include \"%s\" is a directory, not a config file", from,
                              line, path);
        return trn_errorf(e, "%s: cannot read config: it is a directory", path);
    }
    /* libconfig reads an included file itself, to its end: only a regular
     * file, whose size and text are checked here first, may be included */
    if (from && !S_ISREG(st.st_mode))
        return trn_errorf(e, "%s:%d: @include \"%s\" is not a regular file", from, line, path);
    if (depth >= INCLUDE_SCAN_DEPTH) return 0; /* libconfig refuses this nesting itself */
    if (--*budget < 0)
        return trn_errorf(e, "%s:%d: more than %d config files included", from ? from : path, line,
                          INCLUDE_SCAN_FILES);
    if (!from) return 0; /* the top file is read and scanned when its layer is read */
    char *text;
    size_t len;
    if (trn_config_read_bounded(path, &text, &len, e))
        return trn_error_prefix(e, "%s:%d: @include", from, line);
    int rc =
        trn_config_prescan(path, text, len, e) || scan_includes(path, text, depth + 1, budget, e)
            ? -1
            : 0;
    free(text);
    return rc;
}

static int scan_includes(const char *file, const char *text, int depth, int *budget, trn_error *e) {
    int line = 1;
    for (const char *p = text; *p && *budget >= 0; ++line) {
        const char *q = p + strspn(p, " \t");
        if (strncmp(q, "@include", 8) == 0) {
            q += 8;
            q += strspn(q, " \t");
            if (*q == '"') {
                char inc[4096];
                size_t n = 0;
                for (++q; *q && *q != '"' && *q != '\n' && n + 1 < sizeof inc; ++q) {
                    if (*q == '\\' && q[1]) ++q;
                    inc[n++] = *q;
                }
                inc[n] = 0;
                if (check_config_path(file, line, inc, depth, budget, e)) return -1;
            }
        }
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

int trn_config_load_sets(trn_config *c, const char *path, const char *text, const char *const *sets,
                         size_t n_sets, trn_error *e) {
    memset(c, 0, sizeof *c);
    c->machine = (trn_machine){128, 196608, 16384, 268435456, 64, 0, 0};
    c->cores = 1;
    config_t *lc = calloc(1, sizeof *lc);
    if (!lc) return trn_errorf(e, "out of memory");
    c->lc = lc;
    config_init(lc);
    if (path) {
        c->file = strdup(path);
        if (!c->file) return trn_errorf(e, "out of memory");
        const char *slash = strrchr(path, '/');
        c->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
        int budget = INCLUDE_SCAN_FILES;
        if (check_config_path(NULL, 0, path, 0, &budget, e)) return -1;
    } else {
        c->file = strdup(text ? "<config text>" : EMBEDDED_NAME);
        if (!c->file) return trn_errorf(e, "out of memory");
        int budget = INCLUDE_SCAN_FILES;
        if (scan_includes(c->file, text ? text : trn_embedded_config, 1, &budget, e)) return -1;
    }
    if (trn_cfg_read_layers(lc, path,
                            path   ? NULL
                            : text ? text
                                   : trn_embedded_config,
                            c->file, trn_embedded_config, e))
        return -1;
    for (size_t i = 0; i < n_sets; ++i)
        if (trn_cfg_apply_set(lc, sets[i], e)) return -1;
    return parse_root(c, e);
}

int trn_config_load(trn_config *c, const char *path, const char *text, trn_error *e) {
    return trn_config_load_sets(c, path, text, NULL, 0, e);
}

char *trn_config_effective_text(const trn_config *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = c->lc ? open_memstream(&buf, &len) : NULL;
    if (!f) return NULL;
    config_write(c->lc, f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

void trn_config_free(trn_config *c) {
    for (size_t i = 0; i < c->n_plugins; ++i) {
        free(c->plugins[i].family);
        free(c->plugins[i].module);
        free(c->plugins[i].replaces);
        free(c->plugins[i].file);
    }
    free(c->plugins);
    for (size_t i = 0; i < c->n_paths; ++i) free(c->plugin_paths[i]);
    free(c->plugin_paths);
    if (c->lc) {
        config_destroy(c->lc);
        free(c->lc);
    }
    free(c->file);
    free(c->dir);
    memset(c, 0, sizeof *c);
}

/* ---- module settings ---- */

static const char *const type_names[] = {"an integer", "a number", "true or false", "a string",
                                         "a list of integers"};

static int in_range(const trn_setting_desc *d, double v) {
    return d->min > d->max || (v >= d->min && v <= d->max);
}

static int choice_ok(const char *choices, const char *v) {
    if (!choices) return 1;
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0) return 1;
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

/* Parse the default text of a schema entry. */
static int default_value(const trn_setting_desc *d, trn_setting_val *v) {
    const char *t = d->def ? d->def : "";
    char *end;
    switch (d->type) {
        case TRN_SET_INT:
            errno = 0;
            v->i = strtoll(t, &end, 0);
            return end == t || *end || errno ? -1 : 0;
        case TRN_SET_FLOAT: v->f = strtod(t, &end); return end == t || *end ? -1 : 0;
        case TRN_SET_BOOL:
            v->i = strcmp(t, "true") == 0;
            return (v->i || strcmp(t, "false") == 0) ? 0 : -1;
        case TRN_SET_STRING: v->s = strdup(t); return v->s ? 0 : -1;
        case TRN_SET_INT_ARRAY: {
            size_t cap = 8;
            v->arr = calloc(cap, sizeof(int64_t));
            if (!v->arr) return -1;
            for (const char *p = t; *p;) {
                while (*p == ' ' || *p == ',') ++p;
                if (!*p) break;
                long long x = strtoll(p, &end, 0);
                if (end == p) return -1;
                if (v->n == cap) {
                    int64_t *grown = realloc(v->arr, (cap *= 2) * sizeof(int64_t));
                    if (!grown) return -1;
                    v->arr = grown;
                }
                v->arr[v->n++] = x;
                p = end;
            }
            return 0;
        }
    }
    return -1;
}

static int setting_from_config(const trn_config *c, const config_setting_t *s, trn_setting_val *v,
                               trn_error *e) {
    const trn_setting_desc *d = v->desc;
    int t = config_setting_type(s);
    char buf[320];
    snprintf(buf, sizeof buf, "setting '%s' must be %s", d->key, type_names[d->type]);
    switch (d->type) {
        case TRN_SET_INT:
            if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) return cfg_error(c, s, e, buf);
            v->i = config_setting_get_int64(s);
            if (!in_range(d, (double)v->i)) {
                snprintf(buf, sizeof buf, "setting '%s' = %" PRId64 " is outside [%g, %g]", d->key,
                         v->i, d->min, d->max);
                return cfg_error(c, s, e, buf);
            }
            return 0;
        case TRN_SET_FLOAT:
            if (t == CONFIG_TYPE_FLOAT)
                v->f = config_setting_get_float(s);
            else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
                v->f = (double)config_setting_get_int64(s);
            else
                return cfg_error(c, s, e, buf);
            if (!in_range(d, v->f)) {
                snprintf(buf, sizeof buf, "setting '%s' = %g is outside [%g, %g]", d->key, v->f,
                         d->min, d->max);
                return cfg_error(c, s, e, buf);
            }
            return 0;
        case TRN_SET_BOOL:
            if (t != CONFIG_TYPE_BOOL) return cfg_error(c, s, e, buf);
            v->i = config_setting_get_bool(s);
            return 0;
        case TRN_SET_STRING:
            if (t != CONFIG_TYPE_STRING) return cfg_error(c, s, e, buf);
            if (!choice_ok(d->choices, config_setting_get_string(s))) {
                snprintf(buf, sizeof buf, "setting '%s' = \"%s\" is not one of %s", d->key,
                         config_setting_get_string(s), d->choices);
                return cfg_error(c, s, e, buf);
            }
            free(v->s);
            v->s = strdup(config_setting_get_string(s));
            return v->s ? 0 : trn_errorf(e, "out of memory");
        case TRN_SET_INT_ARRAY: {
            if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) return cfg_error(c, s, e, buf);
            int n = config_setting_length(s);
            free(v->arr);
            v->arr = calloc((size_t)n + 1, sizeof(int64_t));
            v->n = 0;
            if (!v->arr) return trn_errorf(e, "out of memory");
            for (int i = 0; i < n; ++i) {
                const config_setting_t *x = config_setting_get_elem(s, (unsigned)i);
                int xt = config_setting_type(x);
                if (xt != CONFIG_TYPE_INT && xt != CONFIG_TYPE_INT64)
                    return cfg_error(c, x, e, buf);
                v->arr[v->n++] = config_setting_get_int64(x);
            }
            return 0;
        }
    }
    return cfg_error(c, s, e, "bad setting type in module schema");
}

static void known_settings(const trn_plugin_desc *d, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < d->n_settings && n < len; ++i)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", d->settings[i].key);
    if (d->n_settings == 0) snprintf(buf, len, "none");
}

/* Why one schema entry is unusable, or NULL. v gets the parsed default. */
static const char *schema_entry_problem(const trn_plugin_desc *d, uint32_t i, trn_setting_val *v) {
    const trn_setting_desc *sd = &d->settings[i];
    if (!sd->key || !*sd->key) return "has no key";
    for (uint32_t j = 0; j < i; ++j)
        if (d->settings[j].key && strcmp(d->settings[j].key, sd->key) == 0)
            return "repeats the key of an earlier entry";
    if ((unsigned)sd->type > TRN_SET_INT_ARRAY) return "has an unknown type";
    v->desc = sd;
    if (default_value(sd, v)) return "has a default that does not parse as its type";
    if (sd->type == TRN_SET_INT && !in_range(sd, (double)v->i))
        return "has a default outside [min, max]";
    if (sd->type == TRN_SET_FLOAT && !in_range(sd, v->f)) return "has a default outside [min, max]";
    if (sd->type == TRN_SET_STRING && !choice_ok(sd->choices, v->s))
        return "has a default that is not one of its choices";
    return NULL;
}

int trn_settings_check_schema(const trn_plugin_desc *d, trn_error *e) {
    for (uint32_t i = 0; i < d->n_settings; ++i) {
        trn_setting_val v = {0};
        const char *why = schema_entry_problem(d, i, &v);
        free(v.s);
        free(v.arr);
        if (why)
            return trn_errorf(e, "settings schema entry %u ('%s', default '%s') %s", i,
                              d->settings[i].key ? d->settings[i].key : "(null)",
                              d->settings[i].def ? d->settings[i].def : "", why);
    }
    return 0;
}

int trn_settings_build(const trn_config *c, const trn_plugin_cfg *p, const trn_plugin_desc *d,
                       trn_settings *out, trn_error *e) {
    memset(out, 0, sizeof *out);
    if (trn_settings_check_schema(d, e)) return -1;
    out->vals = calloc(d->n_settings + 1, sizeof *out->vals);
    if (!out->vals) return trn_errorf(e, "out of memory");
    out->n = d->n_settings;
    for (uint32_t i = 0; i < d->n_settings; ++i) {
        out->vals[i].desc = &d->settings[i];
        if (default_value(&d->settings[i], &out->vals[i])) /* checked above: only out of memory */
            return trn_errorf(e, "out of memory for the default of setting '%s'",
                              d->settings[i].key);
    }
    const config_setting_t *g = p->settings;
    int n = g ? config_setting_length(g) : 0;
    for (int i = 0; i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        trn_setting_val *v = NULL;
        for (size_t k = 0; k < out->n; ++k)
            if (strcmp(out->vals[k].desc->key, key) == 0) v = &out->vals[k];
        if (!v) {
            char known[512], buf[900], hint[128];
            const char *keys[64];
            size_t nk = 0;
            for (uint32_t k = 0; k < d->n_settings && nk < 64; ++k) keys[nk++] = d->settings[k].key;
            known_settings(d, known, sizeof known);
            trn_suggest_text(key, keys, nk, hint, sizeof hint);
            snprintf(buf, sizeof buf, "unknown setting '%s' for module %s (known: %s)%s", key,
                     d->name, known, hint);
            return cfg_error(c, s, e, buf);
        }
        if (setting_from_config(c, s, v, e)) return -1;
    }
    return 0;
}

void trn_settings_free(trn_settings *s) {
    for (size_t i = 0; i < s->n; ++i) {
        free(s->vals[i].s);
        free(s->vals[i].arr);
    }
    free(s->vals);
    memset(s, 0, sizeof *s);
}

const trn_setting_val *trn_settings_find(const trn_settings *s, const char *key) {
    for (size_t i = 0; s && i < s->n; ++i)
        if (strcmp(s->vals[i].desc->key, key) == 0) return &s->vals[i];
    return NULL;
}
