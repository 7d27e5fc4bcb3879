/* libtrnsim: the simulator embedded in another program (docs/embedding.md).
 *
 * A trnsim_sim holds a config, its loaded modules, at most one loaded
 * program and the memories of every core. The sequence is
 *
 *     trnsim_sim *s = trnsim_open(&opts);          opts may be NULL
 *     trnsim_load_program_text(s, json, "name");   or trnsim_load_program_file,
 *                                                  or trnsim_load_program (built in memory)
 *     trnsim_set_tensor(s, "x", -1, bytes, n);     raw bytes of the tensor's dtype
 *     trnsim_run(s);
 *     trnsim_get_tensor(s, "y", 0, bytes, n);
 *     trnsim_close(s);
 *
 * Every call that can fail returns non-zero (or NULL) and records one error,
 * read with trnsim_last_error() on the same thread until the next call into
 * the library from that thread. Nothing is printed. A sim may be used by one
 * thread at a time; different sims are independent.
 *
 * Versioning: TRNSIM_API_VERSION grows when a function or a field is added;
 * existing functions and fields keep their meaning. trnsim_api_version()
 * gives the version of the library actually loaded. */
#ifndef TRNSIM_TRNSIM_H
#define TRNSIM_TRNSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRNSIM_API_VERSION 4

#if defined(__GNUC__)
#define TRNSIM_EXPORT __attribute__((visibility("default")))
#else
#define TRNSIM_EXPORT
#endif

typedef struct trnsim_sim trnsim_sim;

/* Which step failed. */
typedef enum trnsim_error_kind {
    TRNSIM_OK = 0,
    TRNSIM_ERR_CONFIG = 1,  /* the config, a module setting or a KEY=VALUE override */
    TRNSIM_ERR_MODULE = 2,  /* a module not found, refused or failing to start */
    TRNSIM_ERR_PROGRAM = 3, /* the program does not parse or does not validate */
    TRNSIM_ERR_INPUT = 4,   /* a tensor name, core or byte count that does not match */
    TRNSIM_ERR_RUN = 5,     /* an instruction failed while running */
    TRNSIM_ERR_USAGE = 6    /* a call out of order or a NULL argument */
} trnsim_error_kind;

/* The last error of this thread. Strings stay valid until the next call
 * into the library from this thread. */
typedef struct trnsim_error {
    int kind;                /* trnsim_error_kind */
    const char *message;     /* the one line the CLI prints; "" when kind is TRNSIM_OK */
    const char *file;        /* the config or program it is about; "" if none */
    int64_t instruction;     /* index in the instruction list; -1 if none */
    int32_t core;            /* the executing core; -1 if none (or a load-time check) */
    int32_t opcode;          /* the instruction's IT; -1 if none */
    const char *opcode_name; /* its name; "" if none */
} trnsim_error;

typedef struct trnsim_options {
    size_t size;             /* sizeof(trnsim_options): lets the struct grow */
    const char *config_path; /* a libconfig file; NULL: config_text or the embedded default */
    const char *config_text; /* config as text, used when config_path is NULL */
    const char *const *sets; /* KEY=VALUE overrides (docs/config.md), applied in order */
    size_t n_sets;
    const char *module_dir; /* searched for modules before the usual places; NULL: none */
    int trace;              /* non-zero: one line per instruction on stderr */
    int stats;              /* non-zero: collect per-opcode counts and times */
    int format;             /* programs' format: 0 from the content, 1 native, 2 BIR JSON */
    /* Appended (a smaller size leaves them 0): execution budgets. */
    uint64_t
        max_instructions;   /* trnsim_run stops with an error before instruction N+1; 0: no limit */
    double timeout_seconds; /* trnsim_run stops with an error once this much time passed; 0: none */
} trnsim_options;

/* A tensor of the loaded program. The pointers stay valid while the
 * program is loaded. */
