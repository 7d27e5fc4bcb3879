/* Every file a run writes, and every file it reads, through the one guard
 * (common/common.h) before anything is read or run (docs/cli.md, "Files a
 * run writes"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_int.h"

#define MAX_TARGETS   (MAX_FILES + MAX_DUMPS + 3)
#define MAX_READS     (MAX_FILES + CONFIG_FILES + 2)
#define CONFIG_FILES  64 /* the config and the files it @includes that are compared */
#define INCLUDE_DEPTH 10

typedef struct file_lists {
    trn_out_target out[MAX_TARGETS];
    trn_in_file in[MAX_READS];
    size_t n_out, n_in;
    char include_path[CONFIG_FILES][PATH_MAX];
    int n_include;
    char dump_option[MAX_DUMPS][64];
} file_lists;

static void add_read(file_lists *l, const char *option, const char *path) {
    if (l->n_in < MAX_READS) l->in[l->n_in++] = (trn_in_file){option, path};
}

static void add_target(file_lists *l, const char *option, const char *path, trn_out_kind kind) {
    if (l->n_out < MAX_TARGETS) l->out[l->n_out++] = (trn_out_target){option, path, kind};
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file an `@include "NAME"` line names: as given (libconfig reads it
 * relative to the working directory), else beside the including file. */
static const char *resolve_include(file_lists *l, const char *from, const char *name) {
    if (l->n_include == CONFIG_FILES) return NULL;
    char *out = l->include_path[l->n_include];
    const char *slash = strrchr(from, '/');
    if (is_file(name) || name[0] == '/' || !slash)
        snprintf(out, PATH_MAX, "%s", name);
    else if (snprintf(out, PATH_MAX, "%.*s/%s", (int)(slash - from), from, name) >= PATH_MAX)
        return NULL;
    if (!is_file(out)) return NULL;
    l->n_include++;
    return out;
}

/* The config and every file it @includes are read by the run: none may be
 * written. Read errors are the config reader's to report, later. */
static void add_config(file_lists *l, const char *path, int depth) {
    add_read(l, "--config", path);
    FILE *f = depth < INCLUDE_DEPTH && is_file(path) ? fopen(path, "r") : NULL;
    if (!f) return;
    char line[PATH_MAX + 64];
    while (fgets(line, sizeof line, f)) {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, "@include", 8)) continue;
        p += 8 + strspn(p + 8, " \t");
        const char *end = *p == '"' ? strchr(p + 1, '"') : NULL;
        if (!end) continue;
        char name[PATH_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
        const char *inc = resolve_include(l, path, name);
        if (inc) add_config(l, inc, depth + 1);
    }
    fclose(f);
}

static void list_files(run_args *a, file_lists *l) {
    for (int i = 0; i < a->n_out; ++i) {
        binding *b = &a->out[i];
        if (b->core >= 0)
            snprintf(b->option, sizeof b->option, "--output %s@%d", b->name, b->core);
        else
            snprintf(b->option, sizeof b->option, "--output %s", b->name);
        add_target(l, b->option, b->path, TRN_OUT_FILE);
    }
    if (a->trace_path) add_target(l, "--trace", a->trace_path, TRN_OUT_FILE);
    if (a->timeline_path) add_target(l, "--timeline", a->timeline_path, TRN_OUT_FILE);
    for (int i = 0; i < a->n_dump_at; ++i) {
        snprintf(l->dump_option[i], sizeof l->dump_option[i], "--dump-at %llu@%u",
                 (unsigned long long)a->dump_at[i].index, a->dump_at[i].core);
        add_target(l, l->dump_option[i], a->dump_at[i].dir, TRN_OUT_DIR);
    }
    if (a->dump_on_error) add_target(l, "--dump-on-error", a->dump_on_error, TRN_OUT_DIR);
    if (a->program) add_read(l, "the program", a->program);
    for (int i = 0; i < a->n_in; ++i) {
        binding *b = &a->in[i];
        snprintf(b->option, sizeof b->option, "--input %s", b->name);
        add_read(l, b->option, b->path);
    }
    if (a->cfg.config) add_config(l, a->cfg.config, 0);
    if (a->restore) add_read(l, "--restore", a->restore);
}

int cli_check_files(run_args *a, trn_error *e) {
    file_lists *l = calloc(1, sizeof *l);
    if (!l) return trn_errorf(e, "out of memory checking the files of the run");
    list_files(a, l);
    int rc = trn_outfile_check(l->out, l->n_out, l->in, l->n_in, e);
    free(l);
    return rc;
}

int cli_check_convert_target(const run_args *a, const char *out, trn_error *e) {
    static file_lists l;
    memset(&l, 0, sizeof l);
    add_target(&l, "-o", out, TRN_OUT_FILE);
    if (a->program) add_read(&l, "the program", a->program);
    if (a->cfg.config) add_config(&l, a->cfg.config, 0);
    return trn_outfile_check(l.out, l.n_out, l.in, l.n_in, e);
}
