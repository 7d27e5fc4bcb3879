/* libFuzzer: the native program reader, then the executor on a small
 * machine (fuzz_common.h), with every compiled-in family loaded. Built
 * twice: FUZZ_FORMAT 1 (native) and 2 (BIR JSON, docs/bir.md). Any error
 * message is fine; a crash, a sanitizer report, a hang or an allocation
 * past libFuzzer's -rss_limit_mb is a finding. */
#include "fuzz_common.h"

#include <stdio.h>

#include "runtime/sim.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT 1
#endif

static trn_sim *sim;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    /* the build's embedded default (every family it has) on the small machine */
    static const char *const sets[] = {FUZZ_MACHINE_SETS};
    trn_sim_opts o = {.sets = sets, .n_sets = sizeof sets / sizeof sets[0], .format = FUZZ_FORMAT,
                      .max_instructions = 2000, .timeout_seconds = 1.0};
    trn_error e;
    if (trn_sim_open(&sim, &o, &e)) {
        fprintf(stderr, "fuzz_program: cannot open the simulator: %s\n", e.msg);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    trn_error e;
    if (trn_sim_load_program_text(sim, text, "fuzz.json", &e) == 0) trn_sim_run(sim, &e);
    free(text);
    return 0;
}
