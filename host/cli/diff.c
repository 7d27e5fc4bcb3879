/* trnsim diff: one program on two configurations, instruction by
 * instruction in one process, every output compared bit for bit
 * (docs/cli.md, "trnsim diff"). Exit 0: identical, 1: a difference,
 * 2: an error (one line on stderr). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arith/arith.h"
#include "observers/observers.h"
#include "cli/cli_int.h"

#define EXIT_DIFFERENT 1
#define EXIT_ERROR     2
#define MAX_FOUND      TRN_LOCKSTEP_MAX_FOUND

typedef struct diff_args {
    run_args a, b;
    bool keep_going, json;
    const char *against;
} diff_args;

typedef struct side {
    trnsim_sim *h;
    trn_sim *s;
    char label[1024]; /* "FILE --set K=V ..." */
} side;

typedef struct diff_run {
    const diff_args *args;
    side sides[2];
    trn_lockstep ls;  /* compared, differing: the instructions */
    int64_t elements; /* differing elements in all */
    int printed;      /* reports printed (JSON: for the commas) */
} diff_run;

static int fail2(const char *msg) {
    cli_fail(msg);
    return EXIT_ERROR;
}

/* ---- arguments ---- */

static int add_to(const char **list, int *n, const char *v, const char *what, trn_error *e) {
    if (*n == MAX_FILES) return trn_errorf(e, "more than %d %s options", MAX_FILES, what);
    list[(*n)++] = v;
    return 0;
}

/* diff's own options; everything else is read as run reads it, for A. */
static int parse_args(int argc, char **argv, diff_args *d, trn_error *e) {
    static char *rest[4 * MAX_FILES];
    static const char *bsets[MAX_FILES];
    int n = 0, nb = 0;
    const char *swaps[MAX_FILES];
    int nswaps = 0;
    for (int i = 0; i < argc; ++i) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(s, "--against") && has_value)
            d->against = argv[++i];
        else if (!strcmp(s, "--against-set") && has_value) {
            if (add_to(bsets, &nb, argv[++i], "--against-set", e)) return -1;
        } else if (!strcmp(s, "--against-module") && has_value) {
            const char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return trn_errorf(
                    e, "--against-module %s: expected FAMILY=PATH, e.g. search=./my-search.so", v);
            /* a name without '/' (trnsim-search-ref) is searched as a config's module is */
            if (strchr(eq + 1, '/') && access(eq + 1, R_OK) != 0)
                return trn_errorf(
                    e, "--against-module %s: cannot read %s (give the module's .so file)", v,
                    eq + 1);
            if (add_to(swaps, &nswaps, v, "--against-module", e)) return -1;
        } else if (!strcmp(s, "--keep-going"))
            d->keep_going = true;
        else if (!strcmp(s, "--json"))
            d->json = true;
        else if (n < (int)(sizeof rest / sizeof rest[0]))
            rest[n++] = argv[i];
        else
            return trn_errorf(e, "too many arguments");
    }
    if (cli_parse_run_args(n, rest, &d->a, e)) return -1;
    const run_args *a = &d->a;
    if (!a->program)
        return trn_errorf(
            e, "missing PROGRAM.json (usage: trnsim diff PROGRAM --config A.cfg --against B.cfg)");
    if (a->n_out || a->unwritten_zeros)
        return trn_errorf(e, "%s belongs to run (diff compares every output itself)",
                          a->n_out ? "--output" : "--output-unwritten");
    if (cli_refuse_dump_args(a, "diff", e)) return -1;
    if (a->trace || a->raw_bits || a->trace_path || a->timeline_path)
        return trn_errorf(e, "%s belongs to run",
                          a->trace        ? "--trace-text"
                          : a->raw_bits   ? "--raw-bits"
                          : a->trace_path ? "--trace"
                                          : "--timeline");
    if (a->stats_json)
        return trn_errorf(
            e, "--stats-json belongs to run (diff --json --stats puts them in the report)");
    d->b = d->a;
    d->b.stats = false; /* --stats: A's, with the comparisons as #wrong */
    d->b.cfg.config = d->against ? d->against : a->cfg.config;
    d->b.cfg.n_sets = 0;
    if (a->cfg.function_set[0])
        d->b.cfg.sets[d->b.cfg.n_sets++] = a->cfg.function_set; /* both run that function */
    if (nb > MAX_FILES - d->b.cfg.n_sets)
        return trn_errorf(e, "more than %d --against-set options", MAX_FILES - 1);
    memcpy(d->b.cfg.sets + d->b.cfg.n_sets, bsets, (size_t)nb * sizeof bsets[0]);
    d->b.cfg.n_sets += nb;
    memcpy(d->b.module_swaps, swaps, (size_t)nswaps * sizeof swaps[0]);
    d->b.n_module_swaps = nswaps;
    d->a.progress = d->b.progress = 0;
    return 0;
}

