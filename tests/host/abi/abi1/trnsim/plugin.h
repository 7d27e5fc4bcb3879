/* A frozen copy of include/trnsim/plugin.h at ABI version 1, unchanged below
 * this comment: tests build modules against it to prove that ABI 1 modules
 * keep loading (tests/host/CMakeLists.txt, abi1_module). */
/* trnsim public header: the plugin ABI.
 *
 * A module exports exactly one data symbol, TRN_PLUGIN_SYMBOL ("trnsim_plugin"),
 * a const trn_plugin_desc. The loader reads abi_version and size before it
 * touches anything else, so those two fields never move. Everything a module
 * may do to the simulator goes through the const trn_host_api table handed to
 * every call; modules never link against the host and never see libconfig or
 * jansson.
 *
 * Versioning (docs/plugins.md): both structs are append-only. Appending a
 * field or host function bumps TRN_ABI_VERSION; the host accepts any module
 * with TRN_ABI_MIN_VERSION <= abi_version <= TRN_ABI_VERSION and a size at
 * least the size of that version's descriptor. Changing or removing a field
 * bumps TRN_ABI_MIN_VERSION.
 *
 * Changelog:
 *   1  first version.
 */
#ifndef TRNSIM_PLUGIN_H
#define TRNSIM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "trnsim/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRN_ABI_VERSION 1u
#define TRN_ABI_MIN_VERSION 1u
#define TRN_PLUGIN_SYMBOL "trnsim_plugin"

#if defined(__GNUC__)
#define TRN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TRN_EXPORT __attribute__((visibility("default")))
#else
#define TRN_PRINTF(f, a)
#define TRN_EXPORT
#endif

/* ---- results ---------------------------------------------------------- */

/* What a handler (and most host calls) return. TRN_ERR means an error was
 * recorded with api->error(); the host reports it once, with file,
 * instruction index, core and opcode.
 *
 * TRN_WAIT (multi-core rendezvous): the core stays at this instruction; the
 * host runs the other cores and calls the same handler for the same
 * instruction on this core again later, until it returns TRN_OK or TRN_ERR.
 * Scheduling is deterministic: each core runs until it finishes or waits,
 * then the next core (0, 1, ..., N-1, 0, ...). When every unfinished core is
 * waiting and a whole round completed no instruction, the run stops with a
 * deadlock error listing each core's blocked instruction. A handler that
 * waits must not have written anything yet. */
typedef enum trn_status { TRN_OK = 0, TRN_WAIT = 1, TRN_ERR = -1 } trn_status;

/* Attribute and setting lookups: found, absent (caller uses its default),
 * or wrong type (an error is already recorded). */
typedef enum trn_lookup { TRN_FOUND = 0, TRN_ABSENT = 1, TRN_BADTYPE = -1 } trn_lookup;

/* ---- opcodes ---------------------------------------------------------- */

/* Instruction types. 0..109 are the reference's; 110..127 reserved;
 * 128..255 are the experimental range (docs/opcodes.md lists assignments). */
#define TRN_IT_REF_MAX 109u
#define TRN_IT_EXP_MIN 128u
#define TRN_IT_MAX 255u

/* ---- memory and access patterns -------------------------------------- */

typedef enum trn_mem {
    TRN_MEM_SBUF = 0, /* partitioned */
    TRN_MEM_PSUM = 1, /* partitioned */
    TRN_MEM_HBM = 2   /* flat: one partition */
} trn_mem;

#define TRN_AP_MAX_DIMS 4

/* An access pattern. Elements are visited partition-major: for each of the
 * part_count partitions (part_start + p*part_step), the free dims are walked
 * with dims[0] outermost and dims[ndims-1] innermost (the reference's runAP
 * order). The element address in a partition is
 *   offset + sum_d(i_d * dims[d].step)   (in elements of dtype)
 * and its byte address offset*width + ... . A dense buffer read from or
 * written through an AP is laid out in exactly this visiting order, so it is
 * [part_count][elements per partition]. `core` names the core whose memory
 * is meant; operands come with the executing core filled in, and a plugin
 * may change it to reach another core's memory (collectives, remote DMA). */
