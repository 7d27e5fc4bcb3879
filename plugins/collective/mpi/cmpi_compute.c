/* CollectiveCompute whose party spans processes. The core of each process
 * that completes the local part of the party drives one exchange:
 *
 *   phase 0  every participating process sends its members' records
 *            (operands, counts, the spec) to the others; each checks that
 *            they agree, as the in-process registry does.
 *   phase 1  AllReduce / ReduceScatter (exact): process q of Q gets slice q
 *            of every member's fp32 input and folds it in core order with
 *            doReduction (reduce-scatter traffic); native: MPI's blocking
 *            MPI_Allreduce / MPI_Reduce_scatter_block (cmpi_native.c).
 *            Every other kind: every member's raw input to every process,
 *            stored in this process's copy of that core's memory, then the
 *            in-process runner (coll_exec_run) computes every output.
 *   phase 2  (exact reductions) the folded slices to every process.
 *
 * Every process runs the same validation on the same records, so a bad
 * count fails everywhere with the in-process message, before any write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coll.h"
#include "cmpi.h"

typedef struct wire_rec {
    uint32_t core, n_in;
    uint64_t instr, seq, arrays_hash;
    int64_t kind, op, cc_dim, peer_offset;
    uint32_t has_scale, scale_bits;
    trn_ap in[2], out;
    int64_t in_count[2], out_count;
} wire_rec;

typedef enum plan { PLAN_COPY, PLAN_EXACT, PLAN_NATIVE } plan;

typedef struct xop {
    cmpi_op base;
    cmpi *m;
    coll_state *st;
    coll_record *lead;  /* the driving core's record: its spec is the party's */
    uint32_t n;         /* party size */
    uint32_t *members;  /* position order */
    uint32_t *src_of;   /* Permute, else NULL */
    coll_record **recs; /* position order: local from the registry, remote in synth */
    coll_record *synth; /* [n], used at remote positions */
    wire_rec *wire;     /* [n] by position */
    int *ranks;         /* participating processes, ascending */
    int n_ranks, me;    /* me: this process's index in ranks */
    uint64_t key;
    int phase;
    plan plan;
    int64_t e;             /* reductions: elements per input */
    float *in, *got, *res; /* reductions: local inputs, received slices, result */
    char *raw;             /* copy: local inputs, then received ones */
    size_t cap_in, cap_got, cap_res, cap_raw; /* pool buffers (cmpi_buf_get) */
} xop;

static void destroy(cmpi_op *o) {
    xop *x = (xop *)o;
    cmpi_reqs_free(&x->base.reqs);
    free(x->members);
    free(x->src_of);
    free(x->recs);
    free(x->synth);
    free(x->wire);
    free(x->ranks);
    cmpi_buf_put(x->m, x->in, x->cap_in);
    cmpi_buf_put(x->m, x->got, x->cap_got);
    cmpi_buf_put(x->m, x->res, x->cap_res);
    cmpi_buf_put(x->m, x->raw, x->cap_raw);
    free(x);
}

static bool local(const xop *x, uint32_t i) {
    return cmpi_owner(x->m, x->members[i]) == x->m->rank;
}

