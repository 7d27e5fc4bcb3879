/* An MPI run's processes agree on the whole run before it starts (docs/mpi.md,
 * "Processes agree on the run"): besides the program and the effective config
 * (runtime/distributed.c), the --output list (names and cores, in any order),
 * the artefact options and the --input files each reads. Outputs are gathered
 * to rank 0 by name, in one order every process computes alike, never by the
 * position of the option on a command line. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "common/common.h"

#define SAMPLE ((size_t)1 << 16) /* bytes of an input digested at each end */

/* What each process tells the others: one digest per part of the run. */
typedef struct run_id {
    uint64_t outputs, artefacts, inputs;
    uint32_t n_out, n_in;
} run_id;

static int by_name_core(const void *x, const void *y) {
    const binding *a = *(const binding *const *)x, *b = *(const binding *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->core > b->core) - (a->core < b->core);
}

/* The outputs in the order every process gathers them: by name, then core. */
static void sorted_outputs(const run_args *a, const binding **v) {
    for (int i = 0; i < a->n_out; ++i) v[i] = &a->out[i];
    qsort(v, (size_t)a->n_out, sizeof *v, by_name_core);
}

static void digest_str(trn_digest *d, const char *s) {
    trn_digest_update(d, s ? s : "", s ? strlen(s) + 1 : 1);
}

static void digest_int(trn_digest *d, int64_t v) { trn_digest_update(d, &v, sizeof v); }

/* An input file: its size, and its first and last 64 KiB (the .npy header
 * among them); a process reads only its own cores' slices, so the whole
 * file is not read here. -1: missing (the input's own load says so). */
static void digest_input(trn_digest *d, const binding *b) {
    digest_str(d, b->name);
    digest_int(d, b->core);
    int fd = open(b->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        digest_int(d, -1);
        if (fd >= 0) close(fd);
        return;
    }
    digest_int(d, st.st_size);
    static unsigned char buf[SAMPLE];
    ssize_t n = pread(fd, buf, SAMPLE, 0);
    if (n > 0) trn_digest_update(d, buf, (size_t)n);
    off_t tail = st.st_size > (off_t)SAMPLE ? st.st_size - (off_t)SAMPLE : 0;
    n = tail > 0 ? pread(fd, buf, SAMPLE, tail) : 0;
    if (n > 0) trn_digest_update(d, buf, (size_t)n);
    close(fd);
}

static void identify(const run_args *a, run_id *id) {
    static const binding *v[MAX_FILES];
    trn_digest d;
    sorted_outputs(a, v);
    trn_digest_init(&d);
    for (int i = 0; i < a->n_out; ++i) digest_str(&d, v[i]->name), digest_int(&d, v[i]->core);
    id->outputs = trn_digest_final(&d);
    trn_digest_init(&d);
    digest_int(&d, a->trace_path != NULL);
    digest_int(&d, a->timeline_path != NULL);
    digest_str(&d, a->trace_filter);
    digest_int(&d, (int64_t)a->trace_limit);
    digest_int(&d, a->trace_values);
    digest_int(&d, a->raw_bits);
    digest_int(&d, a->unwritten_zeros);
    id->artefacts = trn_digest_final(&d);
    trn_digest_init(&d);
    for (int i = 0; i < a->n_in; ++i) digest_input(&d, &a->in[i]);
    id->inputs = trn_digest_final(&d);
    id->n_out = (uint32_t)a->n_out;
    id->n_in = (uint32_t)a->n_in;
}

static int differs(const run_id *mine, const run_id *other, uint32_t rank, trn_error *e) {
    if (other->n_out != mine->n_out || other->outputs != mine->outputs)
        return trn_errorf(
            e,
            "MPI process %u has another --output list than process 0 (%u output%s against %u; "
            "names and cores must be the same, in any order); give every process the same "
            "--output options",
            rank, other->n_out, other->n_out == 1 ? "" : "s", mine->n_out);
    if (other->artefacts != mine->artefacts)
        return trn_errorf(
            e,
            "MPI process %u has other artefact options than process 0 (--trace, --timeline, "
            "--trace-filter, --trace-limit, --trace-values, --raw-bits, --output-unwritten); give "
            "every process the "
            "same options",
            rank);
    if (other->n_in != mine->n_in || other->inputs != mine->inputs)
        return trn_errorf(
            e,
            "MPI process %u reads other --input files than process 0 (%u input%s against %u, "
            "or other contents); give every process the same --input options and files",
            rank, other->n_in, other->n_in == 1 ? "" : "s", mine->n_in);
    return 0;
}

int cli_agree_run(trn_sim *hs, const run_args *a, trn_error *e) {
    if (!trn_sim_is_distributed(hs)) return 0;
    uint32_t ranks = trn_sim_ranks(hs);
    run_id mine = {0}, *all = calloc(ranks, sizeof *all);
    if (!all) return trn_errorf(e, "out of memory");
    identify(a, &mine);
    int rc = trn_sim_allgather(hs, &mine, all, sizeof mine, e);
    if (rc) return free(all), rc;
    for (uint32_t r = 1; r < ranks && rc == 0; ++r) rc = differs(&all[0], &all[r], r, e);
    /* Every process found the same difference. None tells the others (the
     * failure's notice) before each has the data: a notice stops a slower
     * process mid-exchange, and the line would then name the quickest
     * process rather than be the whole job's. */
    trn_error ignored;
    if (rc) trn_sim_allgather(hs, &mine, all, sizeof mine, &ignored);
    free(all);
    return rc;
}

int cli_gather_outputs(trn_sim *hs, const run_args *a, trn_error *e) {
    static const binding *v[MAX_FILES];
    sorted_outputs(a, v);
    int rc = 0;
    for (int i = 0; i < a->n_out && !rc; ++i)
        rc = trn_sim_gather_tensor(hs, v[i]->name, v[i]->core, e);
    return rc;
}
