/* The rendezvous registry in a dump (ABI 3 state hooks). Every record the
 * registry still holds is kept, done or pending, since a core that arrives
 * later still checks its k-th collective against every other core's k-th
 * (the registry drops a record only once no core can ask for it again, so
 * a list may start at a number above 0: its first row's seq says where):
 *
 *   records      int64 [N][73]  one row per record, list by list in posting
 *                               order (columns: REC_* below)
 *   record_data  int64 [M]      each record's replica group ids, then its
 *                               src_target_pairs, then its send_counts
 *   waits        int64 [cores][5]  (waiting, instruction, list, key, seq) of
 *                               the record a waiting core waits on
 *   list_starts  int64 [L][3]   (list, key, first seq) of each list whose
 *                               first records were dropped (absent: none)
 *
 * A record's list is 0 (a core's CollectiveCompute sequence, key = core),
 * 1 (sends, key = src * cores + dst) or 2 (receives). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_ops.h"
#include "coll_state.h"
#include "registry.h"

enum {
    REC_LIST,
    REC_KEY,
    REC_SEQ,
    REC_CORE,
    REC_INSTR,
    REC_PEER,
    REC_MEMBER,
    REC_DONE,
    REC_N_IN,
    REC_N_OUT,
    REC_IN_COUNT0,
    REC_IN_COUNT1,
    REC_OUT_COUNT,
    REC_KIND,
    REC_OP,
    REC_HAS_SCALE,
    REC_SCALE_BITS,
    REC_CC_DIM,
    REC_PEER_OFFSET,
    REC_N_GROUPS,
    REC_GROUP_SIZE,
    REC_GROUPS_ALL,
    REC_N_PAIRS,
    REC_N_COUNTS,
    REC_DATA_AT,
    REC_AP_IN0,
    REC_AP_IN1 = REC_AP_IN0 + 16,
    REC_AP_OUT = REC_AP_IN1 + 16,
    REC_COLS = REC_AP_OUT + 16
};

typedef struct rows {
    int64_t *rec, *data;
    size_t n, cap, n_data, cap_data;
} rows;

static int grow(int64_t **v, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    int64_t *p = realloc(*v, c * sizeof *p);
    if (!p) return -1;
    *v = p;
    *cap = c;
    return 0;
}

static void ap_out(const trn_ap *ap, int64_t *o) {
    o[0] = ap->core;
    o[1] = ap->mem;
    o[2] = ap->dtype;
    o[3] = ap->part_start;
    o[4] = ap->part_count;
    o[5] = ap->part_step;
    o[6] = ap->offset;
    o[7] = ap->ndims;
    for (int d = 0; d < TRN_AP_MAX_DIMS; ++d) {
        o[8 + 2 * d] = ap->dims[d].step;
        o[9 + 2 * d] = ap->dims[d].num;
    }
}

static void ap_in(const int64_t *o, trn_ap *ap) {
    ap->core = (uint32_t)o[0];
    ap->mem = (uint32_t)o[1];
    ap->dtype = (uint32_t)o[2];
    ap->part_start = (uint32_t)o[3];
    ap->part_count = (uint32_t)o[4];
    ap->part_step = (uint32_t)o[5];
    ap->offset = o[6];
    ap->ndims = (uint32_t)o[7];
    for (int d = 0; d < TRN_AP_MAX_DIMS; ++d) {
        ap->dims[d].step = o[8 + 2 * d];
        ap->dims[d].num = o[9 + 2 * d];
    }
}

static int add_record(void *arg, int list, uint64_t key, const coll_record *rec) {
    rows *r = arg;
    const coll_spec *sp = &rec->spec;
    size_t ids = (size_t)sp->groups.n_groups * sp->groups.size,
           extra = ids + 2 * sp->n_pairs + sp->n_counts * sp->n_counts;
    if (grow(&r->rec, &r->cap, (r->n + 1) * REC_COLS) ||
        grow(&r->data, &r->cap_data, r->n_data + extra + 1))
        return -1;
    int64_t *o = r->rec + r->n * REC_COLS;
    uint32_t scale_bits;
    memcpy(&scale_bits, &sp->scale, sizeof scale_bits);
    int64_t head[REC_AP_IN0] = {list,
                                (int64_t)key,
                                (int64_t)rec->seq,
                                rec->core,
                                (int64_t)rec->instr,
                                rec->peer,
                                rec->member,
                                rec->done,
                                rec->n_in,
                                rec->n_out,
                                rec->in_count[0],
                                rec->in_count[1],
                                rec->out_count,
                                sp->kind,
                                sp->op,
                                sp->has_scale,
                                scale_bits,
                                sp->cc_dim,
                                sp->peer_offset,
                                sp->groups.n_groups,
                                sp->groups.size,
                                sp->groups.all,
                                (int64_t)sp->n_pairs,
                                (int64_t)sp->n_counts,
                                (int64_t)r->n_data};
    memcpy(o, head, sizeof head);
    ap_out(&rec->in[0], o + REC_AP_IN0);
    ap_out(&rec->in[1], o + REC_AP_IN1);
    ap_out(&rec->out, o + REC_AP_OUT);
    int64_t *d = r->data + r->n_data;
    for (size_t i = 0; i < ids; ++i) *d++ = sp->groups.ids[i];
    for (size_t i = 0; i < 2 * sp->n_pairs; ++i) *d++ = sp->pairs[i];
    for (size_t i = 0; i < sp->n_counts * sp->n_counts; ++i) *d++ = sp->counts[i];
    r->n_data += extra;
    r->n++;
    return 0;
}

/* Where a record sits: its list, key and position. */
typedef struct place {
    const coll_record *rec;
    int64_t list, key, seq;
} place;

