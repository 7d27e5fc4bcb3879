/* How .npy data becomes tensor bytes and back (the rules of npy.h and
 * docs/programs.md, "Data files"), as a plan applied to any number of
 * elements at a time: the whole-array calls of npy.h and the streaming
 * reader / writer of npy_stream.h share it, so a file converts the same
 * whether it arrives in one piece or in bounded chunks. */
#ifndef TRNSIM_HOST_NPY_CONVERT_H
#define TRNSIM_HOST_NPY_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "npy/npy.h"

typedef enum trn_npy_how {
    TRN_NPY_COPY,   /* the bytes as they are */
    TRN_NPY_NARROW, /* float32 -> the tensor's dtype, RNE */
    TRN_NPY_WIDEN,  /* the tensor's dtype -> float32 (writing) */
    TRN_NPY_F64,    /* float64 -> float32 RNE, then narrowed as a float32 file */
    TRN_NPY_INT     /* an integer of another width or signedness, every value range-checked */
} trn_npy_how;

typedef struct trn_npy_plan {
    trn_npy_how how;
    trn_dtype dt;       /* the tensor's dtype */
    uint32_t src_item;  /* bytes per element on the source side */
    uint32_t dst_item;  /* bytes per element on the destination side */
    bool src_signed;    /* TRN_NPY_INT: the file's integers are signed */
} trn_npy_plan;

/* How an array with head's descr loads into a tensor of dt. -1 with
 * "<name>: dtype <f8 cannot be loaded into a bfloat16 tensor (expected <f4
 * or <u2)" when no rule allows it. Shapes are not looked at. */
int trn_npy_load_plan(const trn_npy *head, trn_dtype dt, trn_npy_plan *p, trn_error *e);

/* How a tensor of dt is written (descr: trn_npy_descr_for(dt, raw_bits)). */
int trn_npy_save_plan(trn_dtype dt, bool raw_bits, trn_npy_plan *p, const char **descr, trn_error *e);

/* Whether every one of count source elements at src fits the tensor's
 * dtype (TRN_NPY_INT; always true otherwise). first is the index of src[0]
 * in head's array, so that the message names the element of the file:
 * "<name>: element 5 [1, 2] is 300, which does not fit uint8 (0..255); ...". */
int trn_npy_plan_check(const trn_npy_plan *p, const trn_npy *head, const void *src, size_t count, size_t first,
                       trn_error *e);

/* Convert count elements from src to dst (no overlap). Checked first. */
void trn_npy_plan_apply(const trn_npy_plan *p, const void *src, void *dst, size_t count);

#endif
