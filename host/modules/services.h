/* Shared services between modules (ABI 3): checking the descriptors' export
 * and need lists, matching every need to an export at load, and the lookup
 * behind api->service. */
#ifndef TRNSIM_HOST_SERVICES_H
#define TRNSIM_HOST_SERVICES_H

#include <stddef.h>

#include "modules/modules.h"

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

#endif
