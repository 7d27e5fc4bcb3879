/* trnsim conform: generated programs on two sides in lockstep (docs/cli.md,
 * "trnsim conform"; the engine: docs/internals/conform.md). Side A is the
 * config; side B the same with --module replacements, or the program
 * reached through another front end. Exit 0: every case agrees, 1: a
 * difference (shrunk and written to --out), 2: an error. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "observers/observers.h"
#include "cli/cli_int.h"

#define EXIT_DIFFERENT 1
#define EXIT_ERROR     2

static int fail2(const char *msg) {
    cli_fail(msg);
    return EXIT_ERROR;
}

/* ---- arguments ---- */

static int parse_count(const char *opt, const char *v, uint64_t min, uint64_t *out, trn_error *e) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || x < min)
        return trn_errorf(e, "%s %s: expected an integer of at least %" PRIu64, opt, v, min);
    *out = x;
    return 0;
}

static int parse_frontends(const char *v, cf_args *a, trn_error *e) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    bool native = false;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "native"))
            native = true;
        else if (!strcmp(t, "bir"))
            a->fe_bir = true;
        else if (!strcmp(t, "python"))
            a->fe_python = true;
        else
            return trn_errorf(e, "--frontends %s: unknown front end '%s' (native, bir, python)", v,
                              t);
    }
    if (!native)
        return trn_errorf(e,
                          "--frontends %s: name native, the side the others are compared with "
                          "(e.g. native,bir)",
                          v);
    if (!a->fe_bir && !a->fe_python)
        return trn_errorf(e, "--frontends %s: name a front end besides native (bir, python)", v);
    return 0;
}

static int parse_module(const char *opt, const char *v, cf_args *a, trn_error *e) {
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return trn_errorf(e, "%s %s: expected FAMILY=PATH, e.g. search=./my-search.so", opt, v);
    if (strchr(eq + 1, '/') && access(eq + 1, R_OK) != 0)
        return trn_errorf(e, "%s %s: cannot read %s (give the module's .so file)", opt, v, eq + 1);
    if (a->n_swaps == MAX_FILES) return trn_errorf(e, "more than %d %s options", MAX_FILES, opt);
    a->swaps[a->n_swaps++] = v;
    return 0;
}

static int parse_one(int argc, char **argv, int *i, cf_args *a, trn_error *e) {
    const char *s = argv[*i];
    int rc = cli_parse_config_arg(argc, argv, i, &a->cfg, e);
    if (rc) return rc < 0 ? -1 : 0;
    if (!strcmp(s, "--keep-going")) return a->keep_going = true, 0;
    if (!strcmp(s, "--json")) return a->json = true, 0;
    if (*i + 1 >= argc) {
        if (!strncmp(s, "--", 2)) return trn_errorf(e, "%s needs a value", s);
        return trn_errorf(e, "unexpected argument '%s' (conform takes options only)", s);
    }
    const char *v = argv[++*i];
    if (!strcmp(s, "--family")) {
        if (a->g.n_families == MAX_FILES) return trn_errorf(e, "too many --family options");
        a->g.families[a->g.n_families++] = v;
    } else if (!strcmp(s, "--opcode")) {
        if (a->g.n_opcodes == MAX_FILES) return trn_errorf(e, "too many --opcode options");
        a->g.opcodes[a->g.n_opcodes++] = v;
    } else if (!strcmp(s, "--module") || !strcmp(s, "--against-module")) {
        return parse_module(s, v, a, e);
    } else if (!strcmp(s, "--cases")) {
        a->cases_given = true;
        return parse_count(s, v, 1, &a->cases, e);
    } else if (!strcmp(s, "--seed")) {
        a->seed_given = true;
        return parse_count(s, v, 0, &a->seed, e);
    } else if (!strcmp(s, "--time")) {
        char *end;
        a->time = strtod(v, &end);
        if (!*v || *end || !(a->time > 0))
            return trn_errorf(e, "--time %s: expected a number of seconds above 0", v);
    } else if (!strcmp(s, "--frontends")) {
        return parse_frontends(v, a, e);
    } else if (!strcmp(s, "--out")) {
        a->out = v;
    } else {
        --*i;
        return trn_errorf(e, "unknown option '%s' (trnsim conform --help lists them)", s);
    }
    return 0;
}

