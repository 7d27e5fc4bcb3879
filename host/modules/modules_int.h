#ifndef TRNSIM_HOST_MODULES_MODULES_INT_H
#define TRNSIM_HOST_MODULES_MODULES_INT_H

/* What a config text must satisfy before libconfig sees it: a bounded size,
 * bounded strings (libconfig's scanner is quadratic in a string's length),
 * and integer literals inside 64 bits (libconfig silently clamps a larger
 * one to INT64_MAX or -1). */

#include <stddef.h>

#include "common/common.h"

#define TRN_CONFIG_MAX_BYTES  (1u << 20) /* one config file, or one included file */
#define TRN_CONFIG_MAX_STRING (1u << 16) /* one string literal, or adjacent literals joined */

/* 0, or -1 with "FILE:LINE: ..." naming the text as written. */
int trn_config_prescan(const char *file, const char *text, size_t len, trn_error *e);

/* Read at most TRN_CONFIG_MAX_BYTES (+1 to notice more) of path into a new
 * NUL-terminated buffer; any file type, so a FIFO ends too. */
int trn_config_read_bounded(const char *path, char **text, size_t *len, trn_error *e);

/* The config as a libconfig tree before it is interpreted: base configs
 * named by leading @include lines merged under the file that names them,
 * --set overlays applied on top, and where each setting came from (file and
 * line, or the --set option) so that every later message can say so.
 * Private to runtime/config*.c. */

#include <libconfig.h>
#include <stddef.h>

/* Where a setting was written. line < 0: on the command line (file holds
 * the option text, e.g. "--set machine.hbm_bytes=64"). */
typedef struct trn_cfg_origin {
    int line;
    char file[];
} trn_cfg_origin;

/* Read path (or, when path is NULL, text under the name `name`) into lc,
 * which must be initialised and empty. Leading `@include "FILE"` lines name
 * base configs, read first; the file's own settings are then merged over
 * them (docs/config.md). embedded is the text a base named "default.cfg"
 * stands for when no such file exists. */
int trn_cfg_read_layers(config_t *lc, const char *path, const char *text, const char *name,
                        const char *embedded, trn_error *e);

/* Apply one --set KEY=VALUE to the tree (before it is interpreted). */
int trn_cfg_apply_set(config_t *lc, const char *kv, trn_error *e);

/* Where s came from; file falls back to deflt. *line < 0: a --set. */
void trn_cfg_where(const config_setting_t *s, const char *deflt, const char **file, int *line);

#endif
