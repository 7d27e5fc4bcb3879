/* trnsim public header: the module kit (trnsim/plugin/kit.h). NOT ABI.
 *
 * Helpers for writing a module, built only on the ABI topic headers (as
 * Lua's lauxlib.h is built on lua.h): the descriptor macros (TRN_MODULE,
 * TRN_OP, TRN_COUNT / TRN_OPS / TRN_ARRAY ...), the usual lifecycle
 * callbacks (TRN_FINI_FREEING, TRN_RUN_BEGIN_SIZING), trn_fail,
 * trn_state_expect and trn_views_meet. They compile into the module, so
 * they may change between releases without an ABI bump; nothing here is
 * a struct or a value the host reads. The only plugin header that
 * includes stdio.h, stdlib.h and stdarg.h. */
#ifndef TRNSIM_PLUGIN_KIT_H
#define TRNSIM_PLUGIN_KIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trnsim/plugin/abi.h"
#include "trnsim/plugin/lend.h"
#include "trnsim/plugin/state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether two lent views may share a byte (a helper, not part of the ABI).
 * Exact for two ROWS views whose partitions step alike (or where one has a
 * single partition): tensors side by side in the same partitions, whose
 * [lo, hi) ranges interleave, do not meet. Otherwise the [lo, hi) ranges
 * decide, which may say "meet" for views that never touch (take the
 * copying path then). */
static inline int64_t trn_floor_div_(int64_t a, int64_t b) {
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

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

/* A table and its length from the array itself, so the two cannot disagree:
 *   .ops = ops, .n_ops = TRN_COUNT(ops),   or   TRN_OPS(ops), TRN_SETTINGS(s), TRN_QUIRKS(q)
 * TRN_COUNT of a pointer (not an array) does not compile. */
#ifdef __cplusplus
#define TRN_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))
#else
#define TRN_COUNT(array)                                                                           \
    ((uint32_t)(sizeof(array) / sizeof((array)[0]) +                                               \
                0 * sizeof(struct {                                                                \
                    int not_an_array                                                               \
                        : __builtin_types_compatible_p(__typeof__(array), __typeof__(&(array)[0])) \
                          ? -1                                                                     \
                          : 1;                                                                     \
                })))
#endif
#define TRN_OPS(table)      .ops = (table), .n_ops = TRN_COUNT(table)
#define TRN_SETTINGS(table) .settings = (table), .n_settings = TRN_COUNT(table)
#define TRN_QUIRKS(table)   .quirks = (table), .n_quirks = TRN_COUNT(table)
/* The same for any table, count pair named field / n_field, e.g. the ABI 2
 * tables of an opcode entry: TRN_ARRAY(attrs, x), TRN_ARRAY(operands, y),
 * and of an attribute: TRN_ARRAY(enums, z). */
#define TRN_ARRAY(field, table) .field = (table), .n_##field = TRN_COUNT(table)
/* ABI 3: the service lists of a descriptor. */
#define TRN_EXPORTS(table) TRN_ARRAY(exports, table)
#define TRN_NEEDS(table)   TRN_ARRAY(needs, table)

/* The two lifecycle callbacks most modules write the same way:
 * TRN_FINI_FREEING(prefix, release) defines prefix_fini, which calls
 * release(state) on a state init made and then frees it;
 * TRN_RUN_BEGIN_SIZING(prefix, size, what) defines prefix_run_begin, which
 * calls int size(state, cores, partitions) (0, or -1 when memory runs out)
 * and reports "out of memory for WHAT of C cores x P partitions". */
#define TRN_FINI_FREEING(prefix, release)                                                          \
    static void prefix##_fini(void *state) {                                                       \
        if (state) release(state);                                                                 \
        free(state);                                                                               \
    }
#define TRN_RUN_BEGIN_SIZING(prefix, size, what)                                                   \
    static trn_status prefix##_run_begin(void *state, const trn_run_info *info, char *err,         \
                                         size_t errlen) {                                          \
        if (size(state, info->cores, info->partitions) == 0) return TRN_OK;                        \
        return trn_fail(err, errlen, "out of memory for %s of %u cores x %u partitions", what,     \
                        info->cores, info->partitions);                                            \
    }

/* An opcode entry whose handler is its own static check (it validates
 * first and returns before any data when api->checking(ctx)):
 *   TRN_OP(97, "Rand2", rng_op_rand2, TRN_ARRAY(attrs, a), TRN_ARRAY(operands, o)) */
#define TRN_OP(it_, name_, fn, ...)                                                                \
    { .it = (it_), .name = (name_), .handler = (fn), .check = (fn), __VA_ARGS__ }

/* A module's whole descriptor in one statement, so it reads as its tables:
 *   TRN_MODULE(rng, "trnsim-rng", "0.1.0", TRN_OPS(rng_ops), TRN_SETTINGS(rng_settings),
 *              TRN_LIFECYCLE(rng));
 * defines the descriptor of family `rng` (as TRN_PLUGIN_DEFINE(rng)) with
 * TRN_PLUGIN_HEADER, the name and the version, then the fields given.
 * TRN_MODULE_AS names the symbol and the family apart, for a second module
 * of one family (e.g. the collective family's MPI build). */
#define TRN_MODULE_AS(symbol, family_, name_, version_, ...)                                       \
    TRN_PLUGIN_DEFINE(symbol) = {TRN_PLUGIN_HEADER, .name = (name_), .family = (family_),          \
                                 .version = (version_), __VA_ARGS__}
#define TRN_MODULE(family_, name_, version_, ...)                                                  \
    TRN_MODULE_AS(family_, #family_, name_, version_, __VA_ARGS__)
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
static inline trn_status trn_state_expect(const trn_state_api *sa, trn_state_io *io,
                                          const char *name, uint32_t dtype, uint32_t ndim,
                                          const int64_t *shape, int64_t *got, const char *what,
                                          char *err, size_t errlen) {
    uint32_t dt = 0, nd = 0;
    int64_t have[TRN_STATE_MAX_DIMS];
    trn_lookup l = sa->find(io, name, &dt, &nd, have);
    if (l == TRN_BADTYPE) return TRN_ERR;
    int ok = l == TRN_FOUND && dt == dtype && nd == ndim && ndim <= TRN_STATE_MAX_DIMS;
    for (uint32_t d = 0; ok && d < ndim; ++d) ok = shape[d] < 0 || have[d] == shape[d];
    if (!ok)
        return trn_fail(err, errlen, "%s: expected %s%s", name, what,
                        l == TRN_ABSENT ? ", the dump has none" : "");
    for (uint32_t d = 0; got && d < ndim; ++d) got[d] = have[d];
    return TRN_OK;
}

#ifdef __cplusplus
}
#endif
#endif
