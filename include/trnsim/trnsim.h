/* libtrnsim: the simulator embedded in another program (docs/embedding.md).
 *
 * A trnsim_sim holds a config, its loaded modules, at most one loaded
 * program and the memories of every core. The sequence is
 *
 *     trnsim_sim *s = trnsim_open(&opts);          opts may be NULL
 *     trnsim_load_program_text(s, json, "name");   or trnsim_load_program_file
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

#define TRNSIM_API_VERSION 1

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
    size_t size;               /* sizeof(trnsim_options): lets the struct grow */
    const char *config_path;   /* a libconfig file; NULL: config_text or the embedded default */
    const char *config_text;   /* config as text, used when config_path is NULL */
    const char *const *sets;   /* KEY=VALUE overrides (docs/config.md), applied in order */
    size_t n_sets;
    const char *module_dir;    /* searched for modules before the usual places; NULL: none */
    int trace;                 /* non-zero: one line per instruction on stderr */
    int stats;                 /* non-zero: collect per-opcode counts and times */
    int format;                /* programs' format: 0 from the content, 1 native, 2 BIR JSON */
    /* Appended (a smaller size leaves them 0): execution budgets. */
    uint64_t max_instructions; /* trnsim_run stops with an error before instruction N+1; 0: no limit */
    double timeout_seconds;    /* trnsim_run stops with an error once this much time passed; 0: none */
} trnsim_options;

/* A tensor of the loaded program. The pointers stay valid while the
 * program is loaded. */
typedef struct trnsim_tensor {
    const char *name;
    const char *dtype;     /* its dtype name (docs/dtypes.md) */
    int dtype_id;          /* trn_dtype of trnsim/dtype.h */
    int ndim;
    const int64_t *shape;
    int64_t count;         /* elements */
    size_t bytes;          /* count times the dtype's width */
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

/* Parse and validate a program (native JSON, or BIR JSON per format), place its tensors and give each
 * core fresh memories (a previous program is dropped first; a program that
 * fails to load leaves none). name labels messages for text. */
TRNSIM_EXPORT int trnsim_load_program_file(trnsim_sim *s, const char *path);
TRNSIM_EXPORT int trnsim_load_program_text(trnsim_sim *s, const char *json, const char *name);

/* The loaded program: its core count and tensors. */
TRNSIM_EXPORT int trnsim_cores(const trnsim_sim *s);
TRNSIM_EXPORT int trnsim_tensor_count(const trnsim_sim *s);
TRNSIM_EXPORT int trnsim_tensor_at(trnsim_sim *s, int index, trnsim_tensor *out);
TRNSIM_EXPORT int trnsim_tensor_find(trnsim_sim *s, const char *name, trnsim_tensor *out);

/* Raw bytes of a whole tensor in its dtype, C order; bytes must equal the
 * tensor's size. core -1: every core (set) or core 0 (get). */
TRNSIM_EXPORT int trnsim_set_tensor(trnsim_sim *s, const char *name, int core, const void *data, size_t bytes);
TRNSIM_EXPORT int trnsim_get_tensor(trnsim_sim *s, const char *name, int core, void *data, size_t bytes);

/* Run the loaded program on every core. Memories keep their contents
 * between runs: set what changes, run again. */
TRNSIM_EXPORT int trnsim_run(trnsim_sim *s);

/* The arithmetic core's conversions, for bindings that carry 16- and 8-bit
 * float dtypes as raw bits: n values of dtype (a name) from or to fp32.
 * Narrowing rounds to nearest even, as tensor initial data does. */
TRNSIM_EXPORT int trnsim_widen(const char *dtype, const void *bits, float *out, size_t n);
TRNSIM_EXPORT int trnsim_narrow(const char *dtype, const float *in, void *bits, size_t n);

#ifdef __cplusplus
}
#endif

#endif
