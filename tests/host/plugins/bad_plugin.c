/* Broken modules for the loader's refusals; BAD_KIND selects the fault:
 *   1 wrong ABI version, 2 IT registered twice in one module, 3 IT in the
 *   reserved range, 4 no descriptor symbol, 5 descriptor too small,
 *   6 an opcode name already taken by the test module (TestCopy),
 *   7 a settings default outside [min, max], 8 a string default not among its
 *   choices, 9 a quirk without a name, 10 unknown opcode flags, 11 a settings
 *   key given twice, 12 a setting of an unknown type, 13 an empty integer
 *   default, 14 a 'trnsim_plugin' symbol of 8 bytes, 15 a function named
 *   trnsim_plugin, 16 a descriptor claiming more bytes than its symbol has,
 *   17 n_ops far beyond its one-entry table; 18 is a valid module whose
 *   opcode name holds a quote and a backslash (IT 212); 19 is a valid module
 *   of family "dma" that implements only IT 210 (BadA); 20 n_ops = 200 over a
 *   one-entry table (under the cap), 21 n_quirks = 100000, 22 n_settings =
 *   100000, 23 an init that fails leaving its error buffer unterminated,
 *   24 an enum attribute without values, 25 an attribute default outside its
 *   range, 26 an observer table cut short, 27 an ABI 2 module claiming
 *   TRN_OPF_STREAMS, a flag only ABI 3 defines. */
#include "trnsim/plugin.h"

static trn_status nop(const trn_host_api *api, trn_ctx *ctx, void *s) { return TRN_OK; }

#if BAD_KIND == 2
static const trn_opcode_desc ops[]
    __attribute__((unused)) = {{.it = 210, .name = "BadA", .handler = nop, .flags = 0},
                               {.it = 210, .name = "BadB", .handler = nop, .flags = 0}};
#elif BAD_KIND == 3
static const trn_opcode_desc ops[]
    __attribute__((unused)) = {{.it = 115, .name = "BadReserved", .handler = nop, .flags = 0}};
#elif BAD_KIND == 6
static const trn_opcode_desc ops[]
    __attribute__((unused)) = {{.it = 211, .name = "TestCopy", .handler = nop, .flags = 0}};
#elif BAD_KIND == 18
static const trn_opcode_desc ops[]
    __attribute__((unused)) = {{.it = 212, .name = "Odd\"Name\\", .handler = nop, .flags = 0}};
#elif BAD_KIND == 10
static const trn_opcode_desc ops[]
    __attribute__((unused)) = {{.it = 210, .name = "BadFlags", .handler = nop, .flags = 0x8}};
#elif BAD_KIND == 27
static const trn_opcode_desc ops[] __attribute__((unused)) = {
    {.it = 210, .name = "BadStreams", .handler = nop, .flags = TRN_OPF_STREAMS}};
#elif BAD_KIND == 24
static const trn_attr_desc attrs[] = {
    {.name = "pick", .types = TRN_ATTR_ENUM, .help = "an enum without values"}};
static const trn_opcode_desc ops[] __attribute__((unused)) = {
    {.it = 210, .name = "BadSchema", .handler = nop, TRN_ARRAY(attrs, attrs)}};
#elif BAD_KIND == 25
static const trn_attr_desc attrs[] = {{.name = "level",
                                       .types = TRN_ATTR_INT,
                                       .def = "500",
                                       .min = 0,
                                       .max = 100,
                                       .help = "default out of range"}};
static const trn_opcode_desc ops[] __attribute__((unused)) = {
    {.it = 210, .name = "BadDefault", .handler = nop, TRN_ARRAY(attrs, attrs)}};
#else
static const trn_opcode_desc ops[]
    __attribute__((unused)) = {{.it = 210, .name = "BadA", .handler = nop, .flags = 0}};
#endif

#if BAD_KIND == 7
static const trn_setting_desc settings[] = {
    {"level", TRN_SET_INT, "500", 0, 100, NULL, "out of range"}};
#elif BAD_KIND == 8
static const trn_setting_desc settings[] = {
    {"mode", TRN_SET_STRING, "c", 1, 0, "a|b", "not a choice"}};
#elif BAD_KIND == 11
static const trn_setting_desc settings[] = {{"mode", TRN_SET_STRING, "a", 1, 0, NULL, "first"},
                                            {"mode", TRN_SET_STRING, "b", 1, 0, NULL, "again"}};
#elif BAD_KIND == 12
static const trn_setting_desc settings[] = {
    {"odd", (trn_setting_type)9, "1", 1, 0, NULL, "no such type"}};
#elif BAD_KIND == 13
static const trn_setting_desc settings[] = {
    {"count", TRN_SET_INT, "", 1, 0, NULL, "empty default"}};
#else
#define NO_SETTINGS 1
#endif

#if BAD_KIND == 9
static const trn_quirk_desc quirks[] = {{"bad.named", NULL, "always", "fine"},
                                        {NULL, NULL, "always", "no name"}};
#endif

#if BAD_KIND == 23
#include <string.h>
static trn_status fill_err(const trn_host_api *api, const trn_settings *s, void **state, char *err,
                           size_t len) {
    memset(err, 'x', len); /* no terminating NUL */
    return TRN_ERR;
}
#endif

#if BAD_KIND == 26
/* an observer table from a future header that was cut short */
static const trn_observer_desc short_observer = {.size = 4};
#endif

#if BAD_KIND == 4
TRN_EXPORT const trn_opcode_desc *const not_the_descriptor = ops;
#elif BAD_KIND == 14
TRN_EXPORT const uint32_t trnsim_plugin[2] = {TRN_ABI_VERSION, (uint32_t)sizeof(trn_plugin_desc)};
#elif BAD_KIND == 15
TRN_EXPORT void trnsim_plugin(void) {}
#else
TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    .abi_version = BAD_KIND == 1    ? 99
                   : BAD_KIND == 27 ? 2
                                    : TRN_ABI_VERSION,
    .size = BAD_KIND == 5    ? 8
            : BAD_KIND == 16 ? sizeof(trn_plugin_desc) + 64
                             : sizeof(trn_plugin_desc),
    .name = "trnsim-bad",
    .family = BAD_KIND == 19 ? "dma" : "bad",
    .version = "1",
    .ops = ops,
    .n_ops = BAD_KIND == 17   ? 300
             : BAD_KIND == 20 ? 200
                              : sizeof ops / sizeof ops[0],
#ifndef NO_SETTINGS
    .settings = settings,
    .n_settings = sizeof settings / sizeof settings[0],
#endif
#if BAD_KIND == 9
    .quirks = quirks,
    .n_quirks = 2,
#elif BAD_KIND == 21
    .quirks = (const trn_quirk_desc *)ops,
    .n_quirks = 100000,
#elif BAD_KIND == 22
    .settings = (const trn_setting_desc *)ops,
    .n_settings = 100000,
#elif BAD_KIND == 23
    .init = fill_err,
#elif BAD_KIND == 26
    .observer = &short_observer,
#endif
};
#endif