typedef struct trnsim_tensor {
    const char *name;
    const char *dtype; /* its dtype name (docs/dtypes.md) */
    int dtype_id;      /* trn_dtype of trnsim/dtype.h */
    int ndim;
    const int64_t *shape;
    int64_t count; /* elements */
    size_t bytes;  /* count times the dtype's width */
} trnsim_tensor;

TRNSIM_EXPORT unsigned trnsim_api_version(void);
TRNSIM_EXPORT const char *trnsim_version(void);
TRNSIM_EXPORT const trnsim_error *trnsim_last_error(void);

/* Read the config, apply the overrides, load and check every module.
 * Modules are looked for in module_dir, TRNSIM_PLUGIN_PATH, the config's
 * plugin_paths, the library's own directory and its ../lib/trnsim, then the
 * install directory (docs/config.md). NULL on failure. */
TRNSIM_EXPORT trnsim_sim *trnsim_open(const trnsim_options *opts);
TRNSIM_EXPORT void trnsim_close(trnsim_sim *s);

/* Parse and validate a program (native JSON, or BIR JSON per format), place its tensors and give
 * each core fresh memories (a previous program is dropped first; a program that fails to load
 * leaves none). name labels messages for text. */
TRNSIM_EXPORT int trnsim_load_program_file(trnsim_sim *s, const char *path);
TRNSIM_EXPORT int trnsim_load_program_text(trnsim_sim *s, const char *json, const char *name);

/* The loaded program: its core count and tensors. */
TRNSIM_EXPORT int trnsim_cores(const trnsim_sim *s);
TRNSIM_EXPORT int trnsim_tensor_count(const trnsim_sim *s);
TRNSIM_EXPORT int trnsim_tensor_at(trnsim_sim *s, int index, trnsim_tensor *out);
TRNSIM_EXPORT int trnsim_tensor_find(trnsim_sim *s, const char *name, trnsim_tensor *out);

/* Raw bytes of a whole tensor in its dtype, C order; bytes must equal the
 * tensor's size. core -1: every core (set) or core 0 (get). */
TRNSIM_EXPORT int trnsim_set_tensor(trnsim_sim *s, const char *name, int core, const void *data,
                                    size_t bytes);
TRNSIM_EXPORT int trnsim_get_tensor(trnsim_sim *s, const char *name, int core, void *data,
                                    size_t bytes);

/* API version 3: a tensor's input bound in place instead of copied.
 * Results are the same bytes as trnsim_set_tensor of the same data gives;
 * the simulator reads the caller's buffer where it would have read its
 * copy, and never writes it. The binding lasts until the tensor is set or
 * bound again, a run writes into its bytes (they are copied in first, and
 * the tensor keeps them), trnsim_unbind_tensor, the next program load or
 * trnsim_close. Until then data must stay valid, and must not change while
 * a call into the library is running (a change between runs is what the
 * next run reads). data must be aligned to the dtype's width; bytes and
 * core as for trnsim_set_tensor. A tensor whose rows do not lie side by
 * side in one run of partitions, or a run spread over MPI processes, is
 * copied in instead (the same results; data is then free at once). */
TRNSIM_EXPORT int trnsim_bind_tensor(trnsim_sim *s, const char *name, int core, const void *data,
                                     size_t bytes);
/* End every binding of the tensor on core (-1: every core), copying the
 * caller's bytes into simulator memory: data may be freed afterwards. */
TRNSIM_EXPORT int trnsim_unbind_tensor(trnsim_sim *s, const char *name, int core);

/* API version 4: trnsim_get_tensor that refuses bytes nothing wrote (no
 * input, fill, data or instruction), as an instruction reading them does:
 * TRNSIM_ERR_INPUT naming the first such element; data is then filled as
 * trnsim_get_tensor fills it. trnsim_get_tensor reads them as they are. */
TRNSIM_EXPORT int trnsim_get_written_tensor(trnsim_sim *s, const char *name, int core, void *data,
                                            size_t bytes);

