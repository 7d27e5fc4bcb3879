#ifndef TRNSIM_HOST_FRONTEND_NATIVE_NATIVE_INT_H
#define TRNSIM_HOST_FRONTEND_NATIVE_NATIVE_INT_H

/* The native instruction list being read: shared by the document reader
 * (native_program.c) and the text reader's fast path (native_fast.c). */

#include "frontend/native/native.h"

typedef struct list_state {
    trn_program *p;
    const trn_load_opts *o;
    size_t cap;
    uint64_t number; /* the next instruction's number */
} list_state;

/* The program's top level from p->root (cores, allow_uninit_read, tensors). */
int trn_native_parse_top(trn_program *p, const trn_machine *m, trn_error *e);
/* The next entry of the instruction list, zeroed (not yet counted). */
trn_inst *trn_native_push(list_state *ls, trn_error *e);
/* The same entry left as it was, for a caller that writes all of it. */
trn_inst *trn_native_slot(list_state *ls, trn_error *e);
/* One entry of an instruction list (an instruction or a loop) as a
 * document; it must outlive the program (obj points into it). */
int trn_native_parse_entry(list_state *ls, json_t *obj, int depth, trn_error *e);

/* The native text fast path's scanners (native_fast.c): JSON tokens read
 * straight from the text through a cursor the compiler keeps in a register.
 * The text ends in a 0 byte that no scanner accepts, so none of them needs
 * a bounds test of its own: each stops at the end, or at an embedded 0
 * (which the document reader then refuses with its own message). A scanner
 * that does not find what it wants says so and leaves the cursor at most
 * past whitespace; the caller then gives the entry (or the file) to the
 * document reader. */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SCAN_INLINE static inline __attribute__((always_inline))

extern const unsigned char trn_scan_space[256]; /* JSON whitespace */
extern const unsigned char
    trn_scan_stop[256]; /* what ends a plain string: '"', '\\', control bytes, non-ASCII */

SCAN_INLINE const char *scan_ws(const char *c) {
    if ((unsigned char)*c > ' ')
        return c; /* the usual cases first: a token, or one space before it */
    if (*c == ' ' && (unsigned char)c[1] > ' ') return c + 1;
    while (trn_scan_space[(unsigned char)*c]) ++c;
    return c;
}

/* The character ch after whitespace: past it. */
SCAN_INLINE bool scan_lit(const char **pc, char ch) {
    const char *c = scan_ws(*pc);
    *pc = c + (*c == ch);
    return *c == ch;
}

SCAN_INLINE bool scan_peek(const char **pc, char ch) {
    *pc = scan_ws(*pc);
    return **pc == ch;
}

/* A string without escapes, control characters or non-ASCII bytes (those
 * are jansson's to read): its bytes, not terminated. */
SCAN_INLINE bool scan_str(const char **pc, const char **out, size_t *len) {
    if (!scan_lit(pc, '"')) return false;
    const char *c = *pc;
    while (!trn_scan_stop[(unsigned char)*c]) ++c;
    if (*c != '"') return false;
    *out = *pc;
    *len = (size_t)(c - *pc);
    *pc = c + 1;
    return true;
}

/* A JSON integer of at most 18 digits (it fits int64; longer ones, a
 * fraction or an exponent: not here). */
SCAN_INLINE bool scan_int(const char **pc, int64_t *out) {
    const char *c = scan_ws(*pc);
    *pc = c;
    bool neg = *c == '-';
    c += neg;
    const char *first = c;
    uint64_t v = 0;
    while (*c >= '0' && *c <= '9') {
        if (c - first == 18) return false;
        v = v * 10 + (uint64_t)(*c - '0');
        ++c;
    }
    if (c == first || (*first == '0' && c - first > 1)) return false;
    if (*c == '.' || *c == 'e' || *c == 'E') return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *pc = c;
    return true;
}

/* Eight bytes of text as one word (any byte order: words are only compared). */
SCAN_INLINE uint64_t scan_word(const char *c) {
    uint64_t w;
    memcpy(&w, c, sizeof w);
    return w;
}

/* Whether the text at c starts with the quoted key q (a literal such as
 * "\"opcode\"", 8 or more bytes); c has at least 16 bytes before the end. */
#define SCAN_KEY(c, q) (scan_word(c) == scan_word(q) && !memcmp((c) + 8, (q) + 8, sizeof(q) - 9))

#endif
