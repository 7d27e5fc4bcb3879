/* Lockstep comparison of two simulators running one program (trnsim diff,
 * docs/cli.md): after an instruction both completed, every output operand
 * (its bits and its written-byte map) and the core's registers, bit for
 * bit; after the run, every tensor. */
#ifndef TRNSIM_HOST_DIFF_H
#define TRNSIM_HOST_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "program/program.h"
#include "exec/sim.h"

/* What differs: the bits of elements, or which bytes were ever written
 * (one side wrote a byte the other did not, whatever the values). */
enum { TRN_DIFF_VALUE = 0, TRN_DIFF_WRITTEN = 1 };

/* One operand that differs. Indices are C order: `index` over the
 * operand's access pattern ([partition, dim 0, ...]), `tensor_index` over
 * the shape of the tensor holding the first differing element (for
 * TRN_DIFF_WRITTEN: the element holding the first byte only one side
 * wrote). */
typedef struct trn_diff_found {
    int kind;             /* TRN_DIFF_VALUE or TRN_DIFF_WRITTEN */
    int written_by;       /* WRITTEN: 0 A wrote that byte and B did not, 1 the reverse */
    uint32_t byte;        /* WRITTEN: the byte's place in its element */
    char operand[96];     /* "outputs[0]", "register 5", "tensor 'y' on core 1" */
    const char *tensor;   /* the tensor of the first differing element, NULL: none */
    int dtype;            /* trn_dtype; -1: a register (int64) */
    int64_t count;        /* elements compared */
    int64_t differing;    /* elements whose bits differ (WRITTEN: that hold a byte one side wrote) */
    int64_t first;        /* the first of them, in the operand's order */
    int ndim;
    int64_t index[TRN_AP_MAX_DIMS + 1];
    int tensor_ndim;
    int64_t tensor_index[TRN_MAX_SHAPE];
    uint64_t bits[2];     /* A's and B's bit pattern of that element */
    double value[2];
    bool has_value;       /* false for packed dtypes */
    bool ulp_known;       /* false when a side is NaN or the dtype is packed */
    uint64_t ulp;         /* float: ULP distance; integer: |A - B| */
} trn_diff_found;

/* A copy of what the instruction st describes (just completed by s,
 * trn_sim_step) left in its output operands and its core's registers, so
 * two runs whose cores finish instructions in another order can still be
 * compared instruction by instruction. NULL with a message on failure. */
typedef struct trn_diff_snap trn_diff_snap;
trn_diff_snap *trn_diff_snap_take(trn_sim *s, const trn_step *st, trn_error *e);
void trn_diff_snap_free(trn_diff_snap *d);
const trn_step *trn_diff_snap_step(const trn_diff_snap *d);
size_t trn_diff_snap_size(const trn_diff_snap *d); /* bytes of operand data held */
/* Whether both are the same execution (core, stream index, instruction). */
bool trn_diff_snap_same(const trn_diff_snap *a, const trn_diff_snap *b);
/* The differing operands of two snapshots of one execution (s, either
 * side, names the tensors): fills up to cap entries of out, returns how
 * many differ. */
int trn_diff_snap_compare(const trn_sim *s, const trn_diff_snap *a, const trn_diff_snap *b, trn_diff_found *out,
                          int cap);

/* Every tensor of every core after both runs ended; as above. */
int trn_diff_tensors(trn_sim *a, trn_sim *b, trn_diff_found *out, int cap, trn_error *e);

/* The instruction's opcode name and family in s ("?" / "-" without one). */
const char *trn_diff_opname(const trn_sim *s, const trn_inst *in);
const char *trn_diff_family(const trn_sim *s, const trn_inst *in);

/* Bits of an element of dtype dt as an integer, and its ULP distance to
 * another (false: a NaN or a packed dtype). */
bool trn_diff_ulp(int dtype, uint64_t a, uint64_t b, uint64_t *ulp);

#endif
