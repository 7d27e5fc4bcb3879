/* Handlers of the backward pass: BNGradients (IT 36), BNBackprop (IT 37)
 * and BNBackprop2 (IT 38). The two backprop opcodes differ only in where
 * their coefficients come from; both gather them into dense per-partition
 * arrays and run the same kernel. x and dy are read BN_BLOCK partitions at
 * a time (cache-warm for the kernel); the one output is written whole after
 * everything was read and computed. */
#include <stdio.h>

#include "bn_kernels.h"
#include "bn_operands.h"
#include "bn_ops.h"

/* x and dy: the data operands shared by all three opcodes (inputs 0, 1). */
static trn_status get_x_dy(const trn_host_api *api, trn_ctx *ctx, const char *op, bn_operand *x,
                           bn_operand *dy) {
    BN_TRY(bn_get(api, ctx, op, TRN_IN, 0, "x", x));
    BN_TRY(bn_get(api, ctx, op, TRN_IN, 1, "dy", dy));
    if (dy->parts != x->parts || dy->elems != x->elems)
        return api->error(
            ctx,
            "%s: inputs[1] (dy) is %zu partitions x %zu elements; expected the shape of "
            "inputs[0] (x), %zu x %zu",
            op, dy->parts, dy->elems, x->parts, x->elems);
    if (!bn_size_ok(x->parts, x->elems, 3))
        return api->error(ctx, "%s: x is too large (%zu x %zu)", op, x->parts, x->elems);
    return TRN_OK;
}

/* A per-partition coefficient input with `elems` values per partition. */
static trn_status get_coef(const trn_host_api *api, trn_ctx *ctx, const char *op, int idx,
                           const char *role, size_t parts, size_t elems, const char *why,
                           bn_operand *o) {
    char label[64];
    snprintf(label, sizeof label, "inputs[%d] (%s)", idx, role);
    BN_TRY(bn_get(api, ctx, op, TRN_IN, idx, role, o));
    return bn_expect_shape(api, ctx, op, o, label, parts, elems, why);
}

trn_status bn_op_gradients(const trn_host_api *api, trn_ctx *ctx, void *state) {
    static const char op[] = "BNGradients";
    bn_operand x, dy, mean, vf, g;
    BN_TRY(
        bn_expect_counts(api, ctx, op, 4, 1, "inputs [x, dy, mean, varfactor], outputs [grads]"));
    BN_TRY(get_x_dy(api, ctx, op, &x, &dy));
    BN_TRY(get_coef(api, ctx, op, 2, "mean", x.parts, 1, "the mean, one per partition", &mean));
    BN_TRY(get_coef(api, ctx, op, 3, "varfactor", x.parts, 1,
                    "the variance factor, one per partition", &vf));
    BN_TRY(bn_get(api, ctx, op, TRN_OUT, 0, "grads", &g));
    BN_TRY(bn_expect_shape(api, ctx, op, &g, "outputs[0] (grads)", x.parts, BN_GRAD_ELEMS,
                           "sum dy, sum (x-m)*dy*vf^2, sum (x-m)*dy*vf"));
    BN_TRY(api->check_ap(ctx, &g.ap, TRN_OUT));
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the data */

    const size_t P = x.parts, N = x.elems, rows = P < BN_SLICE_ROWS ? P : BN_SLICE_ROWS;
    float *buf = bn_scratch(api, ctx, state, 2 * rows * N + 2 * P + P * BN_GRAD_ELEMS);
    if (!buf) return TRN_ERR;
    float *xs = buf, *dys = xs + rows * N, *ms = dys + rows * N, *vfs = ms + P, *out = vfs + P;
    BN_TRY(api->read_f32(ctx, &mean.ap, ms));
    BN_TRY(api->read_f32(ctx, &vf.ap, vfs));
    for (size_t p0 = 0; p0 < P; p0 += rows) {
        const size_t n = P - p0 < rows ? P - p0 : rows;
        BN_TRY(bn_read_rows(api, ctx, &x.ap, p0, n, xs));
        BN_TRY(bn_read_rows(api, ctx, &dy.ap, p0, n, dys));
        bn_gradients_f32(xs, dys, ms + p0, vfs + p0, n, N, out + p0 * BN_GRAD_ELEMS);
    }
    return api->write_f32(ctx, &g.ap, out, TRN_ACC_COPY);
}

/* The reference reads total_elements as an fp32 scalar: the JSON number is
 * rounded to fp32 (RNE) once. */
static trn_status read_total(const trn_host_api *api, trn_ctx *ctx, const char *op, float *total) {
    double t;
    const trn_lookup l = api->attr_float(ctx, "total_elements", &t);
    if (l == TRN_BADTYPE) return TRN_ERR;
    if (l == TRN_ABSENT)
        return api->error(
            ctx, "%s: missing attribute total_elements (a number: the N of dy*N in dx)", op);
    *total = (float)t;
    return TRN_OK;
}

