/* conform/: the programs `trnsim conform` runs, generated from the opcodes'
 * recipes (trn_opcode_desc.conform, docs/internals/conform.md): the recipes
 * of the selected families and opcodes read from the registry, instances
 * drawn (variables, dtypes, attributes) from a case's own seed, the native
 * program built, and adversarial input data. Running, comparing and
 * shrinking the cases is the command's (cli/conform*.c). */
#ifndef TRNSIM_CONFORM_H
#define TRNSIM_CONFORM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "arith/arith.h"
#include "modules/modules.h"
#include "program/program.h"

#define CF_MAX_SELECT 256 /* --family / --opcode options */

#define CF_MAX_VARS    16
#define CF_MAX_OPCODES 256
#define CF_MAX_INST    3 /* recipe instances chained in one program */

typedef struct cf_opcode cf_opcode;

typedef struct cf_recipe {
    cf_opcode *op;
    json_t *obj; /* the recipe object (owned by op->json) */
    const char *name;
    uint32_t cores_min, cores_max;
    uint64_t programs, valid; /* built, and passed the static check */
    char first_error[1100];   /* the first static-check message, "" none */
} cf_recipe;

struct cf_opcode {
    const char *name, *family;
    uint32_t it;
    const trn_opcode_desc *desc;
    json_t *json; /* its recipes (or the one drawn from its schema) */
    cf_recipe *recipes;
    int n_recipes;
    bool schema_only;
};

typedef struct cf_instance {
    cf_recipe *r;
    int n_vars, n_dtypes;
    const char *var_name[CF_MAX_VARS];
    int64_t var_val[CF_MAX_VARS], var_min[CF_MAX_VARS], var_step[CF_MAX_VARS];
    const char *dtype_name[CF_MAX_VARS], *dtype_val[CF_MAX_VARS];
    json_t *attrs;    /* per instruction: the drawn attribute values */
    uint64_t dropped; /* instructions shrinking removed (bit i: instruction i) */
    int origin;       /* its place when drawn: seeds its inputs, so shrinking keeps them */
    uint32_t cores;   /* the case's core count: the variable CORES of expressions */
} cf_instance;

/* One input tensor of a case: cores * count elements, core-major. */
typedef struct cf_input {
    char name[256];
    trn_dtype dtype;
    int ndim;
    int64_t shape[TRN_MAX_SHAPE];
    int64_t count;
    uint32_t cores;
    uint8_t *data;
} cf_input;

typedef struct cf_case {
    uint64_t index, seed;
    uint32_t cores;
    int64_t row_shift; /* inputs' rows start at this row of their data (shrinking) */
    cf_instance inst[CF_MAX_INST];
    int n_inst;
} cf_case;

typedef struct cf_engine {
    const char *families[CF_MAX_SELECT], *opcodes[CF_MAX_SELECT];
    int n_families, n_opcodes;
    cf_opcode ops[CF_MAX_OPCODES];
    int n_ops;
} cf_engine;

uint64_t cf_mix(uint64_t x);
uint64_t cf_next(uint64_t *st);
int64_t cf_range(uint64_t *st, int64_t lo, int64_t hi);
bool cf_eval(const cf_instance *in, const char *expr, int64_t *out);
int cf_select(cf_engine *g, const trn_registry *reg, trn_error *e);
void cf_unselect(cf_engine *g);
/* turn >= 0: the case's first instance; its first dtype variable takes
 * value turn % size (every dtype drawn in turn); -1: drawn at random. */
int cf_draw_instance(cf_instance *in, cf_recipe *r, const trn_registry *reg, uint64_t *st,
                     int64_t turn, trn_error *e);
void cf_instance_free(cf_instance *in);
json_t *cf_build_program(const cf_case *c, trn_error *e);
bool cf_tensor_used(const cf_instance *in, const char *name);
void cf_fill_input(cf_input *t, uint64_t seed, int64_t row_shift);

#endif
