/* The host's side of a transport (docs/mpi.md): which cores this process
 * runs, the check that every process loaded the same program, idling while
 * the other processes work, agreeing on success at the end of a stage, and
 * gathering output tensors to rank 0. Without a transport every call is a
 * no-op and the run is the single-process one. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "dist/dist.h"

static bool distributed(const trn_dist *s) { return s->transport && s->tinfo.ranks > 1; }

int trn_dist_attach(trn_dist *s, const trn_registry *reg, const trn_config *cfg, trn_error *e) {
    s->reg = reg;
    s->cfg = cfg;
    s->tinfo = (trn_transport_info){sizeof s->tinfo, 0, 1, 0};
    for (size_t i = 0; i < s->reg->n_mods && !s->transport; ++i) {
        const trn_transport_desc *t = trn_loader_transport(&s->reg->mods[i]);
        if (!t) continue;
        char msg[512] = "";
        if (t->attach(s->reg->mods[i].state, &s->tinfo, msg, sizeof msg) != TRN_OK)
            return trn_errorf(e, "module '%s': transport: %s", s->reg->mods[i].desc->name,
                              msg[0] ? msg : "(no message)");
        if (s->tinfo.ranks == 0 || s->tinfo.rank >= s->tinfo.ranks)
            return trn_errorf(e, "module '%s': transport says rank %u of %u",
                              s->reg->mods[i].desc->name, s->tinfo.rank, s->tinfo.ranks);
        s->transport = t;
        s->transport_mod = &s->reg->mods[i];
        s->remote_mem = trn_remote_supported(t);
    }
    return 0;
}

void trn_dist_place(trn_dist *s, const trn_program *prog, trn_core_state *cores, uint32_t ncores) {
    s->prog = prog;
    s->cores = cores;
    s->ncores = ncores;
    s->checked = false;
    uint32_t per = s->ncores / s->tinfo.ranks;
    s->local_lo = distributed(s) ? s->tinfo.rank * per : 0;
    s->local_hi = distributed(s) ? s->local_lo + per : s->ncores;
}

bool trn_dist_is_local(const trn_dist *s, uint32_t core) {
    return core >= s->local_lo && core < s->local_hi;
}

/* FNV-1a over the program file and the core count: equal on every rank
 * when they run the same program. */
static uint64_t program_hash(const trn_dist *s) {
    uint64_t h = 1469598103934665603ull;
    FILE *f = fopen(s->prog->path, "rb");
    int ch;
    while (f && (ch = getc(f)) != EOF) h = (h ^ (uint64_t)(unsigned char)ch) * 1099511628211ull;
    if (f) fclose(f);
    h = (h ^ s->ncores) * 1099511628211ull;
    return (h ^ s->prog->n_insts) * 1099511628211ull;
}

/* What every process must share: the program, and the config as the run
 * uses it (dist_config.c; the machine among it, which remote DMA needs laid
 * out alike). */
typedef struct prog_id {
    uint64_t hash, insts;
    uint32_t cores, pad;
    uint64_t config;
} prog_id;

/* The hashes differ: every process sends its config text (each saw the
 * same hashes, so all of them come here) and the first difference between
 * process r's and process 0's is the error. */
static int config_mismatch(trn_dist *s, const char *mine, uint32_t r, trn_error *e) {
    size_t n = TRN_DIST_CONFIG_TEXT;
    char *all = calloc(s->tinfo.ranks, n), msg[512] = "", diff[768];
    if (!all) return trn_errorf(e, "out of memory");
    int rc = 0;
    if (s->transport->allgather(s->transport_mod->state, mine, all, n, msg, sizeof msg) != TRN_OK)
        rc = trn_errorf(e, "%s: before the run: %s", s->prog->path, msg);
    if (rc == 0) {
        all[(size_t)r * n + n - 1] = all[n - 1] = 0;
        trn_dist_config_diff(all, all + (size_t)r * n, r, diff, sizeof diff);
        rc = trn_errorf(
            e,
            "%s: MPI process %u's config differs from process 0's: %s; every process must use the "
            "same config and --set options (docs/mpi.md)",
            s->prog->path, r, diff);
    }
    free(all);
    return rc;
}