typedef struct trn_ap {
    uint32_t core;
    uint32_t mem;   /* trn_mem */
    uint32_t dtype; /* trn_dtype */
    uint32_t part_start, part_count, part_step;
    int64_t offset; /* in elements of dtype, from the start of the partition */
    uint32_t ndims;
    struct {
        int64_t step; /* in elements, may be 0 or negative */
        int64_t num;  /* >= 1 */
    } dims[TRN_AP_MAX_DIMS];
} trn_ap;

/* Elements per partition of an AP. Meant for APs the host gave or checked
 * (operand(), check_ap()): ndims <= TRN_AP_MAX_DIMS and at most 2^30
 * elements in all. On an AP built by hand and not yet checked, the product
 * can overflow; call check_ap() first. */
static inline int64_t trn_ap_free_elems(const trn_ap *ap) {
    int64_t n = 1;
    for (uint32_t d = 0; d < ap->ndims; ++d) n *= ap->dims[d].num;
    return n;
}

/* All elements of an AP. */
static inline int64_t trn_ap_elems(const trn_ap *ap) {
    return (int64_t)ap->part_count * trn_ap_free_elems(ap);
}

/* Accumulate ops of cast_copy_or_accumulate (the reference's
 * MemoryReductionOp numbering, copy=0 add=1 MIN=2 MAX=3). */
typedef enum trn_acc_op { TRN_ACC_COPY = 0, TRN_ACC_ADD = 1, TRN_ACC_MIN = 2, TRN_ACC_MAX = 3 } trn_acc_op;

/* Operand direction. */
typedef enum trn_dir { TRN_IN = 0, TRN_OUT = 1 } trn_dir;

/* ---- opaque handles --------------------------------------------------- */

typedef struct trn_ctx trn_ctx;           /* one instruction executing on one core */
typedef struct trn_value trn_value;       /* a node of an instruction's attributes */
typedef struct trn_settings trn_settings; /* this module's validated settings */

typedef enum trn_value_kind {
    TRN_V_NULL = 0, TRN_V_BOOL, TRN_V_INT, TRN_V_FLOAT, TRN_V_STRING, TRN_V_LIST, TRN_V_OBJECT
} trn_value_kind;

typedef enum trn_log_level { TRN_LOG_ERROR = 0, TRN_LOG_WARN = 1, TRN_LOG_INFO = 2, TRN_LOG_TRACE = 3 } trn_log_level;

/* Facts about a run, given to run_begin before the first instruction. */
typedef struct trn_run_info {
    uint32_t size;        /* sizeof(trn_run_info) of the host */
    uint32_t cores;       /* SPMD cores in this run */
    uint32_t partitions;  /* partitions of SBUF and PSUM */
    uint32_t registers;   /* registers per core */
} trn_run_info;

/* ---- the host API ----------------------------------------------------- */

