/* Operand layout of IT 88-91 and its validation (docs/search.md, "Operands").
 *
 *   Max                      inputs [data]        outputs [values]
 *   MaxIndex                 inputs [vals, data]  outputs [indices]
 *   MatchReplace             inputs [vals, data]  outputs [data_out]
 *   MaxIndexAndMatchReplace  inputs [vals, data]  outputs [data_out, indices]
 *
 * data: 8..16384 elements per partition; vals, values, indices: exactly 8;
 * data_out: as many as data; every operand spans as many partitions as data.
 * indices are uint32 or int32 (raw bits); value operands any dtype that has
 * an fp32 value (not the packed x4 forms). Everything is checked before the
 * handler reads or writes anything.
 */
#ifndef TRNSIM_SEARCH_OPERANDS_H
#define TRNSIM_SEARCH_OPERANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "trnsim/plugin.h"

typedef enum search_op {
    SEARCH_OP_MAX,
    SEARCH_OP_MAX_INDEX,
    SEARCH_OP_MATCH_REPLACE,
    SEARCH_OP_MAX_INDEX_MR
} search_op;

typedef struct search_operands {
    trn_ap data;     /* input: the data rows */
    trn_ap vals;     /* input (89-91): the 8 values to find; output (88): the 8 maxima */
    trn_ap data_out; /* output (90, 91) */
    trn_ap idx;      /* output (89, 91) */
    size_t parts;    /* partitions of every operand */
    size_t n;        /* data elements per partition */
    bool has_data_out, has_idx;
} search_operands;

/* The opcode's name as `trnsim opcodes` lists it. */
const char *search_op_name(search_op op);

/* Fetch and validate every operand of `op`. */
trn_status search_get_operands(const trn_host_api *api, trn_ctx *ctx, search_op op,
                               search_operands *o);

/* imm_value of IT 90/91, narrowed to fp32 (the reference holds it as a float). */
trn_status search_get_imm(const trn_host_api *api, trn_ctx *ctx, search_op op, float *imm);

#endif
