/* Scratch buffers of the search module (see search_state.h). */
#include "search_state.h"

#include <stdlib.h>

static int grow(void **buf, size_t count, size_t width) {
    void *p = realloc(*buf, count * width);
    if (!p) return -1;
    *buf = p;
    return 0;
}

int search_state_reserve(search_state *s, size_t parts, size_t n, bool whole_data) {
    if (n > s->row_len_cap) {
        if (grow((void **)&s->row, n, sizeof *s->row)) return -1;
        s->row_len_cap = n;
    }
    size_t need = whole_data ? parts * n : 0;
    if (need > s->data_cap) {
        if (grow((void **)&s->data, need, sizeof *s->data)) return -1;
        s->data_cap = need;
    }
    if (parts > s->row_cap) {
        size_t k = parts * SEARCH_K;
        if (grow((void **)&s->vals, k, sizeof *s->vals) ||
            grow((void **)&s->idx, k, sizeof *s->idx) ||
            grow((void **)&s->pos, k, sizeof *s->pos) ||
            grow((void **)&s->fill, k, sizeof *s->fill))
            return -1;
        s->row_cap = parts;
    }
    return 0;
}

void search_state_free(search_state *s) {
    free(s->data);
    free(s->row);
    free(s->vals);
    free(s->idx);
    free(s->pos);
    free(s->fill);
    free(s);
}