/* Slice q of Q of e elements. */
static int64_t slice_lo(int64_t e, int q, int nq) { return e * q / nq; }
static int64_t slice_len(int64_t e, int q, int nq) {
    return slice_lo(e, q + 1, nq) - slice_lo(e, q, nq);
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

static uint64_t arrays_hash(const coll_spec *sp) {
    uint64_t h = 1469598103934665603ull;
    h = mix(h, sp->groups.n_groups);
    h = mix(h, sp->groups.size);
    for (size_t i = 0; sp->groups.ids && i < (size_t)sp->groups.n_groups * sp->groups.size; ++i)
        h = mix(h, sp->groups.ids[i]);
    h = mix(h, sp->n_pairs);
    for (size_t i = 0; i < 2 * sp->n_pairs; ++i) h = mix(h, (uint64_t)sp->pairs[i]);
    h = mix(h, sp->n_counts);
    for (size_t i = 0; i < sp->n_counts * sp->n_counts; ++i) h = mix(h, (uint64_t)sp->counts[i]);
    return h;
}

static wire_rec to_wire(const coll_record *r) {
    wire_rec w = {r->core,
                  (uint32_t)r->n_in,
                  r->instr,
                  r->seq,
                  arrays_hash(&r->spec),
                  r->spec.kind,
                  r->spec.op,
                  r->spec.cc_dim,
                  r->spec.peer_offset,
                  r->spec.has_scale,
                  0,
                  {r->in[0], r->in[1]},
                  r->out,
                  {r->in_count[0], r->in_count[1]},
                  r->out_count};
    memcpy(&w.scale_bits, &r->spec.scale, 4);
    return w;
}

/* ---- phase 0: the records ---------------------------------------------- */

static trn_status oom(const trn_host_api *api, trn_ctx *ctx) {
    return api->error(ctx, "out of memory");
}

static int find_ranks(xop *x) {
    x->ranks = malloc(x->n * sizeof *x->ranks);
    if (!x->ranks) return -1;
    for (uint32_t i = 0; i < x->n; ++i) {
        int r = cmpi_owner(x->m, x->members[i]), k = 0;
        while (k < x->n_ranks && x->ranks[k] < r) ++k;
        if (k < x->n_ranks && x->ranks[k] == r) continue;
        memmove(&x->ranks[k + 1], &x->ranks[k], (size_t)(x->n_ranks - k) * sizeof *x->ranks);
        x->ranks[k] = r;
        x->n_ranks++;
    }
    for (int k = 0; k < x->n_ranks; ++k)
        if (x->ranks[k] == x->m->rank) x->me = k;
    return 0;
}

/* Each process's members' records, one message per member, in position
 * order on both sides. */
static int post_records(xop *x) {
    int tag = cmpi_coll_tag(x->key, 0);
    for (uint32_t i = 0; i < x->n; ++i) {
        int owner = cmpi_owner(x->m, x->members[i]);
        for (int k = 0; k < x->n_ranks; ++k) {
            int p = x->ranks[k];
            if (p == x->m->rank) continue;
            int rc = owner == x->m->rank
                         ? cmpi_isend(x->m, &x->base.reqs, &x->wire[i], sizeof x->wire[i], p, tag)
                     : owner == p
                         ? cmpi_irecv(x->m, &x->base.reqs, &x->wire[i], sizeof x->wire[i], p, tag)
                         : 0;
            if (rc) return -1;
        }
    }
    return 0;
}

/* The remote records agree with ours (the in-process check_agreement
 * across processes), and their operands lie on their own cores. */
static trn_status check_records(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    const coll_record *me = x->lead;
    uint64_t mine = arrays_hash(&me->spec);
    for (uint32_t i = 0; i < x->n; ++i) {
        const wire_rec *w = &x->wire[i];
        coll_spec other = me->spec;
        other.kind = w->kind;
        other.op = w->op;
        other.cc_dim = w->cc_dim;
        other.peer_offset = w->peer_offset;
        other.has_scale = w->has_scale != 0;
        memcpy(&other.scale, &w->scale_bits, 4);
        char err[768] = "";
        int bad = w->core != x->members[i] || w->seq != me->seq;
        if (!bad && coll_spec_compare(&me->spec, me->core, &other, w->core, err, sizeof err) == 0 &&
            w->arrays_hash != mine)
            snprintf(
                err, sizeof err,
                "core %u's replica_groups, src_target_pairs or send_counts differ from core %u's",
                me->core, w->core);
        if (bad)
            snprintf(
                err, sizeof err,
                "MPI process %d answered with core %u's collective #%llu, expected core %u's #%llu",
                cmpi_owner(x->m, x->members[i]), w->core, (unsigned long long)w->seq, x->members[i],
                (unsigned long long)me->seq);
        if (err[0])
            return api->error(
                ctx,
                "collective #%llu (CollectiveCompute instruction %llu on core %u, %llu on core %u) "
                "disagrees: %s",
                (unsigned long long)me->seq, (unsigned long long)me->instr, me->core,
                (unsigned long long)w->instr, w->core, err);
        for (int k = 0; k < (int)w->n_in + 1; ++k) {
            const trn_ap *ap = k < (int)w->n_in ? &w->in[k] : &w->out;
            if (ap->core != w->core)
                return api->error(
                    ctx,
                    "%s (kind %lld): core %u's %s lies on core %u; across MPI processes a "
                    "collective's operands must be on the executing core",
                    coll_kind_name(me->spec.kind), (long long)me->spec.kind, w->core,
                    k < (int)w->n_in ? "input" : "output", ap->core);
        }
    }
    return TRN_OK;
}

static void build_recs(xop *x) {
    for (uint32_t i = 0; i < x->n; ++i) {
        if (local(x, i)) {
            x->recs[i] = coll_registry_get(x->st->reg, x->members[i], x->lead->seq);
            continue;
        }
        const wire_rec *w = &x->wire[i];
        coll_record *r = &x->synth[i];
        *r = (coll_record){.core = w->core,
                           .instr = w->instr,
                           .seq = w->seq,
                           .spec = x->lead->spec,
                           .member = true,
                           .n_in = (int)w->n_in,
                           .n_out = 1,
                           .in = {w->in[0], w->in[1]},
                           .out = w->out,
                           .in_count = {w->in_count[0], w->in_count[1]},
                           .out_count = w->out_count};
        x->recs[i] = r;
    }
}

/* ---- the reductions ---------------------------------------------------- */

static bool native_fits(const xop *x, bool scatter) {
    const coll_spec *sp = &x->lead->spec;
    return x->m->reduce == CMPI_REDUCE_NATIVE && x->n == x->m->cores &&
           !(sp->op == COLL_OP_ADD && sp->has_scale) && coll_op_supported(sp->op) &&
           (!scatter || x->e % x->n == 0);
}

/* The checks of coll_exec_reduce_all, on every process alike. */
static trn_status check_reduce(const coll_exec *ex, bool scatter) {
    if (coll_same_in_counts(ex) != TRN_OK) return TRN_ERR;
    int64_t e = ex->recs[0]->in_count[0];
    if (scatter && e % ex->n != 0)
        return coll_fail(ex, "%lld input elements do not split into %u equal parts (one per rank)",
                         (long long)e, ex->n);
    int64_t part = scatter ? e / ex->n : e;
    for (uint32_t i = 0; i < ex->n; ++i)
        if (coll_out_count_is(
                ex, i, part, scatter ? "the input's count / ranks" : "the input's count") != TRN_OK)
            return TRN_ERR;
    if (coll_reduce_rejects(ex->sp->op, ex->n, (size_t)e, ex->sp->has_scale))
        return coll_unsupported_op(ex->api, ex->ctx, ex->sp->op);
    return coll_check_operands(ex, false);
}

static uint32_t count_local(const xop *x) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < x->n; ++i) k += local(x, i);
    return k;
}

