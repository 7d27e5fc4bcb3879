/* libFuzzer harness for the program readers behind trn_program_load, fed
 * BIR JSON (tests/fuzz/corpus_bir): format detection, the BIR translation
 * and the native read of its result. Opcode names resolve through a fake
 * table so no module is needed; every input must load or fail with a
 * message, never crash, hang or leak.
 *
 * Built with -DTRNSIM_FUZZ=ON (clang): fuzz_bir, the libFuzzer binary.
 * Always built: fuzz_bir_replay FILE..., the same entry point run over the
 * corpus as a ctest. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "program/program.h"
#include "frontend/frontend.h"

/* Any name of 1..40 letters and digits is an opcode; its IT is a hash in
 * the reference range. Names ending in "X" are known but unhandled. */
static int fake_resolve(void *arg, const char *name, uint32_t *it, trn_error *e) {
    (void)arg;
    size_t n = strlen(name);
    if (n == 0 || n > 40) return trn_errorf(e, "unknown opcode name '%s'", name);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i) h = (h ^ (uint8_t)name[i]) * 16777619u;
    *it = h % (TRN_IT_REF_MAX + 1);
    return 0;
}

static bool fake_handled(void *arg, uint32_t it) {
    (void)arg;
    return it % 7 != 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    static const trn_machine m = {128, 196608, 16384, 1u << 28, 64};
    for (int skip = 0; skip < 2; ++skip) {
        trn_load_opts o = {.machine = &m,
                           .default_cores = 1,
                           .max_executions = 1000000,
                           .format = TRN_FORMAT_AUTO,
                           .unknown_skip = skip,
                           .families = "fake",
                           .resolve = fake_resolve,
                           .handled = fake_handled};
        trn_program p;
        trn_error e;
        if (trn_program_load(&p, "fuzz.json", text, &o, &e) == 0) trn_program_free(&p);
    }
    free(text);
    return 0;
}
