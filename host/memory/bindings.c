#include "memory/memory.h"

#include <stdlib.h>
#include <string.h>

static bool meets(trn_box a, trn_box b) {
    return a.p_lo < b.p_hi && b.p_lo < a.p_hi && a.b_lo < b.b_hi && b.b_lo < a.b_hi;
}

static bool inside(trn_box in, trn_box out) {
    return in.p_lo >= out.p_lo && in.p_hi <= out.p_hi && in.b_lo >= out.b_lo && in.b_hi <= out.b_hi;
}

static void copy_in(trn_memory *m, const trn_binding *b) {
    uint64_t row = b->box.b_hi - b->box.b_lo;
    for (uint32_t p = b->box.p_lo; p < b->box.p_hi; ++p)
        memcpy(m->bytes + trn_mem_addr(m, p, b->box.b_lo),
               b->data + (uint64_t)(p - b->box.p_lo) * row, row);
}

static void remove_at(trn_memory *m, uint32_t i) { m->bound[i] = m->bound[--m->n_bound]; }

void trn_mem_settle(trn_memory *m, trn_box box) {
    for (uint32_t i = 0; i < m->n_bound;) {
        if (!meets(m->bound[i].box, box)) {
            ++i;
            continue;
        }
        copy_in(m, &m->bound[i]);
        remove_at(m, i);
    }
}

void trn_mem_settle_all(trn_memory *m) {
    while (m->n_bound) {
        copy_in(m, &m->bound[m->n_bound - 1]);
        m->n_bound--;
    }
}

void trn_mem_drop_within(trn_memory *m, trn_box box) {
    for (uint32_t i = 0; i < m->n_bound;) {
        if (inside(m->bound[i].box, box))
            remove_at(m, i);
        else
            ++i;
    }
    trn_mem_settle(m, box);
}

int trn_mem_bind(trn_memory *m, const uint8_t *data, trn_box box, trn_error *e) {
    if (m->n_bound == m->cap_bound) {
        uint32_t cap = m->cap_bound ? 2 * m->cap_bound : 4;
        trn_binding *b = realloc(m->bound, cap * sizeof *b);
        if (!b) return trn_errorf(e, "out of memory for a tensor binding");
        m->bound = b;
        m->cap_bound = cap;
    }
    trn_mem_drop_within(m, box);
    m->bound[m->n_bound++] = (trn_binding){data, box};
    uint64_t row = box.b_hi - box.b_lo;
    if (box.b_lo == 0 && row == m->partition_bytes) /* whole partitions: one range */
        trn_mem_mark_written(m, trn_mem_addr(m, box.p_lo, 0),
                             (uint64_t)(box.p_hi - box.p_lo) * row);
    else
        for (uint32_t p = box.p_lo; p < box.p_hi; ++p)
            trn_mem_mark_written(m, trn_mem_addr(m, p, box.b_lo), row);
    return 0;
}

const trn_binding *trn_mem_binding_over(const trn_memory *m, trn_box box) {
    for (uint32_t i = 0; i < m->n_bound; ++i)
        if (inside(box, m->bound[i].box)) return &m->bound[i];
    return NULL;
}

void trn_mem_free_bindings(trn_memory *m) {
    free(m->bound);
    m->bound = NULL;
    m->n_bound = m->cap_bound = 0;
}
