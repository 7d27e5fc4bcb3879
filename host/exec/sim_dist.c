/* The façade's calls for a run spread over processes (exec/exec.h,
 * "Distributed runs"): each is dist/'s call on the simulator's trn_dist,
 * and outputs gathered to rank 0 through the façade's own tensor access. */
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "exec/exec_int.h"

bool trn_sim_is_distributed(const trn_sim *s) { return s && trn_dist_active(&s->dist); }

bool trn_sim_has_transport(const trn_sim *s) { return s && s->dist.transport; }

uint32_t trn_sim_ranks(const trn_sim *s) {
    return s && trn_dist_active(&s->dist) ? s->dist.tinfo.ranks : 1;
}

int trn_sim_allgather(trn_sim *s, const void *mine, void *all, size_t bytes, trn_error *e) {
    if (!trn_sim_is_distributed(s)) return memcpy(all, mine, bytes), 0;
    if (trn_dist_allgather(&s->dist, mine, all, bytes, e))
        return trn_error_prefix(e, "before the run");
    return 0;
}

bool trn_sim_is_root(const trn_sim *s) { return !s || trn_dist_is_root(&s->dist); }

bool trn_sim_dist_healthy(const trn_sim *s) {
    return s && trn_dist_active(&s->dist) && !s->dist.broken;
}

int trn_sim_agree(trn_sim *s, int rc, trn_error *e) {
    return s ? trn_dist_agree(&s->dist, rc, e) : rc;
}

int trn_sim_gather_tensor(trn_sim *s, const char *name, int core, trn_error *e) {
    if (!trn_sim_is_distributed(s)) return 0;
    trn_tensor_info t;
    if (trn_sim_tensor_info(s, name, &t, e)) return -1;
    size_t bytes = (size_t)t.count * trn_dtype_width((trn_dtype)t.dtype);
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf) return trn_errorf(e, "tensor '%s': out of memory for %zu bytes", name, bytes);
    const trn_dist *d = &s->dist;
    uint32_t per = d->local_hi - d->local_lo;
    int rc = 0;
    for (uint32_t c = per; c < s->ncores && rc == 0;
         ++c) { /* rank 0's own cores are there already */
        if (core >= 0 && (uint32_t)core != c) continue;
        uint32_t from = c / per;
        bool mine = from == d->tinfo.rank, root = d->tinfo.rank == 0;
        if (!mine && !root) continue;
        if (mine) rc = trn_sim_get_tensor(s, name, (int)c, buf, bytes, e);
        if (rc == 0 && trn_dist_to_root(&s->dist, from, buf, bytes, e))
            rc = trn_error_prefix(e, "tensor '%s' of core %u to MPI process 0", name, c);
        if (rc == 0 && root) rc = trn_sim_set_tensor_copy(s, name, c, buf, bytes, e);
    }
    free(buf);
    return rc;
}
