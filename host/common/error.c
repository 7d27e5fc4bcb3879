#include "common/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int trn_errorf(trn_error *e, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Builds "<prefix>: <old>" with explicit lengths so the result is simply
 * cut at TRN_ERROR_MAX. */
int trn_error_prefix(trn_error *e, const char *fmt, ...) {
    if (e) {
        char out[TRN_ERROR_MAX];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(out, sizeof out, fmt, ap);
        va_end(ap);
        size_t used = n < 0 ? 0 : (size_t)n < sizeof out ? (size_t)n : sizeof out - 1;
        const char *sep = ": ";
        for (const char *p = sep; *p && used + 1 < sizeof out; ++p) out[used++] = *p;
        size_t old = strnlen(e->msg, sizeof e->msg);
        size_t room = sizeof out - 1 - used;
        memcpy(out + used, e->msg, old < room ? old : room);
        used += old < room ? old : room;
        out[used] = 0;
        memcpy(e->msg, out, used + 1);
    }
    return -1;
}

void trn_error_at(trn_error *e, uint64_t inst, int32_t core, uint32_t it) {
    if (e) e->site = (trn_error_site){true, inst, core, it};
}

int trn_error_kind_default(trn_error *e, trn_error_kind kind) {
    if (e && e->kind == TRN_EK_NONE) e->kind = kind;
    return -1;
}