/* fp32 data moves as its bytes: widening or narrowing fp32 to fp32 is the
 * identity, and the raw path copies whole runs. */
static trn_status read_f32(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, float *dst) {
    return ap->dtype == TRN_DT_FP32 ? api->read_raw(ctx, ap, dst) : api->read_f32(ctx, ap, dst);
}

static trn_status write_f32(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap,
                            const float *src) {
    return ap->dtype == TRN_DT_FP32 ? api->write_raw(ctx, ap, src)
                                    : api->write_f32(ctx, ap, src, TRN_ACC_COPY);
}

/* Local inputs as fp32, [local members][e], in position order. */
static trn_status read_local_f32(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    uint32_t nl = count_local(x);
    x->in = cmpi_buf_get(x->m, (size_t)nl * (size_t)x->e * sizeof(float) + 4, &x->cap_in);
    x->res = cmpi_buf_get(x->m, (size_t)x->e * sizeof(float) + 4, &x->cap_res);
    if (!x->in || !x->res) return oom(api, ctx);
    for (uint32_t i = 0, l = 0; i < x->n; ++i)
        if (local(x, i) &&
            read_f32(api, ctx, &x->recs[i]->in[0], x->in + (size_t)l++ * x->e) != TRN_OK)
            return TRN_ERR;
    return TRN_OK;
}

