/* What the parts of the BIR front end share: the translation state, the
 * allocation table and the per-family mapping tables. */
#ifndef TRNSIM_HOST_BIR_INTERNAL_H
#define TRNSIM_HOST_BIR_INTERNAL_H

#include "frontend/bir/bir.h"

#define BIR_MAX_DEPTH 32
#define BIR_WHERE_MAX 400

/* What an allocation became. */
typedef enum bir_alloc_kind { BIR_TENSOR, BIR_REGISTER, BIR_RNG_STATE } bir_alloc_kind;

typedef struct bir_alloc {
    const char *name;     /* the allocation's (memory_location_set) name: the tensor's name */
    const char *location; /* its memory location's name (memref) */
    bir_alloc_kind kind;
    trn_mem mem;
    trn_dtype dtype;
    uint32_t base;        /* first partition */
    uint32_t partitions;  /* SBUF/PSUM: partitions; HBM: 1 */
    int64_t row_bytes;    /* bytes per partition (HBM: all of it) */
    int reg;              /* BIR_REGISTER: its register */
    json_t *name_json;    /* the name as a JSON string, shared by every operand on it */
} bir_alloc;

/* A loop axis in scope: its name and register. */
typedef struct bir_axis {
    const char *name;
    int reg;
} bir_axis;

/* A count per opcode name, for the unhandled-opcode message and skip note. */
typedef struct bir_count {
    const char *name;
    uint64_t n;
} bir_count;

typedef struct bir_ctx {
    const char *path;
    const trn_load_opts *o;
    trn_program *p;
    const char *function;
    json_t *fn;                 /* the function object (descriptor blocks are looked up in it) */
    char block[BIR_WHERE_MAX];  /* the block path */
    bir_alloc *allocs;
    int n_allocs;
    int n_regs;                 /* registers taken by REG allocations */
    bir_axis axes[BIR_MAX_DEPTH];
    int depth;
    uint64_t number;            /* the next native instruction number */
    char **where;               /* [number]: each instruction's context, in the arena */
    size_t n_where, cap_where;
    char **arena;               /* blocks holding the context strings */
    size_t n_arena;
    size_t arena_used;          /* bytes used in the last block */
    bir_count *unhandled;       /* opcodes no loaded module handles */
    size_t n_unhandled;
    json_t *trigger_blocks;     /* names of blocks fired by DMATrigger (object used as a set) */
    json_t *opcodes;            /* opcode name -> its JSON string, shared by every instruction */
} bir_ctx;

/* "FILE: function F, block B: what", for what is not one instruction. */
int bir_errorf(const bir_ctx *c, trn_error *e, const char *fmt, ...) TRN_PRINTF(3, 4);
/* The context string of an instruction (without the file): function,
 * block path and BIR name. */
void bir_where(const bir_ctx *c, json_t *inst, char *buf, size_t len);

/* bir_alloc.c: allocations -> native tensors; registers; lookups. */
int bir_read_allocations(bir_ctx *c, json_t *fn, json_t *tensors, trn_error *e);
const bir_alloc *bir_find_alloc(const bir_ctx *c, const char *name);
int bir_dtype(const char *name, trn_dtype *out);
const char *bir_dtype_names(void);

/* bir_args.c: ins / outs -> native operands and attributes. */
int bir_translate_args(bir_ctx *c, json_t *inst, const char *opcode, json_t *native, trn_error *e);
/* The register a regref names: an enclosing loop axis, else a REG allocation. */
int bir_register(const bir_ctx *c, const char *regref, int *reg);

/* bir_fields.c: an instruction's fields -> native attributes. */
int bir_translate_fields(bir_ctx *c, json_t *inst, const char *opcode, json_t *native, trn_error *e);

/* bir_blocks.c: blocks, loops and instructions of a function. */
int bir_translate_function(bir_ctx *c, json_t *fn, json_t *out_list, trn_error *e);
int bir_translate_inst(bir_ctx *c, json_t *inst, json_t **native, trn_error *e);
/* A block fired by DMATrigger -> a native DMABlock with its descriptors. */
int bir_descriptor_block(bir_ctx *c, const char *name, json_t **block, trn_error *e);

/* bir_maps.c: the per-family tables. */
typedef struct bir_enum {
    const char *bir;     /* the BIR spelling */
    int64_t native;      /* the native number, when native_str is NULL */
    const char *native_str;
} bir_enum;

typedef enum bir_field_use {
    BIR_COPY,   /* the value as it is, under the native name */
    BIR_ENUM,   /* a BIR enum spelling -> the native value */
    BIR_IGNORE, /* accepted, not modelled */
    BIR_BLOCKS, /* names of blocks -> native DMABlock objects (DMATrigger) */
    BIR_PERM    /* a BIR enum spelling -> a native list of axis numbers (native_str: its digits) */
} bir_field_use;

typedef struct bir_field {
    const char *bir_name;
    const char *native_name;
    bir_field_use use;
    const bir_enum *values; /* BIR_ENUM: NULL-terminated by bir == NULL */
    const char *def_str;    /* BIR_ENUM: the BIR default applied when absent, or NULL */
} bir_field;

typedef struct bir_opcode_map {
    const char *opcode;
    const char *family;
    const bir_field *fields;      /* NULL-terminated by bir_name == NULL */
    const char *const *immediates; /* attribute names the imm_value / imm_array arguments fill, in order */
} bir_opcode_map;

const bir_opcode_map *bir_opcode_lookup(const char *opcode);
/* Fields every instruction may carry that the simulator does not model. */
extern const char *const bir_ignored_fields[];
extern const char *const bir_alu_op_names[];
/* Every table, for the documentation test. */
extern const bir_opcode_map *const bir_family_tables[];

#endif
