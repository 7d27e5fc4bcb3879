/* Operand fetch and validation for IT 88-91 (layout in search_operands.h). */
#include "search_operands.h"

#include "search_kernels.h"

/* What one operand is for, which fixes its element count and dtype rule. */
typedef enum role { ROLE_DATA, ROLE_VALS, ROLE_DATA_OUT, ROLE_IDX } role;

typedef struct slot_spec {
    trn_dir dir;
    int index;
    role role;
    const char *label;
} slot_spec;

typedef struct op_spec {
    const char *name;
    int n_in, n_out;
    slot_spec slots[4]; /* data first: the others are checked against it */
} op_spec;

static const op_spec specs[] = {
    [SEARCH_OP_MAX] = {"Max",
                       1,
                       1,
                       {{TRN_IN, 0, ROLE_DATA, "data"}, {TRN_OUT, 0, ROLE_VALS, "values"}}},
    [SEARCH_OP_MAX_INDEX] = {"MaxIndex",
                             2,
                             1,
                             {{TRN_IN, 1, ROLE_DATA, "data"},
                              {TRN_IN, 0, ROLE_VALS, "vals"},
                              {TRN_OUT, 0, ROLE_IDX, "indices"}}},
    [SEARCH_OP_MATCH_REPLACE] = {"MatchReplace",
                                 2,
                                 1,
                                 {{TRN_IN, 1, ROLE_DATA, "data"},
                                  {TRN_IN, 0, ROLE_VALS, "vals"},
                                  {TRN_OUT, 0, ROLE_DATA_OUT, "data_out"}}},
    [SEARCH_OP_MAX_INDEX_MR] = {"MaxIndexAndMatchReplace",
                                2,
                                2,
                                {{TRN_IN, 1, ROLE_DATA, "data"},
                                 {TRN_IN, 0, ROLE_VALS, "vals"},
                                 {TRN_OUT, 0, ROLE_DATA_OUT, "data_out"},
                                 {TRN_OUT, 1, ROLE_IDX, "indices"}}},
};

const char *search_op_name(search_op op) { return specs[op].name; }

static const char *dir_name(trn_dir d) { return d == TRN_IN ? "input" : "output"; }

static trn_status check_counts(const trn_host_api *api, trn_ctx *ctx, const op_spec *sp) {
    int n_in = api->operand_count(ctx, TRN_IN);
    int n_out = api->operand_count(ctx, TRN_OUT);
    if (n_in != sp->n_in || n_out != sp->n_out)
        return api->error(
            ctx, "%s: expected %d input(s) and %d output(s) (docs/search.md), found %d and %d",
            sp->name, sp->n_in, sp->n_out, n_in, n_out);
    return TRN_OK;
}

static bool is_packed(uint32_t dt) {
    return dt == TRN_DT_FP8_E4M3_X4 || dt == TRN_DT_FP8_E5M2_X4 || dt == TRN_DT_FP4_E2M1_X4;
}

static trn_status check_dtype(const trn_host_api *api, trn_ctx *ctx, const op_spec *sp,
                              const slot_spec *sl, const trn_ap *ap) {
    const char *dt = api->dtype_name((trn_dtype)ap->dtype);
    if (sl->role == ROLE_IDX) {
        if (ap->dtype != TRN_DT_UINT32 && ap->dtype != TRN_DT_INT32)
            return api->error(ctx, "%s: %s %d (%s) has dtype %s; expected uint32 (or int32)",
                              sp->name, dir_name(sl->dir), sl->index, sl->label, dt ? dt : "?");
    } else if (ap->dtype >= TRN_DT_COUNT || is_packed(ap->dtype)) {
        return api->error(ctx,
                          "%s: %s %d (%s) has dtype %s; expected a dtype with an fp32 value (not a "
                          "packed x4 form)",
                          sp->name, dir_name(sl->dir), sl->index, sl->label, dt ? dt : "?");
    }
    return TRN_OK;
}

