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
#include "runtime/dist_config.h"
#include "runtime/remote.h"
#include "runtime/sim_internal.h"

static bool distributed(const trn_sim *s) { return s->transport && s->tinfo.ranks > 1; }

int trn_dist_attach(trn_sim *s, trn_error *e) {
    s->tinfo = (trn_transport_info){sizeof s->tinfo, 0, 1, 0};
    for (size_t i = 0; i < s->n_mods && !s->transport; ++i) {
        const trn_transport_desc *t = trn_loader_transport(&s->mods[i]);
        if (!t) continue;
        char msg[512] = "";
        if (t->attach(s->mods[i].state, &s->tinfo, msg, sizeof msg) != TRN_OK)
            return trn_errorf(e, "module '%s': transport: %s", s->mods[i].desc->name, msg[0] ? msg : "(no message)");
        if (s->tinfo.ranks == 0 || s->tinfo.rank >= s->tinfo.ranks)
            return trn_errorf(e, "module '%s': transport says rank %u of %u", s->mods[i].desc->name, s->tinfo.rank,
                              s->tinfo.ranks);
        s->transport = t;
        s->transport_mod = &s->mods[i];
        s->remote_mem = trn_remote_supported(t);
    }
    return 0;
}

void trn_dist_place(trn_sim *s) {
    s->dist_checked = false;
    uint32_t per = s->ncores / s->tinfo.ranks;
    s->local_lo = distributed(s) ? s->tinfo.rank * per : 0;
    s->local_hi = distributed(s) ? s->local_lo + per : s->ncores;
}

bool trn_dist_is_local(const trn_sim *s, uint32_t core) { return core >= s->local_lo && core < s->local_hi; }

/* FNV-1a over the program file and the core count: equal on every rank
 * when they run the same program. */