static int find_place(void *arg, int list, uint64_t key, const coll_record *rec) {
    place *p = arg;
    if (rec != p->rec) return 0;
    p->list = list;
    p->key = (int64_t)key;
    p->seq = (int64_t)rec->seq;
    return 1;
}

static int add_base(void *arg, int list, uint64_t key, uint64_t base) {
    rows *b = arg;
    if (grow(&b->rec, &b->cap, (b->n + 1) * 3)) return -1;
    int64_t *o = b->rec + b->n++ * 3;
    o[0] = list;
    o[1] = (int64_t)key;
    o[2] = (int64_t)base;
    return 0;
}

trn_status coll_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                           size_t errlen) {
    coll_state *st = state;
    rows r = {0};
    int64_t *waits = calloc((size_t)(st->cores ? st->cores : 1) * 5, sizeof *waits);
    trn_status rc = waits && coll_registry_each(st->reg, add_record, &r) == 0 ? TRN_OK : TRN_ERR;
    if (rc != TRN_OK) snprintf(err, errlen, "out of memory");
    for (uint32_t c = 0; c < st->cores && rc == TRN_OK; ++c) {
        const coll_core *me = &st->core[c];
        place p = {me->rec, -1, -1, -1};
        if (me->pending) {
            snprintf(
                err, errlen,
                "core %u waits on an exchange with another process; such a run cannot be dumped",
                c);
            rc = TRN_ERR;
        }
        if (me->rec) coll_registry_each(st->reg, find_place, &p);
        int64_t w[5] = {me->waiting, (int64_t)me->instr, p.list, p.key, p.seq};
        memcpy(waits + (size_t)c * 5, w, sizeof w);
    }
    rows b = {0};
    if (rc == TRN_OK && coll_registry_each_base(st->reg, add_base, &b)) {
        snprintf(err, errlen, "out of memory");
        rc = TRN_ERR;
    }
    int64_t rs[2] = {(int64_t)r.n, REC_COLS}, ds[1] = {(int64_t)r.n_data}, ws[2] = {st->cores, 5},
            bs[2] = {(int64_t)b.n, 3};
    if (rc == TRN_OK && b.n) rc = sa->put(io, "list_starts", TRN_DT_INT64, 2, bs, b.rec);
    free(b.rec);
    if (rc == TRN_OK) rc = sa->put(io, "records", TRN_DT_INT64, 2, rs, r.rec);
    if (rc == TRN_OK) rc = sa->put(io, "record_data", TRN_DT_INT64, 1, ds, r.data);
    if (rc == TRN_OK) rc = sa->put(io, "waits", TRN_DT_INT64, 2, ws, waits);
    free(r.rec);
    free(r.data);
    free(waits);
    return rc;
}

