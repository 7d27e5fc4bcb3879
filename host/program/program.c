/* The loaded-program model's own storage: the arena every reader carves
 * names and operand lists from, tensor lookup, and freeing. */
#include "program/program.h"

#include "common/common.h"

#include <stdlib.h>
#include <string.h>

/* The index covers tensors 0 .. indexed-1; a loader names tensors in
 * order, so each lookup first adds those named since the last one. */
struct trn_tensor_names {
    trn_name_index index;
    int indexed;
};

static const char *tensor_name_at(const void *tensors, int i) {
    return ((const trn_tensor *)tensors)[i].name;
}

int trn_program_find_tensor(const trn_program *p, const char *name) {
    /* the index is a cache that finding grows while a loader names tensors;
     * the door's finish() completes it, so a loaded program's lookups only read */
    trn_program *mp = (trn_program *)p;
    if (!mp->names) mp->names = calloc(1, sizeof *mp->names);
    struct trn_tensor_names *n = mp->names;
    while (n && n->indexed < p->n_tensors && p->tensors[n->indexed].name &&
           trn_name_index_add(&n->index, n->indexed, tensor_name_at, p->tensors) != -2)
        n->indexed++;
    int i = n ? trn_name_index_find(&n->index, name, tensor_name_at, p->tensors) : -1;
    if (i >= 0) return i;
    for (i = n ? n->indexed : 0; i < p->n_tensors; ++i) /* past an unnamed one (or out of memory) */
        if (p->tensors[i].name && strcmp(p->tensors[i].name, name) == 0) return i;
    return p->n_tensors;
}

/* Blocks grow from 16 KiB to 1 MiB, so that a small program touches a few
 * pages, not a megabyte, on every load (most loads are small: the CLI's
 * checks, the Python package, the fuzzers). */
#define ARENA_FIRST_BLOCK (16u << 10)
#define ARENA_BLOCK       (1u << 20)

static void *new_block(trn_program *p, size_t bytes) {
    char **n = realloc(p->arena, (p->n_arena + 1) * sizeof *n);
    if (!n) return NULL;
    p->arena = n;
    if (!(p->arena[p->n_arena] = malloc(bytes))) return NULL;
    return p->arena[p->n_arena++];
}

static size_t next_block_size(const trn_program *p, size_t bytes) {
    size_t size = p->arena_cap ? p->arena_cap * 2 : ARENA_FIRST_BLOCK;
    if (size > ARENA_BLOCK) size = ARENA_BLOCK;
    while (size < bytes) size *= 2;
    return size;
}

void *trn_program_alloc(trn_program *p, size_t bytes) {
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes >
        ARENA_BLOCK / 4) { /* a block of its own, before the current one, which stays current */
        char *b = new_block(p, bytes);
        if (b && p->n_arena > 1 && p->arena_cap) {
            p->arena[p->n_arena - 1] = p->arena[p->n_arena - 2];
            p->arena[p->n_arena - 2] = b;
        }
        return b;
    }
    if (p->arena_used + bytes > p->arena_cap) {
        size_t size = next_block_size(p, bytes);
        if (!new_block(p, size)) return NULL;
        p->arena_cap = size;
        p->arena_used = 0;
    }
    void *d = p->arena[p->n_arena - 1] + p->arena_used;
    p->arena_used += bytes;
    return d;
}

char *trn_program_strdup(trn_program *p, const char *s, size_t len) {
    char *d = trn_program_alloc(p, len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}

void trn_program_free(trn_program *p) {
    for (size_t i = 0; i < p->n_insts; ++i) trn_inst_free(&p->insts[i]);
    free(p->insts);
    free(p->tensors);
    for (size_t i = 0; i < p->n_arena; ++i) free(p->arena[i]);
    free(p->arena);
    free(p->skip_note);
    if (p->names) trn_name_index_free(&p->names->index);
    free(p->names);
    if (p->root) json_decref(p->root);
    if (p->owned) json_decref(p->owned);
    free(p->path);
    memset(p, 0, sizeof *p);
}

void trn_inst_free(trn_inst *in) {
    if (!in->shared_operands) {
        free(in->in);
        free(in->out);
    }
    in->in = in->out = NULL;
}
