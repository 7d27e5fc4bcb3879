#ifndef TRNSIM_HOST_MODULES_MODULES_H
#define TRNSIM_HOST_MODULES_MODULES_H

/* The libconfig file: machine, unknown_opcode, plugin_paths and the plugin
 * list, and each module's settings validated against its schema. Only
 * config.c and config_tree.c (includes and --set overlays) see libconfig. */

#include <stdbool.h>
#include <stddef.h>

#include "common/common.h"
#include "program/program.h"
#include "memory/memory.h"
#include "trnsim/plugin.h"

typedef struct trn_plugin_cfg {
    char *family;
    char *module;         /* module name or a path to a .so */
    char *replaces;       /* family whose earlier module this one replaces, or NULL */
    const void *settings; /* libconfig group (opaque here) or NULL */
    int line;             /* < 0: the entry was written by --set (file holds the option) */
    char *file; /* the file that wrote the entry (a base config's, when it came from there) */
} trn_plugin_cfg;

typedef struct trn_config {
    char *file; /* path, or "<embedded default config>" */
    char *dir;  /* directory of the file, for relative plugin_paths */
    trn_machine machine;
    uint32_t cores;
    bool allow_uninit;
    bool unknown_skip;        /* unknown_opcode = "skip" */
    bool no_direct;           /* direct_access = false: modules get no lent memory */
    uint64_t max_executions;  /* instruction executions per core a program may ask for */
    const char *bir_function; /* bir_function: the BIR function to run (NULL: the file's only one);
                                 lives in lc */
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
int trn_config_load_sets(trn_config *c, const char *path, const char *text, const char *const *sets,
                         size_t n_sets, trn_error *e);
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
int trn_settings_build(const trn_config *c, const trn_plugin_cfg *p, const trn_plugin_desc *d,
                       trn_settings *out, trn_error *e);
void trn_settings_free(trn_settings *s);
const trn_setting_val *trn_settings_find(const trn_settings *s, const char *key);

/* The modules a config names, loaded and checked, and the table from IT to
 * the handler that registered it: the registry. The loader checks each
 * descriptor's version and tables before any module code runs, hands init
 * the host API table it is given, and owns rollback (loader.c); names.c
 * maps opcode names to ITs. exec/ holds one registry per simulator. */

#include <stdbool.h>
#include <stddef.h>

typedef struct trn_module {
    const trn_plugin_desc *desc;
    trn_opcode_desc
        *ops;   /* desc->ops in the host's layout (ABI 1 entries widened, new fields zero) */
    void *dl;   /* dlopen handle, NULL for a static module */
    char *path; /* where it was loaded from, or "(static)" */
    const trn_plugin_cfg *cfg;
    trn_settings settings;
    void *state;
    bool live; /* registered and initialised */
    /* ABI 3 services (services.h): the descriptor's lists, and for each need
     * the export it was matched with at load. */
    const trn_service_desc *exports;
    uint32_t n_exports;
    const trn_service_need *needs;
    uint32_t n_needs;
    const trn_service_desc **need_export;
} trn_module;

typedef struct trn_slot {
    const trn_opcode_desc *op; /* NULL: no handler */
    trn_module *owner;
} trn_slot;

/* One opcode name of the name index (names.c): open addressing over the
 * loaded opcodes' names and the known ones. */
#define TRN_NAME_INDEX 1024 /* a power of two over twice the ITs plus the known names */
typedef struct trn_name_ref {
    const char *name; /* NULL: free */
    uint32_t it;
} trn_name_ref;
/* Where to look for modules, what to hand them, and what was loaded. */
typedef struct trn_registry {
    const trn_config *cfg;   /* the config whose plugins list is loaded */
    const trn_host_api *api; /* handed to every module's init */
    const char *module_dir;  /* searched first (NULL: none) */
    const char *exe_dir;     /* the executable's (or library's) folder, NULL: unknown */
    bool exe_is_library;
    trn_module *mods;
    size_t n_mods;
    trn_slot table[TRN_IT_MAX + 1];
    bool loaded;
    /* Opcode names to ITs (names.c), built on first use; the loader
     * clears names_ready whenever the table changes. */
    trn_name_ref name_index[TRN_NAME_INDEX];
    bool names_ready;
} trn_registry;

/* loader.c */
int trn_loader_load_all(trn_registry *r, trn_error *e);
void trn_loader_unload_all(trn_registry *r);
const char *trn_loader_families(const trn_registry *r, char *buf, size_t len);
const trn_transport_desc *trn_loader_transport(const trn_module *m); /* NULL: none */
const trn_observer_desc *trn_loader_observer(const trn_module *m);   /* NULL: none */

/* names.c: an opcode name to the IT a loaded module or the known-name list
 * gives it; -1 with a "did you mean" (a NULL e asks for no message). */
int trn_registry_resolve_name(trn_registry *r, const char *name, uint32_t *it, trn_error *e);

/* Attribute schemas of ABI 2 opcodes: the loader's check of a module's
 * tables, and the validation of every instruction object against its
 * opcode's schema when a program loads (docs/programs.md, "Validation"). */

#include <jansson.h>
#include <stdbool.h>

/* The keys every instruction may carry whatever its opcode. */
extern const char *const trn_instruction_keys[];

/* Whether the opcode has a schema (ABI 2 attrs, or TRN_OPF_NO_ATTRS). */
bool trn_schema_given(const trn_opcode_desc *op);

/* The loader's check of one opcode's attribute and operand tables. */
int trn_schema_check_desc(const trn_opcode_desc *op, trn_error *e);

const trn_attr_desc *trn_schema_find(const trn_opcode_desc *op, const char *key);

/* The enum entry a value names (by name, alias or number), or NULL. */
const trn_enum_desc *trn_schema_enum_entry(const trn_attr_desc *a, const json_t *v);

/* Looks up the opcode of a sub-instruction object (for INSTRUCTIONS
 * attributes): its descriptor (NULL when no loaded module handles it), or -1
 * with a message when its opcode is malformed or unknown. */
typedef int (*trn_schema_lookup)(void *arg, const json_t *inst, const trn_opcode_desc **op,
                                 trn_error *e);

/* Keys, types, ranges and required attributes of one instruction object
 * (recursing into INSTRUCTIONS lists). */
int trn_schema_validate(const trn_opcode_desc *op, const json_t *inst, trn_schema_lookup lookup,
                        void *arg, trn_error *e);

/* "bool", "int or string", ...: the types an attribute accepts, for messages and describe. */
void trn_schema_type_text(const trn_attr_desc *a, char *buf, size_t len);

/* Shared services between modules (ABI 3): checking the descriptors' export
 * and need lists, matching every need to an export at load, and the lookup
 * behind api->service. */

#include <stddef.h>

/* Copy the module's export and need lists into m (empty for a descriptor
 * older than ABI 3 or too short to carry them). */
void trn_services_read(trn_module *m);

/* The lists on their own: names, versions, interfaces, no repeats. */
int trn_services_check_desc(const trn_module *m, trn_error *e);

/* Every need of every configured module against the exports of the modules
 * that stay loaded (a family replaced by a later entry exports nothing);
 * a service exported twice is refused. On failure *failed is the index of
 * the module the message is about. Runs no module code. */
int trn_services_resolve(trn_registry *s, size_t *failed, trn_error *e);

/* The interface m declared a need of, at version >= min_version, or NULL. */
const void *trn_services_lookup(const trn_module *m, const char *name, uint32_t min_version);

/* The reference opcodes this project knows by name, with the family that
 * implements them, so a program can name an opcode whose module is not
 * loaded and be told which family to add (docs/opcodes.md). */

#include <stddef.h>
#include <stdint.h>

typedef struct trn_known_op {
    uint32_t it;
    const char *name;
    const char *family; /* NULL: skip-and-note in the reference, no family */
} trn_known_op;

const trn_known_op *trn_known_op_by_name(const char *name);
const trn_known_op *trn_known_op_by_it(uint32_t it);

/* 0 when family is one of this project's (plugins/<family>/) and the build
 * left it out (TRNSIM_FAMILIES); 1 otherwise. */
int trn_family_built(const char *family);
/* The CMake option that adds family to this build, as advice for a message:
 * -DTRNSIM_FAMILIES="<built>;<family>". */
const char *trn_family_build_hint(const char *family, char *buf, size_t len);

#endif
