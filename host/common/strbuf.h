/* A growable text buffer for records written a line at a time (the JSONL
 * trace, the timeline). Appends never fail visibly: on out-of-memory the
 * buffer is marked failed and the writer reports it once. */
#ifndef TRNSIM_HOST_STRBUF_H
#define TRNSIM_HOST_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "trnsim/plugin/abi.h"

typedef struct trn_strbuf {
    char *text;
    size_t len, cap;
    bool failed; /* an allocation failed: the text is incomplete */
} trn_strbuf;

void trn_sb_printf(trn_strbuf *b, const char *fmt, ...) TRN_PRINTF(2, 3);
void trn_sb_putc(trn_strbuf *b, char c);
/* s as a JSON string, quotes included (NULL: null). */
void trn_sb_json_string(trn_strbuf *b, const char *s);
void trn_sb_clear(trn_strbuf *b);
void trn_sb_free(trn_strbuf *b);

#endif
