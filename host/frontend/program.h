/* The loaded program: tensors with their placement, and a flat instruction
 * list in which a loop is a header entry and an end entry around its body,
 * so a loop of a million trips costs two entries, not a million copies.
 * Two front ends produce it (native JSON, docs/programs.md; the compiler's
 * BIR JSON, docs/bir.md) behind trn_program_load. Parsing checks the
 * structure; opcode resolution needs the loaded modules (runtime/). */
#ifndef TRNSIM_HOST_PROGRAM_H
#define TRNSIM_HOST_PROGRAM_H

#include <jansson.h>
#include <stdbool.h>

#include "common/error.h"
#include "memory/memory.h"
#include "trnsim/plugin.h"

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
    const char *view_of;  /* a view: the tensor it is placed over (no bytes of its own), else NULL */
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
    bool shared_operands; /* in / out are the program's (interned, trn_program_alloc), not the entry's own */
    uint64_t number;    /* the instruction's number in messages (file order, depth first) */
    const char *where;  /* extra context for messages (BIR: function, block path, name) or NULL */
    const char *comment; /* a native entry's `comment` when obj does not hold it (trnsim convert), or NULL */
    size_t jump;        /* LOOP: index of its END; END: index of its LOOP */
    trn_loop loop;      /* LOOP and END */
} trn_inst;

typedef enum trn_format { TRN_FORMAT_AUTO = 0, TRN_FORMAT_NATIVE, TRN_FORMAT_BIR } trn_format;

/* What `trnsim check` prints about a program. */
typedef struct trn_program_summary {
    int allocations;        /* BIR: allocations read (native: tensors) */
    size_t instructions;    /* instruction entries, loops not counted */
    size_t loops;
    uint64_t loop_trips;    /* sum of every loop's trips */
    uint64_t executions;    /* instructions one core executes */
} trn_program_summary;

typedef struct trn_program {
    char *path;
    trn_format format;
    json_t *root;           /* the native program as read (BIR: NULL once read; trn_program_to_native writes it) */
    json_t *owned;          /* values a front end made (BIR attributes), owned here, or NULL */
    uint32_t cores;
    bool cores_given;
    bool allow_uninit;
    trn_tensor *tensors;
    int n_tensors;
    trn_inst *insts;
    size_t n_insts;
    uint32_t n_loops;
    trn_program_summary summary;
    char **arena;           /* blocks trn_program_alloc carves strings and shared operand lists from (owned) */
    size_t n_arena;
    size_t arena_used;      /* bytes used in the last block */
    size_t arena_cap;       /* the last block's size: 0 when no block is current */
    char *skip_note;        /* BIR opcodes skipped at load (unknown_opcode = "skip"), or NULL */
    struct trn_tensor_names
        *names; /* trn_program_find_tensor's index, grown as tensors are named (owned) */
} trn_program;

/* Resolves an opcode name to an IT; -1 with a message if unknown. A NULL e
 * asks for no message: a caller that only tests a name skips the spelling
 * suggestion, which costs an edit distance against every name. */
typedef int (*trn_opname_resolver)(void *arg, const char *name, uint32_t *it, trn_error *e);
/* Whether a loaded module handles the IT. */
typedef bool (*trn_opcode_handled)(void *arg, uint32_t it);
/* The descriptor (with its ABI 2 schema) of the module handling the IT, or NULL. */
typedef const trn_opcode_desc *(*trn_opcode_schema)(void *arg, uint32_t it);

typedef struct trn_load_opts {
    const trn_machine *machine;
    uint32_t default_cores;
    uint64_t max_executions;      /* 0: TRN_DEFAULT_MAX_EXECUTIONS */
    trn_format format;            /* AUTO: from the content */
    bool unknown_skip;            /* unknown_opcode = "skip" */
    const char *families;         /* loaded families, for messages */
    trn_opname_resolver resolve;
    trn_opcode_handled handled;   /* may be NULL: every resolved IT counts as handled */
    trn_opcode_schema schema;     /* may be NULL: no schemas (the BIR reader keeps fields as written) */
    const char *function;         /* BIR: the function to run when the file has several (NULL: the only one) */
    bool document_only;           /* read the file as one jansson document (no text fast path; tests compare the two) */
    void *arg;                    /* for resolve and handled */
} trn_load_opts;

/* Read a program (path, or text when non-NULL, then path names it in
 * messages), whichever format it is. On failure *p is freed. */
int trn_program_load(trn_program *p, const char *path, const char *text, const trn_load_opts *o, trn_error *e);
void trn_program_free(trn_program *p);
/* Read a native program from a document built in memory (the embedding
 * API's builder) exactly as the document of a native file is read; path
 * names it in messages. Takes root (freed with *p, also on failure). */
int trn_program_load_document(trn_program *p, const char *path, json_t *root, const trn_load_opts *o, trn_error *e);

/* The format a parsed document is in (trn_format), or -1 with a message. */
int trn_program_detect(json_t *root, trn_format *out, trn_error *e);

/* Parse one native instruction object (descriptor lists, sub-instructions). */
int trn_inst_parse(const trn_program *p, json_t *obj, trn_inst *out, trn_opname_resolver resolve, void *arg,
                   trn_error *e);
void trn_inst_free(trn_inst *in);

int trn_program_find_tensor(const trn_program *p, const char *name);

/* Memory that lives as long as the program (16-byte aligned), and a copy
 * of a string in it; NULL when out of memory. */
void *trn_program_alloc(trn_program *p, size_t bytes);
char *trn_program_strdup(trn_program *p, const char *s, size_t len);

/* The loaded program written as a native program (native_write.c): tensors
 * at their placement, instructions with their attributes and operands,
 * loops nested (a native file's layout and loop names are not kept).
 * NULL: out of memory. The caller owns the result. */
json_t *trn_program_to_native(const trn_program *p);
/* One instruction entry (TRN_INST_OP) as a native instruction object. */
json_t *trn_inst_to_json(const trn_program *p, const trn_inst *in);

#endif
