/* Loader refusals, replacement, rollback and settings validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_test.h"
#include "observers/observers.h"
#include "host/test_util.h"

#define TEST_CFG(extra) "plugins = ( { family = \"test\"; module = \"trnsim-test\"; " extra " } );"

static void expect_open_error(const char *cfg, const char *needle) {
    trn_sim *s = NULL;
    trn_error e = {.msg = ""};
    assert_int_equal(test_open(cfg, &s, &e), -1);
    assert_null(s);
    assert_contains(e.msg, needle);
}

static void load_ok(void **st) {
    trn_sim *s;
    trn_error e;
    assert_int_equal(test_open(TEST_CFG(""), &s, &e), 0);
    assert_string_equal(s->reg.table[200].op->name, "TestCopy");
    assert_string_equal(s->reg.table[200].owner->desc->name, "trnsim-test");
    assert_string_equal(s->reg.table[207].op->name, "TestRegs");
    assert_string_equal(s->reg.table[208].op->name, "TestWaitNoFlag");
    assert_string_equal(s->reg.table[209].op->name, "TestKind");
    assert_string_equal(s->reg.table[210].op->name, "TestOperandFail");
    assert_string_equal(s->reg.table[220].op->name, "TestLend");
    assert_null(s->reg.table[211].op);
    trn_sim_close(s);
}

static void not_found_lists_paths(void **st) {
    expect_open_error("plugins = ( { family = \"x\"; module = \"trnsim-nope\"; } );",
                      "not found; searched " TRNSIM_MODULE_DIR "/trnsim-nope.so");
    expect_open_error("plugins = ( { family = \"x\"; module = \"trnsim-nope\"; } );",
                      "<config text>:1: module 'trnsim-nope'");
}

static void missing_symbol(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad4\"; } );",
                      "exports no 'trnsim_plugin' symbol: not a trnsim plugin");
}

static void abi_mismatch_names_both(void **st) {
    char want[128];
    snprintf(want, sizeof want,
             "built for plugin ABI version 99; this trnsim accepts versions 1..%u",
             TRN_ABI_VERSION);
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad1\"; } );", want);
}

static void observer_table_too_small(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad26\"; } );",
                      "its observer table says it is 4 bytes, an ABI 3 one is");
}

static void descriptor_too_small(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad5\"; } );",
                      "descriptor size 8 is smaller");
}

static void duplicate_it_in_module(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad2\"; } );",
                      "registers IT 210 twice (BadA and BadB)");
}

static void reserved_it(void **st) {
    expect_open_error(
        "plugins = ( { family = \"bad\"; module = \"trnsim-bad3\"; } );",
        "opcode BadReserved has IT 115 (expected 0..109, or the experimental range 128..255)");
}

static void duplicate_it_across_modules_names_both(void **st) {
    expect_open_error(
        "plugins = ( { family = \"test\"; module = \"trnsim-test\"; },"
        " { family = \"test\"; module = \"trnsim-test2\"; } );",
        "module 'trnsim-test2' (family test): IT 200 (TestCopy) is already registered by module "
        "'trnsim-test' (family test); use replaces = \"test\"");
}

static void duplicate_name_across_modules(void **st) {
    expect_open_error("plugins = ( { family = \"test\"; module = \"trnsim-test\"; },"
                      " { family = \"bad\"; module = \"trnsim-bad6\"; } );",
                      "opcode name TestCopy is already registered by module 'trnsim-test'");
}

#define BAD_CFG(k) "plugins = ( { family = \"bad\"; module = \"trnsim-bad" #k "\"; } );"

/* The schema is the module's promise about its settings: a default the
 * module's own range or choices refuse would reach init unchecked. */
static void bad_settings_schema(void **st) {
    expect_open_error(
        BAD_CFG(7),
        "module 'trnsim-bad7' (family bad): settings schema entry 0 ('level', default '500') "
        "has a default outside [min, max]");
    expect_open_error(
        BAD_CFG(8),
        "settings schema entry 0 ('mode', default 'c') has a default that is not one of "
        "its choices");
    expect_open_error(
        BAD_CFG(11),
        "settings schema entry 1 ('mode', default 'b') repeats the key of an earlier entry");
    expect_open_error(BAD_CFG(12),
                      "settings schema entry 0 ('odd', default '1') has an unknown type");
    expect_open_error(
        BAD_CFG(13),
        "settings schema entry 0 ('count', default '') has a default that does not parse");
}