/* Run the loaded program on every core. Memories keep their contents
 * between runs: set what changes, run again. */
TRNSIM_EXPORT int trnsim_run(trnsim_sim *s);

/* The arithmetic core's conversions, for bindings that carry 16- and 8-bit
 * float dtypes as raw bits: n values of dtype (a name) from or to fp32.
 * Narrowing rounds to nearest even, as tensor initial data does. */
TRNSIM_EXPORT int trnsim_widen(const char *dtype, const void *bits, float *out, size_t n);
TRNSIM_EXPORT int trnsim_narrow(const char *dtype, const float *in, void *bits, size_t n);

/* ---- API version 2: programs built in memory ------------------------------
 *
 * A trnsim_program is a native program (docs/programs.md) assembled call by
 * call instead of written as JSON text. Loading it runs the same reader and
 * the same checks as loading the equivalent native JSON: the loaded program
 * is the same, and a program that is wrong is refused with the same
 * message (naming the instruction, opcode, tensor). The builder calls only
 * refuse what has no JSON form (a NULL, a key set twice, a loop_end without
 * a loop); everything else is judged when the program is loaded.
 *
 *     trnsim_program *p = trnsim_program_new();
 *     int64_t shape[2] = {128, 512}, vshape[2] = {128, 8};
 *     trnsim_program_tensor(p, "x", "sbuf", "float32", 2, shape, NULL);
 *     trnsim_program_tensor(p, "v", "sbuf", "float32", 2, vshape, NULL);
 *     trnsim_operand in = {.size = sizeof in, .tensor = "x", .ndims = 1, .ap = {{1, 256}}};
 *     trnsim_value *ins = trnsim_value_list(), *outs = trnsim_value_list();
 *     trnsim_value_append(ins, trnsim_value_operand(&in));
 *     trnsim_value_append(outs, trnsim_value_string("v"));
 *     trnsim_program_instruction(p, "Max", ins, outs, NULL);
 *     trnsim_load_program(s, p, "max");            then set, run, get as above
 *     trnsim_program_free(p);
 *
 * Values: attribute values, initial data and operands are trnsim_value
 * trees (the numbers, strings, lists and objects of the JSON form). Every
 * call that takes a trnsim_value * takes ownership of it, also when it
 * fails; a value is given to at most one place. */

typedef struct trnsim_value trnsim_value;
typedef struct trnsim_program trnsim_program;

/* NULL only when out of memory (or s NULL for string). A float that is
 * infinite or NaN becomes the reader's "inf", "-inf" or "nan". */
TRNSIM_EXPORT trnsim_value *trnsim_value_int(int64_t v);
TRNSIM_EXPORT trnsim_value *trnsim_value_float(double v);
TRNSIM_EXPORT trnsim_value *trnsim_value_bool(int v);
TRNSIM_EXPORT trnsim_value *trnsim_value_string(const char *s);
TRNSIM_EXPORT trnsim_value *trnsim_value_list(void);
TRNSIM_EXPORT trnsim_value *trnsim_value_object(void);
/* Lists of n numbers in one call (tensor data, shapes). */
TRNSIM_EXPORT trnsim_value *trnsim_value_ints(const int64_t *v, size_t n);
TRNSIM_EXPORT trnsim_value *trnsim_value_floats(const double *v, size_t n);
/* Append to a list; set a key of an object (a key set twice is refused). */
TRNSIM_EXPORT int trnsim_value_append(trnsim_value *list, trnsim_value *item);
TRNSIM_EXPORT int trnsim_value_set(trnsim_value *object, const char *key, trnsim_value *v);
/* A value never given anywhere. */
TRNSIM_EXPORT void trnsim_value_free(trnsim_value *v);