typedef struct trn_host_api {
    uint32_t abi_version; /* FIRST, never moves */
    uint32_t size;        /* sizeof(trn_host_api) of the host */

    /* Errors and logging. error() records the message for the executing
     * instruction (the host adds file, index, core, opcode) and returns
     * TRN_ERR so a handler can `return api->error(ctx, ...)`. When a message
     * is already recorded (a host call or a sub-instruction failed), the new
     * one becomes its prefix: "new: old", so a handler can add context.
     * log() with TRN_LOG_INFO or TRN_LOG_TRACE prints only under --trace;
     * TRN_LOG_ERROR and TRN_LOG_WARN always print (to stderr), so report a
     * failure through error(), which keeps the CLI's one-line message.
     * Messages are cut at 1023 bytes. */
    trn_status (*error)(trn_ctx *ctx, const char *fmt, ...) TRN_PRINTF(2, 3);
    void (*log)(trn_ctx *ctx, trn_log_level level, const char *fmt, ...) TRN_PRINTF(3, 4);

    /* Where we are. */
    uint32_t (*core_id)(const trn_ctx *ctx);
    uint32_t (*core_count)(const trn_ctx *ctx);
    uint32_t (*opcode)(const trn_ctx *ctx);          /* IT of this instruction */
    uint64_t (*instruction_index)(const trn_ctx *ctx); /* index in the core's stream */

    /* Operands, resolved to APs on the executing core (tensor names, full
     * APs and dynamic offsets already applied) and bounds-checked. idx out
     * of range is an error. On TRN_ERR *out is all zero (0 elements). */
    int (*operand_count)(const trn_ctx *ctx, trn_dir dir);
    trn_status (*operand)(trn_ctx *ctx, trn_dir dir, int idx, trn_ap *out);

    /* Dense transfers through an AP; every element is bounds-checked and
     * nothing is touched when any element is out of bounds.
     * read_f32: widen each element to fp32 (the shared invariant); an error
     *   for dtypes with no fp32 value (the packed x4 forms).
     * read_raw / write_raw: bytes of the AP's dtype, no conversion.
     * write_f32: narrow each value to the AP's dtype (RNE for floats; the
     *   integer rule of docs/dtypes.md), then cast_copy_or_accumulate(op)
     *   into memory; ops other than copy need one of the 8 reducing dtypes.
     * Reads of never-written bytes are an error unless the instruction or
     * the config allows them. */
    trn_status (*read_f32)(trn_ctx *ctx, const trn_ap *ap, float *dst);
    trn_status (*read_raw)(trn_ctx *ctx, const trn_ap *ap, void *dst);
    trn_status (*write_f32)(trn_ctx *ctx, const trn_ap *ap, const float *src, trn_acc_op op);
    trn_status (*write_raw)(trn_ctx *ctx, const trn_ap *ap, const void *src);

    /* Indirect access: idx[j] selects element idx[j] of the AP's visiting
     * order (0 <= idx[j] < trn_ap_elems(ap), else an error naming j and the
     * index). write_indirect applies elements in order j = 0..n-1, so
     * repeated indices accumulate. */
    trn_status (*read_indirect_f32)(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n, float *dst);
    trn_status (*write_indirect_f32)(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n,
                                     const float *src, trn_acc_op op);

    /* Instruction attributes (the JSON fields other than opcode / inputs /
     * outputs). Scalars: attr_int accepts integers and integral floats and
     * true/false; attr_float accepts numbers and the strings "inf", "-inf",
     * "nan". attr_int_array fills at most cap entries and sets *n to the
     * list's length (a longer list is an error). */
    trn_lookup (*attr_int)(trn_ctx *ctx, const char *key, int64_t *out);
    trn_lookup (*attr_float)(trn_ctx *ctx, const char *key, double *out);
    trn_lookup (*attr_string)(trn_ctx *ctx, const char *key, const char **out);
    trn_lookup (*attr_int_array)(trn_ctx *ctx, const char *key, int64_t *out, size_t cap, size_t *n);
    const trn_value *(*attr)(trn_ctx *ctx, const char *key); /* NULL if absent */

    /* Generic walk of attribute values (nested lists, descriptor lists).
     * Each accepts v == NULL (an absent attribute, a list index past the
     * end): kind TRN_V_NULL, length 0, value_at / value_get / value_string
     * NULL, value_int / value_float TRN_ABSENT. */
    trn_value_kind (*value_kind)(const trn_value *v);
    size_t (*value_len)(const trn_value *v);                         /* list length, else 0 */
    const trn_value *(*value_at)(const trn_value *v, size_t i);      /* list element or NULL */
    const trn_value *(*value_get)(const trn_value *v, const char *key); /* object member or NULL */
    trn_lookup (*value_int)(trn_ctx *ctx, const trn_value *v, int64_t *out);
    trn_lookup (*value_float)(trn_ctx *ctx, const trn_value *v, double *out);

    /* Run a sub-instruction (an instruction object, e.g. one entry of a
     * descriptor list) through the dispatcher on this core, as if it stood
     * in the program (instruction_index() is the parent's; a parent's
     * allow_uninit_read carries over to it). It may not wait (TRN_WAIT from
     * it is an error), and sub-instructions nest at most 8 deep.
     * On failure its message is recorded in ctx, prefixed with
     * "sub-instruction (opcode NAME/IT)". */
    trn_status (*dispatch)(trn_ctx *ctx, const trn_value *instruction);

    /* The executing core's register file (64-bit). */
    trn_status (*reg_read)(trn_ctx *ctx, uint32_t reg, int64_t *out);
    trn_status (*reg_write)(trn_ctx *ctx, uint32_t reg, int64_t value);

    /* This module's settings, validated against its schema with defaults
     * filled in, so a key of the schema is always found (setting_int also
     * reads a BOOL setting as 0 / 1). TRN_ABSENT: no such key of that type.
     * setting_int_array sets *n to the list's length and returns TRN_BADTYPE,
     * with no message recorded (there is no ctx), when it exceeds cap. */
    trn_lookup (*setting_int)(const trn_settings *s, const char *key, int64_t *out);
    trn_lookup (*setting_float)(const trn_settings *s, const char *key, double *out);
    trn_lookup (*setting_string)(const trn_settings *s, const char *key, const char **out);
    trn_lookup (*setting_int_array)(const trn_settings *s, const char *key, int64_t *out, size_t cap,
                                    size_t *n);

    /* The arithmetic core, for modules that convert in their own buffers. */
    float (*widen)(trn_dtype dt, const void *src);             /* one element -> fp32 */
    void (*narrow)(trn_dtype dt, float value, void *dst);       /* fp32 -> one element, RNE */
    trn_status (*accumulate)(trn_ctx *ctx, trn_acc_op op, void *dst, const void *src, trn_dtype dt);
    uint32_t (*dtype_width)(trn_dtype dt);                      /* bytes, 0 if unknown */
    const char *(*dtype_name)(trn_dtype dt);

    /* Validate an AP without moving data: fields and bounds; for TRN_IN also
     * the uninitialised-read guard. Lets a handler check every AP it will
     * touch before its first write. */
    trn_status (*check_ap)(trn_ctx *ctx, const trn_ap *ap, trn_dir dir);
    /* Same-dtype transfers with no trip through fp32 (the reference's memcpy
     * and cast_copy_or_accumulate in the destination dtype): src holds
     * elements of the AP's dtype; op as in write_f32 (an accumulate into a
     * never-written element stores the value). */
    trn_status (*write_raw_op)(trn_ctx *ctx, const trn_ap *ap, const void *src, trn_acc_op op);
    trn_status (*read_indirect_raw)(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n, void *dst);
    trn_status (*write_indirect_raw)(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n, const void *src,
                                     trn_acc_op op);
    /* The text of a string value, NULL if v is not a string. */
    const char *(*value_string)(const trn_value *v);
    /* dst <- src for APs of one dtype and equal element counts, with no trip
     * through fp32: every source element passes the uninitialised-read guard
     * and every element both bounds checks before anything is written; the
     * result is as if src were read whole first (overlap-safe). op as in
     * write_raw_op. */
    trn_status (*copy_raw)(trn_ctx *ctx, const trn_ap *dst, const trn_ap *src, trn_acc_op op);
    /* Whether the executing instruction may read never-written bytes (its own
     * allow_uninit_read, a parent's, the program's or the config's). */
    int (*uninit_allowed)(const trn_ctx *ctx);
} trn_host_api;

