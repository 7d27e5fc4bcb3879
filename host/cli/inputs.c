/* --input: a .npy file into a tensor, on one core or stacked over all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arith/arith.h"
#include "cli/cli_internal.h"
#include "frontend/npy.h"

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

/* The file's header against the tensor, before its data is read: the
 * tensor's shape, or [cores, *shape] for one slice per core. */
static int check_header(const trn_npy *h, void *ctx, trn_error *e) {
    const input_want *w = ctx;
    if (shape_equal(h->ndim, h->shape, w->t->ndim, w->t->shape)) return 0;
    if (w->all_cores && w->cores > 1 && h->ndim == w->t->ndim + 1 && h->shape[0] == (int64_t)w->cores &&
        shape_equal(w->t->ndim, w->t->shape, h->ndim - 1, h->shape + 1))
        return 0;
    char a[256], b[256];
    return trn_errorf(e, "%s: shape %s does not match the tensor's shape %s", h->name,
                      trn_npy_format_shape(a, sizeof a, h->ndim, h->shape),
                      trn_npy_format_shape(b, sizeof b, w->t->ndim, w->t->shape));
}

int cli_load_input(trnsim_sim *s, const binding *b, trn_error *e) {
    trnsim_tensor t;
    if (trnsim_tensor_find(s, b->name, &t)) {
        cli_api_error(e);
        return trn_error_prefix(e, "--input %s", b->name);
    }
    if (access(b->path, F_OK) != 0) /* the likeliest mistake, said plainly */
        return trn_errorf(e, "--input %s=%s: cannot open %s: %s (the file for tensor '%s')", b->name, b->path, b->path,
                          strerror(errno), b->name);
    trn_npy n;
    input_want want = {&t, (uint32_t)trnsim_cores(s), b->core < 0};
    if (trn_npy_read_checked(b->path, check_header, &want, &n, e)) return trn_error_prefix(e, "--input %s", b->name);
    size_t bytes = t.bytes;
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf) {
        trn_npy_free(&n);
        return trn_errorf(e, "--input %s: out of memory for %zu bytes", b->name, bytes);
    }
    uint32_t cores = (uint32_t)trnsim_cores(s);
    int rc = 0;
    bool stacked = b->core < 0 && cores > 1 && n.ndim == t.ndim + 1 && n.shape[0] == (int64_t)cores &&
                   shape_equal(t.ndim, t.shape, n.ndim - 1, n.shape + 1);
    if (stacked) {
        trn_npy slice = n;
        slice.ndim = n.ndim - 1;
        memmove(slice.shape, n.shape + 1, sizeof(int64_t) * (size_t)slice.ndim);
        slice.count = n.count / cores;
        for (uint32_t c = 0; c < cores && rc == 0; ++c) {
            slice.data = (uint8_t *)n.data + c * slice.count * n.item_size;
            rc = trn_npy_to_tensor(&slice, (trn_dtype)t.dtype_id, t.ndim, t.shape, buf, e) ||
                 (trnsim_set_tensor(s, b->name, (int)c, buf, bytes) && cli_api_error(e));
        }
    } else {
        rc = trn_npy_to_tensor(&n, (trn_dtype)t.dtype_id, t.ndim, t.shape, buf, e) ||
             (trnsim_set_tensor(s, b->name, b->core, buf, bytes) && cli_api_error(e));
    }
    free(buf);
    trn_npy_free(&n);
    if (rc) trn_error_prefix(e, "--input %s", b->name);
    return rc ? -1 : 0;
}