/* Which optional operand fields are written (docs/programs.md, Operands). */
enum {
    TRNSIM_OPND_PARTITION = 1u << 0,
    TRNSIM_OPND_PARTITIONS = 1u << 1,
    TRNSIM_OPND_PARTITION_STEP = 1u << 2,
    TRNSIM_OPND_OFFSET = 1u << 3,
    TRNSIM_OPND_OFFSET_REGISTER = 1u << 4,
    TRNSIM_OPND_CORE = 1u << 5,
    TRNSIM_OPND_CORE_OFFSET = 1u << 6
};

/* An operand: an access pattern over a tensor (or raw memory). */
typedef struct trnsim_operand {
    size_t size;        /* sizeof(trnsim_operand): lets the struct grow */
    const char *tensor; /* the tensor; NULL: raw memory, then memory and dtype */
    const char *memory; /* "sbuf", "psum", "hbm" for raw memory; else NULL */
    const char *dtype;  /* reinterpret as this dtype; NULL: the tensor's */
    unsigned given;     /* TRNSIM_OPND_* bits: the fields below that are written */
    int64_t partition, partitions, partition_step, offset;
    int64_t offset_register, core, core_offset;
    int ndims;        /* 0: the default AP (the tensor's free shape); 1..4: ap[0..ndims) */
    int64_t ap[4][2]; /* [step, num] pairs, outermost first, steps in elements */
} trnsim_operand;

/* The operand as its JSON object; NULL with an error for a NULL argument,
 * a smaller size or ndims outside 0..4. */
TRNSIM_EXPORT trnsim_value *trnsim_value_operand(const trnsim_operand *o);

/* An empty program (no tensors, no instructions, cores not given). */
TRNSIM_EXPORT trnsim_program *trnsim_program_new(void);
TRNSIM_EXPORT void trnsim_program_free(trnsim_program *p);
/* A top-level key: "cores" (an int), "allow_uninit_read" (a bool). */
TRNSIM_EXPORT int trnsim_program_set(trnsim_program *p, const char *key, trnsim_value *v);
/* Declare a tensor; more: NULL or an object of its other keys (partition,
 * offset, fill, data, data_per_core, view_of). memory NULL leaves the key
 * out (for a view). */
TRNSIM_EXPORT int trnsim_program_tensor(trnsim_program *p, const char *name, const char *memory,
                                        const char *dtype, int ndim, const int64_t *shape,
                                        trnsim_value *more);
/* Append an instruction by opcode name (as `trnsim opcodes` lists them) or
 * by IT number. inputs, outputs: lists of operands (trnsim_value_operand,
 * or a tensor's name as a string); NULL leaves the key out. attrs: NULL or
 * an object of attributes (snake_case, docs/programs.md). */
TRNSIM_EXPORT int trnsim_program_instruction(trnsim_program *p, const char *opcode,
                                             trnsim_value *inputs, trnsim_value *outputs,
                                             trnsim_value *attrs);
TRNSIM_EXPORT int trnsim_program_instruction_it(trnsim_program *p, uint32_t it,
                                                trnsim_value *inputs, trnsim_value *outputs,
                                                trnsim_value *attrs);
/* A loop: the instructions appended until the matching loop_end are its
 * body. attrs: NULL or an object of register, start, step, name. */
TRNSIM_EXPORT int trnsim_program_loop_begin(trnsim_program *p, int64_t trips, trnsim_value *attrs);
TRNSIM_EXPORT int trnsim_program_loop_end(trnsim_program *p);
/* The equivalent native JSON text (for inspection, or a file for the CLI);
 * NULL when out of memory. Free it with trnsim_free. */
TRNSIM_EXPORT char *trnsim_program_to_json(const trnsim_program *p);
TRNSIM_EXPORT void trnsim_free(void *text);

/* Load a built program as trnsim_load_program_text loads text: name labels
 * messages (NULL: "<program>"). The sim keeps its own copy: p may be
 * changed, loaded again or freed afterwards. Always read as native (the
 * format option applies to text and files). */
TRNSIM_EXPORT int trnsim_load_program(trnsim_sim *s, const trnsim_program *p, const char *name);

#ifdef __cplusplus
}
#endif

#endif
