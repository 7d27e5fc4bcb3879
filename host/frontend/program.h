/* A parsed JSON program: tensors with their placement, and instructions with
 * their operands resolved to APs (docs/programs.md). Parsing checks the
 * structure; opcode resolution needs the loaded modules (dispatch.h). */
#ifndef TRNSIM_HOST_PROGRAM_H
#define TRNSIM_HOST_PROGRAM_H

#include <jansson.h>
#include <stdbool.h>

#include "common/error.h"
#include "memory/memory.h"
#include "trnsim/plugin.h"

#define TRN_MAX_SHAPE 5

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
} trn_tensor;

typedef struct trn_operand {
    trn_ap ap;
    int tensor;          /* index, -1 for raw memory */
    int offset_register; /* -1: none */
    int core;            /* remote: this core's memory; -1: the executing core */
    int core_offset;     /* remote: (executing core + core_offset) mod cores */
} trn_operand;

typedef struct trn_inst {
    uint32_t it;
    const char *opname; /* as written, or NULL when given by number */
    json_t *obj;        /* the instruction object: attributes live here */
    int n_in, n_out;
    trn_operand *in, *out;
    bool allow_uninit;
} trn_inst;

typedef struct trn_program {
    char *path;
    json_t *root;
    uint32_t cores;
    bool cores_given;
    bool allow_uninit;
    trn_tensor *tensors;
    int n_tensors;
    trn_inst *insts;
    size_t n_insts;
} trn_program;

/* Resolves an opcode name to an IT; -1 with a message if unknown. */
typedef int (*trn_opname_resolver)(void *arg, const char *name, uint32_t *it, trn_error *e);

int trn_program_parse(trn_program *p, const char *path, const char *text, const trn_machine *m,
                      trn_opname_resolver resolve, void *arg, trn_error *e);
void trn_program_free(trn_program *p);

/* Parse one instruction object (programs, descriptor lists). */
int trn_inst_parse(const trn_program *p, json_t *obj, trn_inst *out, trn_opname_resolver resolve, void *arg,
                   trn_error *e);
void trn_inst_free(trn_inst *in);

int trn_program_find_tensor(const trn_program *p, const char *name);

#endif
