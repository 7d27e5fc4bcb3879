/* --output: checked before the run, written after it to temporaries created
 * exclusively next to their targets, then committed all or nothing without
 * ever deleting a file that was there before (docs/cli.md, "Outputs"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/arith.h"
#include "cli/cli_int.h"
#include "npy/npy.h"

/* ---- signals: the temporaries go away with the process ---- */

static const char interrupted_msg[] = "trnsim: interrupted; temporary output files removed\n";

/* Started by mpirun: a signal is mpirun ending the job, which says so
 * itself; the job's error line is printed already. */
static volatile sig_atomic_t quiet_signal;

/* Only async-signal-safe calls: unlink, write, _exit. Unnamed temporaries
 * (O_TMPFILE) need nothing: they go with the process. */
static void on_signal(int sig) {
    trn_outfile_signal_cleanup();
    size_t len = sizeof interrupted_msg - 1;
    ssize_t ignored = quiet_signal ? 0 : write(STDERR_FILENO, interrupted_msg, len);
    (void)ignored;
    _exit(128 + sig);
}

void cli_install_signal_cleanup(run_args *a) {
    (void)a;
    quiet_signal = getenv("OMPI_COMM_WORLD_RANK") || getenv("PMIX_RANK") || getenv("PMI_RANK");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* After the program is loaded, before inputs and the run: every --output
 * names a tensor of the program and a core of the run. */
int cli_check_output_tensors(const run_args *a, trnsim_sim *s, trn_error *e) {
    uint32_t cores = (uint32_t)trnsim_cores(s);
    for (int i = 0; i < a->n_out; ++i) {
        const binding *b = &a->out[i];
        trnsim_tensor t;
        if (trnsim_tensor_find(s, b->name, &t)) {
            cli_api_error(e);
            return trn_error_prefix(e, "--output %s", b->name);
        }
        if (b->core >= (int)cores)
            return trn_errorf(e, "--output %s@%d: the run has %u core%s (0 .. %u)", b->name,
                              b->core, cores, cores == 1 ? "" : "s", cores - 1);
    }
    return 0;
}

int cli_check_outputs_written(const run_args *a, trn_sim *hs, trn_error *e) {
    for (int i = 0; i < a->n_out && !a->unwritten_zeros; ++i) {
        const binding *b = &a->out[i];
        if (!trn_sim_check_written(hs, b->name, b->core, e)) continue;
        char what[TRN_ERROR_MAX], core[16] = "";
        snprintf(what, sizeof what, "%s", e->msg);
        if (b->core >= 0) snprintf(core, sizeof core, "@%d", b->core);
        return trn_errorf(e,
                          "--output %s%s=%s: %s; write it in the program or give it data "
                          "(--input %s=FILE.npy, 'data' or 'fill'), or pass "
                          "--output-unwritten=zeros to write zeros for never-written bytes",
                          b->name, core, b->path, what, b->name);
    }
    return 0;
}

/* ---- writing a temporary ---- */

static int drain_run(void *ctx, uint8_t *bytes, size_t len, trn_error *e) {
    return trn_npy_out_write(ctx, bytes, len, e);
}

/* The header, then each core's tensor straight from simulator memory. */
static int write_npy(trnsim_sim *s, const run_args *a, const binding *b, int fd, trn_error *e) {
    trnsim_tensor t;
    if (trnsim_tensor_find(s, b->name, &t)) return cli_api_error(e);
    uint32_t cores = (uint32_t)trnsim_cores(s);
    bool stacked = b->core < 0 && cores > 1;
    int64_t shape[TRN_NPY_MAX_DIMS];
    int ndim = t.ndim;
    memcpy(shape + (stacked ? 1 : 0), t.shape, sizeof(int64_t) * (size_t)t.ndim);
    if (stacked) {
        shape[0] = cores;
        ++ndim;
    }
    trn_npy_out o;
    if (trn_npy_out_begin(&o, fd, b->path, (trn_dtype)t.dtype_id, a->raw_bits, ndim, shape, e)) {
        trn_npy_out_abandon(&o);
        return -1;
    }
    trn_sim *hs = trn_embed_host_sim(s);
    int rc = 0;
    for (uint32_t c = 0; c < (stacked ? cores : 1) && rc == 0; ++c)
        rc = trn_sim_drain_tensor(hs, b->name,
                                  stacked       ? (int)c
                                  : b->core < 0 ? 0
                                                : b->core,
                                  drain_run, &o, e);
    if (rc) {
        trn_npy_out_abandon(&o);
        return -1;
    }
    return trn_npy_out_end(&o, e);
}

int cli_save_output(trnsim_sim *s, run_args *a, int idx, trn_error *e) {
    binding *b = &a->out[idx];
    if (trn_outfile_create(&b->file, b->option, b->path, e)) return -1;
    return write_npy(s, a, b, b->file.fd, e);
}

void cli_remove_temps(run_args *a) {
    for (int i = 0; i < a->n_out; ++i) trn_outfile_discard(&a->out[i].file);
}

/* ---- commit ---- */

int cli_commit_outputs(run_args *a, trn_error *e) {
    static trn_outfile *files[MAX_FILES];
    for (int i = 0; i < a->n_out; ++i) files[i] = &a->out[i].file;
    int rc = trn_outfile_commit_all(files, (size_t)a->n_out, cli_drop_old_file, e);
    cli_remove_temps(a);
    return rc;
}
