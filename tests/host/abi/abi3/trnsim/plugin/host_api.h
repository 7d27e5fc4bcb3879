/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * the host API: the one table of host functions every module call is handed
 * (trn_host_api), and TRN_API_HAS.
 *
 * APPEND ONLY. Members are never reordered, removed or retyped: a module built
 * against any ABI from TRN_ABI_MIN_VERSION on reads this table by offset. A new
 * host function goes at the end, bumps TRN_ABI_VERSION (abi.h: changelog and bump
 * rule), and a module calls it only when TRN_API_HAS(api, name) says the host has
 * it (tests/host/abi/plugin_layout.c holds every offset). So the members below
 * stand in the order they were added, not by topic; this index groups the 56
 * functions by topic:
 *
 *   handler context  error, log, core_id, core_count, opcode, instruction_index,
 *                    dispatch, reg_read, reg_write, uninit_allowed, checking (ABI 2)
 *   data             operand_count, operand, check_ap, read_f32, read_raw,
 *                    write_f32, write_raw, write_raw_op, copy_raw,
 *                    read_indirect_f32, write_indirect_f32, read_indirect_raw,
 *                    write_indirect_raw
 *   attributes       attr_int, attr_float, attr_string, attr_int_array, attr,
 *                    attr_enum (ABI 2)
 *   values           value_kind, value_len, value_at, value_get, value_int,
 *                    value_float, value_string
 *   settings         setting_int, setting_float, setting_string,
 *                    setting_int_array, service (ABI 3, services.h)
 *   arithmetic       widen, narrow, accumulate, dtype_width, dtype_name
 *   lending          lend, lend_end, lend_cancel (ABI 3, lend.h)
 *   observers        observed_read_raw, observed_read_f32, observer_stop,
 *                    observed_digest (ABI 3, observer.h)
 *   rendezvous       rendezvous_met (ABI 3, trn_party in observer.h)
 *   budget           keep_bytes (ABI 3): memory a module keeps between instructions
 */
#ifndef TRNSIM_PLUGIN_HOST_API_H
#define TRNSIM_PLUGIN_HOST_API_H

#include <stddef.h>
#include <stdint.h>

#include "trnsim/dtype.h"
#include "trnsim/plugin/abi.h"
#include "trnsim/plugin/ap.h"
#include "trnsim/plugin/lend.h"
#include "trnsim/plugin/observer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the host API ----------------------------------------------------- */

struct trn_host_api {
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
    uint32_t (*opcode)(const trn_ctx *ctx);            /* IT of this instruction */
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
    trn_status (*read_indirect_f32)(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n,
                                    float *dst);
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
    trn_lookup (*attr_int_array)(trn_ctx *ctx, const char *key, int64_t *out, size_t cap,
                                 size_t *n);
    const trn_value *(*attr)(trn_ctx *ctx, const char *key); /* NULL if absent */

    /* Generic walk of attribute values (nested lists, descriptor lists).
     * Each accepts v == NULL (an absent attribute, a list index past the
     * end): kind TRN_V_NULL, length 0, value_at / value_get / value_string
     * NULL, value_int / value_float TRN_ABSENT. */
    trn_value_kind (*value_kind)(const trn_value *v);
    size_t (*value_len)(const trn_value *v);                            /* list length, else 0 */
    const trn_value *(*value_at)(const trn_value *v, size_t i);         /* list element or NULL */
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
    trn_lookup (*setting_int_array)(const trn_settings *s, const char *key, int64_t *out,
                                    size_t cap, size_t *n);

    /* The arithmetic core, for modules that convert in their own buffers. */
    float (*widen)(trn_dtype dt, const void *src);        /* one element -> fp32 */
    void (*narrow)(trn_dtype dt, float value, void *dst); /* fp32 -> one element, RNE */
    trn_status (*accumulate)(trn_ctx *ctx, trn_acc_op op, void *dst, const void *src, trn_dtype dt);
    uint32_t (*dtype_width)(trn_dtype dt); /* bytes, 0 if unknown */
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
    trn_status (*read_indirect_raw)(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n,
                                    void *dst);
    trn_status (*write_indirect_raw)(trn_ctx *ctx, const trn_ap *ap, const int64_t *idx, size_t n,
                                     const void *src, trn_acc_op op);
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
};

/* Whether a host provides a host function appended after ABI 1 (its table
 * is long enough and the entry is set), e.g. TRN_API_HAS(api, lend). */
#define TRN_API_HAS(api, field)                                                                    \
    ((api)->size >= offsetof(trn_host_api, field) + sizeof((api)->field) && (api)->field != NULL)

#ifdef __cplusplus
}
#endif
#endif