/* --out is checked before any case runs, as every output target is
 * (docs/cli.md, "Files a command writes"): a difference found after hours
 * must not be lost to a path that cannot take it. The folder itself is
 * created only when a case differs (its missing parents too), so this is
 * the path or its nearest existing ancestor: a directory, writable. */
static int check_out(const char *out, trn_error *e) {
    if (!*out)
        return trn_errorf(e, "--out '': expected a directory to write differing cases to "
                             "(default conform-out)");
    char path[PATH_MAX];
    if (strlen(out) >= sizeof path - 64)
        return trn_errorf(e, "--out %.200s...: the path is too long; name a shorter one", out);
    snprintf(path, sizeof path, "%s", out);
    struct stat st;
    while (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return trn_errorf(e, "--out %s: cannot create it: %s (at %s); name a directory path",
                              out, strerror(errno), path);
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/') path[--n] = 0;
        char *slash = strrchr(path, '/');
        if (!slash)
            snprintf(path, sizeof path, ".");
        else
            slash[slash == path] = 0; /* "/x" -> "/" */
    }
    if (!S_ISDIR(st.st_mode))
        return trn_errorf(e,
                          "--out %s: %s exists and is not a directory; name a directory (new or "
                          "existing) for the differing cases",
                          out, path);
    if (access(path, W_OK | X_OK) != 0)
        return trn_errorf(e, "--out %s: cannot create folders in %s: %s; name a writable place",
                          out, path, strerror(errno));
    return 0;
}

static int parse_args(int argc, char **argv, cf_args *a, trn_error *e) {
    a->cases = 100;
    a->out = "conform-out";
    for (int i = 0; i < argc; ++i)
        if (parse_one(argc, argv, &i, a, e)) return -1;
    if (a->time > 0 && !a->cases_given) a->cases = UINT64_MAX;
    if ((a->fe_bir || a->fe_python) && a->n_swaps)
        return trn_errorf(e, "--frontends compares front ends on one config; give --module / "
                             "--against-module in a separate run");
    if (!a->fe_bir && !a->fe_python && !a->n_swaps)
        return trn_errorf(e, "nothing to compare: give --module FAMILY=PATH (side B's module) or "
                             "--frontends native,bir");
    for (int i = 0; i < a->n_swaps && !a->g.n_families && !a->g.n_opcodes; ++i) {
        /* by default the families whose module B replaces */
        size_t len = (size_t)(strchr(a->swaps[i], '=') - a->swaps[i]);
        snprintf(a->swap_family[i], sizeof a->swap_family[i], "%.*s", (int)len, a->swaps[i]);
    }
    for (int i = 0; i < a->n_swaps && a->swap_family[i][0]; ++i)
        a->g.families[a->g.n_families++] = a->swap_family[i];
    if (check_out(a->out, e)) return -1;
    if (!a->seed_given) a->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    a->argv = argv;
    a->argc = argc;
    return 0;
}

/* ---- the sides ---- */

/* cores > 0: the BIR side of a program of that many cores (BIR carries no
 * core count: the config's machine.cores gives it). */
static int open_side(cf_side *sd, const cf_args *a, bool swapped, uint32_t cores, trn_error *e) {
    static run_args r;
    memset(&r, 0, sizeof r);
    r.cfg = a->cfg;
    char set[64];
    snprintf(set, sizeof set, "machine.cores=%u", cores);
    if (cores > 1 && r.cfg.n_sets < MAX_FILES) r.cfg.sets[r.cfg.n_sets++] = set;
    if (swapped) {
        memcpy(r.module_swaps, a->swaps, (size_t)a->n_swaps * sizeof a->swaps[0]);
        r.n_module_swaps = a->n_swaps;
    }
    size_t n = (size_t)snprintf(sd->label, sizeof sd->label, "%s",
                                a->cfg.config ? a->cfg.config : "<embedded default config>");
    for (int i = 0; i < a->cfg.n_sets && n < sizeof sd->label; ++i)
        n += (size_t)snprintf(sd->label + n, sizeof sd->label - n, " --set %s", a->cfg.sets[i]);
    for (int i = 0; i < r.n_module_swaps && n < sizeof sd->label; ++i)
        n += (size_t)snprintf(sd->label + n, sizeof sd->label - n, " --module %s",
                              r.module_swaps[i]);
    if (cli_open_sim(&sd->h, &r, e)) return -1;
    sd->s = trn_embed_host_sim(sd->h);
    if (trn_sim_is_distributed(sd->s))
        return trn_errorf(e, "conform runs in one process; start it without mpirun");
    return 0;
}

