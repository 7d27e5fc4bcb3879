/* What the façade tells the folders above it about the loaded run: the
 * cores, the program's path and tensors, the config file. Observers,
 * dumps and distribution read these instead of reaching into trn_sim. */
#include "exec/exec_int.h"

uint32_t trn_sim_cores(const trn_sim *s) { return s->ncores; }
uint64_t trn_sim_executions(const trn_sim *s) {
    return s->have_prog ? s->prog.summary.executions : 0;
}
const char *trn_sim_program_path(const trn_sim *s) { return s->have_prog ? s->prog.path : ""; }

int trn_sim_tensor_info(const trn_sim *s, const char *name, trn_tensor_info *out, trn_error *e) {
    int i = s->have_prog ? trn_program_find_tensor(&s->prog, name) : 0;
    if (!s->have_prog || i >= s->prog.n_tensors)
        return trn_errorf(e, "%s: no tensor named '%s'", trn_sim_program_path(s), name);
    const trn_tensor *t = &s->prog.tensors[i];
    *out = (trn_tensor_info){t->name, (int)t->dtype, t->ndim, t->shape, t->count};
    return 0;
}

int trn_sim_tensor_count(const trn_sim *s) { return s->have_prog ? s->prog.n_tensors : 0; }

int trn_sim_tensor_at(const trn_sim *s, int index, trn_tensor_info *out, trn_error *e) {
    if (index < 0 || index >= trn_sim_tensor_count(s))
        return trn_errorf(e, "tensor index %d is outside 0..%d", index,
                          trn_sim_tensor_count(s) - 1);
    return trn_sim_tensor_info(s, s->prog.tensors[index].name, out, e);
}

const char *trn_sim_config_file(const trn_sim *s) { return s->cfg.file ? s->cfg.file : ""; }

void trn_sim_set_hooks(trn_sim *s, const trn_run_hooks *hooks, void *state) {
    s->hooks = hooks;
    s->hooks_state = state;
}

void *trn_sim_hooks_state(const trn_sim *s) { return s->hooks_state; }

trn_dist *trn_sim_dist(trn_sim *s) { return &s->dist; }

const trn_dist *trn_sim_dist_c(const trn_sim *s) { return &s->dist; }

uint64_t trn_sim_run_started_ns(const trn_sim *s) { return s->run_started_ns; }

const trn_program *trn_sim_program(const trn_sim *s) { return s->have_prog ? &s->prog : NULL; }

const trn_registry *trn_sim_registry(const trn_sim *s) { return &s->reg; }

int trn_sim_resolve_opcode(const trn_sim *s, const char *name, uint32_t *it, trn_error *e) {
    /* the name index is a cache the registry builds on first use */
    return trn_registry_resolve_name((trn_registry *)&s->reg, name, it, e);
}

const trn_stats *trn_sim_stats(const trn_sim *s) { return &s->stats; }

const trn_config *trn_sim_config(const trn_sim *s) { return &s->cfg; }

const trn_core_state *trn_sim_core_state(const trn_sim *s, uint32_t core) {
    return &s->cores[core];
}

trn_ap_env trn_sim_env(const trn_sim *s) {
    return (trn_ap_env){.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
}

int trn_sim_step_output(trn_sim *s, const trn_step *st, int k, trn_ap *out, trn_error *e) {
    const trn_inst *in = st->inst;
    trn_ctx ctx = {
        .sim = s, .core = st->core, .index = st->index, .inst = in, .slot = &s->reg.table[in->it]};
    if (trn_host_api_table.operand(&ctx, TRN_OUT, k, out) == TRN_OK) return 0;
    *e = ctx.err; /* the message the handler would have been given */
    return -1;
}
