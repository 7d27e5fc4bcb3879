/* The libconfig file: machine, unknown_opcode, plugin_paths and the plugin
 * list, and each module's settings validated against its schema. Only
 * config.c and config_tree.c (includes and --set overlays) see libconfig. */
#ifndef TRNSIM_HOST_CONFIG_H
#define TRNSIM_HOST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "program/program.h"
#include "memory/memory.h"
#include "trnsim/plugin.h"

typedef struct trn_plugin_cfg {
    char *family;
    char *module;   /* module name or a path to a .so */
    char *replaces; /* family whose earlier module this one replaces, or NULL */
    const void *settings; /* libconfig group (opaque here) or NULL */
    int line;       /* < 0: the entry was written by --set (file holds the option) */
    char *file;     /* the file that wrote the entry (a base config's, when it came from there) */
} trn_plugin_cfg;

typedef struct trn_config {
    char *file; /* path, or "<embedded default config>" */
    char *dir;  /* directory of the file, for relative plugin_paths */
    trn_machine machine;
    uint32_t cores;
    bool allow_uninit;
    bool unknown_skip; /* unknown_opcode = "skip" */
    bool no_direct;    /* direct_access = false: modules get no lent memory */
    uint64_t max_executions; /* instruction executions per core a program may ask for */
    const char *bir_function; /* bir_function: the BIR function to run (NULL: the file's only one); lives in lc */
    char **plugin_paths;
    size_t n_paths;
    trn_plugin_cfg *plugins;
    size_t n_plugins;
    void *lc; /* config_t */
} trn_config;

/* Parse from path, or the embedded default when path is NULL (or from text). */
int trn_config_load(trn_config *c, const char *path, const char *text, trn_error *e);
/* The same, then each of sets ("KEY=VALUE": the --set options, the embedding
 * API's overrides) applied in order over the file before anything is
 * interpreted (docs/config.md). */
int trn_config_load_sets(trn_config *c, const char *path, const char *text, const char *const *sets, size_t n_sets,
                         trn_error *e);
void trn_config_free(trn_config *c);
/* Every setting the run goes by, after @include and --set, as libconfig
 * text (malloc'd; NULL when out of memory): what a dump's config digest
 * covers, so a changed included file is noticed. */
char *trn_config_effective_text(const trn_config *c);

/* A module's settings, validated and with defaults filled in. */
typedef struct trn_setting_val {
    const trn_setting_desc *desc;
    int64_t i;
    double f;
    char *s;
    int64_t *arr;
    size_t n;
} trn_setting_val;

struct trn_settings {
    trn_setting_val *vals;
    size_t n;
    const void *owner; /* the loader's trn_module these belong to (api->service's self) */
};

/* The module's settings schema itself: every entry has a key (unique), a
 * known type, and a default that parses, lies in [min, max] and is one of
 * its choices. Runs no module code. */
int trn_settings_check_schema(const trn_plugin_desc *d, trn_error *e);
int trn_settings_build(const trn_config *c, const trn_plugin_cfg *p, const trn_plugin_desc *d, trn_settings *out,
                       trn_error *e);
void trn_settings_free(trn_settings *s);
const trn_setting_val *trn_settings_find(const trn_settings *s, const char *key);

#endif
