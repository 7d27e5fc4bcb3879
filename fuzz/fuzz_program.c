/* libFuzzer: the native program reader, then the executor on a small
 * machine (fuzz_common.h), with every compiled-in family loaded. Built
 * twice: FUZZ_FORMAT 1 (native) and 2 (BIR JSON, docs/bir.md). Any error
 * message is fine; a crash, a sanitizer report, a hang or an allocation
 * past libFuzzer's -rss_limit_mb is a finding. Each build also reads each
 * input with its format's text fast path and with the document reader
 * alone: a program (tensors, entries, attributes) or a message that differs
 * is a finding too. */
#include "fuzz_common.h"

#include <stdio.h>

#include "exec/exec.h"
#include "frontend/frontend.h"
#include "exec/exec_test.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT 1
#endif

static trn_sim *sim;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    /* the build's embedded default (every family it has) on the small machine */
    static const char *const sets[] = {FUZZ_MACHINE_SETS};
    trn_sim_opts o = {.sets = sets,
                      .n_sets = sizeof sets / sizeof sets[0],
                      .format = FUZZ_FORMAT,
                      .max_instructions = 2000,
                      .timeout_seconds = 1.0};
    trn_error e;
    if (trn_sim_open(&sim, &o, &e)) {
        fprintf(stderr, "fuzz_program: cannot open the simulator: %s\n", e.msg);
        abort();
    }
    return 0;
}

static const trn_opcode_desc *schema_of(void *arg, uint32_t it) {
    return ((trn_sim *)arg)->reg.table[it].op;
}

static bool same_ap(const trn_ap *x, const trn_ap *y) {
    if (x->mem != y->mem || x->dtype != y->dtype || x->part_start != y->part_start ||
        x->part_count != y->part_count || x->part_step != y->part_step || x->offset != y->offset ||
        x->ndims != y->ndims)
        return false;
    for (uint32_t d = 0; d < x->ndims; ++d)
        if (x->dims[d].step != y->dims[d].step || x->dims[d].num != y->dims[d].num) return false;
    return true;
}

static bool same_operands(const trn_operand *a, const trn_operand *b, int n) {
    for (int i = 0; i < n; ++i)
        if (a[i].tensor != b[i].tensor || a[i].offset_register != b[i].offset_register ||
            !same_ap(&a[i].ap, &b[i].ap))
            return false;
    return true;
}

static bool same_tensors(const trn_program *a, const trn_program *b) {
    if (a->n_tensors != b->n_tensors || a->summary.allocations != b->summary.allocations)
        return false;
    for (int i = 0; i < a->n_tensors; ++i) {
        const trn_tensor *x = &a->tensors[i], *y = &b->tensors[i];
        if ((x->name != y->name && (!x->name || !y->name || strcmp(x->name, y->name))) ||
            x->mem != y->mem || x->dtype != y->dtype || x->ndim != y->ndim ||
            x->count != y->count || x->partition != y->partition ||
            x->offset_bytes != y->offset_bytes || !same_ap(&x->ap, &y->ap))
            return false;
        for (int d = 0; d < x->ndim; ++d)
            if (x->shape[d] != y->shape[d]) return false;
    }
    return true;
}

static bool host_key(const char *k) {
    for (const char *const *h = trn_instruction_keys; *h; ++h)
        if (!strcmp(*h, k)) return true;
    return false;
}

/* Each attribute of a in b, alike; the host's own keys (opcode, operands)
 * stay in a native document entry, not in a fast path's attributes. */
static bool attrs_in(const json_t *a, const json_t *b) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)a, key, v) {
        if (!host_key(key) && !json_equal(v, json_object_get(b, key))) return false;
    }
    return true;
}

static bool same_program(const trn_program *a, const trn_program *b) {
    if (a->n_insts != b->n_insts || !same_tensors(a, b)) return false;
    for (size_t i = 0; i < a->n_insts; ++i) {
        const trn_inst *x = &a->insts[i], *y = &b->insts[i];
        if (x->kind != y->kind || x->it != y->it || x->number != y->number || x->n_in != y->n_in ||
            x->n_out != y->n_out || x->allow_uninit != y->allow_uninit || x->jump != y->jump ||
            x->loop.trips != y->loop.trips || x->loop.reg != y->loop.reg ||
            !same_operands(x->in, y->in, x->n_in) || !same_operands(x->out, y->out, x->n_out) ||
            ((x->where || y->where) && (!x->where || !y->where || strcmp(x->where, y->where))) ||
            !attrs_in(x->obj, y->obj) || !attrs_in(y->obj, x->obj))
            return false;
    }
    return true;
}

/* The text fast path against the document reader, its oracle: the same
 * program, or the same refusal. A difference is a finding. */
static void compare_readers(const char *text) {
    char families[256];
    trn_load_opts o = {.machine = &sim->cfg.machine,
                       .default_cores = sim->cfg.cores,
                       .max_executions = sim->cfg.max_executions,
                       .format = FUZZ_FORMAT == 2 ? TRN_FORMAT_BIR : TRN_FORMAT_NATIVE,
                       .unknown_skip = sim->cfg.unknown_skip,
                       .families = trn_loader_families(&sim->reg, families, sizeof families),
                       .resolve = trn_dispatch_resolve_name,
                       .handled = trn_dispatch_handled,
                       .schema = schema_of,
                       .arg = sim};
    trn_program fast, doc;
    trn_error ef, ed;
    int rf = trn_program_load(&fast, "fuzz.json", text, &o, &ef);
    o.document_only = true;
    int rd = trn_program_load(&doc, "fuzz.json", text, &o, &ed);
    if (rf != rd || (rf && strcmp(ef.msg, ed.msg)) || (!rf && !same_program(&fast, &doc))) {
        fprintf(stderr, "fuzz: the fast path and the document reader differ: %s / %s\n",
                rf ? ef.msg : "loads", rd ? ed.msg : "loads");
        abort();
    }
    if (!rf) trn_program_free(&fast);
    if (!rd) trn_program_free(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    trn_error e;
    compare_readers(text);
    if (trn_sim_load_program_text(sim, text, "fuzz.json", &e) == 0) trn_sim_run(sim, &e);
    free(text);
    return 0;
}