/* What the loader reads of a descriptor lies inside its ELF symbol. */
static void descriptor_symbol_checked(void **st) {
    expect_open_error(
        BAD_CFG(14),
        "'trnsim_plugin' is 8 bytes, smaller than the 104 bytes of a version-1 descriptor");
    expect_open_error(BAD_CFG(15), "'trnsim_plugin' is not a data symbol");
    char want[128];
    snprintf(want, sizeof want, "the descriptor says it is %zu bytes, its symbol has %zu",
             sizeof(trn_plugin_desc) + 64, sizeof(trn_plugin_desc));
    expect_open_error(BAD_CFG(16), want);
    expect_open_error(BAD_CFG(17), "descriptor has 300 opcodes (at most 256 ITs exist)");
}

static void bad_quirk_and_flags(void **st) {
    expect_open_error(BAD_CFG(9), "module 'trnsim-bad9' (family bad): quirk entry 1 has no name");
    char want[128]; /* the bad module is built at this header's version */
    snprintf(want, sizeof want,
             "opcode BadFlags has flags 0x8; this trnsim knows only 0x7 for ABI version %u modules",
             TRN_ABI_VERSION);
    expect_open_error(BAD_CFG(10), want);
    /* streaming is an ABI 3 promise: an older module cannot have made it */
    expect_open_error(
        BAD_CFG(27),
        "opcode BadStreams has flags 0x4; this trnsim knows only 0x3 for ABI version 2 modules");
}

/* An ABI 2 attribute schema is checked when the module loads. */
static void bad_attribute_schema(void **st) {
    expect_open_error(
        BAD_CFG(24),
        "module 'trnsim-bad24' (family bad): opcode BadSchema: attribute 'pick' is an enum "
        "without values");
    expect_open_error(
        BAD_CFG(25),
        "opcode BadDefault: the default \"500\": attribute 'level' of BadDefault = 500 is "
        "outside [0, 100]");
}

/* A broken module that says replaces = "test" is refused before the test
 * module is unloaded: every descriptor is validated before any module
 * starts, so nothing was initialised, registered or finalised. */
static void broken_replacement_refused_first(void **st) {
    trn_sim *s = calloc(1, sizeof *s);
    trn_error e;
    s->reg.exe_dir = TRNSIM_MODULE_DIR;
    s->reg.cfg = &s->cfg;
    s->reg.api = &trn_host_api_table;
    assert_int_equal(
        trn_config_load(&s->cfg, NULL,
                        "plugins = ( { family = \"test\"; module = \"trnsim-test\"; },"
                        " { family = \"bad\"; module = \"trnsim-bad7\"; replaces = \"test\"; } );",
                        &e),
        0);
    assert_int_equal(trn_loader_load_all(&s->reg, &e), -1);
    assert_contains(e.msg, "has a default outside [min, max]");
    assert_false(s->reg.mods[0].live);
    assert_null(s->reg.table[200].op);
    trn_loader_unload_all(&s->reg);
    trn_config_free(&s->cfg);
    free(s);
}

static void replaces_family(void **st) {
    trn_sim *s;
    trn_error e;
    assert_int_equal(
        test_open("plugins = ( { family = \"test\"; module = \"trnsim-test\"; },"
                  " { family = \"test\"; module = \"trnsim-test2\"; replaces = \"test\"; } );",
                  &s, &e),
        0);
    assert_string_equal(s->reg.table[200].owner->desc->name, "trnsim-test2");
    assert_false(s->reg.mods[0].live);
    trn_sim_close(s);
    expect_open_error(
        "plugins = ( { family = \"test\"; module = \"trnsim-test\"; replaces = \"bn\"; } );",
        "replaces = \"bn\", but no earlier module of that family is loaded");
}

