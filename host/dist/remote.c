/* Remote DMA across processes (docs/mpi.md, "Remote DMA"): an access to a
 * core that another process owns goes through this process's copy of that
 * core's memory. Inside one epoch of the transport on the owner, the bytes
 * the access can touch and their written-byte bits are fetched into the
 * copy; the host's ordinary walk runs on the copy; a write then puts back
 * exactly the bytes it changed or newly wrote, and its written bits into the
 * owner's remote_written map. A write's epoch is exclusive, so a
 * read-modify-write (accumulate) by one process is whole against every
 * other process's remote access; the owner's own accesses never take part,
 * and never touch bytes a race-free program writes remotely.
 *
 * Regions: local core slot s (core - local_lo), memory m, map k (0 bytes,
 * 1 written, 2 remote_written) is region (s * 3 + m) * 3 + k, on every
 * rank alike. */
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "memory/memory.h"
#include "dist/dist.h"

#define REGIONS_PER_CORE 9u
#define RUN_BATCH        65536u

static uint32_t per_rank(const trn_dist *s) { return s->local_hi - s->local_lo; }

static uint32_t region_of(const trn_dist *s, uint32_t core, uint32_t mem, uint32_t k) {
    return ((core % per_rank(s)) * 3 + mem) * 3 + k;
}

bool trn_remote_supported(const trn_transport_desc *t) {
    return t && t->size >= offsetof(trn_transport_desc, remote_end) + sizeof(void *) && t->expose &&
           t->remote_begin && t->remote_get && t->remote_put && t->remote_end;
}

static bool remote_on(const trn_dist *s) {
    return s->transport && s->tinfo.ranks > 1 && s->remote_mem;
}

static int transport_failed(trn_error *e, const char *what, uint32_t core, const char *msg) {
    return trn_errorf(e, "%s core %u's memory in another MPI process: %s", what, core,
                      msg[0] ? msg : "the transport failed");
}

int trn_remote_expose(trn_dist *s, trn_error *e) {
    if (!remote_on(s)) return 0;
    uint32_t per = per_rank(s), n = per * REGIONS_PER_CORE;
    for (uint32_t c = 0; c < s->ncores; ++c)
        for (int m = 0; m < 3; ++m)
            if (trn_mem_enable_remote_map(&s->cores[c].mem[m], e)) return -1;
    trn_region *r = calloc(n, sizeof *r);
    if (!r) return trn_errorf(e, "out of memory");
    for (uint32_t c = s->local_lo; c < s->local_hi; ++c)
        for (uint32_t m = 0; m < 3; ++m) {
            trn_memory *mm = &s->cores[c].mem[m];
            uint64_t map = trn_mem_map_bytes(mm);
            r[region_of(s, c, m, 0)] =
                (trn_region){mm->bytes, (uint64_t)mm->partitions * mm->partition_bytes};
            r[region_of(s, c, m, 1)] = (trn_region){mm->written, map};
            r[region_of(s, c, m, 2)] = (trn_region){mm->remote_written, map};
        }
    char msg[512] = "";
    int rc =
        s->transport->expose(s->transport_mod->state, r, n, msg, sizeof msg) == TRN_OK
            ? 0
            : trn_errorf(e, "%s: making this process's core memories reachable for remote DMA: %s",
                         s->prog->path, msg[0] ? msg : "the transport failed");
    free(r);
    s->remote_exposed = rc == 0;
    return rc;
}

void trn_remote_withdraw(trn_dist *s) {
    if (!s->remote_exposed) return;
    char msg[512];
    s->transport->expose(s->transport_mod->state, NULL, 0, msg, sizeof msg);
    s->remote_exposed = false;
}

bool trn_remote_is_remote(const trn_dist *s, const trn_ap *ap) {
    return remote_on(s) && ap->core < s->ncores && !trn_dist_is_local(s, ap->core);
}

/* ---- extents ------------------------------------------------------------ */