/* The BIR side for `cores` cores (opened once, kept in R->bir) as side B. */
static int bir_side(cf_run *R, uint32_t cores, trn_error *e) {
    if (cores >= CF_MAX_CORES)
        return trn_errorf(e, "--frontends bir: a case of %u cores; a program has at most %d", cores,
                          CF_MAX_CORES - 1);
    cf_side *sd = &R->bir[cores];
    if (!sd->h && open_side(sd, R->args, false, cores, e))
        return trn_error_prefix(e, "side B (the BIR front end)");
    snprintf(sd->label, sizeof sd->label, "the BIR front end");
    R->side[1] = *sd;
    return 0;
}

static int open_sides(cf_run *R, trn_error *e) {
    const cf_args *a = R->args;
    if (open_side(&R->side[0], a, false, 0, e)) return trn_error_prefix(e, "side A");
    if (a->fe_bir && bir_side(R, 1, e)) return -1;
    if (a->n_swaps && open_side(&R->side[1], a, true, 0, e)) return trn_error_prefix(e, "side B");
    if (a->fe_python && cf_python_setup(R, e)) return -1;
    return 0;
}

/* --module FAMILY=...: the family must be one the config loads. */
static int check_selection(cf_run *R, trn_error *e) {
    const trn_registry *reg = trn_sim_registry(R->side[0].s);
    const cf_engine *g = &R->args->g;
    for (int i = 0; i < g->n_families; ++i) {
        bool found = false;
        for (size_t m = 0; m < reg->n_mods; ++m)
            found |= reg->mods[m].desc && !strcmp(reg->mods[m].desc->family, g->families[i]);
        if (!found)
            return trn_errorf(e, "--family %s: the config loads no module of that family (%s)",
                              g->families[i], reg->cfg ? "see trnsim opcodes" : "");
    }
    for (int i = 0; i < g->n_opcodes; ++i) {
        uint32_t it;
        trn_error e2;
        if (trn_sim_resolve_opcode(R->side[0].s, g->opcodes[i], &it, &e2) || !reg->table[it].op)
            return trn_errorf(e, "--opcode %s: %s", g->opcodes[i],
                              e2.msg[0] ? e2.msg : "no loaded module handles it");
    }
    return 0;
}

/* ---- one case ---- */

static void on_found(void *arg, const trn_step *st, const trn_diff_found *f, int n) {
    cf_run *R = arg;
    (void)n;
    if (R->what[0]) return;
    R->diff_row = f->tensor && f->tensor_ndim > 1 ? f->tensor_index[0] : 0;
    if (st)
        snprintf(R->what, sizeof R->what,
                 "instruction %" PRIu64 " (core %u, %s): %s differs, %" PRId64 " of %" PRId64
                 " elements",
                 st->inst->number, st->core, trn_diff_opname(R->side[0].s, st->inst), f->operand,
                 f->differing, f->count);
    else
        snprintf(R->what, sizeof R->what, "after the run: %s differs, %" PRId64 " elements",
                 f->operand, f->differing);
}

/* A module that documents NaN payloads as open (a quirk named
 * FAMILY.unpinned_nan_payload) makes no promise about which NaN its
 * opcodes give: conform compares their NaNs as equal and counts them. */
static bool nan_payload_open(void *arg, const trn_step *st) {
    const cf_run *R = arg;
    const trn_registry *reg = trn_sim_registry(R->side[0].s);
    const trn_module *m = st->inst->it <= TRN_IT_MAX ? reg->table[st->inst->it].owner : NULL;
    for (uint32_t q = 0; m && q < m->desc->n_quirks; ++q) {
        const char *name = m->desc->quirks[q].name, *dot = strrchr(name, '.');
        if (dot && !strcmp(dot + 1, "unpinned_nan_payload")) return true;
    }
    return false;
}

static void on_diverged(void *arg, const char *what) {
    cf_run *R = arg;
    if (!R->what[0]) snprintf(R->what, sizeof R->what, "the runs diverged: %s", what);
}

void cf_case_free_inputs(cf_run *R) {
    for (int i = 0; i < R->n_inputs; ++i) free(R->inputs[i].data);
    R->n_inputs = 0;
}

