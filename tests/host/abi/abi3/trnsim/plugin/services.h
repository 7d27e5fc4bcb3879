/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * ABI 3, shared services between modules: what a module exports
 * (trn_service_desc) and what it needs (trn_service_need).
 */
#ifndef TRNSIM_PLUGIN_SERVICES_H
#define TRNSIM_PLUGIN_SERVICES_H

#include <stdint.h>

#include "trnsim/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- shared services between modules (ABI 3) ------------------------ */

/* A module may export named, versioned interfaces, and another may use them
 * (the model is the shared APIs of Redis modules; docs/plugins.md "Shared
 * services"). An interface is a struct of function pointers that the
 * exporting module keeps as static data; its layout is published in a
 * header under include/trnsim/ (e.g. trnsim/service_rng.h) and grows only
 * at the end, each addition bumping `version`. Both lists are declared in
 * the descriptor, so the host checks every need against the exports of all
 * the configured modules when they load, before any init runs: a missing
 * exporter, or one whose version is older than min_version, is a load error
 * naming both modules, the service, the versions and the fix. */
struct trn_service_desc {
    const char *name;  /* e.g. "rng.xorwow"; unique across loaded modules */
    uint32_t version;  /* >= 1: the interface's version */
    const void *iface; /* the interface, static data of the module */
};

struct trn_service_need {
    const char *name;     /* the service */
    uint32_t min_version; /* >= 1: the oldest interface version the module works with */
    /* The config entry that brings the stock exporter, named in the fix of
     * the missing-provider error, e.g. "rng" and "trnsim-rng". */
    const char *family;
    const char *module;
};

#ifdef __cplusplus
}
#endif
#endif
