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
#include "cli/cli_internal.h"
#include "runtime/diff.h"

#define EXIT_DIFFERENT 1
#define EXIT_ERROR 2
#define MAX_FOUND 64 /* differing operands reported per instruction */

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
    uint64_t compared;    /* instructions both completed */
    uint64_t differing;   /* of them, with a difference */
    int64_t elements;     /* differing elements in all */
    int printed;          /* reports printed (JSON: for the commas) */
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
        if (!strcmp(s, "--against") && has_value) d->against = argv[++i];
        else if (!strcmp(s, "--against-set") && has_value) {
            if (add_to(bsets, &nb, argv[++i], "--against-set", e)) return -1;
        } else if (!strcmp(s, "--against-module") && has_value) {
            const char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return trn_errorf(e, "--against-module %s: expected FAMILY=PATH, e.g. search=./my-search.so", v);
            if (access(eq + 1, R_OK) != 0)
                return trn_errorf(e, "--against-module %s: cannot read %s (give the module's .so file)", v, eq + 1);
            if (add_to(swaps, &nswaps, v, "--against-module", e)) return -1;
        } else if (!strcmp(s, "--keep-going")) d->keep_going = true;
        else if (!strcmp(s, "--json")) d->json = true;
        else if (n < (int)(sizeof rest / sizeof rest[0])) rest[n++] = argv[i];
        else return trn_errorf(e, "too many arguments");
    }
    if (cli_parse_run_args(n, rest, &d->a, e)) return -1;
    const run_args *a = &d->a;
    if (!a->program) return trn_errorf(e, "missing PROGRAM.json (usage: trnsim diff PROGRAM --config A.cfg --against B.cfg)");
    if (a->n_out) return trn_errorf(e, "--output belongs to run (diff compares every output itself)");
    if (a->trace || a->stats || a->raw_bits)
        return trn_errorf(e, "%s belongs to run", a->trace ? "--trace" : a->stats ? "--stats" : "--raw-bits");
    d->b = d->a;
    d->b.cfg.config = d->against ? d->against : a->cfg.config;
    d->b.cfg.n_sets = nb;
    memcpy(d->b.cfg.sets, bsets, (size_t)nb * sizeof bsets[0]);
    memcpy(d->b.module_swaps, swaps, (size_t)nswaps * sizeof swaps[0]);
    d->b.n_module_swaps = nswaps;
    d->a.progress = d->b.progress = 0;
    return 0;
}

static void make_label(side *sd, const run_args *r, bool is_b) {
    size_t n = (size_t)snprintf(sd->label, sizeof sd->label, "%s", r->cfg.config ? r->cfg.config : "<embedded default config>");
    for (int i = 0; i < r->cfg.n_sets && n < sizeof sd->label; ++i)
        n += (size_t)snprintf(sd->label + n, sizeof sd->label - n, " --%sset %s", is_b ? "against-" : "", r->cfg.sets[i]);
    for (int i = 0; i < r->n_module_swaps && n < sizeof sd->label; ++i)
        n += (size_t)snprintf(sd->label + n, sizeof sd->label - n, " --against-module %s", r->module_swaps[i]);
}

/* Open, load the program and the inputs: what run does before running. */
static int open_side(side *sd, const run_args *r, const char *name, trn_error *e) {
    make_label(sd, r, name[0] == 'B');
    int rc = cli_open_sim(&sd->h, r, e) || (trnsim_load_program_file(sd->h, r->program) && cli_api_error(e));
    for (int i = 0; i < r->n_in && !rc; ++i) rc = cli_load_input(sd->h, &r->in[i], e);
    sd->s = sd->h ? trn_embed_host_sim(sd->h) : NULL;
    if (!rc && trn_sim_is_distributed(sd->s)) rc = trn_errorf(e, "diff runs in one process; start it without mpirun");
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
    if (isnan(v)) fputs(json ? "\"nan\"" : "nan", f);
    else if (isinf(v)) fputs(v < 0 ? (json ? "\"-inf\"" : "-inf") : (json ? "\"inf\"" : "inf"), f);
    else fprintf(f, "%.9g", v);
}

static const char *no_ulp(const trn_diff_found *x) {
    return x->has_value ? "n/a (a NaN)" : "n/a (a packed dtype)";
}

