/* trnsim public header: the plugin ABI, everything a module includes.
 *
 * A module exports exactly one data symbol, TRN_PLUGIN_SYMBOL ("trnsim_plugin"),
 * a const trn_plugin_desc. The loader reads abi_version and size before it
 * touches anything else, so those two fields never move. Everything a module
 * may do to the simulator goes through the const trn_host_api table handed to
 * every call; modules never link against the host and never see libconfig or
 * jansson.
 *
 * This header only includes the ABI's topic headers, one contract each:
 *   trnsim/plugin/abi.h        versions, changelog and bump rule; results,
 *                              handles, trn_run_info; the module, opcode,
 *                              setting and quirk descriptors
 *   trnsim/plugin/ap.h         memories and access patterns (trn_ap)
 *   trnsim/plugin/host_api.h   the host function table (trn_host_api), with a
 *                              topic index of its members
 *   trnsim/plugin/schema.h     ABI 2: attribute and operand descriptors
 *   trnsim/plugin/lend.h       ABI 3: lent memory (trn_view)
 *   trnsim/plugin/transport.h  ABI 2/3: cores over several processes
 *   trnsim/plugin/services.h   ABI 3: services shared between modules
 *   trnsim/plugin/state.h      ABI 3: module state in dumps (trn_state_api)
 *   trnsim/plugin/observer.h   ABI 3: observers (trn_observation), trn_party
 *   trnsim/plugin/kit.h        NOT ABI: helper macros and inline helpers for
 *                              writing a module (TRN_MODULE, TRN_OP, trn_fail)
 * Include this one; a topic header alone compiles too (with what it needs),
 * for code that uses one contract. Versioning: trnsim/plugin/abi.h and
 * docs/plugins.md.
 */
#ifndef TRNSIM_PLUGIN_H
#define TRNSIM_PLUGIN_H

#include "trnsim/dtype.h"
#include "trnsim/plugin/abi.h"
#include "trnsim/plugin/ap.h"
#include "trnsim/plugin/host_api.h"
#include "trnsim/plugin/kit.h"
#include "trnsim/plugin/lend.h"
#include "trnsim/plugin/observer.h"
#include "trnsim/plugin/schema.h"
#include "trnsim/plugin/services.h"
#include "trnsim/plugin/state.h"
#include "trnsim/plugin/transport.h"

#endif
