/* Operands stay inside their tensor, and messages about bytes name the
 * tensor and element that hold them (docs/programs.md, "Operands"). */
#ifndef TRNSIM_HOST_TENSOR_BOUNDS_H
#define TRNSIM_HOST_TENSOR_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "program/program.h"

/* Whether every element ap visits lies in tensor t's partitions and bytes. */
bool trn_tensor_holds_ap(const trn_tensor *t, const trn_ap *ap);

/* 0 when an operand's ap stays inside tensor number `tensor`; else -1 and
 * a message ("leaves tensor ...", for the caller to prefix with the operand)
 * naming the tensor, the first element outside (its index in the operand's
 * visiting order, partition and bytes), the tensor that byte belongs to if
 * any, and the tensor's extent. */
int trn_tensor_check_ap(const trn_program *p, int tensor, const trn_ap *ap, trn_error *e);

/* The tensor holding byte `byte` of partition `part` of mem, and the index
 * (C order) of the element there; NULL when no tensor holds it. */
const trn_tensor *trn_tensor_at(const trn_program *p, trn_mem mem, uint64_t part, uint64_t byte, int64_t *element);

/* A trn_byte_namer (memory/ap.h) over a program's tensors: "element K
 * [i, j] of tensor 'x'" and how to give it data. */
void trn_tensor_name_byte(const void *program, uint32_t mem, uint64_t part, uint64_t byte, char *buf, size_t len);

#endif
