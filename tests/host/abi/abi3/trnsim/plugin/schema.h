/* trnsim public header, a topic of the plugin ABI (trnsim/plugin.h includes
 * every topic; versions and the changelog are in trnsim/plugin/abi.h):
 * ABI 2, what an opcode's instructions may say: attribute types and flags,
 * enum values, attribute and operand descriptors (trn_opcode_desc.attrs /
 * operands). The static check they feed, trn_check_fn, is in abi.h.
 */
#ifndef TRNSIM_PLUGIN_SCHEMA_H
#define TRNSIM_PLUGIN_SCHEMA_H

#include <stdint.h>

#include "trnsim/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ABI 2: what an opcode's instructions may say -------------------- */

/* Attribute types, as bits: an attribute whose `types` has several bits
 * accepts any of them (e.g. a seed that is an integer or a string).
 *   BOOL    true / false (and the integers 0 / 1, as attr_int always read them)
 *   INT     an integer (an integral float such as 2.0 counts)
 *   FLOAT   a number, or the strings "inf", "-inf", "nan"
 *   STRING  any string
 *   ENUM    one of `enums` by name or alias; with INT also set, an integer
 *           in [min, max] too. attr_int / attr_enum give the entry's value,
 *           attr_string its canonical name (so an alias reads as the name).
 *   LIST    a list whose elements are of the `elem` types
 *   NESTED_LIST  a list of lists whose elements are of the `elem` types
 *   OBJECT  any JSON object (its members are the handler's business)
 *   INSTRUCTIONS a list of instruction objects (descriptor lists): the host
 *           validates each like a program instruction (keys, opcode name,
 *           its own schema) when the program loads
 * min / max bound INT and FLOAT values, and the elements of lists, when
 * min < max (so the zero of a designated initializer means no range);
 * len_min / len_max bound a list's length (len_max 0: no upper bound). */
#define TRN_ATTR_BOOL         0x001u
#define TRN_ATTR_INT          0x002u
#define TRN_ATTR_FLOAT        0x004u
#define TRN_ATTR_STRING       0x008u
#define TRN_ATTR_ENUM         0x010u
#define TRN_ATTR_LIST         0x020u
#define TRN_ATTR_NESTED_LIST  0x040u
#define TRN_ATTR_OBJECT       0x080u
#define TRN_ATTR_INSTRUCTIONS 0x100u

/* Attribute flags. */
#define TRN_ATTRF_REQUIRED 0x1u /* absent is a load-time error naming the attribute */

/* One value of an ENUM attribute. */
typedef struct trn_enum_desc {
    const char *name;    /* canonical spelling, what attr_string gives */
    int64_t value;       /* what attr_int / attr_enum give */
    const char *aliases; /* '|'-separated other accepted spellings (the compiler BIR's), or NULL */
} trn_enum_desc;

/* One attribute of an opcode. `def` is the value an absent optional
 * attribute means, as text ("0", "1.5", "true", "AllReduce"); it is checked
 * against the type when the module loads, documents the handler's default
 * and is printed by `trnsim describe`; the host does not insert it, so a
 * handler still sees TRN_ABSENT. NULL with no TRN_ATTRF_REQUIRED: optional,
 * absence has its own meaning (said in `help`). `bir_name` is the field's
 * name in the compiler's BIR JSON when it differs from `name` (NULL when it
 * is the same or the BIR has no such field); a BIR reader renames through it. */
struct trn_attr_desc {
    const char *name;
    uint32_t types; /* TRN_ATTR_* bits */
    uint32_t elem;  /* LIST / NESTED_LIST: TRN_ATTR_* bits of the elements */
    uint32_t flags; /* TRN_ATTRF_* */
    const char *def;
    double min, max; /* inclusive; ignored unless min < max */
    uint32_t len_min, len_max;
    const trn_enum_desc *enums;
    uint32_t n_enums;
    const char *bir_name;
    const char *help; /* one line */
};

/* One operand position of an opcode, for `trnsim describe` and the docs.
 * The host does not enforce these (counts often depend on attributes); the
 * static check does. */
#define TRN_OPERANDF_OPTIONAL 0x1u /* may be left out (with every operand after it) */
#define TRN_OPERANDF_REPEATED 0x2u /* the last entry: any number more of the same role */
struct trn_operand_desc {
    uint32_t dir;     /* trn_dir */
    const char *name; /* role, e.g. "data", "indices" */
    uint32_t flags;   /* TRN_OPERANDF_* */
    const char *help; /* one line: dtype, shape, meaning */
};

#ifdef __cplusplus
}
#endif
#endif
