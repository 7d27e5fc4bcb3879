/* The config tree before interpretation: base configs (leading @include
 * lines) merged under the including file, --set overlays, and the origin of
 * every setting that did not come straight from one parse. */
#include "modules/modules_int.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/common.h"

#define LAYER_DEPTH 10 /* base configs nest at most this deep (as libconfig's own includes) */
#define LAYER_BASES 16 /* leading @include lines per file */

/* ---- origins ---- */

static trn_cfg_origin *origin_new(const char *file, int line) {
    size_t n = strlen(file) + 1;
    trn_cfg_origin *o = malloc(sizeof *o + n);
    if (o) {
        o->line = line;
        memcpy(o->file, file, n);
    }
    return o;
}

void trn_cfg_where(const config_setting_t *s, const char *deflt, const char **file, int *line) {
    const trn_cfg_origin *o = s ? config_setting_get_hook(s) : NULL;
    if (o) {
        *file = o->file;
        *line = o->line;
        return;
    }
    *file = s && config_setting_source_file(s) ? config_setting_source_file(s) : deflt;
    *line = s ? (int)config_setting_source_line(s) : 0;
}

static void config_start(config_t *lc) {
    config_init(lc);
    config_set_destructor(lc, free); /* hooks are trn_cfg_origin, one malloc each */
}

/* ---- copying and merging trees ---- */

static bool holds_elements(const config_setting_t *s) {
    return config_setting_is_list(s) || config_setting_is_array(s);
}

/* Copy src (and what it holds) into parent under name. The copy's origin is
 * forced when given, else src's own (hook, or its file and line; layer_file
 * when the parse had no file name). */
static config_setting_t *copy_into(config_setting_t *parent, const config_setting_t *src,
                                   const char *name, const trn_cfg_origin *forced,
                                   const char *layer_file) {
    int type = config_setting_type(src);
    config_setting_t *d = config_setting_add(parent, holds_elements(parent) ? NULL : name, type);
    if (!d) return NULL;
    const char *file;
    int line;
    trn_cfg_where(src, layer_file, &file, &line);
    if (forced) {
        file = forced->file;
        line = forced->line;
    }
    trn_cfg_origin *o = origin_new(file, line);
    if (!o) return NULL;
    config_setting_set_hook(d, o);
    switch (type) {
        case CONFIG_TYPE_INT: config_setting_set_int(d, config_setting_get_int(src)); break;
        case CONFIG_TYPE_INT64: config_setting_set_int64(d, config_setting_get_int64(src)); break;
        case CONFIG_TYPE_FLOAT: config_setting_set_float(d, config_setting_get_float(src)); break;
        case CONFIG_TYPE_BOOL: config_setting_set_bool(d, config_setting_get_bool(src)); break;
        case CONFIG_TYPE_STRING:
            config_setting_set_string(d, config_setting_get_string(src));
            break;
        default:
            for (int i = 0; i < config_setting_length(src); ++i) {
                const config_setting_t *m = config_setting_get_elem(src, (unsigned)i);
                if (!copy_into(d, m, config_setting_name(m), forced, layer_file)) return NULL;
            }
    }
    return d;
}

static const char *family_of(const config_setting_t *entry) {
    const char *f = NULL;
    return config_setting_is_group(entry) && config_setting_lookup_string(entry, "family", &f)
               ? f
               : NULL;
}

/* The last entry of a plugins list with this family (the one in effect). */
static config_setting_t *plugin_entry(config_setting_t *list, const char *family) {
    config_setting_t *found = NULL;
    for (int i = 0; list && family && i < config_setting_length(list); ++i) {
        config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
        const char *f = family_of(g);
        if (f && strcmp(f, family) == 0) found = g;
    }
    return found;
}

static int merge_group(config_setting_t *dst, const config_setting_t *src, const char *file,
                       bool root);

/* plugins: an entry merges into the base's entry of the same family, or is
 * appended when the base has none. */
static int merge_plugins(config_setting_t *dst, const config_setting_t *src, const char *file) {
    for (int i = 0; i < config_setting_length(src); ++i) {
        const config_setting_t *g = config_setting_get_elem(src, (unsigned)i);
        config_setting_t *old = plugin_entry(dst, family_of(g));
        if (old ? merge_group(old, g, file, false) : !copy_into(dst, g, NULL, NULL, file))
            return -1;
    }
    return 0;
}