/* Native: MPI's own reduction (cmpi_native.c) on this process's members. */
static trn_status run_native(xop *x, const trn_host_api *api, trn_ctx *ctx, bool scatter) {
    uint32_t nl = count_local(x);
    coll_record **mine = malloc(nl * sizeof *mine);
    if (!mine) return oom(api, ctx);
    for (uint32_t i = 0, l = 0; i < x->n; ++i)
        if (local(x, i)) mine[l++] = x->recs[i];
    cmpi_native job = {api, ctx, x->m, x->lead->spec.op, scatter, x->e, x->n, mine, nl};
    trn_status rc = cmpi_native_reduce(&job);
    free(mine);
    return rc;
}

/* Exact: slice me of every member's input comes here; our members' slices
 * go to the others. */
static trn_status start_exact(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    int64_t mylen = slice_len(x->e, x->me, x->n_ranks);
    x->got = cmpi_buf_get(x->m, (size_t)x->n * (size_t)mylen * sizeof(float) + 4, &x->cap_got);
    if (!x->got) return oom(api, ctx);
    int tag = cmpi_coll_tag(x->key, 1);
    for (uint32_t i = 0, l = 0; i < x->n; ++i) {
        int owner = cmpi_owner(x->m, x->members[i]);
        if (owner == x->m->rank) {
            for (int k = 0; k < x->n_ranks; ++k)
                if (k != x->me &&
                    cmpi_isend(x->m, &x->base.reqs,
                               x->in + (size_t)l * x->e + slice_lo(x->e, k, x->n_ranks),
                               (size_t)slice_len(x->e, k, x->n_ranks) * sizeof(float), x->ranks[k],
                               tag))
                    return oom(api, ctx);
            ++l;
        } else if (cmpi_irecv(x->m, &x->base.reqs, x->got + (size_t)i * mylen,
                              (size_t)mylen * sizeof(float), owner, tag)) {
            return oom(api, ctx);
        }
    }
    return TRN_OK;
}

/* Fold slice me in core order, then trade slices of the result. */
static trn_status fold_and_share(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    int64_t lo = slice_lo(x->e, x->me, x->n_ranks), len = slice_len(x->e, x->me, x->n_ranks);
    const float **ins = malloc(x->n * sizeof *ins);
    if (!ins) return oom(api, ctx);
    for (uint32_t i = 0, l = 0; i < x->n; ++i)
        ins[i] = local(x, i) ? x->in + (size_t)l++ * x->e + lo : x->got + (size_t)i * len;
    coll_reduce(x->lead->spec.op, ins, x->n, (size_t)len, x->lead->spec.has_scale,
                x->lead->spec.scale, x->res + lo);
    free(ins);
    cmpi_reqs_free(&x->base.reqs);
    int tag = cmpi_coll_tag(x->key, 2);
    for (int k = 0; k < x->n_ranks; ++k) {
        if (k == x->me) continue;
        size_t klo = (size_t)slice_lo(x->e, k, x->n_ranks),
               klen = (size_t)slice_len(x->e, k, x->n_ranks);
        if (cmpi_isend(x->m, &x->base.reqs, x->res + lo, (size_t)len * sizeof(float), x->ranks[k],
                       tag) ||
            cmpi_irecv(x->m, &x->base.reqs, x->res + klo, klen * sizeof(float), x->ranks[k], tag))
            return oom(api, ctx);
    }
    return TRN_OK;
}

static trn_status write_results(xop *x, const trn_host_api *api, trn_ctx *ctx, bool scatter) {
    int64_t part = scatter ? x->e / x->n : 0;
    for (uint32_t i = 0; i < x->n; ++i) {
        if (!local(x, i)) continue;
        size_t at = scatter ? (size_t)i * part : 0;
        if (write_f32(api, ctx, &x->recs[i]->out, x->res + at) != TRN_OK) return TRN_ERR;
    }
    return TRN_OK;
}

