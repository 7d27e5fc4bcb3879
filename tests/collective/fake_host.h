/* A fake host for handler tests: N cores, each with its own flat fp32
 * memory and its OWN instruction list (so cores can disagree, which a real
 * SPMD program cannot), scheduled like the real host (each core runs until
 * it finishes or waits; a round with no progress is a deadlock). Attributes
 * are JSON (jansson), the same representation the real host uses. */
#ifndef COLL_FAKE_HOST_H
#define COLL_FAKE_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "trnsim/plugin.h"

#define FH_MAX_CORES 8
#define FH_MAX_INSTS 8
#define FH_WORDS     4096

typedef struct fh_inst {
    uint32_t it;
    const char *attrs; /* a JSON object of attributes, or NULL */
    int n_in, n_out;
    trn_ap in[2], out[1];
} fh_inst;

typedef struct fake_host {
    const trn_plugin_desc *desc;
    void *state;
    uint32_t cores;
    float mem[FH_MAX_CORES][FH_WORDS];
    int64_t regs[FH_MAX_CORES][16];
    fh_inst prog[FH_MAX_CORES][FH_MAX_INSTS];
    int n_insts[FH_MAX_CORES];
    uint32_t calls[FH_MAX_CORES]; /* handler calls per core (re-invocations included) */
    /* the outcome of fh_run */
    char err[1024];
    int err_core;
} fake_host;

extern const trn_host_api fh_api;

/* A flat fp32 AP over elements [offset, offset + n) of a core's memory. */
trn_ap fh_ap(uint32_t offset, int64_t n);

/* Load the module with settings (a JSON object text, NULL = defaults) and
 * begin a run on `cores` cores. 0 on success. */
int fh_open(fake_host *h, const trn_plugin_desc *desc, const char *settings_json, uint32_t cores,
            char *err, size_t errlen);
void fh_close(fake_host *h);

/* Call the handler of core c's instruction i once. */
trn_status fh_step(fake_host *h, uint32_t c, int i);

/* Run every core's list to the end like the host. 0 on success; -1 with
 * h->err / h->err_core set (the message of the failing instruction, or
 * "deadlock"). */
int fh_run(fake_host *h);

#endif