/* Groups merge member by member; anything else is replaced whole. */
static int merge_group(config_setting_t *dst, const config_setting_t *src, const char *file,
                       bool root) {
    for (int i = 0; i < config_setting_length(src); ++i) {
        const config_setting_t *m = config_setting_get_elem(src, (unsigned)i);
        const char *name = config_setting_name(m);
        config_setting_t *old = config_setting_get_member(dst, name);
        if (root && old && strcmp(name, "plugins") == 0 && config_setting_is_list(old) &&
            config_setting_is_list(m)) {
            if (merge_plugins(old, m, file)) return -1;
        } else if (old && config_setting_is_group(old) && config_setting_is_group(m)) {
            if (merge_group(old, m, file, false)) return -1;
        } else {
            if (old) config_setting_remove(dst, name);
            if (!copy_into(dst, m, name, NULL, file)) return -1;
        }
    }
    return 0;
}

/* ---- integers past 32 bits ----
 * libconfig 1.5 reads an integer literal without the L suffix as 32-bit and
 * silently keeps the low bits (hbm_bytes = 4294967360 would become 64). Every
 * integer literal outside strings and comments that does not fit 32 bits
 * gets the suffix, so it is read whole (or refused as too large). */

static bool ident_char(char c) {
    return c == '_' || c == '-' || c == '.' || (c >= '0' && c <= '9') ||
           ((c | 32) >= 'a' && (c | 32) <= 'z');
}

static bool needs_long(const char *p, size_t n) {
    char tok[40];
    if (n >= sizeof tok) return true;
    memcpy(tok, p, n);
    tok[n] = 0;
    errno = 0;
    long long v = strtoll(tok, NULL, 0);
    return errno || v > 2147483647LL || v < -2147483648LL;
}

/* A copy of text with L after each integer literal wider than 32 bits. */
static char *widen_ints(const char *text) {
    size_t len = strlen(text), cap = len + len / 2 + 16, o = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (size_t i = 0; i < len;) {
        char c = text[i];
        size_t start = i;
        if (c == '"') { /* a string, with escapes */
            for (++i; i < len && text[i] != '"'; ++i)
                if (text[i] == '\\' && i + 1 < len) ++i;
            i += i < len;
        } else if (c == '#' || (c == '/' && text[i + 1] == '/')) {
            while (i < len && text[i] != '\n') ++i;
        } else if (c == '/' && text[i + 1] == '*') {
            const char *end = strstr(text + i + 2, "*/");
            i = end ? (size_t)(end - text) + 2 : len;
        } else if (c >= '0' && c <= '9' && (i == 0 || !ident_char(text[i - 1]))) {
            size_t j = i + (c == '0' && (text[i + 1] | 32) == 'x' ? 2 : 0);
            while (j < len && ((text[j] >= '0' && text[j] <= '9') ||
                               (j > i + 1 && (text[i + 1] | 32) == 'x' &&
                                ((text[j] | 32) >= 'a' && (text[j] | 32) <= 'f'))))
                ++j;
            bool integer = j == len || !ident_char(text[j]);
            size_t from = i > 0 && text[i - 1] == '-' ? i - 1 : i;
            memcpy(out + o, text + i, j - i);
            o += j - i;
            if (integer && needs_long(text + from, j - from)) out[o++] = 'L';
            i = j;
            continue;
        } else {
            ++i;
        }
        memcpy(out + o, text + start, i == start ? 1 : i - start);
        o += i == start ? 1 : i - start;
        if (i == start) ++i;
    }
    out[o] = 0;
    return out;
}

/* ---- layers ---- */

/* At most TRN_CONFIG_MAX_BYTES (config_scan.h), from any file type. */
static int read_text(const char *path, char **out, trn_error *e) {
    size_t len;
    return trn_config_read_bounded(path, out, &len, e);
}

typedef struct base_ref {
    char path[4096]; /* "" = the embedded default */
    int line;
} base_ref;

static bool is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* A base config's file: beside the including file first, then as given
 * (from the working directory); "default.cfg" found nowhere is the
 * embedded default. */
static int resolve_base(const char *from, int line, const char *inc, base_ref *b, trn_error *e) {
    b->line = line;
    const char *slash = from ? strrchr(from, '/') : NULL;
    if (inc[0] != '/' && slash) {
        size_t dl = (size_t)(slash - from) + 1, il = strlen(inc);
        if (dl + il < sizeof b->path) {
            memcpy(b->path, from, dl);
            memcpy(b->path + dl, inc, il + 1);
            if (is_file(b->path)) goto found;
        }
    }
    snprintf(b->path, sizeof b->path, "%s", inc);
    if (is_file(b->path)) goto found;
    if (strcmp(inc, "default.cfg") == 0) {
        b->path[0] = 0;
        return 0;
    }
    return trn_errorf(
        e, "%s:%d: @include \"%s\": no such file (looked beside %s and in the working directory)",
        from, line, inc, from);
found : {
    struct stat st;
    if (stat(b->path, &st) == 0 && S_ISDIR(st.st_mode))
        return trn_errorf(e, "%s:%d: @include \"%s\" is a directory, not a config file", from, line,
                          b->path);
    return 0;
}
}

