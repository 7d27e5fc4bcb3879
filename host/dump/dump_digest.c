/* What a dump says it was made from: digests of the program and of the
 * config, so a restore refuses a dump of another program or config. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "dump/dump_int.h"

extern const char trn_embedded_config[];

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME  1099511628211ull

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

/* The native form with sorted keys: the same for a program read from a file
 * or given as text, whatever its whitespace, and for a BIR file and its
 * translation. */
void trn_dump_program_digest(const trn_sim *s, char out[17]) {
    uint64_t h = FNV_OFFSET;
    char *text = s->have_prog ? json_dumps(s->prog.root, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    if (text) h = fnv(h, text, strlen(text));
    free(text);
    h = fnv(h, &s->ncores, sizeof s->ncores);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

char *trn_dump_config_text(const trn_sim *s) {
    if (!s->opts.config_path)
        return strdup(s->opts.config_text ? s->opts.config_text : trn_embedded_config);
    FILE *f = fopen(s->opts.config_path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *b =
                cap > (1u << 20) ? NULL : realloc(buf, cap * 2); /* configs are at most 1 MiB */
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[n] = 0;
    return buf;
}

void trn_dump_config_digest(const trn_sim *s, char out[17]) {
    uint64_t h = FNV_OFFSET;
    char *text = trn_dump_config_text(s);
    if (text) h = fnv(h, text, strlen(text) + 1);
    free(text);
    for (size_t i = 0; i < s->opts.n_sets; ++i)
        h = fnv(h, s->opts.sets[i], strlen(s->opts.sets[i]) + 1);
    /* the settings in effect: what a file the config @includes says too */
    char *effective = trn_config_effective_text(&s->cfg);
    if (effective) h = fnv(h, effective, strlen(effective) + 1);
    free(effective);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}