/* ---- what a module describes ----------------------------------------- */

typedef trn_status (*trn_handler)(const trn_host_api *api, trn_ctx *ctx, void *state);

/* Opcode flags. The loader refuses any other bit. TRN_WAIT from a handler
 * whose opcode lacks TRN_OPF_MAY_WAIT is an error, not a wait. */
#define TRN_OPF_MAY_WAIT 0x1u  /* handler may return TRN_WAIT (multi-core rendezvous) */

typedef struct trn_opcode_desc {
    uint32_t it;         /* instruction type */
    const char *name;    /* e.g. "BNStats"; unique across loaded modules */
    trn_handler handler;
    uint32_t flags;      /* TRN_OPF_* */
} trn_opcode_desc;

typedef enum trn_setting_type {
    TRN_SET_INT = 0, TRN_SET_FLOAT = 1, TRN_SET_BOOL = 2, TRN_SET_STRING = 3, TRN_SET_INT_ARRAY = 4
} trn_setting_type;

/* One setting of a module's schema. The loader checks the whole schema before
 * any module code runs: a non-empty key not given twice, a known type, and a
 * default that parses as that type, lies in [min, max] (INT, FLOAT) and is
 * one of choices (STRING). */
typedef struct trn_setting_desc {
    const char *key;
    trn_setting_type type;
    const char *def;     /* default, as text: "0", "1.5", "true", "exact", "" (empty array) */
    double min, max;     /* INT/FLOAT range, inclusive; ignored when min > max */
    const char *choices; /* STRING: '|'-separated allowed values; NULL = any */
    const char *help;    /* one line */
} trn_setting_desc;

