/* libFuzzer: the config reader (pre-scan, layers, libconfig, validation)
 * and module loading with the settings it gives each compiled-in module. */
#include "fuzz_common.h"

#include "exec/exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    trn_sim_opts o = {.config_text = text};
    trn_sim *s = NULL;
    trn_error e;
    if (trn_sim_open(&s, &o, &e) == 0) trn_sim_close(s);
    free(text);
    return 0;
}