/* Leading @include lines (before any setting; blank and comment lines may
 * come between) name base configs. Each is blanked in text (its newline
 * kept, so line numbers stay) and listed in bases. */
static int take_bases(char *text, const char *name, base_ref *bases, int *n, trn_error *e) {
    *n = 0;
    int line = 1;
    for (char *p = text; *p; ++line) {
        char *nl = strchr(p, '\n');
        char *end = nl ? nl : p + strlen(p);
        char *q = p + strspn(p, " \t\r");
        bool blank = q == end || *q == '#' || (q[0] == '/' && q[1] == '/');
        if (!blank) {
            if (strncmp(q, "@include", 8) != 0) break;
            char *open = strchr(q, '"'), *close = open && open < end ? strchr(open + 1, '"') : NULL;
            if (!close || close > end) break; /* malformed: libconfig reports it */
            if (*n == LAYER_BASES)
                return trn_errorf(e, "%s:%d: more than %d leading @include lines", name, line,
                                  LAYER_BASES);
            char inc[4096];
            snprintf(inc, sizeof inc, "%.*s", (int)(close - open - 1), open + 1);
            if (resolve_base(name, line, inc, &bases[*n], e)) return -1;
            ++*n;
            memset(p, ' ', (size_t)(end - p));
        }
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

static int parse_text(config_t *lc, const char *text, const char *name, trn_error *e) {
    if (trn_config_prescan(name, text, strlen(text), e))
        return -1; /* before libconfig sees a byte */
    char *wide = widen_ints(text);
    if (!wide) return trn_errorf(e, "out of memory");
    int ok = config_read_string(lc, wide);
    free(wide);
    if (ok) return 0;
    return trn_errorf(e, "%s:%d: %s", config_error_file(lc) ? config_error_file(lc) : name,
                      config_error_line(lc), config_error_text(lc));
}

static int read_layer(config_t *out, const char *path, const char *text, const char *name,
                      const char *embedded, int depth, trn_error *e);

/* Read a layer into a scratch tree and merge it over out. */
static int merge_layer(config_t *out, const char *path, const char *text, const char *name,
                       const char *embedded, int depth, trn_error *e) {
    config_t tmp;
    config_start(&tmp);
    int rc = read_layer(&tmp, path, text, name, embedded, depth, e);
    if (rc == 0 && merge_group(config_root_setting(out), config_root_setting(&tmp), name, true))
        rc = trn_errorf(e, "%s: out of memory merging the config", name);
    config_destroy(&tmp);
    return rc;
}

static int read_layer(config_t *out, const char *path, const char *text, const char *name,
                      const char *embedded, int depth, trn_error *e) {
    char *own = NULL;
    if (path && read_text(path, &own, e)) return -1;
    if (!path && !(own = strdup(text))) return trn_errorf(e, "out of memory");
    base_ref bases[LAYER_BASES];
    int n = 0, rc = take_bases(own, name, bases, &n, e);
    if (rc == 0 && n && depth >= LAYER_DEPTH)
        rc = trn_errorf(e,
                        "%s:%d: @include nested deeper than %d files (does a file include itself?)",
                        name, bases[0].line, LAYER_DEPTH);
    for (int i = 0; i < n && rc == 0; ++i) {
        const char *bp = bases[i].path[0] ? bases[i].path : NULL;
        const char *bn = bp ? bp : "<embedded default config>";
        rc = merge_layer(out, bp, bp ? NULL : embedded, bn, embedded, depth + 1,
                         e); /* each keeps its file name */
    }
    if (rc == 0)
        rc = n ? merge_layer(out, NULL, own, name, embedded, LAYER_DEPTH, e)
               : parse_text(out, own, name, e);
    free(own);
    return rc;
}

int trn_cfg_read_layers(config_t *lc, const char *path, const char *text, const char *name,
                        const char *embedded, trn_error *e) {
    config_set_destructor(lc, free);
    return read_layer(lc, path, text, name, embedded, 0, e);
}

/* ---- --set KEY=VALUE ---- */

static void configured_families(config_setting_t *list, const char **fams, size_t *n, char *buf,
                                size_t len) {
    size_t used = 0;
    *n = 0;
    buf[0] = 0;
    for (int i = 0; list && i < config_setting_length(list) && *n < 32; ++i) {
        const char *f = family_of(config_setting_get_elem(list, (unsigned)i));
        if (!f) continue;
        fams[(*n)++] = f;
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f);
    }
    if (!*n) snprintf(buf, len, "none");
}

/* The group a two-part KEY's first part names: machine, or the settings of
 * the configured module of that family. */
static config_setting_t *set_section(config_t *lc, const char *kv, const char *sect, trn_error *e) {
    config_setting_t *root = config_root_setting(lc);
    config_setting_t *g = config_setting_get_member(root, sect);
    if (strcmp(sect, "machine") == 0) {
        if (!g) g = config_setting_add(root, "machine", CONFIG_TYPE_GROUP);
        if (!g || !config_setting_is_group(g))
            trn_errorf(e, "--set %s: machine is not a group in the config", kv);
        return g && config_setting_is_group(g) ? g : NULL;
    }
    config_setting_t *list = config_setting_get_member(root, "plugins");
    config_setting_t *entry =
        plugin_entry(list && config_setting_is_list(list) ? list : NULL, sect);
    if (!entry) {
        const char *fams[34];
        size_t n;
        char names[512], hint[128];
        configured_families(list && config_setting_is_list(list) ? list : NULL, fams, &n, names,
                            sizeof names);
        fams[n++] = "machine";
        trn_suggest_text(sect, fams, n, hint, sizeof hint);
        trn_errorf(e,
                   "--set %s: '%s' is neither machine nor the family of a configured module "
                   "(configured: %s)%s",
                   kv, sect, names, hint);
        return NULL;
    }
    config_setting_t *s = config_setting_get_member(entry, "settings");
    if (!s) s = config_setting_add(entry, "settings", CONFIG_TYPE_GROUP);
    if (!s || !config_setting_is_group(s))
        trn_errorf(e, "--set %s: the %s entry's settings is not a group", kv, sect);
    return s && config_setting_is_group(s) ? s : NULL;
}

/* VALUE as libconfig would read it (a number, true/false, "text", a list
 * or array), else as a plain string, so `unknown_opcode=skip` works
 * unquoted. */
static int set_value(config_setting_t *parent, const char *key, const char *value,
                     const trn_cfg_origin *o, const char *kv, trn_error *e) {
    config_setting_t *old = config_setting_get_member(parent, key);
    if (old) config_setting_remove(parent, key);
    size_t len = strlen(value) + 8;
    char *text = malloc(len);
    if (!text) return trn_errorf(e, "out of memory");
    snprintf(text, len, "v = %s;", value);
    if (trn_config_prescan(kv, text, strlen(text),
                           e)) { /* its "KV:1: why" names the option instead */
        free(text);
        char why[TRN_ERROR_MAX];
        size_t n = strlen(kv);
        const char *rest =
            !strncmp(e->msg, kv, n) && !strncmp(e->msg + n, ":1: ", 4) ? e->msg + n + 4 : e->msg;
        snprintf(why, sizeof why, "%s", rest);
        return trn_errorf(e, "--set %s: %s", kv, why);
    }
    char *wide = widen_ints(text);
    free(text);
    if (!(text = wide)) return trn_errorf(e, "out of memory");
    config_t tmp;
    config_start(&tmp);
    const config_setting_t *v = NULL;
    if (!strstr(value, "@include") && config_read_string(&tmp, text) &&
        config_setting_length(config_root_setting(&tmp)) == 1)
        v = config_setting_get_member(config_root_setting(&tmp), "v");
    config_setting_t *d = NULL;
    if (v)
        d = copy_into(parent, v, key, o, o->file);
    else if ((d = config_setting_add(parent, key, CONFIG_TYPE_STRING))) {
        config_setting_set_string(d, value);
        trn_cfg_origin *copy = origin_new(o->file, o->line);
        if (copy)
            config_setting_set_hook(d, copy);
        else
            d = NULL;
    }
    config_destroy(&tmp);
    free(text);
    if (!d)
        return trn_errorf(
            e, "--set %s: '%s' is not a valid key name (letters, digits, '_' and '-')", kv, key);
    return 0;
}

int trn_cfg_apply_set(config_t *lc, const char *kv, trn_error *e) {
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return trn_errorf(
            e, "--set %s: expected KEY=VALUE, e.g. --set machine.hbm_bytes=1073741824", kv);
    char key[256];
    if ((size_t)(eq - kv) >= sizeof key) return trn_errorf(e, "--set: key too long in '%s'", kv);
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
    char *dot = strchr(key, '.');
    if (dot && strchr(dot + 1, '.'))
        return trn_errorf(e, "--set %s: KEY is NAME or SECTION.NAME (SECTION: machine or a family)",
                          kv);
    char opt[4096];
    snprintf(opt, sizeof opt, "--set %s", kv);
    trn_cfg_origin *o = origin_new(opt, -1);
    if (!o) return trn_errorf(e, "out of memory");
    config_setting_t *parent = config_root_setting(lc);
    if (dot) {
        *dot = 0;
        parent = set_section(lc, kv, key, e);
    }
    int rc = parent ? set_value(parent, dot ? dot + 1 : key, eq + 1, o, kv, e) : -1;
    free(o);
    return rc;
}