static void print_found_text(const diff_run *r, const trn_diff_found *x) {
    printf("  operand:   %s (%s, %" PRId64 " elements)", x->operand, dtype_name(x->dtype), x->count);
    if (x->tensor && strncmp(x->operand, "tensor", 6)) printf(", tensor '%s'", x->tensor);
    printf("\n  element:   ");
    print_index(stdout, x->index, x->ndim);
    printf(" of the operand");
    if (x->tensor) {
        printf(", ");
        print_index(stdout, x->tensor_index, x->tensor_ndim);
        printf(" of tensor '%s'", x->tensor);
    }
    for (int i = 0; i < 2; ++i) {
        printf("\n  %c:         ", "AB"[i]);
        print_bits(stdout, x, i);
        if (x->has_value) {
            printf(" = ");
            print_value(stdout, x->value[i], false);
        }
        printf("  (%s)", r->sides[i].label);
    }
    if (x->ulp_known) printf("\n  ulp:       %" PRIu64 "\n", x->ulp);
    else printf("\n  ulp:       %s\n", no_ulp(x));
    printf("  differing: %" PRId64 " of %" PRId64 " elements\n", x->differing, x->count);
}

static void json_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

static void print_found_json(const trn_diff_found *x) {
    printf("\"operand\": ");
    json_str(x->operand);
    printf(", \"tensor\": ");
    if (x->tensor) json_str(x->tensor);
    else printf("null");
    printf(", \"dtype\": \"%s\", \"elements\": %" PRId64 ", \"differing\": %" PRId64 ", \"first\": {\"position\": %" PRId64
           ", \"index\": ", dtype_name(x->dtype), x->count, x->differing, x->first);
    print_index(stdout, x->index, x->ndim);
    printf(", \"tensor_index\": ");
    if (x->tensor) print_index(stdout, x->tensor_index, x->tensor_ndim);
    else printf("null");
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
    } else printf("null");
    if (x->ulp_known) printf(", \"ulp\": %" PRIu64 "}", x->ulp);
    else printf(", \"ulp\": null}");
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
                printf("\"instruction\": %" PRIu64 ", \"execution\": %" PRIu64 ", \"core\": %u, \"opcode\": \"%s\", "
                       "\"it\": %u, \"family\": \"%s\", \"where\": ", st->inst->number, st->index, st->core,
                       trn_diff_opname(a, st->inst), st->inst->it, trn_diff_family(a, st->inst));
            else
                printf("\"instruction\": null, \"execution\": null, \"core\": null, \"opcode\": null, \"it\": null, "
                       "\"family\": null, \"where\": ");
            if (st && st->inst->where) json_str(st->inst->where);
            else printf("null");
            printf(", ");
            print_found_json(&f[k]);
            printf("}");
        }
        return;
    }
    if (r->args->keep_going) {
        if (r->printed++ == 0)
            printf("%11s %9s %4s  %-24s %-22s %9s %9s  %-14s %s\n", "instruction", "execution", "core", "opcode",
                   "operand", "differing", "elements", "first", "ulp");
        for (int k = 0; k < shown; ++k) {
            char first[96] = "[";
            size_t m = 1;
            for (int i = 0; i < f[k].ndim && m < sizeof first; ++i)
                m += (size_t)snprintf(first + m, sizeof first - m, "%s%" PRId64, i ? ", " : "", f[k].index[i]);
            if (m < sizeof first) snprintf(first + m, sizeof first - m, "]");
            char ulp[32];
            if (f[k].ulp_known) snprintf(ulp, sizeof ulp, "%" PRIu64, f[k].ulp);
            else snprintf(ulp, sizeof ulp, "n/a");
            if (st)
                printf("%11" PRIu64 " %9" PRIu64 " %4u  %-24s", st->inst->number, st->index, st->core, trn_diff_opname(a, st->inst));
            else
                printf("%11s %9s %4s  %-24s", "-", "-", "-", "(after the run)");
            printf(" %-22s %9" PRId64 " %9" PRId64 "  %-14s %s\n", f[k].operand, f[k].differing, f[k].count, first, ulp);
        }
        return;
    }
    if (st) {
        printf("difference at instruction %" PRIu64 " (execution %" PRIu64 " on core %u): %s (IT %u, family %s)\n",
               st->inst->number, st->index, st->core, trn_diff_opname(a, st->inst), st->inst->it, trn_diff_family(a, st->inst));
        if (st->inst->where) printf("  where:     %s\n", st->inst->where);
    } else {
        printf("difference after the run, in a tensor no instruction's output covered\n");
    }
    print_found_text(r, &f[0]);
    if (n > 1) printf("  also:      %d more operand%s of this instruction differ%s\n", n - 1, n > 2 ? "s" : "",
                      n > 2 ? "" : "s");
}