static void make_label(side *sd, const run_args *r, bool is_b) {
    size_t n = (size_t)snprintf(sd->label, sizeof sd->label, "%s",
                                r->cfg.config ? r->cfg.config : "<embedded default config>");
    for (int i = 0; i < r->cfg.n_sets && n < sizeof sd->label; ++i)
        n += (size_t)snprintf(sd->label + n, sizeof sd->label - n, " --%sset %s",
                              is_b ? "against-" : "", r->cfg.sets[i]);
    for (int i = 0; i < r->n_module_swaps && n < sizeof sd->label; ++i)
        n += (size_t)snprintf(sd->label + n, sizeof sd->label - n, " --against-module %s",
                              r->module_swaps[i]);
}

/* Open, load the program and the inputs: what run does before running. */
static int open_side(side *sd, const run_args *r, const char *name, trn_error *e) {
    make_label(sd, r, name[0] == 'B');
    int rc = cli_open_sim(&sd->h, r, e) ||
             (trnsim_load_program_file(sd->h, r->program) && cli_api_error(e));
    for (int i = 0; i < r->n_in && !rc; ++i) rc = cli_load_input(sd->h, &r->in[i], e);
    sd->s = sd->h ? trn_embed_host_sim(sd->h) : NULL;
    if (!rc && trn_sim_is_distributed(sd->s))
        rc = trn_errorf(e, "diff runs in one process; start it without mpirun");
    if (!rc) rc = trn_sim_run_start(sd->s, e);
    if (rc) trn_error_prefix(e, "%s (%s)", name, sd->label);
    return rc;
}

/* ---- printing ---- */

static void print_index(FILE *f, const int64_t *idx, int n) {
    fputc('[', f);
    for (int i = 0; i < n; ++i) fprintf(f, "%s%" PRId64, i ? ", " : "", idx[i]);
    fputc(']', f);
}

static const char *dtype_name(int dt) { return dt < 0 ? "int64" : trn_dtype_name((trn_dtype)dt); }

static void print_bits(FILE *f, const trn_diff_found *x, int which) {
    uint32_t w = x->dtype < 0 ? 8 : trn_dtype_width((trn_dtype)x->dtype);
    fprintf(f, "0x%0*" PRIx64, (int)(2 * w), x->bits[which]);
}

static void print_value(FILE *f, double v, bool json) {
    if (isnan(v))
        fputs(json ? "\"nan\"" : "nan", f);
    else if (isinf(v))
        fputs(v < 0 ? (json ? "\"-inf\"" : "-inf") : (json ? "\"inf\"" : "inf"), f);
    else
        fprintf(f, "%.9g", v);
}

static const char *no_ulp(const trn_diff_found *x) {
    return x->has_value ? "n/a (a NaN)" : "n/a (a packed dtype)";
}

static void print_found_text(const diff_run *r, const trn_diff_found *x) {
    bool written = x->kind == TRN_DIFF_WRITTEN;
    printf("  operand:   %s (%s, %" PRId64 " elements)", x->operand, dtype_name(x->dtype),
           x->count);
    if (x->tensor && strncmp(x->operand, "tensor", 6)) printf(", tensor '%s'", x->tensor);
    if (written) printf(": the written bytes differ");
    printf("\n  element:   ");
    print_index(stdout, x->index, x->ndim);
    printf(" of the operand");
    if (x->tensor) {
        printf(", ");
        print_index(stdout, x->tensor_index, x->tensor_ndim);
        printf(" of tensor '%s'", x->tensor);
    }
    if (written) printf(" (its byte %u first)", x->byte);
    for (int i = 0; i < 2; ++i) {
        printf("\n  %c:         ", "AB"[i]);
        print_bits(stdout, x, i);
        if (x->has_value) {
            printf(" = ");
            print_value(stdout, x->value[i], false);
        }
        if (written) printf(", %s", x->written_by == i ? "written" : "never written");
        printf("  (%s)", r->sides[i].label);
    }
    if (x->ulp_known)
        printf("\n  ulp:       %" PRIu64 "\n", x->ulp);
    else
        printf("\n  ulp:       %s\n", no_ulp(x));
    printf("  differing: %" PRId64 " of %" PRId64 " elements%s\n", x->differing, x->count,
           written ? " hold bytes one side wrote and the other did not" : "");
}

