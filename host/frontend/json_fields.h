/* Field checks shared by the program readers: unknown keys (with the
 * closest known one named), bounded integers. */
#ifndef TRNSIM_HOST_JSON_FIELDS_H
#define TRNSIM_HOST_JSON_FIELDS_H

#include <jansson.h>
#include <stdint.h>

#include "common/error.h"

/* keys: a NULL-terminated list. The closest known key within a small edit
 * distance, or NULL. */
const char *trn_closest_key(const char *key, const char *const *keys);
int trn_key_known(const char *key, const char *const *keys);
/* Every member of obj must be one of keys; otherwise an error
 * "WHERE: unknown key 'K' (did you mean 'X'?)". */
int trn_check_keys(json_t *obj, const char *const *keys, const char *where, trn_error *e);
/* An optional integer member in [min, max], def when absent. */
int trn_get_int(json_t *obj, const char *key, int64_t def, int64_t min, int64_t max, int64_t *out, const char *where,
                trn_error *e);

#endif
