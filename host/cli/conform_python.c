/* trnsim conform --frontends ...,python: cases run through the Python
 * package (python -m trnsim.conform_runner), a batch per process. */
#include <stdlib.h>

#include "cli/cli_int.h"

int cf_python_setup(cf_run *R, trn_error *e) {
    (void)R;
    return trn_errorf(e, "--frontends python: not built yet");
}

int cf_python_add(cf_run *R, const cf_case *c, trn_error *e) {
    (void)R, (void)c, (void)e;
    return 0;
}

int cf_python_flush(cf_run *R, bool last, trn_error *e) {
    (void)R, (void)last, (void)e;
    return 0;
}

void cf_python_free(cf_run *R) { (void)R; }
