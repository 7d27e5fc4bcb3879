/* An operand as a program states it, before it is resolved against its
 * tensor: what a native operand object's keys say (docs/programs.md,
 * "Operands") and what a BIR access pattern says (docs/bir.md). Both front
 * ends fill one and resolve it here, so the two readings of the same
 * operand give the same trn_operand and the same messages; the native
 * writer (`trnsim convert`) turns a resolved operand back into its object. */
#ifndef TRNSIM_HOST_OPERAND_H
#define TRNSIM_HOST_OPERAND_H

#include "program/program.h"

typedef struct trn_operand_spec {
    int tensor;             /* index into the program's tensors, -1: raw memory `mem` */
    trn_mem mem;
    bool has_dtype;         /* else the tensor's */
    trn_dtype dtype;
    bool has_partitions;    /* else the tensor's partitions from `partition` on (raw memory: 1) */
    int64_t partition, partitions, partition_step, offset;
    int64_t offset_register; /* -1: none */
    int64_t core, core_offset; /* core -1: the executing core (+ core_offset) */
    uint32_t ndims;         /* 0: the tensor's own free pairs */
    int64_t step[TRN_AP_MAX_DIMS], num[TRN_AP_MAX_DIMS];
} trn_operand_spec;

/* The defaults of every optional key. */
void trn_operand_spec_init(trn_operand_spec *s);

/* Range checks (the messages name the native keys: "WHERE: 'partition' =
 * 9 is outside [0, 7]") and the AP the operand denotes. */
int trn_operand_resolve(const trn_program *p, const trn_operand_spec *s, trn_operand *op, const char *where,
                        trn_error *e);

/* The native operand object of a resolved operand, the defaults left out,
 * so that reading it back resolves to the same operand. NULL: out of memory. */
json_t *trn_operand_to_json(const trn_program *p, const trn_operand *op);

#endif
