#ifndef TRNSIM_HOST_FRONTEND_BIR_BIR_INT_H
#define TRNSIM_HOST_FRONTEND_BIR_BIR_INT_H

/* What the parts of the BIR front end share: the reading state, the
 * allocation table, and the BIR-only knowledge the modules' schemas cannot
 * express (bir_maps.c). */

#include "common/common.h"
#include "frontend/bir/bir.h"
#include "program/program.h"

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
    uint32_t base;       /* first partition */
    uint32_t partitions; /* SBUF/PSUM: partitions; HBM: 1 */
    int64_t row_bytes;   /* bytes per partition (HBM: all of it) */
    int reg;             /* BIR_REGISTER: its register */
    int tensor;          /* BIR_TENSOR: its index in the program's tensors */
    bool host_placed;    /* Input / Output: placed after every DRAM location */
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
    json_t *fn;                /* the function object (descriptor blocks are looked up in it) */
    char block[BIR_WHERE_MAX]; /* the block path */
    bir_alloc *allocs;
    int n_allocs;
    size_t cap_allocs;
    bool allocs_in_place;       /* read from the text, one by one (bir_fast.c) */
    int64_t hbm_end;            /* the end of the DRAM locations placed by the file */
    trn_name_index alloc_names; /* allocs by name (bir_find_alloc) */
    int n_regs;                 /* registers taken by REG allocations */
    bir_axis axes[BIR_MAX_DEPTH];
    int depth;
    uint64_t number; /* the next instruction number */
    size_t cap_insts;
    bir_count *unhandled; /* opcodes no loaded module handles */
    size_t n_unhandled;
    json_t *trigger_blocks; /* names of blocks fired by DMATrigger (object used as a set) */
    json_t *block_names;    /* names of the blocks walked so far (object used as a set) */
    json_t *all_blocks;     /* every block's name -> its path (for messages) */
    json_t *opcodes;        /* opcode name -> its name as a JSON string (interned) */
    json_t *empty;          /* the attributes of every instruction that has none */
} bir_ctx;

/* "FILE: function F, block B: what", for what is not one instruction. */
int bir_errorf(const bir_ctx *c, trn_error *e, const char *fmt, ...) TRN_PRINTF(3, 4);
/* The context string of an instruction (without the file): function,
 * block path and BIR name. */
void bir_where(const bir_ctx *c, json_t *inst, char *buf, size_t len);
void bir_where_named(const bir_ctx *c, const char *name, char *buf, size_t len);
/* A copy of s in the program's string blocks (they live as long as it). */
char *bir_keep_string(bir_ctx *c, const char *s);
/* Attaches a value the front end made to the program (it owns it). */
int bir_own(bir_ctx *c, json_t *v, trn_error *e);

/* bir_reader.c: the reading state (its JSON values are the program's);
 * the file's top level and the function's allocations, from a document
 * whose function may lack its blocks; the unhandled-opcode message (or the
 * skip note) once every instruction is read. */
int bir_ctx_init(bir_ctx *c, trn_program *p, const trn_load_opts *o, trn_error *e);
void bir_ctx_free(bir_ctx *c);
int bir_read_header(bir_ctx *c, json_t *root, json_t **fn, trn_error *e);
int bir_check_unhandled(bir_ctx *c, trn_error *e);

/* bir_alloc.c: allocations -> tensors at the file's placement; registers; lookups.
 * bir_read_allocations reads the function's list (unless each was added
 * already, allocs_in_place), then places the tensors; bir_add_allocation
 * reads the next one. */
int bir_read_allocations(bir_ctx *c, json_t *fn, trn_error *e);
int bir_add_allocation(bir_ctx *c, json_t *a, trn_error *e);
const bir_alloc *bir_find_alloc(const bir_ctx *c, const char *name);
int bir_dtype(const char *name, trn_dtype *out);
/* The BIR name of a dtype, or NULL (the writer). */
const char *bir_dtype_name(trn_dtype dt);
const char *bir_dtype_names(void);

/* One instruction being read: its loaded form and its attribute object
 * (made on the first attribute). */
typedef struct bir_inst {
    trn_inst *in;
    json_t *attrs;
    const trn_opcode_desc *schema; /* NULL: no schema, the fields stay as written */
    const char *opcode;
} bir_inst;

int bir_set_attr(bir_inst *b, const char *key, json_t *v, trn_error *e); /* steals v */

/* bir_args.c: ins / outs -> operands and attributes. */
int bir_translate_args(bir_ctx *c, json_t *inst, bir_inst *b, trn_error *e);
/* The register a regref names: an enclosing loop axis, else a REG allocation. */
int bir_register(const bir_ctx *c, const char *regref, int *reg);
/* An access pattern's checked parts -> the operand spec on allocation x (a
 * tensor): pairs st/num[0..n) (1 <= num <= 2^32, |step| <= 2^40), the
 * offset in elements of dt, dt the allocation's or the argument's. */
int bir_ap_spec(const bir_alloc *x, trn_dtype dt, const int64_t *st, const int64_t *num, int n,
                int64_t offset, trn_operand_spec *sp, const char *where, trn_error *e);

/* bir_fields.c: an instruction's fields -> attributes, through the
 * opcode's schema (bir_name, enum aliases) and the BIR-only table. */
