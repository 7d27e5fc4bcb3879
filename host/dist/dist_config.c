/* What every process of a distributed run must agree on besides the
 * program: the config as the run uses it, written one "key = value" line
 * per setting in a fixed order (the machine, the top-level switches that
 * change results, then each module and its settings with defaults filled
 * in). Equal text means equal behaviour; the first line that differs names
 * the setting in the error. Speed and resource knobs (direct_access,
 * machine.max_bytes, machine.max_instruction_bytes) may differ: they do not
 * change a bit of the results. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dist/dist.h"

typedef struct cfg_text {
    char *buf;
    size_t cap, n;
    bool cut;
} cfg_text;

static void add(cfg_text *t, const char *fmt, ...) {
    if (t->cut) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= t->cap - t->n) {
        t->cut = true;
        t->buf[t->n] = 0; /* whole lines only */
        return;
    }
    t->n += (size_t)k;
}

static void add_value(cfg_text *t, const trn_setting_val *v) {
    switch (v->desc->type) {
        case TRN_SET_FLOAT: add(t, "%.17g", v->f); break;
        case TRN_SET_STRING: add(t, "\"%s\"", v->s ? v->s : ""); break;
        case TRN_SET_BOOL: add(t, "%s", v->i ? "true" : "false"); break;
        case TRN_SET_INT_ARRAY:
            add(t, "[");
            for (size_t i = 0; i < v->n; ++i) add(t, "%s%" PRId64, i ? ", " : "", v->arr[i]);
            add(t, "]");
            break;
        default: add(t, "%" PRId64, v->i); break;
    }
}

size_t trn_dist_config_text(const trn_dist *s, char *buf, size_t cap) {
    cfg_text t = {buf, cap, 0, false};
    buf[0] = 0;
    const trn_machine *m = &s->cfg->machine;
    add(&t, "machine.partitions = %u\n", m->partitions);
    add(&t, "machine.sbuf_partition_bytes = %" PRIu64 "\n", m->sbuf_partition_bytes);
    add(&t, "machine.psum_partition_bytes = %" PRIu64 "\n", m->psum_partition_bytes);
    add(&t, "machine.hbm_bytes = %" PRIu64 "\n", m->hbm_bytes);
    add(&t, "machine.registers = %u\n", m->registers);
    add(&t, "machine.allow_uninit_read = %s\n", s->cfg->allow_uninit ? "true" : "false");
    add(&t, "unknown_opcode = \"%s\"\n", s->cfg->unknown_skip ? "skip" : "error");
    add(&t, "max_executions = %" PRIu64 "\n", s->cfg->max_executions);
    for (size_t i = 0; i < s->reg->n_mods; ++i) {
        const trn_module *mod = &s->reg->mods[i];
        add(&t, "%s.module = \"%s\" (version %s)\n", mod->desc->family, mod->desc->name,
            mod->desc->version ? mod->desc->version : "");
        for (size_t k = 0; k < mod->settings.n; ++k) {
            const trn_setting_val *v = &mod->settings.vals[k];
            add(&t, "%s.%s = ", mod->desc->family, v->desc->key);
            add_value(&t, v);
            add(&t, "\n");
        }
    }
    return t.n;
}

uint64_t trn_dist_config_hash(const char *text) {
    uint64_t h = 1469598103934665603ull;
    for (const char *p = text; *p; ++p) h = (h ^ (uint64_t)(unsigned char)*p) * 1099511628211ull;
    return h;
}

/* The line of `text` whose key (up to " = ") is `key`, or NULL. */
static const char *find_key(const char *text, const char *key, size_t klen) {
    for (const char *p = text; *p;) {
        const char *eq = strstr(p, " = "), *nl = strchr(p, '\n');
        if (!nl) return NULL;
        if (eq && eq < nl && (size_t)(eq - p) == klen && memcmp(p, key, klen) == 0) return p;
        p = nl + 1;
    }
    return NULL;
}

static int line_len(const char *p) {
    const char *nl = strchr(p, '\n');
    return (int)(nl ? (size_t)(nl - p) : strlen(p));
}

/* The first setting of a that b lacks or has another value for:
 * "KEY is A on process ra, B on process rb". */
static bool first_difference(const char *a, const char *b, uint32_t ra, uint32_t rb, char *out,
                             size_t len) {
    for (const char *p = a; *p;) {
        int n = line_len(p);
        const char *eq = strstr(p, " = ");
        if (!eq || eq > p + n) break;
        int klen = (int)(eq - p), vlen = n - klen - 3;
        const char *q = find_key(b, p, (size_t)klen);
        if (!q) {
            snprintf(out, len, "%.*s is %.*s on process %u and not set on process %u", klen, p,
                     vlen, eq + 3, ra, rb);
            return true;
        }
        int m = line_len(q);
        if (m != n || memcmp(p, q, (size_t)n) != 0) {
            snprintf(out, len, "%.*s is %.*s on process %u, %.*s on process %u", klen, p, vlen,
                     eq + 3, ra, m - klen - 3, q + klen + 3, rb);
            return true;
        }
        p += n + (p[n] == '\n');
    }
    return false;
}

void trn_dist_config_diff(const char *mine, const char *theirs, uint32_t r, char *out, size_t len) {
    if (first_difference(theirs, mine, r, 0, out, len) ||
        first_difference(mine, theirs, 0, r, out, len))
        return;
    snprintf(out, len, "the configs differ past their first %zu bytes", strlen(mine));
}