/* Everything a backprop needs once its operands are validated. */
typedef struct backprop_args {
    bn_operand x, dy, mean, dx;
    bn_operand coef[2]; /* BNBackprop: [A, Bc, scale]; BNBackprop2: [A, Bc], [scale] */
    int n_coef;
    float total;
} backprop_args;

/* Read the coefficients into dense [P] arrays, then x and dy a slice at a
 * time; dx is written once, whole, at the end. */
static trn_status run_backprop(const trn_host_api *api, trn_ctx *ctx, bn_state *state,
                               const backprop_args *a) {
    const size_t P = a->x.parts, N = a->x.elems, rows = P < BN_SLICE_ROWS ? P : BN_SLICE_ROWS;
    float *buf = bn_scratch(api, ctx, state, 2 * rows * N + P * N + 7 * P);
    if (!buf) return TRN_ERR;
    float *xs = buf, *dys = xs + rows * N, *dx = dys + rows * N, *m = dx + P * N, *A = m + P,
          *bc = A + P;
    float *scale = bc + P, *raw = scale + P; /* raw: up to 3 coefficients per partition */
    BN_TRY(api->read_f32(ctx, &a->mean.ap, m));
    BN_TRY(api->read_f32(ctx, &a->coef[0].ap, raw));
    const size_t k = a->coef[0].elems;
    for (size_t p = 0; p < P; ++p) {
        A[p] = raw[p * k];
        bc[p] = raw[p * k + 1];
        if (k == 3) scale[p] = raw[p * k + 2];
    }
    if (a->n_coef == 2) BN_TRY(api->read_f32(ctx, &a->coef[1].ap, scale));
    for (size_t p0 = 0; p0 < P; p0 += rows) {
        const size_t n = P - p0 < rows ? P - p0 : rows;
        BN_TRY(bn_read_rows(api, ctx, &a->x.ap, p0, n, xs));
        BN_TRY(bn_read_rows(api, ctx, &a->dy.ap, p0, n, dys));
        bn_backprop_f32(xs, dys, m + p0, A + p0, bc + p0, scale + p0, a->total, n, N, dx + p0 * N);
    }
    return api->write_f32(ctx, &a->dx.ap, dx, TRN_ACC_COPY);
}

/* The operands both layouts share: x, dy, mean, dx and total_elements. */
static trn_status get_common(const trn_host_api *api, trn_ctx *ctx, const char *op,
                             backprop_args *a) {
    BN_TRY(get_x_dy(api, ctx, op, &a->x, &a->dy));
    BN_TRY(
        get_coef(api, ctx, op, 2, "mean", a->x.parts, 1, "the mean, one per partition", &a->mean));
    BN_TRY(bn_get(api, ctx, op, TRN_OUT, 0, "dx", &a->dx));
    BN_TRY(bn_expect_shape(api, ctx, op, &a->dx, "outputs[0] (dx)", a->x.parts, a->x.elems,
                           "the elements of x"));
    return read_total(api, ctx, op, &a->total);
}

trn_status bn_op_backprop(const trn_host_api *api, trn_ctx *ctx, void *state) {
    static const char op[] = "BNBackprop";
    backprop_args a = {.n_coef = 1};
    BN_TRY(bn_expect_counts(api, ctx, op, 4, 1,
                            "inputs [x, dy, mean, coef = (A, Bc, scale)], outputs [dx]"));
    BN_TRY(get_common(api, ctx, op, &a));
    BN_TRY(get_coef(api, ctx, op, 3, "coef", a.x.parts, 3, "A, Bc, scale", &a.coef[0]));
    BN_TRY(api->check_ap(ctx, &a.dx.ap, TRN_OUT));
    if (api->checking(ctx)) return TRN_OK;
    return run_backprop(api, ctx, state, &a);
}

trn_status bn_op_backprop2(const trn_host_api *api, trn_ctx *ctx, void *state) {
    static const char op[] = "BNBackprop2";
    backprop_args a = {.n_coef = 2};
    BN_TRY(bn_expect_counts(api, ctx, op, 5, 1,
                            "inputs [x, dy, mean, ab = (A, Bc), scale], outputs [dx]"));
    BN_TRY(get_common(api, ctx, op, &a));
    BN_TRY(get_coef(api, ctx, op, 3, "ab", a.x.parts, 2, "A, Bc", &a.coef[0]));
    BN_TRY(get_coef(api, ctx, op, 4, "scale", a.x.parts, 1, "the scale, one per partition",
                    &a.coef[1]));
    BN_TRY(api->check_ap(ctx, &a.dx.ap, TRN_OUT));
    if (api->checking(ctx)) return TRN_OK;
    return run_backprop(api, ctx, state, &a);
}