/* ---- restore ---- */

static int64_t *load(const trn_state_api *sa, trn_state_io *io, const char *name, uint32_t nd_want,
                     int64_t cols, int64_t *n, char *err, size_t errlen) {
    uint32_t dt, nd;
    int64_t shape[TRN_STATE_MAX_DIMS];
    trn_lookup l = sa->find(io, name, &dt, &nd, shape);
    if (l == TRN_BADTYPE) return NULL;
    if (l == TRN_ABSENT || dt != TRN_DT_INT64 || nd != nd_want || (nd == 2 && shape[1] != cols)) {
        snprintf(err, errlen, "%s: expected int64 %s%s", name, nd_want == 2 ? "[N][cols]" : "[N]",
                 l == TRN_ABSENT ? ", the dump has none" : "");
        return NULL;
    }
    *n = shape[0];
    size_t count = (size_t)shape[0] * (nd == 2 ? (size_t)cols : 1);
    int64_t *v = malloc((count ? count : 1) * sizeof *v);
    if (!v)
        snprintf(err, errlen, "out of memory");
    else if (sa->get(io, name, v, count * sizeof *v) != TRN_OK) {
        free(v);
        v = NULL;
    }
    return v;
}

/* The extra data a record row claims (group ids, pairs, counts), -1 when a
 * size is negative or the sum overflows. */
static int64_t data_need(const int64_t *o) {
    int64_t ids, pairs, counts, need;
    if (o[REC_N_GROUPS] < 0 || o[REC_GROUP_SIZE] < 0 || o[REC_N_PAIRS] < 0 || o[REC_N_COUNTS] < 0 ||
        o[REC_N_GROUPS] > UINT32_MAX || o[REC_GROUP_SIZE] > UINT32_MAX ||
        __builtin_mul_overflow(o[REC_N_GROUPS], o[REC_GROUP_SIZE], &ids) ||
        __builtin_mul_overflow(o[REC_N_PAIRS], 2, &pairs) ||
        __builtin_mul_overflow(o[REC_N_COUNTS], o[REC_N_COUNTS], &counts) ||
        __builtin_add_overflow(ids, pairs, &need) || __builtin_add_overflow(need, counts, &need))
        return -1;
    return need;
}

/* The elements ap visits, or -1 when its fields make no AP (overflow-checked:
 * they come from the file). */
static int64_t ap_visits(const trn_ap *ap) {
    if (ap->ndims > TRN_AP_MAX_DIMS) return -1;
    int64_t n = ap->part_count;
    for (uint32_t d = 0; d < ap->ndims; ++d)
        if (ap->dims[d].num < 0 || __builtin_mul_overflow(n, ap->dims[d].num, &n)) return -1;
    return n;
}

/* The handlers size their buffers by a record's counts and move its APs'
 * elements, so the two must agree before a record is trusted. Every slot,
 * used or not: a handler reads the slots its kind has, whatever n_in / n_out
 * the file claims, and a record leaves the slots it lacks zero. */
static bool counts_match(const coll_record *rec, char *why, size_t whylen) {
    const trn_ap *ap[3] = {&rec->in[0], &rec->in[1], &rec->out};
    const int64_t count[3] = {rec->in_count[0], rec->in_count[1], rec->out_count};
    static const char *const name[3] = {"input 0", "input 1", "output"};
    for (int k = 0; k < 3; ++k) {
        int64_t n = ap_visits(ap[k]);
        if (n == count[k]) continue;
        snprintf(why, whylen,
                 ": its %s count %lld is not the %lld elements its access pattern visits", name[k],
                 (long long)count[k], (long long)n);
        return false;
    }
    return true;
}

