/* BIR JSON reading and loops: reading a 10^5-instruction BIR file against
 * reading the same program in the native format, and a loop of 10^6 trips
 * over one instruction against the 10^6 instructions written out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "exec/exec_test.h"
#include "frontend/frontend.h"

static const char copy_config[] = "plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; } );";
static const char nop_config[] =
    "plugins = ( { family = \"benchnop\"; module = \"trnsim-benchnop\"; } );";

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const char *s) {
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        t->cap = (t->n + k + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p) abort();
    }
    memcpy(t->p + t->n, s, k + 1);
    t->n += k;
}

/* n TensorCopy instructions between two [128, 64] fp32 SBUF tensors, each
 * a different 8-column window. */
static char *bir_program(int n) {
    text t = {0};
    put(&t, "{\"version\": 2, \"arch\": \"gen3\", \"functions\": [{\"name\": \"sg0000\", "
            "\"allocations\": ["
            "{\"name\": \"a\", \"kind\": \"Internal\", \"dtype\": \"float32\", \"tensor_shape\": "
            "[128, 64],"
            " \"memorylocations\": [{\"name\": \"a_sb\", \"type\": \"SB\", \"addr\": 0, \"dims\": "
            "[128, 256]}]},"
            "{\"name\": \"b\", \"kind\": \"Internal\", \"dtype\": \"float32\", \"tensor_shape\": "
            "[128, 64],"
            " \"memorylocations\": [{\"name\": \"b_sb\", \"type\": \"SB\", \"addr\": 256, "
            "\"dims\": [128, 256]}]}],"
            " \"blocks\": [{\"name\": \"main\", \"instructions\": [");
    char buf[512];
    for (int i = 0; i < n; ++i) {
        int off = (i % 8) * 8;
        snprintf(
            buf, sizeof buf,
            "%s{\"opcode\": \"TensorCopy\", \"name\": \"c%d\", \"engine\": \"dma\", \"ins\": "
            "[{\"kind\": "
            "\"physical_ap\", \"ap\": [[64, 128], [1, 8]], \"dtype\": \"float32\", \"offset\": %d, "
            "\"memsetref\": "
            "\"a\", \"memref\": \"a_sb\"}], \"outs\": [{\"kind\": \"physical_ap\", \"ap\": [[64, "
            "128], [1, 8]], "
            "\"dtype\": \"float32\", \"offset\": %d, \"memsetref\": \"b\", \"memref\": \"b_sb\"}]}",
            i ? "," : "", i, off, off);
        put(&t, buf);
    }
    put(&t, "]}]}]}");
    return t.p;
}

/* The same program in the native format, as `trnsim convert` writes it
 * (without indentation). */
static char *native_program(int n) {
    text t = {0};
    put(&t, "{\"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
            "\"shape\": [128, 64], "
            "\"partition\": 0, \"offset\": 0}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": "
            "\"float32\", "
            "\"shape\": [128, 64], \"partition\": 0, \"offset\": 256}], \"instructions\": [");
    char buf[512];
    for (int i = 0; i < n; ++i) {
        int off = (i % 8) * 8;
        snprintf(buf, sizeof buf,
                 "%s{\"opcode\": \"TensorCopy\", \"inputs\": [{\"tensor\": \"a\", \"offset\": %d, "
                 "\"ap\": [[1, 8]]}],"
                 " \"outputs\": [{\"tensor\": \"b\", \"offset\": %d, \"ap\": [[1, 8]]}], "
                 "\"comment\": \"BIR c%d\"}",
                 i ? "," : "", off, off, i);
        put(&t, buf);
    }
    put(&t, "]}");
    return t.p;
}

typedef struct load_arg {
    trn_sim *s;
    const char *text;
} load_arg;

static void do_load(void *arg) {
    load_arg *l = arg;
    bench_load(l->s, l->text);
}

/* The front end alone (no module checks): BIR, native by its text fast
 * path, native as one document (the reader BIR was measured against
 * before the fast path). */
typedef struct parse_arg {
    trn_sim *s;
    const char *text;
    bool document;
} parse_arg;

static const trn_opcode_desc *schema_of(void *arg, uint32_t it) {
    return ((trn_sim *)arg)->reg.table[it].op;
}

static void do_parse(void *arg) {
    parse_arg *a = arg;
    trn_load_opts o = {.machine = &a->s->cfg.machine,
                       .default_cores = 1,
                       .resolve = trn_dispatch_resolve_name,
                       .handled = trn_dispatch_handled,
                       .schema = schema_of,
                       .arg = a->s,
                       .document_only = a->document};
    trn_program p;
    trn_error e;
    if (trn_program_load(&p, "<bench program>", a->text, &o, &e)) abort();
    trn_program_free(&p);
}

