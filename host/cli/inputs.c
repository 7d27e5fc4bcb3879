/* --input: a .npy file into a tensor, on one core or stacked over all.
 * The data goes from the file straight into simulator memory, run by run
 * (npy/npy.h): read(2) into the tensor's own bytes when the
 * dtypes match, through one bounded buffer when they convert. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "npy/npy.h"

static int shape_equal(int na, const int64_t *a, int nb, const int64_t *b) {
    if (na != nb) return 0;
    for (int i = 0; i < na; ++i)
        if (a[i] != b[i]) return 0;
    return 1;
}

typedef struct input_want {
    const trnsim_tensor *t;
    uint32_t cores;
    bool all_cores;
} input_want;

/* [cores, *shape]: one slice per core. */
static bool is_stacked(const trn_npy *h, const input_want *w) {
    return w->all_cores && w->cores > 1 && h->ndim == w->t->ndim + 1 &&
           h->shape[0] == (int64_t)w->cores &&
           shape_equal(w->t->ndim, w->t->shape, h->ndim - 1, h->shape + 1);
}

/* The file's header against the tensor, before its data is read: the
 * tensor's shape, or [cores, *shape] for one slice per core. */
static int check_header(const trn_npy *h, void *ctx, trn_error *e) {
    const input_want *w = ctx;
    if (shape_equal(h->ndim, h->shape, w->t->ndim, w->t->shape) || is_stacked(h, w)) return 0;
    char a[256], b[256];
    return trn_errorf(e, "%s: shape %s does not match the tensor's shape %s", h->name,
                      trn_npy_format_shape(a, sizeof a, h->ndim, h->shape),
                      trn_npy_format_shape(b, sizeof b, w->t->ndim, w->t->shape));
}

static int fill_run(void *ctx, uint8_t *bytes, size_t len, trn_error *e) {
    return trn_npy_in_read(ctx, bytes, len, e);
}

static int fill_tensor(trnsim_sim *s, const binding *b, trn_npy_in *in, const input_want *want,
                       trn_error *e) {
    trn_sim *hs = trn_embed_host_sim(s);
    if (!is_stacked(&in->head, want))
        return trn_sim_fill_tensor(hs, b->name, b->core, fill_run, in, e);
    for (uint32_t c = 0; c < want->cores; ++c)
        if (trn_sim_fill_tensor(hs, b->name, (int)c, fill_run, in, e)) return -1;
    return 0;
}

int cli_load_input(trnsim_sim *s, const binding *b, trn_error *e) {
    trnsim_tensor t;
    if (trnsim_tensor_find(s, b->name, &t)) {
        cli_api_error(e);
        return trn_error_prefix(e, "--input %s", b->name);
    }
    if (access(b->path, F_OK) != 0) /* the likeliest mistake, said plainly */
        return trn_errorf(e, "--input %s=%s: cannot open %s: %s (the file for tensor '%s')",
                          b->name, b->path, b->path, strerror(errno), b->name);
    input_want want = {&t, (uint32_t)trnsim_cores(s), b->core < 0};
    trn_npy_in in;
    if (trn_npy_in_open(&in, b->path, check_header, &want, e))
        return trn_error_prefix(e, "--input %s", b->name);
    int rc = trn_npy_in_plan(&in, (trn_dtype)t.dtype_id, e) || fill_tensor(s, b, &in, &want, e) ||
             trn_npy_in_finish(&in, e);
    trn_npy_in_close(&in);
    if (rc) trn_error_prefix(e, "--input %s", b->name);
    return rc ? -1 : 0;
}