/* A named behaviour of the reference a user could trip over. */
typedef struct trn_quirk_desc {
    const char *name;    /* stable name, e.g. "bn.shared_welford_count" */
    const char *setting; /* setting that changes it, NULL if none */
    const char *def;     /* the default (reference) value of that setting, or "always" */
    const char *summary; /* one line: what it means */
} trn_quirk_desc;

typedef struct trn_plugin_desc {
    uint32_t abi_version; /* FIRST, never moves: TRN_ABI_VERSION when built */
    uint32_t size;        /* sizeof(trn_plugin_desc) when built */
    const char *name;     /* module name, e.g. "trnsim-bn" */
    const char *family;   /* e.g. "bn" */
    const char *version;  /* module version text */
    const trn_opcode_desc *ops;
    uint32_t n_ops;
    const trn_setting_desc *settings;
    uint32_t n_settings;
    const trn_quirk_desc *quirks; /* each with a non-empty name */
    uint32_t n_quirks;
    /* init: make the module's state from its settings. On failure write a
     * message into err (errlen bytes, zero-filled) and return TRN_ERR (any
     * status but TRN_OK is a failure); the host then rolls back every
     * registration of the module. fini is not called after a failed init,
     * so free what init allocated before returning. Optional (NULL). */
    trn_status (*init)(const trn_host_api *api, const trn_settings *settings, void **state, char *err,
                       size_t errlen);
    void (*fini)(void *state); /* optional */
    /* run_begin: called once per run before the first instruction, e.g. to
     * size per-core engine state. Optional. */
    trn_status (*run_begin)(void *state, const trn_run_info *info, char *err, size_t errlen);
} trn_plugin_desc;

/* Define a module's descriptor. As a loadable module the symbol is
 * TRN_PLUGIN_SYMBOL; compiled into a static trnsim (TRNSIM_STATIC_PLUGIN)
 * it is trnsim_plugin_<family> so several can live in one binary. */
#ifdef TRNSIM_STATIC_PLUGIN
#define TRN_PLUGIN_DEFINE(family) const trn_plugin_desc trnsim_plugin_##family
#else
#define TRN_PLUGIN_DEFINE(family) TRN_EXPORT const trn_plugin_desc trnsim_plugin
#endif

#ifdef __cplusplus
}
#endif
#endif