int bir_translate_fields(bir_ctx *c, json_t *inst, bir_inst *b, trn_error *e);

/* bir_blocks.c: blocks, loops and instructions of a function. */
int bir_translate_function(bir_ctx *c, json_t *fn, trn_error *e);
/* One entry of a block list (a block, a Loop or an instruction) as a document. */
int bir_walk_item(bir_ctx *c, json_t *x, trn_error *e);
/* The next entry of the instruction list, zeroed (not yet counted). */
trn_inst *bir_push(bir_ctx *c, trn_error *e);
/* The entry's number and its context string (name: its BIR name). */
int bir_number_entry(bir_ctx *c, trn_inst *in, const char *name, trn_error *e);
/* Whether a block of this name was walked before (else it is noted). */
bool bir_block_repeated(bir_ctx *c, const char *name);
/* Appends a name to the block path; the length to cut it back to. */
size_t bir_block_push(bir_ctx *c, const char *name);
/* A loop being read: begin (checks, header entry, axis in scope), its body,
 * end (the end entry; body_rc passed through). blocks_listed: its 'blocks'
 * is a list. */
typedef struct bir_open_loop {
    size_t saved, head;
} bir_open_loop;
int bir_loop_begin(bir_ctx *c, json_t *loop, bool blocks_listed, bir_open_loop *st, trn_error *e);
int bir_loop_end(bir_ctx *c, const bir_open_loop *st, int body_rc, trn_error *e);
/* A block fired by DMATrigger -> a native DMABlock object with its descriptors. */
int bir_descriptor_block(bir_ctx *c, const char *name, json_t **block, trn_error *e);

/* bir_inst.c: one BIR instruction -> *in. *skipped: left out (unhandled). */
int bir_translate_inst(bir_ctx *c, json_t *inst, trn_inst *in, bool *skipped, trn_error *e);

/* bir_maps.c: what the schemas cannot say. */
typedef enum bir_special_use {
    BIR_BLOCKS, /* names of blocks -> native DMABlock objects (DMATrigger) */
    BIR_PERM,   /* a BIR enum spelling -> a native list of axis numbers */
    BIR_ENGINE  /* an integer -> the attribute; an issuing engine's name -> not modelled */
} bir_special_use;

typedef struct bir_enum {
    const char *bir;    /* the BIR spelling */
    const char *digits; /* BIR_PERM: the axis numbers; BIR_ENGINE: NULL */
} bir_enum;

typedef struct bir_special {
    const char *bir_name;
    const char *native_name;
    bir_special_use use;
    const bir_enum *values; /* BIR_PERM, BIR_ENGINE: NULL-terminated by bir == NULL */
    const char *help;       /* the docs' values column */
} bir_special;

typedef struct bir_opcode_extra {
    const char *opcode;
    const char *const
        *immediates; /* attribute names the imm_value / imm_array arguments fill, in order */
    const char *const *ignored; /* BIR fields of this opcode that are not modelled */
    const bir_special *special; /* NULL-terminated by bir_name == NULL */
    const char *default_field,
        *default_value; /* a BIR default the module lacks, applied when absent */
} bir_opcode_extra;

/* default_value meaning "the instruction's number" (DMATrigger's trigger). */
extern const char bir_default_number[];

/* What the reader does with one field of an instruction, decided in one
 * place (bir_field_class) so that no field is read twice: a field an
 * opcode's tables name (its schema, its specials, its ignored list) is
 * that; only a field they do not name falls to the list of fields no
 * instruction models (so GetRandState's `engine` is its schema's). */
typedef enum bir_field_use {
    BIR_FIELD_BASE,           /* opcode, name, ins, outs: read by the instruction reader */
    BIR_FIELD_UNINIT,         /* can_read_uninit -> allow_uninit_read */
    BIR_FIELD_SPECIAL,        /* a special of the opcode's BIR-only row */
    BIR_FIELD_SCHEMA,         /* an attribute of the opcode's schema */
    BIR_FIELD_OPCODE_IGNORED, /* not modelled for this opcode */
    BIR_FIELD_IGNORED,        /* not modelled on any instruction */
    BIR_FIELD_UNKNOWN
} bir_field_use;

bir_field_use bir_field_class(const trn_opcode_desc *schema, const bir_opcode_extra *x,
                              const char *field);

const bir_opcode_extra *bir_opcode_extra_lookup(const char *opcode);
/* Fields every instruction may carry that the simulator does not model. */
extern const char *const bir_ignored_fields[];
/* The host's instruction key a BIR field renames onto (can_read_uninit). */
extern const char bir_uninit_field[];
extern const char *const bir_alu_op_names[];
extern const bir_opcode_extra bir_opcode_extras[];

/* The schema attribute a BIR field names (bir_name, else name), or NULL. */
const trn_attr_desc *bir_schema_field(const trn_opcode_desc *op, const char *field);
/* Whether an attribute has a BIR field at all (instruction lists do not: their BIR form is a
 * special). */
bool bir_attr_readable(const trn_attr_desc *a);
/* The BIR spellings of an enum entry: its aliases, else its name; ", "-separated into buf. */
void bir_enum_spellings(const trn_enum_desc *x, char *buf, size_t len);

#endif