static void init_failure_rolls_back(void **st) {
    expect_open_error(TEST_CFG("settings = { fail_init = true; };"),
                      "init failed: fail_init is set");
    /* Below the sim API: after the failed load nothing of the module is registered. */
    trn_sim *s = calloc(1, sizeof *s);
    trn_error e;
    s->reg.exe_dir = TRNSIM_MODULE_DIR;
    s->reg.cfg = &s->cfg;
    s->reg.api = &trn_host_api_table;
    assert_int_equal(
        trn_config_load(&s->cfg, NULL, TEST_CFG("settings = { fail_init = true; };"), &e), 0);
    assert_int_equal(trn_loader_load_all(&s->reg, &e), -1);
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) assert_null(s->reg.table[it].op);
    assert_false(s->reg.mods[0].live);
    trn_loader_unload_all(&s->reg);
    trn_config_free(&s->cfg);
    free(s);
}

static void family_mismatch(void **st) {
    expect_open_error("plugins = ( { family = \"dma\"; module = \"trnsim-test\"; } );",
                      "the module says it is family 'test', the config says 'dma'");
}

static void settings_validated_with_line(void **st) {
    expect_open_error(
        "plugins = (\n { family = \"test\"; module = \"trnsim-test\";\n settings = { scale = "
        "\"big\"; }; } );",
        "<config text>:3: module 'trnsim-test' (family test): setting 'scale' must be a number");
    expect_open_error(TEST_CFG("settings = { scale = 200.0; };"),
                      "setting 'scale' = 200 is outside [0, 100]");
    expect_open_error(
        TEST_CFG("settings = { colour = 1; };"),
        "unknown setting 'colour' for module trnsim-test (known: scale, mode, fail_init)");
    expect_open_error(TEST_CFG("settings = { mode = \"c\"; };"),
                      "setting 'mode' = \"c\" is not one of a|b");
    expect_open_error(TEST_CFG("settings = { fail_init = 1; };"),
                      "setting 'fail_init' must be true or false");
}

/* A settings error names file:line once, the setting's own line. */
static void settings_error_names_line_once(void **st) {
    trn_sim *s = NULL;
    trn_error e = {.msg = ""};
    assert_int_equal(
        test_open("plugins = (\n { family = \"test\"; module = \"trnsim-test\";\n settings = {\n "
                  "scale = \"big\"; }; } );",
                  &s, &e),
        -1);
    assert_string_equal(
        e.msg,
        "<config text>:4: module 'trnsim-test' (family test): setting 'scale' must be a number");
}

/* Counts that run past their tables, counts past the caps, and an init
 * error buffer left unterminated: each refused with one message, no
 * read past anything (the ASan run checks that). */
static void counts_cannot_run_past_tables(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad20\"; } );",
                      "n_ops = 200 the table's length?)");
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad21\"; } );",
                      "module 'trnsim-bad21' (family bad): descriptor has 0 settings and 100000 "
                      "quirks (at most 256 of each)");
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad22\"; } );",
                      "descriptor has 100000 settings and 0 quirks (at most 256 of each)");
    trn_sim *s = NULL;
    trn_error e = {.msg = ""};
    assert_int_equal(
        test_open("plugins = ( { family = \"bad\"; module = \"trnsim-bad23\"; } );", &s, &e), -1);
    char want[600];
    int n = snprintf(want, sizeof want,
                     "<config text>:1: module 'trnsim-bad23' (family bad): init failed: ");
    memset(want + n, 'x', 511);
    want[n + 511] = 0;
    assert_string_equal(e.msg, want);
}

static void config_errors_with_line(void **st) {
    expect_open_error("machine = { cores = 2; };\nplugins = ( { family = \"test\" }",
                      "<config text>:2:");
    expect_open_error("colour = 1;", "<config text>:1: unknown key 'colour' in the top level");
    expect_open_error("machine = { partitions = 129; };",
                      "machine.partitions = 129 is outside [1, 128]");
    expect_open_error("unknown_opcode = \"maybe\";",
                      "unknown_opcode must be \"error\" or \"skip\"");
    expect_open_error("plugins = ( { family = \"test\"; } );", "plugin entry has no 'module'");
}

/* libconfig's scanner exits the process (status 2) on a read error, e.g. a
 * directory: the host refuses one before libconfig sees it. */