static int by_offset(const void *a, const void *b) {
    const trn_extent *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sorted, overlapping or touching extents joined. */
static size_t merge(trn_extent *x, size_t n) {
    if (n < 2) return n;
    qsort(x, n, sizeof *x, by_offset);
    size_t k = 0;
    for (size_t i = 1; i < n; ++i) {
        if (x[i].offset <= x[k].offset + x[k].bytes) {
            uint64_t end = x[i].offset + x[i].bytes, kend = x[k].offset + x[k].bytes;
            if (end > kend) x[k].bytes = end - x[k].offset;
        } else {
            x[++k] = x[i];
        }
    }
    return k + 1;
}

/* Every byte the AP can touch: per partition, from its lowest to its
 * highest element (an indirect access stays inside them too). */
static int ap_extents(const trn_memory *m, const trn_ap *ap, trn_remote_txn *t, trn_error *e) {
    trn_box box = trn_ap_box(ap);
    t->x = malloc(ap->part_count * sizeof *t->x);
    t->wx = malloc(ap->part_count * sizeof *t->wx);
    if (!t->x || !t->wx) return trn_errorf(e, "out of memory");
    for (uint32_t i = 0; i < ap->part_count; ++i) {
        uint64_t p = (uint64_t)ap->part_start + (uint64_t)i * ap->part_step;
        t->x[i] = (trn_extent){trn_mem_addr(m, (uint32_t)p, box.b_lo), box.b_hi - box.b_lo};
    }
    t->n = merge(t->x, ap->part_count);
    for (size_t i = 0; i < t->n;
         ++i) { /* the map words covering them, as byte offsets into the map */
        uint64_t first = t->x[i].offset >> 6, last = (t->x[i].offset + t->x[i].bytes - 1) >> 6;
        t->wx[i] = (trn_extent){first * 8, (last - first + 1) * 8};
    }
    t->nw = merge(t->wx, t->n);
    return 0;
}

/* ---- epochs ------------------------------------------------------------- */

static int fetch(trn_dist *s, trn_remote_txn *t, trn_error *e) {
    void *st = s->transport_mod->state;
    trn_memory *m = t->m;
    char msg[512] = "";
    void *local[3] = {m->bytes, m->written, m->remote_written};
    for (uint32_t k = 0; k < 3; ++k) {
        const trn_extent *x = k ? t->wx : t->x;
        if (s->transport->remote_get(st, t->rank, region_of(s, t->core, t->mem, k), x,
                                     k ? t->nw : t->n, local[k], msg, sizeof msg) != TRN_OK)
            return transport_failed(e, "reading", t->core, msg);
    }
    for (size_t i = 0; i < t->nw; ++i) trn_mem_map_overwritten(m, t->wx[i].offset, t->wx[i].bytes);
    return 0;
}

/* What the write must be compared against: the fetched bytes and, per
 * extent, the fetched written bits of its words. */
static int keep_before(trn_remote_txn *t, trn_error *e) {
    uint64_t bytes = 0, words = 0;
    for (size_t i = 0; i < t->n; ++i) {
        bytes += t->x[i].bytes;
        words += ((t->x[i].offset + t->x[i].bytes - 1) >> 6) - (t->x[i].offset >> 6) + 1;
    }
    t->before = malloc(bytes ? bytes : 1);
    t->before_map = malloc((words ? words : 1) * sizeof(uint64_t));
    if (!t->before || !t->before_map)
        return trn_errorf(e, "out of memory for %llu bytes of remote DMA",
                          (unsigned long long)bytes);
    uint8_t *b = t->before;
    uint64_t *w = t->before_map;
    for (size_t i = 0; i < t->n; ++i) {
        memcpy(b, t->m->bytes + t->x[i].offset, t->x[i].bytes);
        b += t->x[i].bytes;
        for (uint64_t k = t->x[i].offset >> 6; k <= (t->x[i].offset + t->x[i].bytes - 1) >> 6; ++k)
            *w++ = t->m->written[k] | t->m->remote_written[k];
    }
    return 0;
}

int trn_remote_begin(trn_dist *s, const trn_ap_env *env, const trn_ap *ap, bool write,
                     trn_remote_txn *t, trn_error *e) {
    memset(t, 0, sizeof *t);
    if (!env) return 0;                      /* not a remote access */
    if (trn_ap_check(env, ap, e)) return -1; /* the walk's own message, before any traffic */
    t->core = ap->core;
    t->mem = ap->mem;
    t->rank = ap->core / per_rank(s);
    t->m = &s->cores[ap->core].mem[ap->mem];
    t->write = write;
    if (ap_extents(t->m, ap, t, e)) {
        trn_remote_txn_free(t);
        return -1;
    }
    char msg[512] = "";
    if (s->transport->remote_begin(s->transport_mod->state, t->rank, write, msg, sizeof msg) !=
        TRN_OK) {
        trn_remote_txn_free(t);
        return transport_failed(e, write ? "writing" : "reading", ap->core, msg);
    }
    t->active = true;
    int rc = fetch(s, t, e);
    if (rc == 0 && write) rc = keep_before(t, e);
    if (rc || !write) { /* a read is done with the owner once it has the bytes */
        trn_error e2;
        int rc2 = trn_remote_end(s, t, false, rc ? &e2 : e);
        return rc ? rc : rc2;
    }
    return 0;
}

/* Batches of runs to put. */
typedef struct runs {
    trn_extent v[256];
    size_t n;
    trn_dist *s;
    trn_remote_txn *t;
    int rc;
    trn_error *e;
} runs;

static void flush_runs(runs *r) {
    if (!r->n || r->rc) return;
    char msg[512] = "";
    trn_dist *s = r->s;
    if (s->transport->remote_put(s->transport_mod->state, r->t->rank,
                                 region_of(s, r->t->core, r->t->mem, 0), r->v, r->n, r->t->m->bytes,
                                 msg, sizeof msg) != TRN_OK)
        r->rc = transport_failed(r->e, "writing", r->t->core, msg);
    r->n = 0;
}

static void add_run(runs *r, uint64_t at, uint64_t len) {
    if (r->n && r->v[r->n - 1].offset + r->v[r->n - 1].bytes == at) {
        r->v[r->n - 1].bytes += len;
        return;
    }
    if (r->n == sizeof r->v / sizeof r->v[0]) flush_runs(r);
    r->v[r->n++] = (trn_extent){at, len};
}

/* The bytes this write changed or newly marked written, in address order. */
static void changed_runs(runs *r) {
    trn_remote_txn *t = r->t;
    const uint8_t *b = t->before;
    const uint64_t *w = t->before_map;
    for (size_t i = 0; i < t->n && !r->rc; ++i) {
        uint64_t lo = t->x[i].offset, end = lo + t->x[i].bytes, w0 = lo >> 6;
        for (uint64_t a = lo; a < end && !r->rc;) {
            uint64_t blk_end = ((a >> 6) + 1) << 6;
            if (blk_end > end) blk_end = end;
            uint64_t word = a >> 6, now = t->m->written[word] | t->m->remote_written[word];
            uint64_t fresh = now & ~w[word - w0];
            if (!fresh && !memcmp(b + (a - lo), t->m->bytes + a, blk_end - a)) {
                a = blk_end;
                continue;
            }
            for (; a < blk_end; ++a)
                if (b[a - lo] != t->m->bytes[a] || (fresh >> (a & 63) & 1)) add_run(r, a, 1);
        }
        b += t->x[i].bytes;
        w += ((end - 1) >> 6) - w0 + 1;
    }
    flush_runs(r);
}

static int push(trn_dist *s, trn_remote_txn *t, trn_error *e) {
    runs *r = calloc(1, sizeof *r);
    if (!r) return trn_errorf(e, "out of memory");
    *r = (runs){.s = s, .t = t, .e = e};
    changed_runs(r);
    int rc = r->rc;
    free(r);
    if (rc) return rc;
    /* the owner's remote_written: only remote writers change it, one at a
     * time, so whole words go back (fetched bits plus this write's) */
    for (size_t i = 0; i < t->nw; ++i)
        for (uint64_t k = t->wx[i].offset / 8; k < (t->wx[i].offset + t->wx[i].bytes) / 8; ++k)
            t->m->remote_written[k] |= t->m->written[k];
    char msg[512] = "";
    if (s->transport->remote_put(s->transport_mod->state, t->rank, region_of(s, t->core, t->mem, 2),
                                 t->wx, t->nw, t->m->remote_written, msg, sizeof msg) != TRN_OK)
        return transport_failed(e, "writing", t->core, msg);
    return 0;
}

int trn_remote_end(trn_dist *s, trn_remote_txn *t, bool ok, trn_error *e) {
    if (!t->active) {
        trn_remote_txn_free(t);
        return 0;
    }
    int rc = ok && t->write ? push(s, t, e) : 0;
    char msg[512] = "";
    if (s->transport->remote_end(s->transport_mod->state, t->rank, msg, sizeof msg) != TRN_OK &&
        rc == 0)
        rc = transport_failed(e, t->write ? "writing" : "reading", t->core, msg);
    t->active = false;
    trn_remote_txn_free(t);
    return rc;
}

void trn_remote_txn_free(trn_remote_txn *t) {
    free(t->x);
    free(t->wx);
    free(t->before);
    free(t->before_map);
    t->x = t->wx = NULL;
    t->before = NULL;
    t->before_map = NULL;
}
