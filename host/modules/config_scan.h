/* What a config text must satisfy before libconfig sees it: a bounded size,
 * bounded strings (libconfig's scanner is quadratic in a string's length),
 * and integer literals inside 64 bits (libconfig silently clamps a larger
 * one to INT64_MAX or -1). */
#ifndef TRNSIM_HOST_CONFIG_SCAN_H
#define TRNSIM_HOST_CONFIG_SCAN_H

#include <stddef.h>

#include "common/error.h"

#define TRN_CONFIG_MAX_BYTES (1u << 20)  /* one config file, or one included file */
#define TRN_CONFIG_MAX_STRING (1u << 16) /* one string literal, or adjacent literals joined */

/* 0, or -1 with "FILE:LINE: ..." naming the text as written. */
int trn_config_prescan(const char *file, const char *text, size_t len, trn_error *e);

/* Read at most TRN_CONFIG_MAX_BYTES (+1 to notice more) of path into a new
 * NUL-terminated buffer; any file type, so a FIFO ends too. */
int trn_config_read_bounded(const char *path, char **text, size_t *len, trn_error *e);

#endif