static void config_directory_refused(void **st) {
    expect_open_error("machine = { cores = 1; };\n@include \"" TESTS_DIR "\"\n",
                      "<config text>:2: @include \"" TESTS_DIR
                      "\" is a directory, not a config file");
    trn_sim *s = NULL;
    trn_error e = {.msg = ""};
    trn_sim_opts o = {.config_path = TESTS_DIR, .exe_dir = TRNSIM_MODULE_DIR};
    assert_int_equal(trn_sim_open(&s, &o, &e), -1);
    assert_contains(e.msg, TESTS_DIR ": cannot read config: it is a directory");
    /* An error inside an included file names that file and its line. */
    expect_open_error("@include \"" TESTS_DIR "/programs/bad_syntax.json\"\n",
                      TESTS_DIR "/programs/bad_syntax.json:");
}

/* An opcode of a family whose (replacement) module lacks it: the message
 * names that module, it does not claim the family is missing. */
static void family_module_lacks_opcode(void **st) {
    trn_sim *s;
    trn_error e = {.msg = ""};
    assert_int_equal(
        test_open("plugins = ( { family = \"dma\"; module = \"trnsim-bad19\"; } );", &s, &e), 0);
    assert_int_equal(
        trn_sim_load_program_text(s,
                                  "{\"tensors\": [], \"instructions\": [{\"opcode\": \"BadA\"},"
                                  " {\"opcode\": \"TensorCopy\"}]}",
                                  "p.json", &e),
        -1);
    assert_contains(e.msg, "p.json: instruction 1: opcode TensorCopy (IT 23) of family 'dma' is "
                           "not implemented by the "
                           "loaded module 'trnsim-bad'; set unknown_opcode = \"skip\" to skip it");
    trn_sim_close(s);
    assert_int_equal(test_open("unknown_opcode = \"skip\"; plugins = ( { family = \"dma\"; module "
                               "= \"trnsim-bad19\"; } );",
                               &s, &e),
                     0);
    assert_int_equal(
        trn_sim_load_program_text(
            s, "{\"tensors\": [], \"instructions\": [{\"opcode\": \"TensorCopy\"}]}", "p.json", &e),
        0);
    assert_int_equal(trn_sim_run(s, &e), 0);
    trn_sim_close(s);
}

