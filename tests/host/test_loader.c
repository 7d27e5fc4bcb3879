/* Loader refusals, replacement, rollback and settings validation. */
#include <stdio.h>
#include <stdlib.h>

#include "sim_internal.h"
#include "test_util.h"

#define TEST_CFG(extra) "plugins = ( { family = \"test\"; module = \"trnsim-test\"; " extra " } );"

static void expect_open_error(const char *cfg, const char *needle) {
    trn_sim *s = NULL;
    trn_error e = {""};
    assert_int_equal(test_open(cfg, &s, &e), -1);
    assert_null(s);
    assert_contains(e.msg, needle);
}

static void load_ok(void **st) {
    trn_sim *s;
    trn_error e;
    assert_int_equal(test_open(TEST_CFG(""), &s, &e), 0);
    assert_string_equal(s->table[200].op->name, "TestCopy");
    assert_string_equal(s->table[200].owner->desc->name, "trnsim-test");
    assert_string_equal(s->table[207].op->name, "TestRegs");
    assert_null(s->table[208].op);
    trn_sim_close(s);
}

static void not_found_lists_paths(void **st) {
    expect_open_error("plugins = ( { family = \"x\"; module = \"trnsim-nope\"; } );",
                      "not found; searched " TRNSIM_MODULE_DIR "/trnsim-nope.so");
    expect_open_error("plugins = ( { family = \"x\"; module = \"trnsim-nope\"; } );", "<config text>:1: module 'trnsim-nope'");
}

static void missing_symbol(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad4\"; } );",
                      "exports no 'trnsim_plugin' symbol: not a trnsim plugin");
}

static void abi_mismatch_names_both(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad1\"; } );",
                      "built for plugin ABI version 99; this trnsim accepts versions 1..1");
}

static void descriptor_too_small(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad5\"; } );", "descriptor size 8 is smaller");
}

static void duplicate_it_in_module(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad2\"; } );", "registers IT 210 twice (BadA and BadB)");
}

static void reserved_it(void **st) {
    expect_open_error("plugins = ( { family = \"bad\"; module = \"trnsim-bad3\"; } );",
                      "opcode BadReserved has IT 115 (expected 0..109, or the experimental range 128..255)");
}

static void duplicate_it_across_modules_names_both(void **st) {
    expect_open_error("plugins = ( { family = \"test\"; module = \"trnsim-test\"; },"
                      " { family = \"test\"; module = \"trnsim-test2\"; } );",
                      "module 'trnsim-test2' (family test): IT 200 (TestCopy) is already registered by module "
                      "'trnsim-test' (family test); use replaces = \"test\"");
}

static void duplicate_name_across_modules(void **st) {
    expect_open_error("plugins = ( { family = \"test\"; module = \"trnsim-test\"; },"
                      " { family = \"bad\"; module = \"trnsim-bad6\"; } );",
                      "opcode name TestCopy is already registered by module 'trnsim-test'");
}

static void replaces_family(void **st) {
    trn_sim *s;
    trn_error e;
    assert_int_equal(test_open("plugins = ( { family = \"test\"; module = \"trnsim-test\"; },"
                               " { family = \"test\"; module = \"trnsim-test2\"; replaces = \"test\"; } );",
                               &s, &e), 0);
    assert_string_equal(s->table[200].owner->desc->name, "trnsim-test2");
    assert_false(s->mods[0].live);
    trn_sim_close(s);
    expect_open_error("plugins = ( { family = \"test\"; module = \"trnsim-test\"; replaces = \"bn\"; } );",
                      "replaces = \"bn\", but no earlier module of that family is loaded");
}

static void init_failure_rolls_back(void **st) {
    expect_open_error(TEST_CFG("settings = { fail_init = true; };"), "init failed: fail_init is set");
    /* Below the sim API: after the failed load nothing of the module is registered. */
    trn_sim *s = calloc(1, sizeof *s);
    trn_error e;
    s->opts.exe_dir = TRNSIM_MODULE_DIR;
    assert_int_equal(trn_config_load(&s->cfg, NULL, TEST_CFG("settings = { fail_init = true; };"), &e), 0);
    assert_int_equal(trn_loader_load_all(s, &e), -1);
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) assert_null(s->table[it].op);
    assert_false(s->mods[0].live);
    trn_loader_unload_all(s);
    trn_config_free(&s->cfg);
    free(s);
}

static void family_mismatch(void **st) {
    expect_open_error("plugins = ( { family = \"dma\"; module = \"trnsim-test\"; } );",
                      "the module says it is family 'test', the config says 'dma'");
}

static void settings_validated_with_line(void **st) {
    expect_open_error("plugins = (\n { family = \"test\"; module = \"trnsim-test\";\n settings = { scale = \"big\"; }; } );",
                      "<config text>:3: setting 'scale' must be a number");
    expect_open_error(TEST_CFG("settings = { scale = 200.0; };"), "setting 'scale' = 200 is outside [0, 100]");
    expect_open_error(TEST_CFG("settings = { colour = 1; };"),
                      "unknown setting 'colour' for module trnsim-test (known: scale, mode, fail_init)");
    expect_open_error(TEST_CFG("settings = { mode = \"c\"; };"), "setting 'mode' = \"c\" is not one of a|b");
    expect_open_error(TEST_CFG("settings = { fail_init = 1; };"), "setting 'fail_init' must be true or false");
}

static void config_errors_with_line(void **st) {
    expect_open_error("machine = { cores = 2; };\nplugins = ( { family = \"test\" }", "<config text>:2:");
    expect_open_error("colour = 1;", "<config text>:1: unknown key 'colour' in the top level");
    expect_open_error("machine = { partitions = 129; };", "machine.partitions = 129 is outside [1, 128]");
    expect_open_error("unknown_opcode = \"maybe\";", "unknown_opcode must be \"error\" or \"skip\"");
    expect_open_error("plugins = ( { family = \"test\"; } );", "plugin entry has no 'module'");
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_ok),
        cmocka_unit_test(not_found_lists_paths),
        cmocka_unit_test(missing_symbol),
        cmocka_unit_test(abi_mismatch_names_both),
        cmocka_unit_test(descriptor_too_small),
        cmocka_unit_test(duplicate_it_in_module),
        cmocka_unit_test(reserved_it),
        cmocka_unit_test(duplicate_it_across_modules_names_both),
        cmocka_unit_test(duplicate_name_across_modules),
        cmocka_unit_test(replaces_family),
        cmocka_unit_test(init_failure_rolls_back),
        cmocka_unit_test(family_mismatch),
        cmocka_unit_test(settings_validated_with_line),
        cmocka_unit_test(config_errors_with_line),
        cmocka_unit_test(embedded_default_is_config_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
