/* trnsim public header: the plugin ABI, its core (trnsim/plugin/abi.h).
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
 *      Module state in dumps: trn_plugin_desc.state_save / state_restore and the
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
 *   -  (no bump, during ABI 3) plugin.h split into topic headers under
 *      trnsim/plugin/: abi.h (this one: versions, results, handles, the
 *      module and opcode descriptors), ap.h, host_api.h, schema.h, lend.h,
 *      transport.h, services.h, state.h, observer.h, and kit.h, the helper
 *      macros, which are not ABI. plugin.h includes them all. No
 *      declaration moved within its struct or changed its type
 *      (tests/host/abi/plugin_layout.c records every offset and size).
 *   4  trn_opcode_desc.conform: the recipes `trnsim conform` generates this
 *      opcode's test programs from (docs/internals/conform.md). Read only
 *      from modules whose abi_version >= 4 and whose op_size covers it.
 *      trn_transport_desc.progress: the whole job's count for the progress
 *      display (read only when the table's size covers it).
 */
#ifndef TRNSIM_PLUGIN_ABI_H
#define TRNSIM_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRN_ABI_VERSION     4u
#define TRN_ABI_MIN_VERSION 1u
#define TRN_PLUGIN_SYMBOL   "trnsim_plugin"

#if defined(__GNUC__)
#define TRN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TRN_EXPORT       __attribute__((visibility("default")))
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
#define TRN_IT_MAX     255u

/* ---- opaque handles --------------------------------------------------- */

typedef struct trn_ctx trn_ctx;           /* one instruction executing on one core */
typedef struct trn_value trn_value;       /* a node of an instruction's attributes */
typedef struct trn_settings trn_settings; /* this module's validated settings */
typedef struct trn_observation
    trn_observation; /* ABI 3: one executed instruction, as an observer sees it */

typedef enum trn_value_kind {
    TRN_V_NULL = 0,
    TRN_V_BOOL,
    TRN_V_INT,
    TRN_V_FLOAT,
    TRN_V_STRING,
    TRN_V_LIST,
    TRN_V_OBJECT
} trn_value_kind;

typedef enum trn_log_level {
    TRN_LOG_ERROR = 0,
    TRN_LOG_WARN = 1,
    TRN_LOG_INFO = 2,
    TRN_LOG_TRACE = 3
} trn_log_level;

/* Facts about a run, given to run_begin before the first instruction. */
typedef struct trn_run_info {
    uint32_t size;       /* sizeof(trn_run_info) of the host */
    uint32_t cores;      /* SPMD cores in this run */
    uint32_t partitions; /* partitions of SBUF and PSUM */
    uint32_t registers;  /* registers per core */
} trn_run_info;

/* Types of other topic headers that the descriptors here name. Each is defined
 * there as `struct NAME { ... };`, like trn_observation, so that no typedef is
 * declared twice (C99 and C++ compilers take these headers too). */
typedef struct trn_host_api trn_host_api;             /* host_api.h */
typedef struct trn_attr_desc trn_attr_desc;           /* schema.h */
typedef struct trn_operand_desc trn_operand_desc;     /* schema.h */
typedef struct trn_transport_desc trn_transport_desc; /* transport.h */
typedef struct trn_service_desc trn_service_desc;     /* services.h */
typedef struct trn_service_need trn_service_need;     /* services.h */
typedef struct trn_state_api trn_state_api;           /* state.h */
typedef struct trn_state_io trn_state_io;             /* state.h: a dump being written or read */
typedef struct trn_observer_desc trn_observer_desc;   /* observer.h */

/* ---- what a module describes ----------------------------------------- */

typedef trn_status (*trn_handler)(const trn_host_api *api, trn_ctx *ctx, void *state);

/* Opcode flags. The loader refuses any other bit. TRN_WAIT from a handler
 * whose opcode lacks TRN_OPF_MAY_WAIT is an error, not a wait. */
#define TRN_OPF_MAY_WAIT 0x1u /* handler may return TRN_WAIT (multi-core rendezvous) */
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
#define TRN_OPF_STREAMS        0x4u
#define TRN_STREAM_PIECE_BYTES (4u << 20)

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
    uint32_t it;      /* instruction type */
    const char *name; /* e.g. "BNStats"; unique across loaded modules */
    trn_handler handler;
    uint32_t flags; /* TRN_OPF_* */
    /* ABI 2 (read only from descriptors whose abi_version >= 2): */
    const trn_attr_desc
        *attrs; /* n_attrs 0 without TRN_OPF_NO_ATTRS: no schema (ABI 1 behaviour) */
    uint32_t n_attrs;
    const trn_operand_desc *operands;
    uint32_t n_operands;
    trn_check_fn check; /* optional */
    /* ABI 4 (read only from descriptors whose abi_version >= 4): the
     * recipes `trnsim conform` builds test programs of this opcode from, as
     * JSON text: an array of program templates whose shapes, dtypes and
     * attribute draws the opcode's static check accepts (the format is in
     * docs/internals/conform.md). NULL: conform draws the operands from
     * `operands` and the attributes from `attrs` alone. */
    const char *conform;
} trn_opcode_desc;

typedef enum trn_setting_type {
    TRN_SET_INT = 0,
    TRN_SET_FLOAT = 1,
    TRN_SET_BOOL = 2,
    TRN_SET_STRING = 3,
    TRN_SET_INT_ARRAY = 4
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

/* A module's side (trn_plugin_desc.state_save / state_restore). Called
 * between instructions, never while one executes: save at a dump point;
 * restore after run_begin and before the first instruction of a restored run
 * (run_begin has sized the state for the run, restore overwrites it). On
 * failure write a message into err (or leave it empty when a put / find /
 * get failed: the host has its message) and return TRN_ERR. */
typedef trn_status (*trn_state_fn)(void *state, const trn_state_api *sa, trn_state_io *io,
                                   char *err, size_t errlen);

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
    trn_status (*init)(const trn_host_api *api, const trn_settings *settings, void **state,
                       char *err, size_t errlen);
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
    /* ABI 3: module state in dumps (above). Both or neither; a module without them
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
#define TRN_PLUGIN_HEADER                                                                          \
    .abi_version = TRN_ABI_VERSION, .size = sizeof(trn_plugin_desc),                               \
    .op_size = sizeof(trn_opcode_desc)

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

#ifdef __cplusplus
}
#endif
#endif