/* ---- every other kind: the raw inputs everywhere ----------------------- */

static size_t in_bytes(const trn_host_api *api, const coll_record *r, int k) {
    return (size_t)r->in_count[k] * api->dtype_width((trn_dtype)r->in[k].dtype);
}

static trn_status start_copy(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    size_t total = 0;
    for (uint32_t i = 0; i < x->n; ++i)
        for (int k = 0; k < x->recs[i]->n_in; ++k) total += in_bytes(api, x->recs[i], k);
    x->raw = cmpi_buf_get(x->m, total + 1, &x->cap_raw);
    if (!x->raw) return oom(api, ctx);
    int tag = cmpi_coll_tag(x->key, 1);
    size_t off = 0;
    for (uint32_t i = 0; i < x->n; ++i) {
        int owner = cmpi_owner(x->m, x->members[i]);
        for (int k = 0; k < x->recs[i]->n_in; ++k) {
            size_t b = in_bytes(api, x->recs[i], k);
            char *p = x->raw + off;
            off += b;
            if (owner != x->m->rank) {
                if (cmpi_irecv(x->m, &x->base.reqs, p, b, owner, tag)) return oom(api, ctx);
                continue;
            }
            if (api->read_raw(ctx, &x->recs[i]->in[k], p) != TRN_OK) return TRN_ERR;
            for (int q = 0; q < x->n_ranks; ++q)
                if (q != x->me && cmpi_isend(x->m, &x->base.reqs, p, b, x->ranks[q], tag))
                    return oom(api, ctx);
        }
    }
    return TRN_OK;
}

/* The received inputs into this process's copies of their cores, then the
 * in-process runner for the whole party. */
static trn_status finish_copy(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    size_t off = 0;
    for (uint32_t i = 0; i < x->n; ++i)
        for (int k = 0; k < x->recs[i]->n_in; ++k) {
            if (!local(x, i) && api->write_raw(ctx, &x->recs[i]->in[k], x->raw + off) != TRN_OK)
                return TRN_ERR;
            off += in_bytes(api, x->recs[i], k);
        }
    coll_exec ex = {api, ctx, x->st, &x->lead->spec, x->recs, x->n, x->src_of};
    return coll_exec_run(&ex);
}

/* ---- driving it -------------------------------------------------------- */

static trn_status done(xop *x) {
    for (uint32_t i = 0; i < x->n; ++i)
        if (local(x, i)) x->recs[i]->done = true;
    cmpi_untrack(x->m, &x->base);
    destroy(&x->base);
    return TRN_OK;
}

/* Complete: observers learn who met (every member, this process's and the
 * others'), as the in-process registry tells them. */
static trn_status met(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    return coll_met_group(api, ctx, x->recs, x->n) == TRN_OK ? done(x) : TRN_ERR;
}

static trn_status after_records(xop *x, const trn_host_api *api, trn_ctx *ctx) {
    if (check_records(x, api, ctx) != TRN_OK) return TRN_ERR;
    build_recs(x);
    cmpi_reqs_free(&x->base.reqs);
    int64_t kind = x->lead->spec.kind;
    bool reduce = kind == COLL_ALL_REDUCE || kind == COLL_REDUCE_SCATTER,
         scatter = kind == COLL_REDUCE_SCATTER;
    if (!reduce) {
        x->plan = PLAN_COPY;
        return start_copy(x, api, ctx);
    }
    coll_exec ex = {api, ctx, x->st, &x->lead->spec, x->recs, x->n, x->src_of};
    if (check_reduce(&ex, scatter) != TRN_OK) return TRN_ERR;
    x->e = x->recs[0]->in_count[0];
    x->plan = native_fits(x, scatter) ? PLAN_NATIVE : PLAN_EXACT;
    if (x->plan == PLAN_EXACT)
        return read_local_f32(x, api, ctx) != TRN_OK ? TRN_ERR : start_exact(x, api, ctx);
    if (run_native(x, api, ctx, scatter) != TRN_OK) return TRN_ERR;
    x->phase = 100; /* finished: step() sees no requests and completes */
    return TRN_OK;
}

