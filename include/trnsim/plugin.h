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
 *   2  trn_plugin_desc.transport: a module may carry a run's cores over
 *      several processes (trn_transport_desc); per-opcode attribute
 *      schema, operand descriptions and static check (trn_opcode_desc.attrs
 *      / operands / check, TRN_OPF_NO_ATTRS), trn_plugin_desc.op_size (the
 *      stride of the ops table), host functions attr_enum and checking,
 *      and the TRN_ARRAY / TRN_PLUGIN_HEADER helpers.
 *   3  shared services between modules: trn_plugin_desc.exports / needs
 *      (trn_service_desc, trn_service_need), host function service, and
 *      the TRN_EXPORTS / TRN_NEEDS helpers.
 *      trn_transport_desc grows the remote-memory calls (expose,
 *      remote_begin / get / put / end; trn_region, trn_extent): the host
 *      reads them only when the table's size covers them.
 *      State snapshots: trn_plugin_desc.state_save / state_restore and the
 *      trn_state_api they are handed (--dump-at, --restore).
 *      Observers (appended after those): trn_plugin_desc.observer
 *      (trn_observer_desc), read-only callbacks before and after every
 *      executed instruction, with host functions observed_read_raw,
 *      observed_read_f32, observer_stop and observed_digest.
 *      Host functions lend / lend_end / lend_cancel: direct access to the
 *      memory under an AP (trn_view) instead of a dense copy, and the
 *      TRN_API_HAS helper.
 *      Host function rendezvous_met (appended after those): a module says
 *      which cores a rendezvous brought together (trn_party), and observers
 *      see it in trn_observation.party / n_party (the timeline's arrows).
 *      The opcode flag TRN_OPF_STREAMS (bounded working memory per operand).
 *      Host function keep_bytes (appended after those): the memory a module
 *      keeps between instructions, counted against machine.max_bytes.
 */
#ifndef TRNSIM_PLUGIN_H
#define TRNSIM_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trnsim/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRN_ABI_VERSION 3u
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
typedef struct trn_observation trn_observation; /* ABI 3: one executed instruction, as an observer sees it */

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

/* ---- ABI 3: lent memory (direct access) ------------------------------ */

/* How a module wants to use memory lent to it (lend()).
 *   READ   read-only: every element passes the uninitialised-read guard
 *          first (the same check and message as read_raw).
 *   WRITE  write-only: the module stores every element; the bytes count as
 *          written from lend_end (or the handler's return) on.
 *   READ | WRITE  read-modify-write (accumulate in place): lent only when
 *          every byte is already written, so no element needs the
 *          "accumulate into never-written stores" rule. */
#define TRN_LEND_READ 0x1u
#define TRN_LEND_WRITE 0x2u

/* Shape flags of a view. ROWS: in each partition the AP's elements lie
 * contiguously in visiting order (row p starts at base + p*part_stride and
 * holds free_elems elements). BLOCK: ROWS, and the rows abut, so the whole
 * AP is one run of trn_ap_elems() elements from base. */
#define TRN_VIEW_ROWS 0x1u
#define TRN_VIEW_BLOCK 0x2u

/* Memory under an AP, addressed in place. Element (p, i0..i3) of the AP's
 * visiting order is at
 *   base + p*part_stride + sum_d(i_d * stride[d])      (bytes)
 * with ndims, num[] the AP's own dims (an AP of 0 dims is one dim of 1).
 * Elements are in the dtype's memory layout (docs/dtypes.md), unaligned in
 * general (memcpy, or check the address, before a typed load). Views may
 * alias each other: [lo, hi) holds every byte of this one. */
typedef struct trn_view {
    uint8_t *base;
    int64_t part_stride;
    int64_t stride[TRN_AP_MAX_DIMS];
    int64_t num[TRN_AP_MAX_DIMS];
    uint32_t ndims, parts, width, dtype;
    uint32_t flags;       /* TRN_VIEW_* */
    uint32_t mode;        /* TRN_LEND_* it was lent with */
    int64_t free_elems;   /* elements per partition */
    const uint8_t *lo, *hi;
    uint32_t slot;        /* the host's; keep as given */
} trn_view;

/* What lend() did. NOT_LENT is not an error: the AP or the mode does not
 * allow direct access here (see lend), so use the copying calls. */
typedef enum trn_lend_status { TRN_LENT = 0, TRN_NOT_LENT = 1, TRN_LEND_ERR = -1 } trn_lend_status;

/* ---- ABI 3: who met at a rendezvous --------------------------------- */

/* A core's part in a rendezvous, as rendezvous_met() reports it.
 *   MEMBER    a member of a group collective (CollectiveCompute over a
 *             replica group, a Permute's ranks): the members met each other.
 *   SENDER / RECEIVER   the two sides of a point-to-point transfer. */
#define TRN_PARTY_MEMBER 0u
#define TRN_PARTY_SENDER 1u
#define TRN_PARTY_RECEIVER 2u

typedef struct trn_party {
    uint32_t core;  /* a core of the run */
    uint32_t role;  /* TRN_PARTY_* */
    uint64_t index; /* instruction_index() of its instruction on that core */
} trn_party;

/* ---- the host API ----------------------------------------------------- */

typedef struct trn_host_api {
    uint32_t abi_version; /* FIRST, never moves */
    uint32_t size;        /* sizeof(trn_host_api) of the host */

    /* Errors and logging. error() records the message for the executing
     * instruction (the host adds file, index, core, opcode) and returns
     * TRN_ERR so a handler can `return api->error(ctx, ...)`. When a message
     * is already recorded (a host call or a sub-instruction failed), the new
     * one becomes its prefix: "new: old", so a handler can add context.
     * log() with TRN_LOG_INFO or TRN_LOG_TRACE prints only under --trace-text;
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
    /* ABI 2. An ENUM attribute's value (by name, alias or number, as the
     * opcode's schema allows); TRN_BADTYPE with a message for a key that is
     * not an ENUM of the schema. */
    trn_lookup (*attr_enum)(trn_ctx *ctx, const char *key, int64_t *out);
    /* 1 while the opcode's static check runs (trn_check_fn), else 0. */
    int (*checking)(const trn_ctx *ctx);
    /* ABI 3. The interface of a service this module declared in its needs
     * (trn_service_need), from the module that exports it. self is the
     * settings handle init received (it says which module asks). Callable
     * from init on, in any load order: the host resolved every need when
     * the modules loaded, before any init, so a declared need at a version
     * >= min_version always gives the interface. NULL for a name the module
     * did not declare, or a min_version above the exporter's (module bugs). */
    const void *(*service)(const trn_settings *self, const char *name, uint32_t min_version);
    /* ABI 3. Read-only memory access for observers (trn_observer_desc):
     * the bytes (or fp32 widenings) of any AP of a core this process runs,
     * bounds-checked like read_raw / read_f32; never-written bytes read as
     * they are stored (the uninitialised-read guard is the program's, not an
     * observer's). TRN_ERR (nothing written to dst) for an AP outside memory,
     * a dtype read_f32 cannot widen, or an observation no longer current. */
    trn_status (*observed_read_raw)(const trn_observation *ob, const trn_ap *ap, void *dst);
    trn_status (*observed_read_f32)(const trn_observation *ob, const trn_ap *ap, float *dst);
    /* ABI 3. End the run with an error carrying the message (the host adds
     * file, instruction, core and opcode): from `before`, the instruction
     * does not run; from `after`, the run ends after it. Returns TRN_ERR,
     * for `return api->observer_stop(ob, ...)`. */
    trn_status (*observer_stop)(const trn_observation *ob, const char *fmt, ...) TRN_PRINTF(2, 3);
    /* ABI 3. A 64-bit digest of the AP's bytes in visiting order (the dense
     * buffer observed_read_raw would give): XXH64 with seed 0, computed in
     * place. Same conditions and errors as observed_read_raw. */
    trn_status (*observed_digest)(const trn_observation *ob, const trn_ap *ap, uint64_t *out);
    /* ABI 3. Lend the memory under an AP (bounds-checked as operand APs
     * are) to the handler: TRN_LENT with *view filled, TRN_NOT_LENT (the
     * copying calls must be used: direct access is switched off, WRITE on
     * an AP that reaches some byte twice, READ|WRITE over bytes not all
     * written, or too many views open), or TRN_LEND_ERR with a message (a
     * bad AP, the uninitialised-read guard, a static check). Rules
     * (docs/plugins.md): a view is valid until lend_end or the handler
     * returns, whichever is first; while any view of the instruction is
     * open, no host call that writes memory (write_*, copy_raw, dispatch)
     * may run (an error); bytes written through a WRITE view count as
     * written only from lend_end on, so end it before reading them back
     * through the copying calls. */
    trn_lend_status (*lend)(trn_ctx *ctx, const trn_ap *ap, uint32_t mode, trn_view *view);
    /* ABI 3. Give a view back (a WRITE view's bytes become written). The
     * host ends every view still open when the handler returns; TRN_WAIT
     * drops WRITE views unmarked (a waiting handler has written nothing). */
    trn_status (*lend_end)(trn_ctx *ctx, trn_view *view);
    /* ABI 3. Give a view back unused: a WRITE view's bytes keep the written
     * state they had (for a handler that lent and then takes the copying
     * path after all). The module must not have stored through it. */
    trn_status (*lend_cancel)(trn_ctx *ctx, trn_view *view);
    /* ABI 3. Which cores the rendezvous this call completes brought
     * together, for observers (the timeline draws its arrows from it; the
     * host cannot tell from outside which cores met, since that is the
     * module's rule: peer lists, replica groups, logical cores). Call it at
     * most once, from the handler call that completes the operation and
     * returns TRN_OK, with every core that took part (the executing core
     * included, at its own instruction_index()): either all MEMBERs, or one
     * SENDER and one RECEIVER. It changes nothing in the run; a report of a
     * call that then returns TRN_WAIT or TRN_ERR is dropped. An error (a
     * module bug: a core outside the run or given twice, a mix of roles,
     * the executing core missing, a second call, a static check) is
     * recorded like error()'s. Without it, observers see no party. */
    trn_status (*rendezvous_met)(trn_ctx *ctx, const trn_party *party, uint32_t n);
    /* ABI 3 (appended after rendezvous_met). The memory the module keeps
     * between instructions (records, queues: not scratch it frees before
     * returning) changes by delta bytes, + as it grows, - as it lets go.
     * The host counts it with the run's memories against machine.max_bytes:
     * growth past it is refused with the usual one-line budget message
     * (TRN_ERR, recorded like error()'s) and not counted, so the module
     * lets go of what it was about to keep. The count starts at 0 each run
     * (run_begin). Test for it with TRN_API_HAS(api, keep_bytes). */
    trn_status (*keep_bytes)(trn_ctx *ctx, int64_t delta);
} trn_host_api;

/* Whether a host provides a host function appended after ABI 1 (its table
 * is long enough and the entry is set), e.g. TRN_API_HAS(api, lend). */
#define TRN_API_HAS(api, field)                                                                                       \
    ((api)->size >= offsetof(trn_host_api, field) + sizeof((api)->field) && (api)->field != NULL)


/* Whether two lent views may share a byte (a helper, not part of the ABI).
 * Exact for two ROWS views whose partitions step alike (or where one has a
 * single partition): tensors side by side in the same partitions, whose
 * [lo, hi) ranges interleave, do not meet. Otherwise the [lo, hi) ranges
 * decide, which may say "meet" for views that never touch (take the
 * copying path then). */
static inline int64_t trn_floor_div_(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

static inline int trn_views_meet(const trn_view *a, const trn_view *b) {
    if (!(a->lo < b->hi && b->lo < a->hi)) return 0;
    if (!(a->flags & b->flags & TRN_VIEW_ROWS) || (a->parts == 1 && b->parts == 1)) return 1;
    int64_t s = a->parts > 1 ? a->part_stride : b->part_stride;
    if ((a->parts > 1 && b->parts > 1 && a->part_stride != b->part_stride) || s <= 0) return 1;
    /* rows [A + p*s, A + p*s + la) and [B + q*s, B + q*s + lb) meet when
     * some k = p - q has d - la < k*s < d + lb, d = B - A */
    int64_t d = (int64_t)((intptr_t)b->base - (intptr_t)a->base);
    int64_t la = a->free_elems * (int64_t)a->width, lb = b->free_elems * (int64_t)b->width;
    int64_t kmin = trn_floor_div_(d - la, s) + 1, kmax = -trn_floor_div_(-(d + lb), s) - 1;
    int64_t lo = -(int64_t)(b->parts - 1), hi = (int64_t)(a->parts - 1);
    return (kmin > lo ? kmin : lo) <= (kmax < hi ? kmax : hi);
}

/* ---- transports (ABI 2) ------------------------------------------------ */

/* A transport spreads one run's cores over several processes (ranks), e.g.
 * one MPI process per group of cores (docs/mpi.md). Process `rank` owns the
 * cores rank*M .. rank*M+M-1 (M = cores / ranks) and runs only those; the
 * memories of the other cores are only reachable to the module that owns
 * the transport (its handlers fill them with what it received). At most
 * one loaded module may have a transport. Every call is made on every rank
 * in the same order (the host is SPMD too); each returns TRN_ERR with a
 * message in err when it fails. */
typedef struct trn_transport_info {
    uint32_t size;    /* sizeof(trn_transport_info) of the host */
    uint32_t rank;    /* this process, 0 .. ranks-1 */
    uint32_t ranks;   /* processes in the job */
    double timeout;   /* seconds without progress before waiting cores are a deadlock */
} trn_transport_info;

/* ABI 3: a block of this process's memory, and a byte range inside one. */
typedef struct trn_region {
    void *base;
    uint64_t bytes;
} trn_region;
typedef struct trn_extent {
    uint64_t offset, bytes;
} trn_extent;

typedef struct trn_transport_desc {
    uint32_t size; /* sizeof(trn_transport_desc) when built */
    /* After init, before any program: where this process stands. */
    trn_status (*attach)(void *state, trn_transport_info *info, char *err, size_t errlen);
    /* Every local core waits: give the transport time. TRN_ERR when another
     * rank has failed (then the message says which). */
    trn_status (*idle)(void *state, char *err, size_t errlen);
    /* Every rank's `bytes` bytes, in rank order, into all (ranks x bytes). */
    trn_status (*allgather)(void *state, const void *mine, void *all, size_t bytes, char *err, size_t errlen);
    /* The end of a stage: every rank says whether it failed (msg: its
     * message). Afterwards *failed says whether any rank failed; on rank 0
     * msg is the message to print (the first rank that failed on its own,
     * prefixed with the rank), elsewhere it is emptied. */
    trn_status (*agree)(void *state, int *failed, char *msg, size_t len);
    /* `bytes` bytes from rank `from` to rank 0, into buf there (buf is the
     * source on rank `from`; other ranks do nothing). */
    trn_status (*to_root)(void *state, uint32_t from, void *buf, size_t bytes, char *err, size_t errlen);

    /* ABI 3 (present when size covers them; all or none): other processes'
     * core memories, for remote DMA across processes (docs/mpi.md). The
     * host numbers its memory regions (trn_region) the same way on every
     * rank; offsets and extents are bytes from a region's start, and a
     * region has the same size and layout on every rank. */
    /* Make this rank's regions reachable by the others and learn theirs
     * (every rank calls it at the same point, with the same n); n = 0
     * withdraws them (local, no other rank takes part). */
    trn_status (*expose)(void *state, const trn_region *mine, uint32_t n, char *err, size_t errlen);
    /* An access epoch on rank `rank`: exclusive (no other rank's epoch on
     * it at the same time) or shared (only with other shared ones). */
    trn_status (*remote_begin)(void *state, uint32_t rank, int exclusive, char *err, size_t errlen);
    /* Inside an epoch: the extents of `rank`'s region into the same
     * offsets of `local` (this rank's copy of that region, laid out alike);
     * complete when it returns. */
    trn_status (*remote_get)(void *state, uint32_t rank, uint32_t region, const trn_extent *x, size_t n,
                             void *local, char *err, size_t errlen);
    /* Inside an exclusive epoch: the extents of `local` into `rank`'s
     * region; complete at remote_end. */
    trn_status (*remote_put)(void *state, uint32_t rank, uint32_t region, const trn_extent *x, size_t n,
                             const void *local, char *err, size_t errlen);
    trn_status (*remote_end)(void *state, uint32_t rank, char *err, size_t errlen);
} trn_transport_desc;

/* ---- shared services between modules (ABI 3) ------------------------ */

/* A module may export named, versioned interfaces, and another may use them
 * (the model is the shared APIs of Redis modules; docs/plugins.md "Shared
 * services"). An interface is a struct of function pointers that the
 * exporting module keeps as static data; its layout is published in a
 * header under include/trnsim/ (e.g. trnsim/service_rng.h) and grows only
 * at the end, each addition bumping `version`. Both lists are declared in
 * the descriptor, so the host checks every need against the exports of all
 * the configured modules when they load, before any init runs: a missing
 * exporter, or one whose version is older than min_version, is a load error
 * naming both modules, the service, the versions and the fix. */
typedef struct trn_service_desc {
    const char *name;  /* e.g. "rng.xorwow"; unique across loaded modules */
    uint32_t version;  /* >= 1: the interface's version */
    const void *iface; /* the interface, static data of the module */
} trn_service_desc;

typedef struct trn_service_need {
    const char *name;     /* the service */
    uint32_t min_version; /* >= 1: the oldest interface version the module works with */
    /* The config entry that brings the stock exporter, named in the fix of
     * the missing-provider error, e.g. "rng" and "trnsim-rng". */
    const char *family;
    const char *module;
} trn_service_need;
/* ---- state snapshots (ABI 3) ------------------------------------------ */

/* A dump being written or read (trnsim run --dump-at / --restore,
 * docs/cli.md). A module whose state lasts from one instruction to the next
 * (random engines, rendezvous records, trigger counters) saves it as named
 * arrays of plain numbers and reads them back, so a run restored from a dump
 * ends with the same bits as one that was never interrupted. The arrays are
 * .npy files of the dump (modules/FAMILY/NAME.npy), so they should be laid
 * out as a user would read them. */
typedef struct trn_state_io trn_state_io;

#define TRN_STATE_MAX_DIMS 4
#define TRN_STATE_NAME_MAX 63 /* [A-Za-z0-9_], not empty */

typedef struct trn_state_api {
    uint32_t size; /* sizeof(trn_state_api) of the host */
    /* Save: one array of dtype (an integer or float dtype of dtype.h, not a
     * packed or fp8 form), C order, ndim 1..TRN_STATE_MAX_DIMS dims >= 0.
     * A name is put at most once. */
    trn_status (*put)(trn_state_io *io, const char *name, uint32_t dtype, uint32_t ndim, const int64_t *shape,
                      const void *data);
    /* Restore: the dtype and shape of a saved array; TRN_ABSENT when the dump
     * has none of that name, TRN_BADTYPE when its file cannot be read (a
     * message is recorded). */
    trn_lookup (*find)(trn_state_io *io, const char *name, uint32_t *dtype, uint32_t *ndim,
                       int64_t shape[TRN_STATE_MAX_DIMS]);
    /* Restore: its bytes; `bytes` must be its whole size. */
    trn_status (*get)(trn_state_io *io, const char *name, void *data, size_t bytes);
} trn_state_api;

/* A module's side (trn_plugin_desc.state_save / state_restore). Called
 * between instructions, never while one executes: save at a dump point;
 * restore after run_begin and before the first instruction of a restored run
 * (run_begin has sized the state for the run, restore overwrites it). On
 * failure write a message into err (or leave it empty when a put / find /
 * get failed: the host has its message) and return TRN_ERR. */
typedef trn_status (*trn_state_fn)(void *state, const trn_state_api *sa, trn_state_io *io, char *err, size_t errlen);

/* ---- observers (ABI 3) ------------------------------------------------ */

/* An observer sees every executed instruction of a run, before and after
 * its handler runs, and can read memory but not change it: a trace, a
 * coverage counter, a checker. It costs nothing when none is registered.
 * Sub-instructions (dispatch()) are observed too, with depth > 0. Static
 * checks, skipped opcodes (unknown_opcode = "skip") and instructions of
 * cores another process runs are not. A waiting instruction (TRN_WAIT) is
 * observed at each attempt. Observers run in registration order (modules in
 * config order, then the host's own: --trace, --timeline). */

/* One operand, resolved as the handler sees it from operand(). */
typedef struct trn_obs_operand {
    trn_ap ap;          /* on the executing core unless the operand names another; zero when !resolved */
    const char *tensor; /* the tensor it names, NULL for a raw memory operand */
    uint32_t resolved;  /* 0: it could not be resolved (a dynamic offset outside memory); the handler fails */
} trn_obs_operand;

/* What an observer is told. Valid only during the callback. The struct
 * grows at its end in later versions: read a field added after ABI 3 only
 * when `size` covers it. */
struct trn_observation {
    uint32_t size;       /* sizeof(trn_observation) of the host */
    uint32_t core;       /* the executing core */
    uint32_t it;         /* instruction type */
    uint32_t depth;      /* 0: a program instruction; 1..8: a sub-instruction */
    uint64_t index;      /* instruction_index(): executions before it on this core */
    uint64_t number;     /* the instruction's number in messages (file order) */
    const char *opcode;  /* name */
    const char *family;  /* of the module that handles it */
    const char *module;  /* its name, e.g. "trnsim-search" */
    const char *where;   /* BIR function / block path / name, or NULL */
    uint32_t n_in, n_out;
    const trn_obs_operand *in, *out;
    uint32_t cores;      /* SPMD cores in the run */
    trn_status status;   /* after: TRN_OK, TRN_WAIT or TRN_ERR; before: TRN_OK */
    uint64_t start_ns;   /* when the handler was called, ns since the run began */
    uint64_t duration_ns; /* after: how long the handler took (0 before) */
    const char *error;   /* after, status TRN_ERR: the handler's message; else NULL */
    /* ABI 3, appended (read when `size` covers them): after, status TRN_OK,
     * the cores the handler reported meeting (rendezvous_met), else NULL, 0. */
    const trn_party *party;
    uint32_t n_party;
};

/* A callback returns TRN_OK. Anything else ends the run with an error
 * (observer_stop gives it a message): returned from `before`, the
 * instruction does not run; from `after`, it has run. The other observers
 * still see the call it was returned from. */
typedef trn_status (*trn_observe_fn)(const trn_host_api *api, const trn_observation *ob, void *state);

typedef struct trn_observer_desc {
    uint32_t size;          /* sizeof(trn_observer_desc) when built */
    trn_observe_fn before;  /* optional: before the handler; memory holds the inputs */
    trn_observe_fn after;   /* optional: after it; memory holds what it wrote */
    /* optional: once after the last instruction of a run, rc 0 when it
     * succeeded, -1 when it failed (also when an observer stopped it). */
    void (*run_end)(const trn_host_api *api, void *state, int rc);
} trn_observer_desc;

/* ---- what a module describes ----------------------------------------- */

typedef trn_status (*trn_handler)(const trn_host_api *api, trn_ctx *ctx, void *state);

/* Opcode flags. The loader refuses any other bit. TRN_WAIT from a handler
 * whose opcode lacks TRN_OPF_MAY_WAIT is an error, not a wait. */
#define TRN_OPF_MAY_WAIT 0x1u  /* handler may return TRN_WAIT (multi-core rendezvous) */
/* ABI 2: the opcode takes no attributes at all (an empty schema; any
 * attribute is an error). Without it, an opcode with n_attrs == 0 has no
 * schema and its attributes go unchecked, as in ABI 1. */
#define TRN_OPF_NO_ATTRS 0x2u
/* ABI 3: the handler moves its operands in pieces: an operand costs it at
 * most TRN_STREAM_PIECE_BYTES of working memory, however many elements it
 * has, unless an input may share bytes with an output (then it may read
 * whole inputs first, as the reference does). The host then charges each
 * operand min(its working copy, TRN_STREAM_PIECE_BYTES) against
 * machine.max_instruction_bytes instead of its whole working copy
 * (docs/config.md, "Budgets"). */
#define TRN_OPF_STREAMS 0x4u
#define TRN_STREAM_PIECE_BYTES (4u << 20)

/* ---- ABI 2: what an opcode's instructions may say -------------------- */

/* Attribute types, as bits: an attribute whose `types` has several bits
 * accepts any of them (e.g. a seed that is an integer or a string).
 *   BOOL    true / false (and the integers 0 / 1, as attr_int always read them)
 *   INT     an integer (an integral float such as 2.0 counts)
 *   FLOAT   a number, or the strings "inf", "-inf", "nan"
 *   STRING  any string
 *   ENUM    one of `enums` by name or alias; with INT also set, an integer
 *           in [min, max] too. attr_int / attr_enum give the entry's value,
 *           attr_string its canonical name (so an alias reads as the name).
 *   LIST    a list whose elements are of the `elem` types
 *   NESTED_LIST  a list of lists whose elements are of the `elem` types
 *   OBJECT  any JSON object (its members are the handler's business)
 *   INSTRUCTIONS a list of instruction objects (descriptor lists): the host
 *           validates each like a program instruction (keys, opcode name,
 *           its own schema) when the program loads
 * min / max bound INT and FLOAT values, and the elements of lists, when
 * min < max (so the zero of a designated initializer means no range);
 * len_min / len_max bound a list's length (len_max 0: no upper bound). */
#define TRN_ATTR_BOOL 0x001u
#define TRN_ATTR_INT 0x002u
#define TRN_ATTR_FLOAT 0x004u
#define TRN_ATTR_STRING 0x008u
#define TRN_ATTR_ENUM 0x010u
#define TRN_ATTR_LIST 0x020u
#define TRN_ATTR_NESTED_LIST 0x040u
#define TRN_ATTR_OBJECT 0x080u
#define TRN_ATTR_INSTRUCTIONS 0x100u

/* Attribute flags. */
#define TRN_ATTRF_REQUIRED 0x1u /* absent is a load-time error naming the attribute */

/* One value of an ENUM attribute. */
typedef struct trn_enum_desc {
    const char *name;    /* canonical spelling, what attr_string gives */
    int64_t value;       /* what attr_int / attr_enum give */
    const char *aliases; /* '|'-separated other accepted spellings (the compiler BIR's), or NULL */
} trn_enum_desc;

/* One attribute of an opcode. `def` is the value an absent optional
 * attribute means, as text ("0", "1.5", "true", "AllReduce"); it is checked
 * against the type when the module loads, documents the handler's default
 * and is printed by `trnsim describe`; the host does not insert it, so a
 * handler still sees TRN_ABSENT. NULL with no TRN_ATTRF_REQUIRED: optional,
 * absence has its own meaning (said in `help`). `bir_name` is the field's
 * name in the compiler's BIR JSON when it differs from `name` (NULL when it
 * is the same or the BIR has no such field); a BIR reader renames through it. */
typedef struct trn_attr_desc {
    const char *name;
    uint32_t types;      /* TRN_ATTR_* bits */
    uint32_t elem;       /* LIST / NESTED_LIST: TRN_ATTR_* bits of the elements */
    uint32_t flags;      /* TRN_ATTRF_* */
    const char *def;
    double min, max;     /* inclusive; ignored unless min < max */
    uint32_t len_min, len_max;
    const trn_enum_desc *enums;
    uint32_t n_enums;
    const char *bir_name;
    const char *help;    /* one line */
} trn_attr_desc;

/* One operand position of an opcode, for `trnsim describe` and the docs.
 * The host does not enforce these (counts often depend on attributes); the
 * static check does. */
#define TRN_OPERANDF_OPTIONAL 0x1u /* may be left out (with every operand after it) */
#define TRN_OPERANDF_REPEATED 0x2u /* the last entry: any number more of the same role */
typedef struct trn_operand_desc {
    uint32_t dir;        /* trn_dir */
    const char *name;    /* role, e.g. "data", "indices" */
    uint32_t flags;      /* TRN_OPERANDF_* */
    const char *help;    /* one line: dtype, shape, meaning */
} trn_operand_desc;

/* A static check: everything the handler would refuse that is decidable
 * without data (operand counts and dtypes, element counts, attribute
 * combinations, group rules against the settings and the core count). The
 * host runs it for every instruction on every core when the program loads,
 * so `trnsim check` and `trnsim run` both refuse the program before any
 * instruction executes. It runs with the handler's signature and the same
 * ctx services, except that api->checking(ctx) is 1 and:
 *   - operand() of an operand with a dynamic offset (offset_register) gives
 *     its AP with the register taken as 0 and does not bounds-check it;
 *   - check_ap() checks fields and bounds (unless the instruction has a
 *     dynamic operand) but not the uninitialised-read guard;
 *   - data transfers, reg_read / reg_write are errors (a module bug);
 *   - dispatch() runs the sub-instruction's static check, not its handler.
 * It must not change module state that a run depends on, and it runs before
 * run_begin. Returns TRN_OK or TRN_ERR (after api->error). */
typedef trn_handler trn_check_fn;

typedef struct trn_opcode_desc {
    uint32_t it;         /* instruction type */
    const char *name;    /* e.g. "BNStats"; unique across loaded modules */
    trn_handler handler;
    uint32_t flags;      /* TRN_OPF_* */
    /* ABI 2 (read only from descriptors whose abi_version >= 2): */
    const trn_attr_desc *attrs; /* n_attrs 0 without TRN_OPF_NO_ATTRS: no schema (ABI 1 behaviour) */
    uint32_t n_attrs;
    const trn_operand_desc *operands;
    uint32_t n_operands;
    trn_check_fn check;  /* optional */
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
    /* ABI 2: a transport (above), NULL for a module that has none. */
    const trn_transport_desc *transport;
    /* ABI 2: sizeof(trn_opcode_desc) when built, the stride of ops, so later
     * versions can grow trn_opcode_desc (TRN_PLUGIN_HEADER fills it). 0 means
     * the size of the declared abi_version's entry, so a module written for
     * ABI 1 recompiles unchanged; an ABI 1 module's table has the ABI 1
     * stride, which the host knows. */
    uint32_t op_size;
    /* ABI 3: the services this module exports and those it uses (above). */
    const trn_service_desc *exports;
    uint32_t n_exports;
    const trn_service_need *needs;
    uint32_t n_needs;
    /* ABI 3: state snapshots (above). Both or neither; a module without them
     * has no state that lasts between instructions (scratch buffers do not
     * count), and a dump records none for it. */
    trn_state_fn state_save;
    trn_state_fn state_restore;
    /* ABI 3: an observer (above) whose state is this module's state, NULL
     * for none. A module may consist of an observer alone (no ops). */
    const trn_observer_desc *observer;
} trn_plugin_desc;

/* The fields every descriptor starts with, filled from the header it is
 * compiled against: TRN_PLUGIN_DEFINE(x) = { TRN_PLUGIN_HEADER, .name = ... }. */
#define TRN_PLUGIN_HEADER                                                                                             \
    .abi_version = TRN_ABI_VERSION, .size = sizeof(trn_plugin_desc), .op_size = sizeof(trn_opcode_desc)

/* Define a module's descriptor. As a loadable module the symbol is
 * TRN_PLUGIN_SYMBOL; compiled into a static trnsim (TRNSIM_STATIC_PLUGIN)
 * it is trnsim_plugin_<family> so several can live in one binary. */
#ifdef TRNSIM_STATIC_PLUGIN
#define TRN_PLUGIN_DEFINE(family) const trn_plugin_desc trnsim_plugin_##family
#else
#define TRN_PLUGIN_DEFINE(family) TRN_EXPORT const trn_plugin_desc trnsim_plugin
#endif

/* The most settings or quirks one descriptor may list (the host refuses
 * more, without reading them). */
#define TRN_DESC_MAX_ENTRIES 256u

/* A table and its length from the array itself, so the two cannot disagree:
 *   .ops = ops, .n_ops = TRN_COUNT(ops),   or   TRN_OPS(ops), TRN_SETTINGS(s), TRN_QUIRKS(q)
 * TRN_COUNT of a pointer (not an array) does not compile. */
#ifdef __cplusplus
#define TRN_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))
#else
#define TRN_COUNT(array)                                                                                         \
    ((uint32_t)(sizeof(array) / sizeof((array)[0]) +                                                          \
                0 * sizeof(struct { int not_an_array : __builtin_types_compatible_p(__typeof__(array),          \
                                                                               __typeof__(&(array)[0])) ? -1 : 1; })))
#endif
#define TRN_OPS(table) .ops = (table), .n_ops = TRN_COUNT(table)
#define TRN_SETTINGS(table) .settings = (table), .n_settings = TRN_COUNT(table)
#define TRN_QUIRKS(table) .quirks = (table), .n_quirks = TRN_COUNT(table)
/* The same for any table, count pair named field / n_field, e.g. the ABI 2
 * tables of an opcode entry: TRN_ARRAY(attrs, x), TRN_ARRAY(operands, y),
 * and of an attribute: TRN_ARRAY(enums, z). */
#define TRN_ARRAY(field, table) .field = (table), .n_##field = TRN_COUNT(table)
/* ABI 3: the service lists of a descriptor. */
#define TRN_EXPORTS(table) TRN_ARRAY(exports, table)
#define TRN_NEEDS(table) TRN_ARRAY(needs, table)

/* The two lifecycle callbacks most modules write the same way:
 * TRN_FINI_FREEING(prefix, release) defines prefix_fini, which calls
 * release(state) on a state init made and then frees it;
 * TRN_RUN_BEGIN_SIZING(prefix, size, what) defines prefix_run_begin, which
 * calls int size(state, cores, partitions) (0, or -1 when memory runs out)
 * and reports "out of memory for WHAT of C cores x P partitions". */
#define TRN_FINI_FREEING(prefix, release)                                                                             \
    static void prefix##_fini(void *state) {                                                                          \
        if (state) release(state);                                                                                    \
        free(state);                                                                                                  \
    }
#define TRN_RUN_BEGIN_SIZING(prefix, size, what)                                                                      \
    static trn_status prefix##_run_begin(void *state, const trn_run_info *info, char *err, size_t errlen) {          \
        if (size(state, info->cores, info->partitions) == 0) return TRN_OK;                                          \
        return trn_fail(err, errlen, "out of memory for %s of %u cores x %u partitions", what, info->cores,           \
                        info->partitions);                                                                            \
    }

