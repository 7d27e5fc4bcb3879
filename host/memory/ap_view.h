/* Views: the memory under an AP addressed in place (plugin.h's trn_view),
 * for the host functions that lend memory to a module. */
#ifndef TRNSIM_HOST_AP_VIEW_H
#define TRNSIM_HOST_AP_VIEW_H

#include <stdbool.h>

#include "memory/ap.h"
#include "trnsim/plugin/lend.h"

/* Fill *v for an AP that passed trn_ap_check (all but slot and mode).
 * read_only: an AP inside a binding (memory/bindings.h) is viewed in the
 * caller's buffer; otherwise the bindings its box meets are settled first. */
void trn_ap_view_fill(const trn_ap_env *env, const trn_ap *ap, bool read_only, trn_view *v);

/* True when no two elements of the AP share a byte. Conservative: a false
 * answer may be wrong for some exotic interleavings, a true one never is. */
bool trn_ap_injective(const trn_ap_env *env, const trn_ap *ap);

#endif