static trn_status step(cmpi_op *o, const trn_host_api *api, trn_ctx *ctx) {
    xop *x = (xop *)o;
    bool scatter = x->lead->spec.kind == COLL_REDUCE_SCATTER;
    while (cmpi_test(&x->base.reqs)) {
        trn_status rc = TRN_OK;
        switch (x->phase++) {
            case 0: rc = after_records(x, api, ctx); break;
            case 1:
                if (x->plan == PLAN_COPY)
                    return finish_copy(x, api, ctx) == TRN_OK ? met(x, api, ctx) : TRN_ERR;
                rc = fold_and_share(x, api, ctx);
                break;
            case 100: return met(x, api, ctx); /* native: done in after_records */
            default:
                return write_results(x, api, ctx, scatter) == TRN_OK ? met(x, api, ctx) : TRN_ERR;
        }
        if (rc != TRN_OK) return rc;
    }
    return TRN_WAIT;
}

static bool ready(cmpi_op *o) { return cmpi_test(&o->reqs); }

static bool local_part_arrived(const coll_state *st, const cmpi *m, const uint32_t *members,
                               uint32_t n, uint64_t seq) {
    for (uint32_t i = 0; i < n; ++i)
        if (cmpi_owner(m, members[i]) == m->rank && !coll_registry_get(st->reg, members[i], seq))
            return false;
    return true;
}

trn_status cmpi_compute(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_record *rec,
                        const uint32_t *members, uint32_t n, const uint32_t *src_of) {
    cmpi *m = st->remote;
    if (!local_part_arrived(st, m, members, n, rec->seq)) return TRN_WAIT;
    xop *x = calloc(1, sizeof *x);
    if (!x) return oom(api, ctx);
    x->base.step = step;
    x->base.destroy = destroy;
    x->base.ready = ready;
    x->m = m;
    x->st = st;
    x->lead = rec;
    x->n = n;
    x->members = malloc(n * sizeof *x->members);
    x->src_of = src_of ? malloc(n * sizeof *x->src_of) : NULL;
    x->recs = calloc(n, sizeof *x->recs);
    x->synth = calloc(n, sizeof *x->synth);
    x->wire = calloc(n, sizeof *x->wire);
    if (!x->members || (src_of && !x->src_of) || !x->recs || !x->synth || !x->wire) {
        destroy(&x->base);
        return oom(api, ctx);
    }
    memcpy(x->members, members, n * sizeof *members);
    if (src_of) memcpy(x->src_of, src_of, n * sizeof *src_of);
    uint32_t leader = members[0];
    for (uint32_t i = 1; i < n; ++i) leader = members[i] < leader ? members[i] : leader;
    x->key = rec->seq * m->cores + leader;
    for (uint32_t i = 0; i < n; ++i)
        if (local(x, i)) x->wire[i] = to_wire(coll_registry_get(st->reg, members[i], rec->seq));
    if (m->reduce == CMPI_REDUCE_NATIVE &&
        (rec->spec.kind == COLL_ALL_REDUCE || rec->spec.kind == COLL_REDUCE_SCATTER))
        for (uint32_t i = 0; i < n;
             ++i) /* native blocks after phase 0: fail here, before the others count on us */
            if (local(x, i) && api->check_ap(ctx, &x->wire[i].in[0], TRN_IN) != TRN_OK) {
                destroy(&x->base);
                return TRN_ERR;
            }
    if (find_ranks(x) || post_records(x)) {
        destroy(&x->base);
        return oom(api, ctx);
    }
    cmpi_track(m, &x->base);
    coll_core *me = &st->core[rec->core];
    me->pending = x;
    coll_wait_on(me, rec->instr, rec);
    return cmpi_resume(api, ctx, st, me);
}