static coll_record *record_from(const int64_t *o, const int64_t *data, int64_t n_data,
                                uint32_t cores, char *why, size_t whylen) {
    int64_t need = data_need(o), at = o[REC_DATA_AT];
    if (need < 0 || at < 0 || at > n_data || need > n_data - at || o[REC_CORE] < 0 ||
        o[REC_CORE] >= cores || o[REC_N_IN] < 0 || o[REC_N_IN] > 2 || o[REC_N_OUT] < 0 ||
        o[REC_N_OUT] > 1)
        return NULL;
    int64_t ids = o[REC_N_GROUPS] * o[REC_GROUP_SIZE]; /* data_need checked it */
    coll_record *rec = calloc(1, sizeof *rec);
    if (!rec) return NULL;
    coll_spec *sp = &rec->spec;
    rec->core = (uint32_t)o[REC_CORE];
    rec->instr = (uint64_t)o[REC_INSTR];
    rec->peer = (uint32_t)o[REC_PEER];
    rec->member = o[REC_MEMBER] != 0;
    rec->done = o[REC_DONE] != 0;
    rec->n_in = (int)o[REC_N_IN];
    rec->n_out = (int)o[REC_N_OUT];
    rec->in_count[0] = o[REC_IN_COUNT0];
    rec->in_count[1] = o[REC_IN_COUNT1];
    rec->out_count = o[REC_OUT_COUNT];
    sp->kind = o[REC_KIND];
    sp->op = o[REC_OP];
    sp->has_scale = o[REC_HAS_SCALE] != 0;
    uint32_t bits = (uint32_t)o[REC_SCALE_BITS];
    memcpy(&sp->scale, &bits, sizeof bits);
    sp->cc_dim = o[REC_CC_DIM];
    sp->peer_offset = o[REC_PEER_OFFSET];
    sp->groups.n_groups = (uint32_t)o[REC_N_GROUPS];
    sp->groups.size = (uint32_t)o[REC_GROUP_SIZE];
    sp->groups.all = o[REC_GROUPS_ALL] != 0;
    sp->n_pairs = (size_t)o[REC_N_PAIRS];
    sp->n_counts = (size_t)o[REC_N_COUNTS];
    ap_in(o + REC_AP_IN0, &rec->in[0]);
    ap_in(o + REC_AP_IN1, &rec->in[1]);
    ap_in(o + REC_AP_OUT, &rec->out);
    if (!counts_match(rec, why, whylen)) {
        free(rec);
        return NULL;
    }
    const int64_t *d = data + at;
    rec->restored = true;
    sp->groups.ids = ids ? malloc((size_t)ids * sizeof *sp->groups.ids) : NULL;
    sp->pairs = sp->n_pairs ? malloc(2 * sp->n_pairs * sizeof *sp->pairs) : NULL;
    sp->counts = sp->n_counts ? malloc(sp->n_counts * sp->n_counts * sizeof *sp->counts) : NULL;
    if ((ids && !sp->groups.ids) || (sp->n_pairs && !sp->pairs) || (sp->n_counts && !sp->counts)) {
        coll_record_free(rec);
        return NULL;
    }
    for (int64_t i = 0; i < ids; ++i) sp->groups.ids[i] = (uint32_t)*d++;
    for (size_t i = 0; i < 2 * sp->n_pairs; ++i) sp->pairs[i] = *d++;
    for (size_t i = 0; i < sp->n_counts * sp->n_counts; ++i) sp->counts[i] = *d++;
    return rec;
}