/* The inputs of the loaded program: every recipe tensor marked "input". */
static int make_inputs(cf_run *R, const cf_case *c, trn_error *e) {
    cf_case_free_inputs(R);
    for (int k = 0; k < c->n_inst; ++k) {
        json_t *t;
        size_t i;
        json_array_foreach(json_object_get(c->inst[k].r->obj, "tensors"), i, t) {
            const char *name = json_string_value(json_object_get(t, "name"));
            if (!json_is_true(json_object_get(t, "input")) || !name ||
                !cf_tensor_used(&c->inst[k], name))
                continue;
            if (R->n_inputs == CF_MAX_INPUTS) return trn_errorf(e, "too many inputs");
            cf_input *in = &R->inputs[R->n_inputs];
            if (c->n_inst == 1)
                snprintf(in->name, sizeof in->name, "%s", name);
            else
                snprintf(in->name, sizeof in->name, "i%d_%s", k, name);
            trn_tensor_info ti;
            if (trn_sim_tensor_info(R->side[0].s, in->name, &ti, e)) return -1;
            in->dtype = (trn_dtype)ti.dtype;
            in->ndim = ti.ndim;
            memcpy(in->shape, ti.shape, (size_t)ti.ndim * sizeof ti.shape[0]);
            in->count = ti.count;
            in->cores = c->cores;
            size_t bytes = (size_t)ti.count * trn_dtype_width(in->dtype) * c->cores;
            in->data = malloc(bytes ? bytes : 1);
            if (!in->data) return trn_errorf(e, "out of memory for input '%s'", in->name);
            ++R->n_inputs;
            uint64_t h = c->seed ^ cf_mix((uint64_t)c->inst[k].origin << 32 ^ i);
            cf_fill_input(in, cf_mix(h), c->row_shift);
        }
    }
    cf_apply_zero_hook(R);
    return 0;
}

static int set_inputs(cf_run *R, trn_sim *s, trn_error *e) {
    for (int i = 0; i < R->n_inputs; ++i) {
        const cf_input *in = &R->inputs[i];
        size_t bytes = (size_t)in->count * trn_dtype_width(in->dtype);
        for (uint32_t c = 0; c < in->cores; ++c)
            if (trn_sim_set_tensor(s, in->name, (int)c, in->data + c * bytes, bytes, e)) return -1;
    }
    return 0;
}

/* The loaded program of A as BIR text in R->bir_text. BIR has no core
 * count: a multi-core one is written from the BIR side of its core count,
 * whose machine.cores matches it (a 1-core copy failed the static check of
 * every instruction whose attributes name ranks, and such a case was
 * counted as one BIR cannot say). 1: BIR cannot say it. */