/* An opcode entry whose handler is its own static check (it validates
 * first and returns before any data when api->checking(ctx)):
 *   TRN_OP(97, "Rand2", rng_op_rand2, TRN_ARRAY(attrs, a), TRN_ARRAY(operands, o)) */
#define TRN_OP(it_, name_, fn, ...) {.it = (it_), .name = (name_), .handler = (fn), .check = (fn), __VA_ARGS__}

/* A module's whole descriptor in one statement, so it reads as its tables:
 *   TRN_MODULE(rng, "trnsim-rng", "0.1.0", TRN_OPS(rng_ops), TRN_SETTINGS(rng_settings),
 *              TRN_LIFECYCLE(rng));
 * defines the descriptor of family `rng` (as TRN_PLUGIN_DEFINE(rng)) with
 * TRN_PLUGIN_HEADER, the name and the version, then the fields given.
 * TRN_MODULE_AS names the symbol and the family apart, for a second module
 * of one family (e.g. the collective family's MPI build). */
#define TRN_MODULE_AS(symbol, family_, name_, version_, ...)                                                         \
    TRN_PLUGIN_DEFINE(symbol) = {TRN_PLUGIN_HEADER, .name = (name_), .family = (family_), .version = (version_),      \
                                 __VA_ARGS__}
#define TRN_MODULE(family_, name_, version_, ...) TRN_MODULE_AS(family_, #family_, name_, version_, __VA_ARGS__)
/* The callbacks named PREFIX_init, PREFIX_fini (and PREFIX_run_begin). */
#define TRN_INIT_FINI(prefix) .init = prefix##_init, .fini = prefix##_fini
#define TRN_LIFECYCLE(prefix) TRN_INIT_FINI(prefix), .run_begin = prefix##_run_begin