static void print_found_json(const trn_diff_found *x) {
    printf("\"kind\": \"%s\", \"operand\": ", x->kind == TRN_DIFF_WRITTEN ? "written" : "value");
    cli_print_json_string(x->operand);
    printf(", \"tensor\": ");
    if (x->tensor)
        cli_print_json_string(x->tensor);
    else
        printf("null");
    printf(", \"dtype\": \"%s\", \"elements\": %" PRId64 ", \"differing\": %" PRId64
           ", \"first\": {\"position\": %" PRId64 ", \"index\": ",
           dtype_name(x->dtype), x->count, x->differing, x->first);
    print_index(stdout, x->index, x->ndim);
    printf(", \"tensor_index\": ");
    if (x->tensor)
        print_index(stdout, x->tensor_index, x->tensor_ndim);
    else
        printf("null");
    printf(", \"bits\": [\"");
    print_bits(stdout, x, 0);
    printf("\", \"");
    print_bits(stdout, x, 1);
    printf("\"], \"values\": ");
    if (x->has_value) {
        printf("[");
        print_value(stdout, x->value[0], true);
        printf(", ");
        print_value(stdout, x->value[1], true);
        printf("]");
    } else
        printf("null");
    if (x->ulp_known)
        printf(", \"ulp\": %" PRIu64, x->ulp);
    else
        printf(", \"ulp\": null");
    if (x->kind == TRN_DIFF_WRITTEN)
        printf(", \"byte\": %u, \"written_by\": \"%c\"", x->byte, "AB"[x->written_by]);
    printf("}");
}

/* One instruction (st NULL: the tensors after the run) with n differing operands. */
static void report(diff_run *r, const trn_step *st, const trn_diff_found *f, int n) {
    const trn_sim *a = r->sides[0].s;
    int shown = n < MAX_FOUND ? n : MAX_FOUND;
    for (int k = 0; k < shown; ++k) r->elements += f[k].differing;
    if (r->args->json) {
        for (int k = 0; k < shown; ++k) {
            printf("%s\n  {", r->printed++ ? "," : "");
            if (st)
                printf("\"instruction\": %" PRIu64 ", \"execution\": %" PRIu64
                       ", \"core\": %u, \"opcode\": \"%s\", "
                       "\"it\": %u, \"family\": \"%s\", \"where\": ",
                       st->inst->number, st->index, st->core, trn_diff_opname(a, st->inst),
                       st->inst->it, trn_diff_family(a, st->inst));
            else
                printf("\"instruction\": null, \"execution\": null, \"core\": null, \"opcode\": "
                       "null, \"it\": null, "
                       "\"family\": null, \"where\": ");
            if (st && st->inst->where)
                cli_print_json_string(st->inst->where);
            else
                printf("null");
            printf(", ");
            print_found_json(&f[k]);
            printf("}");
        }
        return;
    }
    if (r->args->keep_going) {
        if (r->printed++ == 0)
            printf("%11s %9s %4s  %-24s %-22s %9s %9s  %-14s %s\n", "instruction", "execution",
                   "core", "opcode", "operand", "differing", "elements", "first", "ulp");
        for (int k = 0; k < shown; ++k) {
            char first[96] = "[";
            size_t m = 1;
            for (int i = 0; i < f[k].ndim && m < sizeof first; ++i)
                m += (size_t)snprintf(first + m, sizeof first - m, "%s%" PRId64, i ? ", " : "",
                                      f[k].index[i]);
            if (m < sizeof first) snprintf(first + m, sizeof first - m, "]");
            char ulp[32];
            if (f[k].ulp_known)
                snprintf(ulp, sizeof ulp, "%" PRIu64, f[k].ulp);
            else
                snprintf(ulp, sizeof ulp, "n/a");
            if (st)
                printf("%11" PRIu64 " %9" PRIu64 " %4u  %-24s", st->inst->number, st->index,
                       st->core, trn_diff_opname(a, st->inst));
            else
                printf("%11s %9s %4s  %-24s", "-", "-", "-", "(after the run)");
            char operand[128];
            snprintf(operand, sizeof operand, "%s%s", f[k].operand,
                     f[k].kind == TRN_DIFF_WRITTEN ? " written" : "");
            printf(" %-22s %9" PRId64 " %9" PRId64 "  %-14s %s\n", operand, f[k].differing,
                   f[k].count, first, ulp);
        }
        return;
    }
    if (st) {
        printf("difference at instruction %" PRIu64 " (execution %" PRIu64
               " on core %u): %s (IT %u, family %s)\n",
               st->inst->number, st->index, st->core, trn_diff_opname(a, st->inst), st->inst->it,
               trn_diff_family(a, st->inst));
        if (st->inst->where) printf("  where:     %s\n", st->inst->where);
    } else {
        printf("difference after the run, in a tensor no instruction's output covered\n");
    }
    print_found_text(r, &f[0]);
    if (n > 1)
        printf("  also:      %d more operand%s of this instruction differ%s\n", n - 1,
               n > 2 ? "s" : "", n > 2 ? "" : "s");
}

