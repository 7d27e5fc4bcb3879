/* The modules a config names, loaded and checked, and the table from IT to
 * the handler that registered it: the registry. The loader checks each
 * descriptor's version and tables before any module code runs, hands init
 * the host API table it is given, and owns rollback (loader.c); names.c
 * maps opcode names to ITs. exec/ holds one registry per simulator. */
#ifndef TRNSIM_HOST_MODULES_H
#define TRNSIM_HOST_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "modules/config.h"
#include "trnsim/plugin.h"

typedef struct trn_module {
    const trn_plugin_desc *desc;
    trn_opcode_desc *ops; /* desc->ops in the host's layout (ABI 1 entries widened, new fields zero) */
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
    const trn_config *cfg;    /* the config whose plugins list is loaded */
    const trn_host_api *api;  /* handed to every module's init */
    const char *module_dir;   /* searched first (NULL: none) */
    const char *exe_dir;      /* the executable's (or library's) folder, NULL: unknown */
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

#endif
