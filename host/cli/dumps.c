/* --dump-at INDEX[@CORE]=DIR, --dump-on-error DIR and --restore DIR: parsed
 * here, handed to the runtime (dump/dump.c) once the program is
 * loaded, and reported after a run that wrote them. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_int.h"
#include "dump/dump.h"

/* INDEX[@CORE]=DIR: INDEX and CORE decimal, DIR not empty. */
static int parse_dump_at(const char *arg, dump_at_arg *d, trn_error *e) {
    const char *eq = strchr(arg, '=');
    char *end;
    errno = 0;
    unsigned long long index = isdigit((unsigned char)arg[0]) ? strtoull(arg, &end, 10) : 0;
    unsigned long core = 0;
    bool ok = eq && eq[1] && isdigit((unsigned char)arg[0]) && !errno;
    if (ok && *end == '@') {
        const char *c = end + 1;
        ok = isdigit((unsigned char)*c);
        core = ok ? strtoul(c, &end, 10) : 0;
        ok = ok && !errno && core <= UINT32_MAX;
    }
    if (!ok || end != eq)
        return trn_errorf(e,
                          "--dump-at '%s': expected INDEX=DIR or INDEX@CORE=DIR (INDEX the "
                          "instruction's index on "
                          "that core, as --trace shows it; CORE 0 when left out)",
                          arg);
    d->index = index;
    d->core = (uint32_t)core;
    d->dir = eq + 1;
    return 0;
}

int cli_parse_dump_arg(int argc, char **argv, int *i, run_args *a, trn_error *e) {
    const char *s = argv[*i];
    if (*i + 1 >= argc) return 0;
    if (!strcmp(s, "--dump-at")) {
        if (a->n_dump_at == MAX_DUMPS)
            return trn_errorf(e, "more than %d --dump-at options", MAX_DUMPS);
        if (parse_dump_at(argv[++*i], &a->dump_at[a->n_dump_at], e)) return -1;
        a->n_dump_at++;
    } else if (!strcmp(s, "--dump-on-error")) {
        a->dump_on_error = argv[++*i];
        if (!a->dump_on_error[0])
            return trn_errorf(e, "--dump-on-error: the directory name is empty");
    } else if (!strcmp(s, "--restore")) {
        a->restore = argv[++*i];
        if (!a->restore[0]) return trn_errorf(e, "--restore: the directory name is empty");
    } else {
        return 0;
    }
    return 1;
}

int cli_refuse_dump_args(const run_args *a, const char *command, trn_error *e) {
    const char *opt = a->n_dump_at       ? "--dump-at"
                      : a->dump_on_error ? "--dump-on-error"
                      : a->restore       ? "--restore"
                                         : NULL;
    if (opt) return trn_errorf(e, "%s: %s belongs to run", command, opt);
    return 0;
}

int cli_check_dump_args(const run_args *a, trn_error *e) {
    if (a->restore && a->n_in)
        return trn_errorf(
            e,
            "--restore %s and --input %s: a dump holds every tensor's bytes, so a restored run "
            "takes no --input; drop the --input options",
            a->restore, a->in[0].name);
    return 0;
}

int cli_setup_dumps(trnsim_sim *s, const run_args *a, trn_error *e) {
    trn_sim *hs = trn_embed_host_sim(s);
    if (a->restore && trn_sim_restore(hs, a->restore, e)) return -1;
    for (int i = 0; i < a->n_dump_at; ++i)
        if (trn_sim_dump_at(hs, a->dump_at[i].core, a->dump_at[i].index, a->dump_at[i].dir, e))
            return -1;
    if (a->dump_on_error && trn_sim_dump_on_error(hs, a->dump_on_error, e)) return -1;
    return 0;
}

void cli_report_dumps(trnsim_sim *s, const run_args *a) {
    trn_sim *hs = trn_embed_host_sim(s);
    for (int i = 0; i < a->n_dump_at; ++i) {
        uint32_t core;
        uint64_t index;
        const char *dir;
        if (trn_sim_dump_written(hs, i, &core, &index, &dir))
            fprintf(stderr,
                    "trnsim: --dump-at %" PRIu64
                    "@%u: wrote %s (the state before that instruction ran)\n",
                    index, core, dir);
    }
}