/* The two runs did not complete the same instructions. */
static void report_diverged(diff_run *r, const char *what) {
    if (r->args->json) {
        printf("%s\n  {\"diverged\": ", r->printed++ ? "," : "");
        cli_print_json_string(what);
        printf("}");
        return;
    }
    printf("the runs diverged after %" PRIu64 " instructions compared: %s\n", r->ls.compared, what);
}

static void print_header(const diff_run *r) {
    if (!r->args->json) return;
    printf("{\"a\": ");
    cli_print_json_string(r->sides[0].label);
    printf(", \"b\": ");
    cli_print_json_string(r->sides[1].label);
    printf(", \"differences\": [");
}

static void print_footer(const diff_run *r, int status) {
    uint32_t cores = trn_sim_cores(r->sides[0].s);
    bool stats = r->args->a.stats;
    if (r->args->json) {
        printf("%s], \"compared\": %" PRIu64 ", \"differing_instructions\": %" PRIu64
               ", \"differing_elements\": %" PRId64 ", \"identical\": %s",
               r->printed ? "\n" : "", r->ls.compared, r->ls.differing, r->elements,
               status == 0 ? "true" : "false");
        if (stats) {
            printf(", \"stats\": ");
            trn_sim_print_stats(r->sides[0].s, stdout, 1);
        }
        printf("}\n");
        return;
    }
    if (status == 0)
        printf("identical: %" PRIu64
               " instructions on %u core%s, every output bit and written byte equal, and every "
               "tensor after the "
               "run\n",
               r->ls.compared, cores, cores == 1 ? "" : "s");
    else if (r->args->keep_going)
        printf("%" PRIu64 " of %" PRIu64 " instructions differ, %" PRId64 " elements in all\n",
               r->ls.differing, r->ls.compared, r->elements);
    if (stats) {
        printf("\nstatistics of A:\n");
        trn_sim_print_stats(r->sides[0].s, stdout, 0);
    }
}

/* ---- the lockstep loop's reports ---- */

static void on_found(void *arg, const trn_step *st, const trn_diff_found *f, int n) {
    report(arg, st, f, n);
}

static void on_diverged(void *arg, const char *what) { report_diverged(arg, what); }

int cli_cmd_diff(int argc, char **argv) {
    static diff_args d;
    memset(&d, 0, sizeof d);
    trn_error e;
    if (parse_args(argc, argv, &d, &e)) {
        trn_error_prefix(&e, "diff");
        return fail2(e.msg);
    }
    static diff_run r;
    memset(&r, 0, sizeof r);
    r.args = &d;
    int rc =
        open_side(&r.sides[0], &d.a, "A", &e) || open_side(&r.sides[1], &d.b, "B", &e) ? -1 : 0;
    if (rc == 0 && trn_sim_cores(r.sides[0].s) != trn_sim_cores(r.sides[1].s))
        rc = trn_errorf(&e,
                        "A runs %u cores, B %u: the configs must give the program the same cores",
                        trn_sim_cores(r.sides[0].s), trn_sim_cores(r.sides[1].s));
    if (rc == 0) {
        print_header(&r);
        r.ls = (trn_lockstep){.sim = {r.sides[0].s, r.sides[1].s},
                              .label = {r.sides[0].label, r.sides[1].label},
                              .keep_going = d.keep_going,
                              .report = {&r, on_found, on_diverged}};
        rc = trn_lockstep_run(&r.ls, &e);
        if (rc >= 0) print_footer(&r, rc);
    }
    for (int i = 0; i < 2; ++i) trnsim_close(r.sides[i].h);
    if (rc < 0) {
        fflush(stdout);
        trn_error_prefix(&e, "diff");
        return fail2(e.msg);
    }
    return rc ? EXIT_DIFFERENT : 0;
}