/* --stats-json stays JSON whatever a module names its opcodes. */
static void stats_json_escapes_names(void **st) {
    trn_sim *s;
    trn_error e;
    assert_int_equal(test_open(BAD_CFG(18), &s, &e), 0);
    assert_int_equal(
        trn_sim_load_program_text(s, "{\"tensors\": [], \"instructions\": [{\"opcode\": 212}]}",
                                  "p.json", &e),
        0);
    assert_int_equal(trn_sim_run(s, &e), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    trn_sim_print_stats(s, f, 1);
    fclose(f);
    assert_contains(text, "{\"it\": 212, \"name\": \"Odd\\\"Name\\\\\", \"count\": 1,");
    free(text);
    trn_sim_close(s);
}

static void embedded_default_is_config_default(void **st) {
    extern const char trn_embedded_config[];
    FILE *f = fopen(TESTS_DIR "/../../config/default.cfg", "r");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_string_equal(buf, trn_embedded_config);
}

/* ---- shared services (ABI 3) ---- */

#define SVC_ENTRY(fam, mod) "{ family = \"" fam "\"; module = \"" mod "\"; }"
#define SVC_CFG2(a, b)      "plugins = ( " a ", " b " );"

/* A user finds the exporter's interface at init, whichever comes first in
 * the config; the exporter's interface is what the user holds. */
static void service_found_in_any_order(void **st) {
    const char *cfgs[] = {
        SVC_CFG2(SVC_ENTRY("svc", "trnsim-svc-v2"), SVC_ENTRY("svcuser", "trnsim-svc-user")),
        SVC_CFG2(SVC_ENTRY("svcuser", "trnsim-svc-user"), SVC_ENTRY("svc", "trnsim-svc-v2"))};
    for (size_t i = 0; i < 2; ++i) {
        trn_sim *s;
        trn_error e = {.msg = ""};
        assert_int_equal(test_open(cfgs[i], &s, &e), 0);
        const trn_module *user = s->reg.table[220].owner, *svc = s->reg.table[221].owner;
        assert_string_equal(user->desc->name, "trnsim-svc-user");
        assert_ptr_equal(user->state, svc->desc->exports[0].iface);
        trn_sim_close(s);
    }
}

static void service_missing_names_both_and_fix(void **st) {
    expect_open_error(
        "plugins = ( " SVC_ENTRY("svcuser", "trnsim-svc-user") " );",
        "<config text>:1: module 'trnsim-svc-user' (family svcuser): needs the service "
        "'test.answer' "
        "version >= 2, which no loaded module exports; add { family = \"svc\"; module = "
        "\"trnsim-svc-v2\"; } to the config's plugins, which exports it");
}

static void service_too_old_names_versions(void **st) {
    expect_open_error(
        SVC_CFG2(SVC_ENTRY("svc", "trnsim-svc-v1"), SVC_ENTRY("svcuser", "trnsim-svc-user")),
        "module 'trnsim-svc-user' (family svcuser): needs the service 'test.answer' version >= 2, "
        "but "
        "module 'trnsim-svc-v1' (family svc, 9.9) exports version 1; load a newer 'trnsim-svc-v1' "
        "that "
        "exports version 2 or later");
}

static void service_exported_twice(void **st) {
    expect_open_error(
        SVC_CFG2(SVC_ENTRY("svc", "trnsim-svc-v2"), SVC_ENTRY("svctwin", "trnsim-svc-twin")),
        "module 'trnsim-svc-twin' (family svctwin): exports the service 'test.answer', which "
        "module "
        "'trnsim-svc-v2' (family svc) exports too");
}

/* A replaced exporter exports nothing: its replacement must. The v1
 * exporter replaced by v2 leaves the user with version 2; the reverse
 * leaves version 1, which is too old. Nothing runs before the check. */
static void service_of_replaced_family(void **st) {
    trn_sim *s;
    trn_error e = {.msg = ""};
    assert_int_equal(
        test_open(
            "plugins = ( " SVC_ENTRY("svc", "trnsim-svc-v1") ", " SVC_ENTRY(
                "svcuser",
                "trnsim-svc-user") ", { family = \"svc\"; module = \"trnsim-svc-v2\"; replaces = "
                                   "\"svc\"; } );",
            &s, &e),
        0);
    assert_string_equal(s->reg.table[221].owner->desc->name, "trnsim-svc-v2");
    trn_sim_close(s);
    expect_open_error(
        "plugins = ( " SVC_ENTRY("svc", "trnsim-svc-v2") ", " SVC_ENTRY(
            "svcuser", "trnsim-svc-user") ", { family = \"svc\"; module = \"trnsim-svc-v1\"; "
                                          "replaces = \"svc\"; } );",
        "but module 'trnsim-svc-v1' (family svc, 9.9) exports version 1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_ok),
        cmocka_unit_test(not_found_lists_paths),
        cmocka_unit_test(missing_symbol),
        cmocka_unit_test(abi_mismatch_names_both),
        cmocka_unit_test(observer_table_too_small),
        cmocka_unit_test(descriptor_too_small),
        cmocka_unit_test(duplicate_it_in_module),
        cmocka_unit_test(reserved_it),
        cmocka_unit_test(duplicate_it_across_modules_names_both),
        cmocka_unit_test(duplicate_name_across_modules),
        cmocka_unit_test(replaces_family),
        cmocka_unit_test(bad_settings_schema),
        cmocka_unit_test(bad_quirk_and_flags),
        cmocka_unit_test(bad_attribute_schema),
        cmocka_unit_test(descriptor_symbol_checked),
        cmocka_unit_test(broken_replacement_refused_first),
        cmocka_unit_test(init_failure_rolls_back),
        cmocka_unit_test(family_mismatch),
        cmocka_unit_test(settings_validated_with_line),
        cmocka_unit_test(config_errors_with_line),
        cmocka_unit_test(settings_error_names_line_once),
        cmocka_unit_test(counts_cannot_run_past_tables),
        cmocka_unit_test(config_directory_refused),
        cmocka_unit_test(stats_json_escapes_names),
        cmocka_unit_test(family_module_lacks_opcode),
        cmocka_unit_test(embedded_default_is_config_default),
        cmocka_unit_test(service_found_in_any_order),
        cmocka_unit_test(service_missing_names_both_and_fix),
        cmocka_unit_test(service_too_old_names_versions),
        cmocka_unit_test(service_exported_twice),
        cmocka_unit_test(service_of_replaced_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