static int write_bir(cf_run *R, const cf_case *c, trn_error *e) {
    trn_sim *w = R->side[0].s;
    if (c->cores > 1) {
        w = R->bir[c->cores].s;
        if (trn_sim_load_program_document(w, json_incref(R->prog), "conform case", e)) return 1;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return trn_errorf(e, "out of memory");
    int rc = trn_sim_write_bir(w, f, e);
    fclose(f);
    free(R->bir_text);
    R->bir_text = rc ? NULL : text;
    if (rc) free(text);
    return rc ? 1 : 0;
}

/* Side B's program: the same document, or its BIR translation read back.
 * -2: the BIR side could not be opened (conform's error, not B's verdict). */
static int load_b(cf_run *R, const cf_case *c, const char *name, trn_error *e) {
    if (!R->args->fe_bir)
        return trn_sim_load_program_document(R->side[1].s, json_incref(R->prog), name, e);
    if (bir_side(R, 1, e) || bir_side(R, c->cores, e)) return -2;
    int rc = write_bir(R, c, e);
    if (rc) {
        R->bir_refused = rc == 1;
        return -1;
    }
    return trn_sim_load_program_text(R->side[1].s, R->bir_text, name, e);
}

/* Side `side` failed (le): a difference when the other runs to its end,
 * agreement when it fails too (the program cannot run on either). */
static int one_failed(cf_run *R, int side, trn_error *le, trn_error *e) {
    if (side < 0) {
        *e = *le;
        return -1;
    }
    trn_sim *other = R->side[1 - side].s;
    trn_step st;
    trn_error oe;
    int rc;
    while ((rc = trn_sim_step(other, &st, &oe)) > 0) {}
    if (rc < 0) {
        R->native_failed = true; /* both failed: the case agrees, uncompared */
        return CF_AGREE;
    }
    R->run_failed = true;
    snprintf(R->what, sizeof R->what, "only %c failed: %.900s", "AB"[side], le -> msg);
    return CF_DIFFER;
}

/* Build, check and run case c on both sides. Returns CF_AGREE, CF_DIFFER,
 * CF_INVALID (A's static check refused it: msg in R->invalid) or -1. */
int cf_run_case(cf_run *R, cf_case *c, trn_error *e) {
    char name[64];
    snprintf(name, sizeof name, "conform case %" PRIu64, c->index);
    R->what[0] = 0;
    R->bir_refused = R->run_failed = R->native_failed = false;
    json_decref(R->prog);
    R->prog = cf_build_program(c, e);
    if (!R->prog) return -1;
    trn_error le;
    if (trn_sim_load_program_document(R->side[0].s, json_incref(R->prog), name, &le)) {
        snprintf(R->invalid, sizeof R->invalid, "%s", le.msg);
        return CF_INVALID;
    }
    if (make_inputs(R, c, e) || set_inputs(R, R->side[0].s, e)) return -1;
    if (!R->side[1].s) { /* the Python side alone: A runs now, the batch compares later */
        R->native_failed = trn_sim_run(R->side[0].s, &le) != 0;
        return CF_AGREE;
    }
    int lb = load_b(R, c, name, &le);
    if (lb == -2) {
        *e = le;
        return -1;
    }
    if (lb) {
        if (R->bir_refused) { /* counted: BIR cannot say it; A runs alone (for Python) */
            R->native_failed = trn_sim_run(R->side[0].s, &le) != 0;
            return CF_AGREE;
        }
        snprintf(R->what, sizeof R->what, "B refused the program A accepted: %.900s", le.msg);
        R->run_failed = true;
        return CF_DIFFER;
    }
    if (set_inputs(R, R->side[1].s, e)) return -1;
    for (int i = 0; i < 2; ++i)
        if (trn_sim_run_start(R->side[i].s, &le)) {
            snprintf(R->what, sizeof R->what, "%c cannot start: %.900s", "AB"[i], le.msg);
            R->run_failed = true;
            return CF_DIFFER;
        }
    trn_lockstep ls = {.sim = {R->side[0].s, R->side[1].s},
                       .label = {R->side[0].label, R->side[1].label},
                       .report = {R, on_found, on_diverged, nan_payload_open}};
    int rc = trn_lockstep_run(&ls, &le);
    R->nan_payload_only += ls.nan_payload_only;
    if (rc < 0) return one_failed(R, ls.failed_side, &le, e);
    return rc ? CF_DIFFER : CF_AGREE;
}

/* ---- drawing cases ---- */

/* One of op's recipes that allows `cores` cores, at random; NULL: none. */
static cf_recipe *pick_recipe(cf_opcode *op, uint64_t *st, uint32_t cores) {
    cf_recipe *fit[64];
    int n = 0;
    for (int i = 0; i < op->n_recipes && n < 64; ++i)
        if ((op->recipes[i].cores_min <= cores && cores <= op->recipes[i].cores_max))
            fit[n++] = &op->recipes[i];
    return n ? fit[cf_next(st) % (uint64_t)n] : NULL;
}

/* Case i: the opcodes take turns; 1-3 instances, one core count. */
int cf_draw_case(cf_run *R, uint64_t index, cf_case *c, trn_error *e) {
    cf_engine *g = &R->g;
    memset(c, 0, sizeof *c);
    c->index = index;
    c->seed = cf_mix(R->args->seed ^ cf_mix(index + 1));
    uint64_t st = c->seed;
    const trn_registry *reg = trn_sim_registry(R->side[0].s);
    /* the opcodes, each one's recipes and the recipe's first dtype take turns */
    cf_opcode *op = &g->ops[index % (uint64_t)g->n_ops];
    uint64_t turn = index / (uint64_t)g->n_ops;
    cf_recipe *r = &op->recipes[turn % (uint64_t)op->n_recipes];
    turn /= (uint64_t)op->n_recipes;
    c->cores = (uint32_t)cf_range(&st, r->cores_min, r->cores_max);
    int want = (int)cf_range(&st, 1, CF_MAX_INST);
    for (int k = 0; k < want; ++k) {
        if (k > 0) {
            cf_opcode *o2 = &g->ops[cf_next(&st) % (uint64_t)g->n_ops];
            r = pick_recipe(o2, &st, c->cores);
            if (!r) continue;
        }
        cf_instance *in = &c->inst[c->n_inst];
        if (cf_draw_instance(in, r, reg, &st, k == 0 ? (int64_t)turn : -1, e)) {
            cf_instance_free(in); /* not counted in n_inst: its partial draws */
            return -1;
        }
        in->origin = k;
        ++c->n_inst;
    }
    cf_set_cores(c, c->cores);
    return 0;
}

void cf_set_cores(cf_case *c, uint32_t cores) {
    c->cores = cores;
    for (int k = 0; k < c->n_inst; ++k) c->inst[k].cores = cores;
}

void cf_case_free(cf_case *c) {
    for (int k = 0; k < c->n_inst; ++k) cf_instance_free(&c->inst[k]);
    c->n_inst = 0;
}

/* ---- counting ---- */

static cf_count *count_slot(cf_run *R, const char *opcode, const char *dtypes) {
    for (int i = 0; i < R->n_counts; ++i)
        if (!strcmp(R->counts[i].opcode, opcode) && !strcmp(R->counts[i].dtypes, dtypes))
            return &R->counts[i];
    if (R->n_counts == CF_MAX_COUNTS) return NULL;
    cf_count *k = &R->counts[R->n_counts++];
    snprintf(k->opcode, sizeof k->opcode, "%s", opcode);
    snprintf(k->dtypes, sizeof k->dtypes, "%s", dtypes);
    return k;
}

static cf_family *family_slot(cf_run *R, const char *fam) {
    for (int i = 0; i < R->n_fams; ++i)
        if (!strcmp(R->fams[i].family, fam)) return &R->fams[i];
    if (R->n_fams == CF_MAX_COUNTS) return NULL;
    cf_family *f = &R->fams[R->n_fams++];
    snprintf(f->family, sizeof f->family, "%s", fam);
    return f;
}

static const char *family_of(const trn_registry *reg, const char *opname) {
    for (uint32_t it = 0; it <= TRN_IT_MAX; ++it)
        if (reg->table[it].op && reg->table[it].owner && !strcmp(reg->table[it].op->name, opname))
            return reg->table[it].owner->desc->family;
    return "?";
}

/* Whether instance k alone passes the static check (an invalid chained
 * program is charged to the instances that are invalid by themselves);
 * its message in R->invalid when not. Replaces A's program. */
static bool instance_valid(cf_run *R, const cf_case *c, int k) {
    cf_case one = *c; /* shallow: built from, never freed */
    one.inst[0] = c->inst[k];
    one.n_inst = 1;
    trn_error e;
    json_t *prog = cf_build_program(&one, &e);
    if (prog && !trn_sim_load_program_document(R->side[0].s, prog, "conform instance", &e))
        return true;
    snprintf(R->invalid, sizeof R->invalid, "%s", e.msg);
    return false;
}

/* Tally a built case: per opcode and dtype (its first instance), each
 * instance's instructions per family, valid or not, and its recipe. */
static void tally(cf_run *R, const cf_case *c, bool valid) {
    const cf_instance *in = &c->inst[0];
    char dts[128] = "";
    size_t n = 0;
    for (int i = 0; i < in->n_dtypes && n < sizeof dts; ++i)
        n += (size_t)snprintf(dts + n, sizeof dts - n, "%s%s", i ? "," : "", in->dtype_val[i]);
    if (!in->n_dtypes) snprintf(dts, sizeof dts, "-");
    cf_count *k = count_slot(R, in->r->op->name, dts);
    if (k) ++k->cases;
    const trn_registry *reg = trn_sim_registry(R->side[0].s);
    for (int j = 0; j < c->n_inst; ++j) {
        const cf_instance *ij = &c->inst[j];
        bool ok = valid || (c->n_inst == 1 ? false : instance_valid(R, c, j));
        json_t *inst;
        size_t i;
        json_array_foreach(json_object_get(ij->r->obj, "instructions"), i, inst) {
            const char *opname = json_string_value(json_object_get(inst, "opcode"));
            cf_family *f = family_slot(R, opname ? family_of(reg, opname) : "?");
            if (!f || (i < 64 && (ij->dropped >> i) & 1)) continue;
            ++f->instructions;
            f->valid += ok;
        }
        cf_recipe *r = ij->r;
        ++r->programs;
        r->valid += ok;
        if (!ok && !r->first_error[0])
            snprintf(r->first_error, sizeof r->first_error, "%s", R->invalid);
    }
}

/* ---- the run ---- */

static int one_case(cf_run *R, uint64_t i, trn_error *e) {
    cf_case c;
    if (cf_draw_case(R, i, &c, e)) {
        cf_case_free(&c);
        return -1;
    }
    int rc = cf_run_case(R, &c, e);
    if (rc >= 0) tally(R, &c, rc != CF_INVALID);
    if (rc == CF_INVALID) ++R->invalid_cases;
    if (rc == CF_AGREE) {
        ++R->agree;
        /* not compared; a case BIR cannot say never ran on B (counted below) */
        R->both_failed += R->native_failed && R->side[1].s && !R->bir_refused;
        if (R->bir_refused) ++R->bir_refused_cases;
        if (R->args->fe_python && cf_python_add(R, &c, e)) rc = -1;
    }
    if (rc == CF_DIFFER) {
        ++R->differ;
        rc = cf_report_difference(R, &c, e);
    }
    cf_case_free(&c);
    return rc;
}

static int run_cases(cf_run *R, trn_error *e) {
    const cf_args *a = R->args;
    double t0 = trn_now();
    for (uint64_t i = 0; i < a->cases; ++i) {
        if (a->time > 0 && trn_now() - t0 >= a->time) break;
        int rc = one_case(R, i, e);
        if (rc < 0) return -1;
        ++R->ran;
        if (R->differ && !a->keep_going) break;
        if (a->fe_python && cf_python_flush(R, false, e)) return -1;
        if (R->differ && !a->keep_going) break;
    }
    if (a->fe_python && cf_python_flush(R, true, e)) return -1;
    R->seconds = trn_now() - t0;
    return 0;
}

int cli_cmd_conform(int argc, char **argv) {
    static cf_args a;
    static cf_run R;
    memset(&a, 0, sizeof a);
    memset(&R, 0, sizeof R);
    trn_error e;
    e.msg[0] = 0;
    int rc = parse_args(argc, argv, &a, &e);
    R.args = &a;
    R.g = a.g;
    if (rc == 0) rc = open_sides(&R, &e);
    if (rc == 0) rc = check_selection(&R, &e);
    if (rc == 0) rc = cf_select(&R.g, trn_sim_registry(R.side[0].s), &e);
    if (rc == 0 && R.g.n_ops == 0) rc = trn_errorf(&e, "no opcode selected");
    if (rc == 0) rc = run_cases(&R, &e);
    if (rc == 0) cf_print_summary(&R);
    if (rc == 0 && R.ran == 0) /* only --time can end a run before its first case */
        rc = trn_errorf(&e,
                        "--time %g: no case started within it: nothing is proven; give more "
                        "seconds",
                        a.time);
    /* without Python, a case the BIR writer cannot say ran on A alone */
    uint64_t a_only = a.fe_python ? 0 : R.bir_refused_cases;
    char a_only_text[96] = "";
    if (a_only)
        snprintf(a_only_text, sizeof a_only_text,
                 ", %" PRIu64 " the BIR writer cannot express (run on A only)", a_only);
    if (rc == 0 && R.agree + R.differ == R.both_failed + a_only)
        rc = trn_errorf(&e,
                        "none of the %" PRIu64 " cases was compared (%" PRIu64
                        " failed the static check, %" PRIu64
                        " failed on both sides%s): nothing is proven; fix the recipes the summary "
                        "names",
                        R.ran, R.invalid_cases, R.both_failed, a_only_text);
    cf_case_free_inputs(&R);
    json_decref(R.prog);
    free(R.bir_text);
    cf_python_free(&R);
    cf_unselect(&R.g);
    trnsim_close(R.side[0].h);
    if (!a.fe_bir) trnsim_close(R.side[1].h);
    for (int i = 0; i < CF_MAX_CORES; ++i) trnsim_close(R.bir[i].h);
    if (rc) {
        fflush(stdout);
        trn_error_prefix(&e, "conform");
        return fail2(e.msg);
    }
    return R.differ ? EXIT_DIFFERENT : 0;
}
