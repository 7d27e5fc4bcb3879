/* --trace-filter: "opcode=Max,MatchReplace;core=0;index=100-200;family=dma".
 * Clauses are separated by ';', each KEY=VALUE[,VALUE...]; numbers take
 * ranges LO-HI (inclusive). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/exec.h"
#include "observers/observers.h"

#define EXAMPLE "e.g. --trace-filter 'opcode=Max,MatchReplace;core=0;index=100-200;family=dma'"

static const char *const keys[] = {"opcode", "core", "index", "family", "module"};
#define N_KEYS (sizeof keys / sizeof keys[0])

static int bad(trn_error *e, const char *text, const char *fmt, const char *a, const char *b) {
    char why[512];
    snprintf(why, sizeof why, fmt, a, b);
    return trn_errorf(e, "--trace-filter '%s': %s (" EXAMPLE ")", text, why);
}

/* One number or LO-HI range. */
static int parse_range(const char *v, uint64_t *lo, uint64_t *hi) {
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)v[0])) return -1;
    *lo = strtoull(v, &end, 10);
    if (errno) return -1;
    *hi = *lo;
    if (*end == '-') {
        if (!isdigit((unsigned char)end[1])) return -1;
        *hi = strtoull(end + 1, &end, 10);
        if (errno) return -1;
    }
    return *end || *hi < *lo ? -1 : 0;
}

static int add_ranges(const char *text, const char *key, char *vals, uint64_t *lo, uint64_t *hi,
                      int *n, trn_error *e) {
    for (char *v = strtok(vals, ","); v; v = strtok(NULL, ",")) {
        if (*n == TRN_FILTER_MAX_RANGES)
            return bad(e, text, "more than 64 ranges for %s%s", key, "");
        if (parse_range(v, &lo[*n], &hi[*n]))
            return bad(e, text, "'%s' is not a number or a range LO-HI for %s", v, key);
        ++*n;
    }
    return 0;
}

static int add_opcodes(const trn_sim *s, const char *text, char *vals, trn_trace_filter *f,
                       trn_error *e) {
    for (char *v = strtok(vals, ","); v; v = strtok(NULL, ",")) {
        uint32_t it;
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (isdigit((unsigned char)v[0]) && !*end && n <= TRN_IT_MAX)
            it = (uint32_t)n;
        else if (trn_sim_resolve_opcode(s, v, &it, e))
            return trn_error_prefix(e, "--trace-filter '%s'", text);
        f->opcode[it] = true;
    }
    f->by_opcode = true;
    return 0;
}

/* A family or module name of a loaded module (its own string), or an error
 * naming the closest one. */
static int add_names(const trn_sim *s, const char *text, const char *key, char *vals,
                     const char **out, int *n, trn_error *e) {
    bool fam = key[0] == 'f';
    for (char *v = strtok(vals, ","); v; v = strtok(NULL, ",")) {
        const char *cands[64], *hit = NULL;
        size_t nc = 0;
        const trn_registry *reg = trn_sim_registry(s);
        for (size_t i = 0; i < reg->n_mods; ++i) {
            if (!reg->mods[i].live) continue;
            const char *name = fam ? reg->mods[i].desc->family : reg->mods[i].desc->name;
            if (!strcmp(name, v)) hit = name;
            if (nc < 64) cands[nc++] = name;
        }
        if (!hit) {
            const char *best = trn_suggest(v, cands, nc);
            char loaded[512] = "";
            for (size_t k = 0, len = 0; k < nc && len < sizeof loaded; ++k)
                len += (size_t)snprintf(loaded + len, sizeof loaded - len, "%s%s", k ? ", " : "",
                                        cands[k]);
            char why[700];
            if (best)
                snprintf(why, sizeof why,
                         "no loaded module has %s '%s'; did you mean '%s'? (loaded: %s)", key, v,
                         best, loaded);
            else
                snprintf(why, sizeof why, "no loaded module has %s '%s' (loaded: %s)", key, v,
                         loaded);
            return trn_errorf(e, "--trace-filter '%s': %s", text, why);
        }
        if (*n == TRN_FILTER_MAX_NAMES) return bad(e, text, "more than 64 names for %s%s", key, "");
        out[(*n)++] = hit;
    }
    return 0;
}

static int clause(const trn_sim *s, const char *text, char *c, trn_trace_filter *f, trn_error *e) {
    char *eq = strchr(c, '=');
    if (!eq) return bad(e, text, "'%s' is not KEY=VALUE%s", c, "");
    *eq = 0;
    char *key = c, *vals = eq + 1;
    if (!*vals) return bad(e, text, "%s= has no value%s", key, "");
    if (!strcmp(key, "opcode")) return add_opcodes(s, text, vals, f, e);
    if (!strcmp(key, "core"))
        return f->by_core = true,
               add_ranges(text, key, vals, f->core_lo, f->core_hi, &f->n_core, e);
    if (!strcmp(key, "index"))
        return f->by_index = true,
               add_ranges(text, key, vals, f->index_lo, f->index_hi, &f->n_index, e);
    if (!strcmp(key, "family"))
        return f->by_family = true, add_names(s, text, key, vals, f->family, &f->n_family, e);
    if (!strcmp(key, "module"))
        return f->by_module = true, add_names(s, text, key, vals, f->module, &f->n_module, e);
    const char *best = trn_suggest(key, keys, N_KEYS);
    char hint[64] = "";
    if (best) snprintf(hint, sizeof hint, "; did you mean '%s'?", best);
    return bad(e, text, "unknown key '%s'%s (keys: opcode, core, index, family, module)", key,
               hint);
}

int trn_trace_filter_parse(const trn_sim *s, const char *text, trn_trace_filter *f, trn_error *e) {
    memset(f, 0, sizeof *f);
    if (!text) return 0;
    char *copy = strdup(text);
    if (!copy) return trn_errorf(e, "out of memory");
    int rc = 0;
    if (!copy[0]) rc = bad(e, text, "the filter is empty%s%s", "", "");
    /* split on ';' by hand: the clauses use strtok for their values */
    for (char *c = copy; c && !rc;) {
        char *next = strchr(c, ';');
        if (next) *next++ = 0;
        if (*c)
            rc = clause(s, text, c, f, e);
        else if (next || c == copy)
            rc = bad(e, text, "an empty clause (two ';' in a row)%s%s", "", "");
        c = next;
    }
    free(copy);
    return rc;
}

static bool in_ranges(uint64_t v, const uint64_t *lo, const uint64_t *hi, int n) {
    for (int i = 0; i < n; ++i)
        if (v >= lo[i] && v <= hi[i]) return true;
    return false;
}

static bool named(const char *v, const char *const *names, int n) {
    for (int i = 0; i < n; ++i)
        if (names[i] == v || !strcmp(names[i], v)) return true;
    return false;
}

bool trn_trace_filter_keeps(const trn_trace_filter *f, const trn_observation *ob) {
    return (!f->by_opcode || f->opcode[ob->it]) &&
           (!f->by_core || in_ranges(ob->core, f->core_lo, f->core_hi, f->n_core)) &&
           (!f->by_index || in_ranges(ob->index, f->index_lo, f->index_hi, f->n_index)) &&
           (!f->by_family || named(ob->family, f->family, f->n_family)) &&
           (!f->by_module || named(ob->module, f->module, f->n_module));
}
