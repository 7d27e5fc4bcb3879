#ifndef TRNSIM_HOST_PROGRAM_PROGRAM_H
#define TRNSIM_HOST_PROGRAM_PROGRAM_H

/* The loaded program: tensors with their placement, and a flat instruction
 * list in which a loop is a header entry and an end entry around its body,
 * so a loop of a million trips costs two entries, not a million copies.
 * Two front ends fill it (native JSON, docs/programs.md; the compiler's
 * BIR JSON, docs/bir.md) behind frontend/'s trn_program_load, and exec/
 * runs it. This folder is the model alone: it calls no reader. */

#include <jansson.h>
#include <stdbool.h>

#include "common/common.h"
#include "memory/memory.h"
#include "trnsim/dtype.h"
#include "trnsim/plugin/ap.h"

#define TRN_MAX_SHAPE 5
/* Instruction executions per core a program may ask for (config key
 * max_executions overrides it). */
#define TRN_DEFAULT_MAX_EXECUTIONS 100000000ull

typedef struct trn_tensor {
    const char *name;
    trn_mem mem;
    trn_dtype dtype;
    int ndim;
    int64_t shape[TRN_MAX_SHAPE];
    int64_t count;        /* elements */
    uint32_t partition;   /* first partition (SBUF/PSUM) */
    int64_t offset_bytes; /* placement inside each partition / in HBM */
    trn_ap ap;            /* the whole tensor (core filled at run time) */
    json_t *init;         /* fill / data / data_per_core node or NULL */
    const char *init_kind;
    const char *view_of; /* a view: the tensor it is placed over (no bytes of its own), else NULL */
} trn_tensor;

typedef struct trn_operand {
    trn_ap ap;
    int tensor;          /* index, -1 for raw memory */
    int offset_register; /* -1: none */
    int core;            /* remote: this core's memory; -1: the executing core */
    int core_offset;     /* remote: (executing core + core_offset) mod cores */
} trn_operand;

typedef enum trn_inst_kind {
    TRN_INST_OP = 0, /* an instruction for a module */
    TRN_INST_LOOP,   /* loop header: `jump` is its END entry */
    TRN_INST_END     /* loop end: `jump` is its header */
} trn_inst_kind;

typedef struct trn_loop {
    int64_t trips;
    int64_t start, step; /* the loop variable: start + trip * step */
    int reg;             /* register that holds the loop variable, -1: none */
    uint32_t id;         /* 0 .. n_loops-1: the per-core trip counter */
} trn_loop;

typedef struct trn_inst {
    trn_inst_kind kind;
    uint32_t it;
    const char *opname; /* as written, or NULL when given by number */
    json_t *obj;        /* the instruction object: attributes live here */
    int n_in, n_out;
    trn_operand *in, *out;
    bool allow_uninit;
    bool shared_operands; /* in / out are the program's (interned, trn_program_alloc), not the
                             entry's own */
    uint64_t number;      /* the instruction's number in messages (file order, depth first) */
    const char *where;    /* extra context for messages (BIR: function, block path, name) or NULL */
    const char *comment;  /* a native entry's `comment` when obj does not hold it (trnsim convert),
                             or NULL */
    size_t jump;          /* LOOP: index of its END; END: index of its LOOP */
    trn_loop loop;        /* LOOP and END */
} trn_inst;

typedef enum trn_format { TRN_FORMAT_AUTO = 0, TRN_FORMAT_NATIVE, TRN_FORMAT_BIR } trn_format;

/* What `trnsim check` prints about a program. */
typedef struct trn_program_summary {
    int allocations;     /* BIR: allocations read (native: tensors) */
    size_t instructions; /* instruction entries, loops not counted */
    size_t loops;
    uint64_t loop_trips; /* sum of every loop's trips */
    uint64_t executions; /* instructions one core executes */
} trn_program_summary;

typedef struct trn_program {
    char *path;
    trn_format format;
    json_t *root;  /* the native program as read (BIR: NULL once read; trn_program_to_native writes
                      it) */
    json_t *owned; /* values a front end made (BIR attributes), owned here, or NULL */
    uint32_t cores;
    bool cores_given;
    bool allow_uninit;
    trn_tensor *tensors;
    int n_tensors;
    trn_inst *insts;
    size_t n_insts;
    uint32_t n_loops;
    trn_program_summary summary;
    char *
        *arena; /* blocks trn_program_alloc carves strings and shared operand lists from (owned) */
    size_t n_arena;
    size_t arena_used; /* bytes used in the last block */
    size_t arena_cap;  /* the last block's size: 0 when no block is current */
    char *skip_note;   /* BIR opcodes skipped at load (unknown_opcode = "skip"), or NULL */
    struct trn_tensor_names
        *names; /* trn_program_find_tensor's index, grown as tensors are named (owned) */
} trn_program;