/* The two runs completed different instructions (or one ended first). */
static void report_diverged(diff_run *r, int ra, const trn_step *sa, int rb, const trn_step *sb) {
    const trn_sim *a = r->sides[0].s;
    char what[2][256];
    const trn_step *st[2] = {sa, sb};
    int rr[2] = {ra, rb};
    for (int i = 0; i < 2; ++i) {
        if (rr[i] == 0) snprintf(what[i], sizeof what[i], "had finished");
        else
            snprintf(what[i], sizeof what[i], "completed instruction %" PRIu64 " (execution %" PRIu64 " on core %u, %s)",
                     st[i]->inst->number, st[i]->index, st[i]->core, trn_diff_opname(a, st[i]->inst));
    }
    if (r->args->json) {
        printf("%s\n  {\"diverged\": true, \"a\": ", r->printed++ ? "," : "");
        json_str(what[0]);
        printf(", \"b\": ");
        json_str(what[1]);
        printf("}");
        return;
    }
    printf("the runs diverged after %" PRIu64 " instructions: A %s, B %s\n", r->compared, what[0], what[1]);
}

static void print_header(const diff_run *r) {
    if (!r->args->json) return;
    printf("{\"a\": ");
    json_str(r->sides[0].label);
    printf(", \"b\": ");
    json_str(r->sides[1].label);
    printf(", \"differences\": [");
}

static void print_footer(const diff_run *r, int status) {
    uint32_t cores = trn_sim_cores(r->sides[0].s);
    if (r->args->json) {
        printf("%s], \"compared\": %" PRIu64 ", \"differing_instructions\": %" PRIu64 ", \"differing_elements\": %" PRId64
               ", \"identical\": %s}\n", r->printed ? "\n" : "", r->compared, r->differing, r->elements,
               status == 0 ? "true" : "false");
        return;
    }
    if (status == 0)
        printf("identical: %" PRIu64 " instructions on %u core%s, every output bit equal, and every tensor after the "
               "run\n", r->compared, cores, cores == 1 ? "" : "s");
    else if (r->args->keep_going)
        printf("%" PRIu64 " of %" PRIu64 " instructions differ, %" PRId64 " elements in all\n", r->differing,
               r->compared, r->elements);
}

/* ---- the lockstep loop ---- */

static int step_both(diff_run *r, trn_step *sa, trn_step *sb, int *ra, int *rb, trn_error *e) {
    trn_error eb;
    *ra = trn_sim_step(r->sides[0].s, sa, e);
    if (*ra < 0) return trn_error_prefix(e, "A (%s)", r->sides[0].label);
    *rb = trn_sim_step(r->sides[1].s, sb, &eb);
    if (*rb < 0) {
        *e = eb;
        return trn_error_prefix(e, "B (%s)", r->sides[1].label);
    }
    return 0;
}

/* 0: identical, 1: a difference, -1: error. */
static int lockstep(diff_run *r, trn_error *e) {
    static trn_diff_found found[MAX_FOUND];
    int status = 0;
    for (;;) {
        trn_step sa, sb;
        int ra = 0, rb = 0;
        if (step_both(r, &sa, &sb, &ra, &rb, e)) return -1;
        if (ra != rb || (ra && (sa.core != sb.core || sa.index != sb.index || sa.inst->number != sb.inst->number))) {
            report_diverged(r, ra, &sa, rb, &sb);
            return 1;
        }
        if (ra == 0) break;
        ++r->compared;
        int n = trn_diff_outputs(r->sides[0].s, r->sides[1].s, &sa, found, MAX_FOUND, e);
        if (n < 0)
            return trn_error_prefix(e, "instruction %" PRIu64 " (core %u, %s)", sa.inst->number, sa.core,
                                    trn_diff_opname(r->sides[0].s, sa.inst));
        if (n == 0) continue;
        ++r->differing;
        status = 1;
        report(r, &sa, found, n);
        if (!r->args->keep_going) return 1;
    }
    if (status) return status;
    /* Every output was equal: a module that wrote outside its outputs is
     * still caught here. */
    int n = trn_diff_tensors(r->sides[0].s, r->sides[1].s, found, MAX_FOUND, e);
    if (n < 0) return -1;
    if (n > 0) report(r, NULL, found, n);
    return n > 0;
}

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
    int rc = open_side(&r.sides[0], &d.a, "A", &e) || open_side(&r.sides[1], &d.b, "B", &e) ? -1 : 0;
    if (rc == 0 && trn_sim_cores(r.sides[0].s) != trn_sim_cores(r.sides[1].s))
        rc = trn_errorf(&e, "A runs %u cores, B %u: the configs must give the program the same cores",
                        trn_sim_cores(r.sides[0].s), trn_sim_cores(r.sides[1].s));
    if (rc == 0) {
        print_header(&r);
        rc = lockstep(&r, &e);
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
