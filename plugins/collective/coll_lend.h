/* Lending every participant's operands of one collective (plugin.h, ABI 3):
 * the inputs read-only in the copying path's order (so the first
 * never-written one gives the same message), the outputs write-only, and
 * the elements of a lent view addressed by their position in the AP's
 * visiting order (the dense buffer's index on the copying path). */
#ifndef COLL_LEND_H
#define COLL_LEND_H

#include <stdbool.h>
#include <stdint.h>

#include "coll_exec.h"

typedef struct coll_lent {
    trn_view *in, *out;         /* x->n each */
    uint32_t lent_in, lent_out; /* how many of each are open */
    bool all;                   /* every view lent and accepted */
    trn_status rc;              /* TRN_ERR: a lend failed with a message (report it) */
} coll_lent;

/* Which views a fast path takes: fp32 rows 4-byte aligned (the fold), or
 * rows of any dtype (raw routing). */
typedef enum coll_lend_kind { COLL_LEND_F32 = 0, COLL_LEND_RAW = 1 } coll_lend_kind;

/* Lends input 0 and the output of every participant, stopping at the first
 * view not lent or not of `kind`. False (and nothing open) when out of
 * memory or the host lends nothing. */
bool coll_lend_all(const coll_exec *x, coll_lend_kind kind, coll_lent *l);

/* Every output meets no input and no other output (the copying path reads
 * every input before it writes, so a fast path that does not must not see
 * its own writes). */
bool coll_lent_disjoint(const coll_exec *x, const coll_lent *l);

/* Ends every open view: outputs as written when used, else cancelled (the
 * copying path writes them). Frees the views. */
void coll_lend_finish(const coll_exec *x, coll_lent *l, bool used);

/* Element k (in the AP's visiting order) of a lent view. */
uint8_t *coll_lent_at(const trn_view *v, int64_t k);

/* Elements k .. of v that lie in one run from coll_lent_at(v, k). */
int64_t coll_lent_run(const trn_view *v, int64_t k);

/* m elements from position a of s to position b of d (same width). */
void coll_lent_move(const trn_view *d, int64_t b, const trn_view *s, int64_t a, int64_t m);

#endif