void trn_inst_free(trn_inst *in);
void trn_program_free(trn_program *p);

int trn_program_find_tensor(const trn_program *p, const char *name);

/* Memory that lives as long as the program (16-byte aligned), and a copy
 * of a string in it; NULL when out of memory. */
void *trn_program_alloc(trn_program *p, size_t bytes);
char *trn_program_strdup(trn_program *p, const char *s, size_t len);

/* The loaded program written as a native program (to_native.c): tensors
 * at their placement, instructions with their attributes and operands,
 * loops nested (a native file's layout and loop names are not kept).
 * NULL: out of memory. The caller owns the result. */
json_t *trn_program_to_native(const trn_program *p);
/* One instruction entry (TRN_INST_OP) as a native instruction object. */
json_t *trn_inst_to_json(const trn_program *p, const trn_inst *in);

/* Placement (placement.c), shared by both readers: a tensor whose memory,
 * dtype, shape, partition and offset_bytes are set: whether it fits the
 * machine ("WHERE: needs bytes ..."), its bytes per partition (HBM: all of
 * them), its own AP (partitions x row-major free shape), and the bytes of
 * one partition of its memory (HBM: all of HBM). */
int trn_tensor_check_placement(const trn_tensor *x, const trn_machine *m, const char *where,
                               trn_error *e);
int64_t trn_tensor_row_bytes(const trn_tensor *x);
void trn_tensor_ap(trn_tensor *x);
uint64_t trn_tensor_mem_limit(const trn_machine *m, trn_mem mem);

/* An operand as a program states it, before it is resolved against its
 * tensor: what a native operand object's keys say (docs/programs.md,
 * "Operands") and what a BIR access pattern says (docs/bir.md). Both front
 * ends fill one and resolve it here, so the two readings of the same
 * operand give the same trn_operand and the same messages; the native
 * writer (`trnsim convert`) turns a resolved operand back into its object. */

typedef struct trn_operand_spec {
    int tensor; /* index into the program's tensors, -1: raw memory `mem` */
    trn_mem mem;
    bool has_dtype; /* else the tensor's */
    trn_dtype dtype;
    bool has_partitions; /* else the tensor's partitions from `partition` on (raw memory: 1) */
    int64_t partition, partitions, partition_step, offset;
    int64_t offset_register;   /* -1: none */
    int64_t core, core_offset; /* core -1: the executing core (+ core_offset) */
    uint32_t ndims;            /* 0: the tensor's own free pairs */
    int64_t step[TRN_AP_MAX_DIMS], num[TRN_AP_MAX_DIMS];
} trn_operand_spec;

/* The defaults of every optional key. */
void trn_operand_spec_init(trn_operand_spec *s);

/* Range checks (the messages name the native keys: "WHERE: 'partition' =
 * 9 is outside [0, 7]") and the AP the operand denotes. */
int trn_operand_resolve(const trn_program *p, const trn_operand_spec *s, trn_operand *op,
                        const char *where, trn_error *e);

/* The native operand object of a resolved operand, the defaults left out,
 * so that reading it back resolves to the same operand. NULL: out of memory. */
json_t *trn_operand_to_json(const trn_program *p, const trn_operand *op);

/* One copy of each distinct operand list in a program: the fast paths of
 * both front ends (native_fast.c, bir_fast.c) point every instruction with
 * the same operands at the same list (trn_inst.shared_operands), which keeps
 * a large program's memory to its distinct lists. */

typedef struct trn_oplist_entry {
    const trn_operand *ops;
    uint32_t n;
    uint64_t hash;
} trn_oplist_entry;

typedef struct trn_oplists {
    trn_program *p; /* where the lists live (trn_program_alloc) */
    trn_oplist_entry *slots;
    size_t cap, used;
} trn_oplists;

/* The program's copy of o[0..n) (NULL for n == 0; NULL and *oom when out of memory). */
const trn_operand *trn_oplist_intern(trn_oplists *t, const trn_operand *o, uint32_t n, bool *oom);
/* The table (not the lists: they are the program's). */
void trn_oplists_free(trn_oplists *t);

/* Operands stay inside their tensor, and messages about bytes name the
 * tensor and element that hold them (docs/programs.md, "Operands"). */

#include <stdbool.h>
#include <stddef.h>

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
const trn_tensor *trn_tensor_at(const trn_program *p, trn_mem mem, uint64_t part, uint64_t byte,
                                int64_t *element);

/* Element `el` (C order) of t as its coordinates, "[i, j]". */
void trn_tensor_coords(const trn_tensor *t, int64_t el, char *buf, size_t len);

/* A trn_byte_namer (memory/memory.h) over a program's tensors: "element K
 * [i, j] of tensor 'x'" and how to give it data. */
void trn_tensor_name_byte(const void *program, uint32_t mem, uint64_t part, uint64_t byte,
                          char *buf, size_t len);

#endif