int trn_dist_check_program(trn_dist *s, trn_error *e) {
    if (!distributed(s) || s->checked)
        return 0; /* once per loaded program (the benchmark reruns) */
    if (s->ncores % s->tinfo.ranks)
        return trn_errorf(
            e,
            "%s: %u cores do not split evenly over %u MPI processes (cores must be a multiple of "
            "the processes: process k runs cores k*M .. k*M+M-1)",
            s->prog->path, s->ncores, s->tinfo.ranks);
    char *text = calloc(1, TRN_DIST_CONFIG_TEXT);
    prog_id *all = calloc(s->tinfo.ranks, sizeof *all);
    if (!all || !text) {
        free(all);
        free(text);
        return trn_errorf(e, "out of memory");
    }
    trn_dist_config_text(s, text, TRN_DIST_CONFIG_TEXT);
    prog_id mine = {program_hash(s), s->prog->n_insts, s->ncores, 0, trn_dist_config_hash(text)};
    char msg[512] = "";
    int rc = 0;
    if (s->transport->allgather(s->transport_mod->state, &mine, all, sizeof mine, msg,
                                sizeof msg) != TRN_OK)
        rc = trn_errorf(e, "%s: before the run: %s", s->prog->path, msg);
    for (uint32_t r = 1; r < s->tinfo.ranks && rc == 0; ++r)
        if (memcmp(&all[r], &all[0], offsetof(prog_id, config)))
            rc = trn_errorf(
                e,
                "%s: MPI process %u runs a different program than process 0 (%u cores, %" PRIu64
                " instructions, hash %016" PRIx64 " against %u cores, %" PRIu64
                " instructions, hash %016" PRIx64 "); every process must run the same program file",
                s->prog->path, r, all[r].cores, all[r].insts, all[r].hash, all[0].cores,
                all[0].insts, all[0].hash);
    for (uint32_t r = 1; r < s->tinfo.ranks && rc == 0; ++r)
        if (all[r].config != all[0].config) rc = config_mismatch(s, text, r, e);
    free(text);
    free(all);
    if (rc == 0) rc = trn_remote_expose(s, e);
    s->checked = rc == 0;
    return rc;
}

int trn_dist_idle(trn_dist *s, trn_error *e) {
    char msg[TRN_ERROR_MAX] = "";
    if (s->transport->idle(s->transport_mod->state, msg, sizeof msg) != TRN_OK)
        return trn_errorf(e, "%s", msg[0] ? msg : "the transport failed");
    return 0;
}

bool trn_dist_progress(trn_dist *s, uint64_t mine, bool final, uint64_t *total) {
    *total = mine;
    const trn_transport_desc *t = distributed(s) ? s->transport : NULL;
    if (!t || t->size < offsetof(trn_transport_desc, progress) + sizeof(void *) || !t->progress)
        return false;
    char msg[256] = "";
    return t->progress(s->transport_mod->state, mine, final, total, msg, sizeof msg) == TRN_OK;
}

bool trn_dist_active(const trn_dist *s) { return distributed(s); }

bool trn_dist_is_root(const trn_dist *s) { return !distributed(s) || s->tinfo.rank == 0; }

int trn_dist_agree(trn_dist *s, int rc, trn_error *e) {
    if (!distributed(s)) return rc;
    int failed = rc != 0;
    char msg[TRN_ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", failed ? e->msg : "");
    /* The transport could not agree (a process stopped answering): every
     * process that still answers says so, with its own line. */
    if (s->transport->agree(s->transport_mod->state, &failed, msg, sizeof msg) != TRN_OK) {
        s->broken = true;
        return trn_errorf(e, "%s", msg);
    }
    if (!failed) return 0;
    snprintf(e->msg, sizeof e->msg, "%s", trn_dist_is_root(s) ? msg : "");
    return -1;
}

int trn_dist_to_root(trn_dist *s, uint32_t from, void *buf, size_t bytes, trn_error *e) {
    char msg[512] = "";
    if (s->transport->to_root(s->transport_mod->state, from, buf, bytes, msg, sizeof msg) != TRN_OK)
        return trn_errorf(e, "%s", msg[0] ? msg : "the transport failed");
    return 0;
}

int trn_dist_allgather(trn_dist *s, const void *mine, void *all, size_t bytes, trn_error *e) {
    char msg[512] = "";
    if (s->transport->allgather(s->transport_mod->state, mine, all, bytes, msg, sizeof msg) !=
        TRN_OK)
        return trn_errorf(e, "%s", msg[0] ? msg : "the transport failed");
    return 0;
}