/* Elements per partition the role demands; data's own range is checked by
 * the caller before this is used. */
static trn_status check_elems(const trn_host_api *api, trn_ctx *ctx, const op_spec *sp,
                              const slot_spec *sl, int64_t elems, size_t n_data) {
    const char *d = dir_name(sl->dir);
    switch (sl->role) {
        case ROLE_DATA:
            if (elems < SEARCH_MIN_DATA || elems > SEARCH_MAX_DATA)
                return api->error(
                    ctx, "%s: %s %d (%s) has %lld elements per partition; expected %d to %d",
                    sp->name, d, sl->index, sl->label, (long long)elems, SEARCH_MIN_DATA,
                    SEARCH_MAX_DATA);
            return TRN_OK;
        case ROLE_DATA_OUT:
            if (elems != (int64_t)n_data)
                return api->error(ctx,
                                  "%s: %s %d (%s) has %lld elements per partition; expected %zu "
                                  "(as many as the data)",
                                  sp->name, d, sl->index, sl->label, (long long)elems, n_data);
            return TRN_OK;
        default:
            if (elems != SEARCH_K)
                return api->error(
                    ctx, "%s: %s %d (%s) has %lld elements per partition; expected exactly %d",
                    sp->name, d, sl->index, sl->label, (long long)elems, SEARCH_K);
            return TRN_OK;
    }
}

static trn_status fetch(const trn_host_api *api, trn_ctx *ctx, const op_spec *sp,
                        const slot_spec *sl, search_operands *o, trn_ap *ap) {
    if (api->operand(ctx, sl->dir, sl->index, ap) != TRN_OK) return TRN_ERR;
    if (check_dtype(api, ctx, sp, sl, ap) != TRN_OK) return TRN_ERR;
    if (check_elems(api, ctx, sp, sl, trn_ap_free_elems(ap), o->n) != TRN_OK) return TRN_ERR;
    if (sl->role == ROLE_DATA) {
        if (ap->part_count == 0)
            return api->error(ctx, "%s: %s %d (%s) spans 0 partitions; expected at least 1",
                              sp->name, dir_name(sl->dir), sl->index, sl->label);
        o->parts = ap->part_count;
        o->n = (size_t)trn_ap_free_elems(ap);
    } else if (ap->part_count != o->parts) {
        return api->error(
            ctx, "%s: %s %d (%s) spans %u partitions; expected %zu (as many as the data)", sp->name,
            dir_name(sl->dir), sl->index, sl->label, ap->part_count, o->parts);
    }
    return TRN_OK;
}

static trn_ap *target(search_operands *o, role r) {
    switch (r) {
        case ROLE_DATA: return &o->data;
        case ROLE_VALS: return &o->vals;
        case ROLE_DATA_OUT: o->has_data_out = true; return &o->data_out;
        default: o->has_idx = true; return &o->idx;
    }
}

trn_status search_get_operands(const trn_host_api *api, trn_ctx *ctx, search_op op,
                               search_operands *o) {
    const op_spec *sp = &specs[op];
    *o = (search_operands){0};
    if (check_counts(api, ctx, sp) != TRN_OK) return TRN_ERR;
    int n_slots = sp->n_in + sp->n_out;
    for (int i = 0; i < n_slots; ++i) {
        const slot_spec *sl = &sp->slots[i];
        if (fetch(api, ctx, sp, sl, o, target(o, sl->role)) != TRN_OK) return TRN_ERR;
    }
    return TRN_OK;
}

trn_status search_get_imm(const trn_host_api *api, trn_ctx *ctx, search_op op, float *imm) {
    double v;
    trn_lookup r = api->attr_float(ctx, "imm_value", &v);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_ABSENT)
        return api->error(ctx,
                          "%s: attribute imm_value (the replacement value, e.g. \"-inf\") is "
                          "required, found none",
                          specs[op].name);
    *imm = (float)v; /* C's double -> float conversion rounds to nearest even */
    return TRN_OK;
}
