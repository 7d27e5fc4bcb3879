/* TRN_COUNT (plugin.h): the length of an array, and a compile error for a
 * pointer, whose sizeof would give a wrong count. Compiled by the ctest
 * host_count_macro twice: as is (must compile), with -DPOINTER (must not). */
#include "trnsim/plugin.h"

static const trn_quirk_desc three[3] = {
    {"a", NULL, "always", "x"}, {"b", NULL, "always", "y"}, {"c", NULL, "always", "z"}};
_Static_assert(TRN_COUNT(three) == 3, "TRN_COUNT counts an array");

#ifdef POINTER
static const trn_quirk_desc *ptr = three;
unsigned count_of_pointer(void) { return TRN_COUNT(ptr); }
#endif

unsigned count_of_array(void) { return TRN_COUNT(three); }