/* For init and run_begin: write the message into their error buffer and
 * return TRN_ERR, so a failure is one line: return trn_fail(err, errlen, ...). */
static inline trn_status trn_fail(char *err, size_t errlen, const char *fmt, ...) TRN_PRINTF(3, 4);
static inline trn_status trn_fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return TRN_ERR;
}

/* For state_restore: the dump's array `name` must be of `dtype` with `ndim`
 * dims, each as `shape` says (-1: any length); `got` (NULL: not wanted)
 * receives the dump's shape. Otherwise err holds "NAME: expected WHAT"
 * (WHAT: the layout in words, e.g. "int64 [N][4] (core, id, fired, blocks)"),
 * with ", the dump has none" when it is missing, and TRN_ERR is returned
 * (also, with the host's message, when its file cannot be read). */
static inline trn_status trn_state_expect(const trn_state_api *sa, trn_state_io *io, const char *name, uint32_t dtype,
                                          uint32_t ndim, const int64_t *shape, int64_t *got, const char *what,
                                          char *err, size_t errlen) {
    uint32_t dt = 0, nd = 0;
    int64_t have[TRN_STATE_MAX_DIMS];
    trn_lookup l = sa->find(io, name, &dt, &nd, have);
    if (l == TRN_BADTYPE) return TRN_ERR;
    int ok = l == TRN_FOUND && dt == dtype && nd == ndim && ndim <= TRN_STATE_MAX_DIMS;
    for (uint32_t d = 0; ok && d < ndim; ++d) ok = shape[d] < 0 || have[d] == shape[d];
    if (!ok) return trn_fail(err, errlen, "%s: expected %s%s", name, what, l == TRN_ABSENT ? ", the dump has none" : "");
    for (uint32_t d = 0; got && d < ndim; ++d) got[d] = have[d];
    return TRN_OK;
}

#ifdef __cplusplus
}
#endif
#endif