static uint64_t program_hash(const trn_sim *s) {
    uint64_t h = 1469598103934665603ull;
    FILE *f = fopen(s->prog.path, "rb");
    int ch;
    while (f && (ch = getc(f)) != EOF) h = (h ^ (uint64_t)(unsigned char)ch) * 1099511628211ull;
    if (f) fclose(f);
    h = (h ^ s->ncores) * 1099511628211ull;
    return (h ^ s->prog.n_insts) * 1099511628211ull;
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
static int config_mismatch(trn_sim *s, const char *mine, uint32_t r, trn_error *e) {
    size_t n = TRN_DIST_CONFIG_TEXT;
    char *all = calloc(s->tinfo.ranks, n), msg[512] = "", diff[768];
    if (!all) return trn_errorf(e, "out of memory");
    int rc = 0;
    if (s->transport->allgather(s->transport_mod->state, mine, all, n, msg, sizeof msg) != TRN_OK)
        rc = trn_errorf(e, "%s: before the run: %s", s->prog.path, msg);
    if (rc == 0) {
        all[(size_t)r * n + n - 1] = all[n - 1] = 0;
        trn_dist_config_diff(all, all + (size_t)r * n, r, diff, sizeof diff);
        rc = trn_errorf(e, "%s: MPI process %u's config differs from process 0's: %s; every process must use the "
                        "same config and --set options (docs/mpi.md)", s->prog.path, r, diff);
    }
    free(all);
    return rc;
}

int trn_dist_check_program(trn_sim *s, trn_error *e) {
    if (!distributed(s) || s->dist_checked) return 0; /* once per loaded program (the benchmark reruns) */
    if (s->ncores % s->tinfo.ranks)
        return trn_errorf(e, "%s: %u cores do not split evenly over %u MPI processes (cores must be a multiple of "
                          "the processes: process k runs cores k*M .. k*M+M-1)",
                          s->prog.path, s->ncores, s->tinfo.ranks);
    char *text = calloc(1, TRN_DIST_CONFIG_TEXT);
    prog_id *all = calloc(s->tinfo.ranks, sizeof *all);
    if (!all || !text) {
        free(all);
        free(text);
        return trn_errorf(e, "out of memory");
    }
    trn_dist_config_text(s, text, TRN_DIST_CONFIG_TEXT);
    prog_id mine = {program_hash(s), s->prog.n_insts, s->ncores, 0, trn_dist_config_hash(text)};
    char msg[512] = "";
    int rc = 0;
    if (s->transport->allgather(s->transport_mod->state, &mine, all, sizeof mine, msg, sizeof msg) != TRN_OK)
        rc = trn_errorf(e, "%s: before the run: %s", s->prog.path, msg);
    for (uint32_t r = 1; r < s->tinfo.ranks && rc == 0; ++r)
        if (memcmp(&all[r], &all[0], offsetof(prog_id, config)))
            rc = trn_errorf(e,
                            "%s: MPI process %u runs a different program than process 0 (%u cores, %" PRIu64
                            " instructions, hash %016" PRIx64 " against %u cores, %" PRIu64
                            " instructions, hash %016" PRIx64 "); every process must run the same program file",
                            s->prog.path, r, all[r].cores, all[r].insts, all[r].hash, all[0].cores, all[0].insts,
                            all[0].hash);
    for (uint32_t r = 1; r < s->tinfo.ranks && rc == 0; ++r)
        if (all[r].config != all[0].config) rc = config_mismatch(s, text, r, e);
    free(text);
    free(all);
    if (rc == 0) rc = trn_remote_expose(s, e);
    s->dist_checked = rc == 0;
    return rc;
}

int trn_dist_idle(trn_sim *s, trn_error *e) {
    char msg[TRN_ERROR_MAX] = "";
    if (s->transport->idle(s->transport_mod->state, msg, sizeof msg) != TRN_OK)
        return trn_errorf(e, "%s", msg[0] ? msg : "the transport failed");
    return 0;
}

bool trn_sim_is_distributed(const trn_sim *s) { return s && distributed(s); }

bool trn_sim_has_transport(const trn_sim *s) { return s && s->transport; }

uint32_t trn_sim_ranks(const trn_sim *s) { return s && distributed(s) ? s->tinfo.ranks : 1; }

int trn_sim_allgather(trn_sim *s, const void *mine, void *all, size_t bytes, trn_error *e) {
    if (!distributed(s)) return memcpy(all, mine, bytes), 0;
    char msg[512] = "";
    void *st = s->transport_mod->state;
    if (s->transport->allgather(st, mine, all, bytes, msg, sizeof msg) != TRN_OK)
        return trn_errorf(e, "before the run: %s", msg);
    return 0;
}

bool trn_sim_is_root(const trn_sim *s) { return !s || !distributed(s) || s->tinfo.rank == 0; }

bool trn_sim_dist_healthy(const trn_sim *s) { return s && distributed(s) && !s->dist_broken; }

int trn_sim_agree(trn_sim *s, int rc, trn_error *e) {
    if (!s || !distributed(s)) return rc;
    int failed = rc != 0;
    char msg[TRN_ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", failed ? e->msg : "");
    /* The transport could not agree (a process stopped answering): every
     * process that still answers says so, with its own line. */
    if (s->transport->agree(s->transport_mod->state, &failed, msg, sizeof msg) != TRN_OK) {
        s->dist_broken = true;
        return trn_errorf(e, "%s", msg);
    }
    if (!failed) return 0;
    snprintf(e->msg, sizeof e->msg, "%s", trn_sim_is_root(s) ? msg : "");
    return -1;
}

int trn_sim_gather_tensor(trn_sim *s, const char *name, int core, trn_error *e) {
    if (!s || !distributed(s)) return 0;
    trn_tensor_info t;
    if (trn_sim_tensor_info(s, name, &t, e)) return -1;
    size_t bytes = (size_t)t.count * trn_dtype_width((trn_dtype)t.dtype);
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf) return trn_errorf(e, "tensor '%s': out of memory for %zu bytes", name, bytes);
    uint32_t per = s->local_hi - s->local_lo;
    int rc = 0;
    for (uint32_t c = per; c < s->ncores && rc == 0; ++c) { /* rank 0's own cores are there already */
        if (core >= 0 && (uint32_t)core != c) continue;
        uint32_t from = c / per;
        bool mine = from == s->tinfo.rank, root = s->tinfo.rank == 0;
        if (!mine && !root) continue;
        if (mine) rc = trn_sim_get_tensor(s, name, (int)c, buf, bytes, e);
        char msg[512] = "";
        if (rc == 0 && s->transport->to_root(s->transport_mod->state, from, buf, bytes, msg, sizeof msg) != TRN_OK)
            rc = trn_errorf(e, "tensor '%s' of core %u to MPI process 0: %s", name, c, msg);
        if (rc == 0 && root) rc = trn_sim_set_tensor_copy(s, name, c, buf, bytes, e);
    }
    free(buf);
    return rc;
}