/* Both readings give the same instruction list: opcodes and operand APs. */
static int same_program(const trn_program *a, const trn_program *b) {
    if (a->n_insts != b->n_insts || a->n_tensors != b->n_tensors) return 0;
    for (size_t i = 0; i < a->n_insts; ++i) {
        const trn_inst *x = &a->insts[i], *y = &b->insts[i];
        if (x->it != y->it || x->n_in != y->n_in || x->n_out != y->n_out) return 0;
        for (int k = 0; k < x->n_in; ++k)
            if (memcmp(&x->in[k].ap, &y->in[k].ap, sizeof x->in[k].ap)) return 0;
        for (int k = 0; k < x->n_out; ++k)
            if (memcmp(&x->out[k].ap, &y->out[k].ap, sizeof x->out[k].ap)) return 0;
    }
    return 1;
}

static int check_same(trn_sim *bir, trn_sim *nat, const char *bt, const char *nt) {
    bench_load(bir, bt);
    bench_load(nat, nt);
    return same_program(&bir->prog, &nat->prog);
}

BENCH_CASE(bir_read) {
    int n = bench_quick() ? 10000 : 100000;
    char *bt = bir_program(n), *nt = native_program(n);
    trn_sim *sb = bench_open(copy_config), *sn = bench_open(copy_config);
    if (!check_same(sb, sn, bt, nt)) {
        printf("bir_read: the BIR and native readings differ; no timing\n");
    } else {
        load_arg lb = {sb, bt}, ln = {sn, nt};
        const bench_job base = {do_load, &ln};
        bench_paired r;
        bench_compare((bench_job){do_load, &lb}, &base, 1, 3.0, &r);
        char size[64];
        snprintf(size, sizeof size, "%d instr, %zu / %zu KiB", n, strlen(bt) >> 10,
                 strlen(nt) >> 10);
        parse_arg pb = {sb, bt, false}, pf = {sn, nt, false}, pd = {sn, nt, true};
        const bench_job bases[2] = {{do_parse, &pf}, {do_parse, &pd}};
        bench_paired rp[2];
        bench_compare((bench_job){do_parse, &pb}, bases, 2, 3.0, rp);
        if (!check_same(sb, sn, bt, nt)) {
            bench_mismatch_after("BIR read");
        } else {
            bench_report("read BIR JSON (TensorCopy)", size, n, "instr",
                         "read the native equivalent", &r);
            bench_report("parse BIR (front end only)", size, n, "instr", "native, text fast path",
                         &rp[0]);
            bench_report("parse BIR (front end only)", size, n, "instr", "native as one document",
                         &rp[1]);
        }
    }
    trn_sim_close(sb);
    trn_sim_close(sn);
    free(bt);
    free(nt);
}

static char *nop_loop(int trips) {
    char *p = malloc(200);
    snprintf(p, 200,
             "{\"tensors\": [], \"instructions\": [{\"loop\": {\"trips\": %d, \"register\": 0, "
             "\"body\": "
             "[{\"opcode\": 250}]}}]}",
             trips);
    return p;
}

static char *nop_written_out(int n) {
    text t = {0};
    put(&t, "{\"tensors\": [], \"instructions\": [");
    for (int i = 0; i < n; ++i) put(&t, i ? ",{\"opcode\": 250}" : "{\"opcode\": 250}");
    put(&t, "]}");
    return t.p;
}

BENCH_CASE(bir_loop) {
    int n = bench_quick() ? 100000 : 1000000;
    char *lt = nop_loop(n), *wt = nop_written_out(n);
    trn_sim *sl = bench_open(nop_config), *sw = bench_open(nop_config);
    bench_load(sl, lt);
    bench_load(sw, wt);
    bench_run(sl);
    bench_run(sw);
    const uint64_t per_run = sl->stats.count[250];
    const bench_job base = bench_run_job(sw);
    bench_paired r;
    bench_compare(bench_run_job(sl), &base, 1, 3.0, &r);
    char size[96];
    snprintf(size, sizeof size, "%d trips; %zu vs %zu entries", n, sl->prog.n_insts,
             sw->prog.n_insts);
    /* both executed the opcode equally often */
    if (per_run != (uint64_t)n || sl->stats.count[250] != sw->stats.count[250])
        bench_mismatch_after("loop count");
    else
        bench_report("loop of BenchNop", size, n, "instr", "the instructions written out", &r);
    trn_sim_close(sl);
    trn_sim_close(sw);
    free(lt);
    free(wt);
}