static trn_status restore_records(coll_state *st, const int64_t *recs, int64_t n,
                                  const int64_t *data, int64_t n_data, char *err, size_t errlen) {
    for (int64_t i = 0; i < n; ++i) {
        const int64_t *o = recs + i * REC_COLS;
        char why[160] = "";
        coll_record *rec = record_from(o, data, n_data, st->cores, why, sizeof why);
        /* posted (the registry owns it) only where the list expects that number */
        if (!rec || o[REC_SEQ] < 0 ||
            coll_registry_restore_post(st->reg, (int)o[REC_LIST], (uint64_t)o[REC_KEY],
                                       (uint64_t)o[REC_SEQ], rec)) {
            snprintf(err, errlen,
                     "records[%lld] is not a record of this run (list %lld, key %lld, seq %lld)%s",
                     (long long)i, (long long)o[REC_LIST], (long long)o[REC_KEY],
                     (long long)o[REC_SEQ], why);
            coll_record_free(rec);
            return TRN_ERR;
        }
    }
    return TRN_OK;
}

/* Where lists start (optional: a dump with nothing dropped has none). */
static trn_status restore_bases(coll_state *st, const trn_state_api *sa, trn_state_io *io,
                                char *err, size_t errlen) {
    uint32_t dt, nd;
    int64_t shape[TRN_STATE_MAX_DIMS], n = 0;
    trn_lookup l = sa->find(io, "list_starts", &dt, &nd, shape);
    if (l == TRN_ABSENT) return TRN_OK;
    int64_t *b = l == TRN_FOUND ? load(sa, io, "list_starts", 2, 3, &n, err, errlen) : NULL;
    if (!b) return TRN_ERR;
    trn_status rc = TRN_OK;
    for (int64_t i = 0; i < n && rc == TRN_OK; ++i)
        if (b[3 * i + 1] < 0 || b[3 * i + 2] <= 0 ||
            coll_registry_restore_base(st->reg, (int)b[3 * i], (uint64_t)b[3 * i + 1],
                                       (uint64_t)b[3 * i + 2])) {
            snprintf(
                err, errlen,
                "list_starts[%lld] (list %lld, key %lld, from %lld) is not a list of this run, or "
                "names one twice",
                (long long)i, (long long)b[3 * i], (long long)b[3 * i + 1],
                (long long)b[3 * i + 2]);
            rc = TRN_ERR;
        }
    free(b);
    return rc;
}

trn_status coll_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                              size_t errlen) {
    coll_state *st = state;
    int64_t n = 0, n_data = 0, n_waits = 0;
    int64_t *recs = load(sa, io, "records", 2, REC_COLS, &n, err, errlen);
    int64_t *data = recs ? load(sa, io, "record_data", 1, 0, &n_data, err, errlen) : NULL;
    int64_t *waits = data ? load(sa, io, "waits", 2, 5, &n_waits, err, errlen) : NULL;
    trn_status rc = waits ? TRN_OK : TRN_ERR;
    if (rc == TRN_OK && n_waits != st->cores) {
        snprintf(err, errlen, "waits: %lld cores, the run has %u", (long long)n_waits, st->cores);
        rc = TRN_ERR;
    }
    if (rc == TRN_OK) rc = restore_bases(st, sa, io, err, errlen);
    if (rc == TRN_OK) rc = restore_records(st, recs, n, data, n_data, err, errlen);
    for (uint32_t c = 0; c < st->cores && rc == TRN_OK; ++c) {
        const int64_t *w = waits + (size_t)c * 5;
        coll_core *me = &st->core[c];
        me->waiting = w[0] != 0;
        me->instr = (uint64_t)w[1];
        me->rec = w[2] < 0 ? NULL
                           : coll_registry_find(st->reg, (int)w[2], (uint64_t)w[3], (uint64_t)w[4]);
        if (w[2] >= 0 && !me->rec) {
            snprintf(err, errlen, "waits[%u] names a record the dump does not hold", c);
            rc = TRN_ERR;
        } else if (me->waiting && (!me->rec || me->rec->core != c || me->rec->instr != me->instr)) {
            snprintf(err, errlen, "waits[%u]: core %u waits at instruction index %lld on %s", c, c,
                     (long long)w[1],
                     me->rec ? "a record of another core or instruction" : "no record");
            rc = TRN_ERR;
        }
    }
    free(recs);
    free(data);
    free(waits);
    return rc;
}
