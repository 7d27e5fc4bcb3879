/* An MPI run's processes agree on the whole run before it starts (docs/mpi.md,
 * "Processes agree on the run"): besides the program and the effective config
 * (runtime/distributed.c), the --output list (names and cores, in any order),
 * the artefact options and the whole content of every --input file (each
 * process digests each file whole, though it loads only its own slices).
 * Outputs are gathered
 * to rank 0 by name, in one order every process computes alike, never by the
 * position of the option on a command line. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "common/common.h"

/* One --input file as a process found it: its whole content's digest, or
 * why it could not read it. */
typedef struct input_id {
    uint64_t digest;
    int32_t err; /* 0: read whole; an errno; NOT_REGULAR */
    uint32_t unused;
} input_id;

#define NOT_REGULAR (-1) /* a FIFO or device: read once, by the load, not digested */

/* What each process tells the others: one digest per part of the run, and
 * each --input file's (in name, core order). */
typedef struct run_id {
    uint64_t outputs, artefacts, inputs; /* inputs: the names and cores */
    uint32_t n_out, n_in;
    input_id in[MAX_FILES];
} run_id;

static int by_name_core(const void *x, const void *y) {
    const binding *a = *(const binding *const *)x, *b = *(const binding *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->core > b->core) - (a->core < b->core);
}

/* The bindings in the order every process gathers (outputs) or compares
 * (inputs) them: by name, then core. */
static void sorted_bindings(const binding *b, int n, const binding **v) {
    for (int i = 0; i < n; ++i) v[i] = &b[i];
    qsort(v, (size_t)n, sizeof *v, by_name_core);
}

static void digest_str(trn_digest *d, const char *s) {
    trn_digest_update(d, s ? s : "", s ? strlen(s) + 1 : 1);
}

static void digest_int(trn_digest *d, int64_t v) { trn_digest_update(d, &v, sizeof v); }

static input_id identify_input(const binding *b) {
    input_id id = {0};
    struct stat st;
    /* A FIFO is not opened here: the open would wait for its writer, and
     * the bytes that writer sends are the load's, once. */
    if (stat(b->path, &st) == 0 && !S_ISREG(st.st_mode)) return id.err = NOT_REGULAR, id;
    int fd = open(b->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0)
        id.err = errno ? errno : EIO;
    else if (!S_ISREG(st.st_mode))
        id.err = NOT_REGULAR;
    else
        id.err = trn_digest_fd(fd, (uint64_t)st.st_size, &id.digest);
    if (fd >= 0) close(fd);
    return id;
}

static void identify(const run_args *a, run_id *id) {
    static const binding *v[MAX_FILES];
    trn_digest d;
    sorted_bindings(a->out, a->n_out, v);
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
    sorted_bindings(a->in, a->n_in, v);
    trn_digest_init(&d);
    for (int i = 0; i < a->n_in; ++i) {
        digest_str(&d, v[i]->name), digest_int(&d, v[i]->core);
        id->in[i] = identify_input(v[i]);
    }
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
            "or other names or cores); give every process the same --input options and files",
            rank, other->n_in, other->n_in == 1 ? "" : "s", mine->n_in);
    return 0;
}

/* The first input (sorted index) whose file process `rank` has otherwise
 * than process 0: read by one and not the other, or another content. -1:
 * none. Files that neither could read are the load's to report. */
static int input_differs(const run_id *zero, const run_id *other) {
    for (uint32_t i = 0; i < zero->n_in; ++i) {
        const input_id *a = &zero->in[i], *b = &other->in[i];
        if (a->err == NOT_REGULAR || b->err == NOT_REGULAR) continue;
        if ((a->err == 0) != (b->err == 0) || (a->err == 0 && a->digest != b->digest))
            return (int)i;
    }
    return -1;
}

typedef char input_text[600]; /* "NAME[@CORE]=PATH" as one process has it */

static const char *why(int err) {
    return err == NOT_REGULAR ? "not a regular file" : strerror(err);
}

/* Input i differs between process 0 and process r: one line naming both
 * files, as each process has it (texts: every process's). */
static int input_error(const run_id *all, const input_text *texts, uint32_t r, int i,
                       trn_error *e) {
    const input_id *a = &all[0].in[i], *b = &all[r].in[i];
    if (a->err == 0 && b->err == 0)
        return trn_errorf(e,
                          "MPI process %u's --input %s differs from process 0's --input %s: the "
                          "whole files' XXH64 digests are %016" PRIx64 " and %016" PRIx64
                          "; give every process the same --input files",
                          r, texts[r], texts[0], b->digest, a->digest);
    uint32_t bad = a->err ? 0 : r, good = a->err ? r : 0;
    return trn_errorf(e,
                      "MPI process %u cannot read --input %s (%s), which process %u reads "
                      "(--input %s); every process reads each --input file whole, to agree on "
                      "its content (docs/mpi.md)",
                      bad, texts[bad], why(all[bad].in[i].err), good, texts[good]);
}

/* Every process found the same input i of process r to differ: each tells
 * the others how it names that file, and every process builds the line. */
static int report_input(trn_sim *hs, const run_args *a, const run_id *all, uint32_t r, int i,
                        trn_error *e) {
    static const binding *v[MAX_FILES];
    sorted_bindings(a->in, a->n_in, v);
    uint32_t ranks = trn_sim_ranks(hs);
    input_text mine, *texts = calloc(ranks, sizeof *texts);
    if (!texts) return trn_errorf(e, "out of memory");
    if (v[i]->core >= 0)
        snprintf(mine, sizeof mine, "%.255s@%d=%.300s", v[i]->name, v[i]->core, v[i]->path);
    else
        snprintf(mine, sizeof mine, "%.255s=%.300s", v[i]->name, v[i]->path);
    int rc = trn_sim_allgather(hs, mine, texts, sizeof mine, e);
    if (rc == 0) rc = input_error(all, (const input_text *)texts, r, i, e);
    free(texts);
    return rc;
}

int cli_agree_run(trn_sim *hs, const run_args *a, trn_error *e) {
    if (!trn_sim_is_distributed(hs)) return 0;
    uint32_t ranks = trn_sim_ranks(hs);
    run_id *mine = calloc(1, sizeof *mine), *all = calloc(ranks, sizeof *all);
    if (!mine || !all) return free(mine), free(all), trn_errorf(e, "out of memory");
    identify(a, mine);
    int rc = trn_sim_allgather(hs, mine, all, sizeof *mine, e), bad = -1;
    uint32_t r = 1;
    for (; r < ranks && rc == 0 && bad < 0; ++r)
        if (!(rc = differs(&all[0], &all[r], r, e))) bad = input_differs(&all[0], &all[r]);
    if (bad >= 0) rc = report_input(hs, a, all, r - 1, bad, e);
    if (rc && r > 1) {
        /* Every process found the same difference. None tells the others
         * (the failure's notice) before each has the data: a notice stops a
         * slower process mid-exchange, and the line would then name the
         * quickest process rather than be the whole job's. */
        trn_error ignored;
        trn_sim_allgather(hs, mine, all, sizeof *mine, &ignored);
    }
    free(mine);
    free(all);
    return rc;
}

int cli_gather_outputs(trn_sim *hs, const run_args *a, trn_error *e) {
    static const binding *v[MAX_FILES];
    sorted_bindings(a->out, a->n_out, v);
    int rc = 0;
    for (int i = 0; i < a->n_out && !rc; ++i)
        rc = trn_sim_gather_tensor(hs, v[i]->name, v[i]->core, e);
    return rc;
}
