#ifndef TRNSIM_HOST_OBSERVERS_OBSERVERS_H
#define TRNSIM_HOST_OBSERVERS_OBSERVERS_H

/* The host's reports (report.c, describe.c): the program written back,
 * what `check` prints, --stats, skip notes, and the opcode, attribute and
 * quirk listings, each read through the façade (exec/exec.h). */

#include <stdio.h>

#include "exec/exec.h"

/* The loaded program as a native program (a BIR file's translation, a
 * native file as read), indented JSON; -1 if nothing is loaded or the
 * stream fails. */
int trn_sim_write_native(const trn_sim *s, FILE *out, trn_error *e);
/* The loaded program as BIR JSON (frontend/bir/bir_write.c); a program BIR
 * cannot say is refused, naming what. */
int trn_sim_write_bir(const trn_sim *s, FILE *out, trn_error *e);
/* What `check` prints: allocations, instructions, loops and their trips,
 * executions per core, and the opcode histogram. */
void trn_sim_print_summary(const trn_sim *s, FILE *out);
int trn_sim_program_is_bir(const trn_sim *s);

/* Reports for the CLI. */
void trn_sim_print_stats(const trn_sim *s, FILE *out, int json);
void trn_sim_print_skip_notes(const trn_sim *s, FILE *out);
void trn_sim_print_opcodes(const trn_sim *s, FILE *out);
/* describe.c: operands and attributes from the modules' schemas. */
int trn_sim_describe(const trn_sim *s, const char *name, FILE *out, trn_error *e);
void trn_sim_print_opcode_attrs(const trn_sim *s, FILE *out);
void trn_sim_print_quirks(const trn_sim *s, FILE *out);

/* The file an observer writes (--trace, --timeline): "-" is a stream of
 * its own on fd 2 (so stderr's buffering stays as it was), a part file of
 * an MPI run is written as it is, and anything else goes through the one
 * guard for every file trnsim writes (common/common.h): a temporary with
 * no name on disk, put in place when closed, so an interrupted run leaves
 * the old file (or nothing) and never half a trace. Writes go through a
 * bounded stdio buffer, and the first write error is kept so the run can
 * end with one line naming the file. */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/common.h"

typedef struct trn_obs_file {
    FILE *f;
    const char *option; /* "--trace", "--timeline": how messages name it */
    char *path;
    char *buf; /* stdio's buffer */
    bool failed;
    int err;      /* errno of the first failure */
    bool guarded; /* written through file, put in place at close */
    trn_outfile file;
} trn_obs_file;

/* Create path's temporary (take fd 2 for "-"; open a part as it is); -1
 * with "OPTION PATH: cannot create it: why" (or out of memory) in e, and
 * nothing left open. */
int trn_obs_file_open(trn_obs_file *o, const char *option, const char *path, bool part,
                      size_t buffer, trn_error *e);
/* Append len bytes; after a failure nothing more is written. */
void trn_obs_file_write(trn_obs_file *o, const void *bytes, size_t len);
/* Remember a failure that is not a write (out of memory building a record). */
void trn_obs_file_fail(trn_obs_file *o, int err);
/* Flush, close and put in place (also after a failed run, whose records
 * end with its error): -1 with "OPTION PATH: writing failed: why" when any
 * write failed, and then the file that was there stays. Frees what open
 * allocated. */
int trn_obs_file_close(trn_obs_file *o, trn_error *e);

/* The structured trace (--trace FILE.jsonl, docs/observability.md): one
 * JSON object per executed instruction, written as the run goes by one of
 * the host's observers, with filters, a record limit and optional values. */

#include <stdbool.h>
#include <stdint.h>

#define TRN_TRACE_DEFAULT_VALUES 8u /* --trace-values without =K */
#define TRN_TRACE_MAX_VALUES     4096u

typedef struct trn_trace_opts {
    const char *path;   /* a file, or "-" for standard error */
    const char *filter; /* --trace-filter text; NULL: every instruction */
    uint64_t limit;     /* --trace-limit: at most this many instruction records; 0: no limit */
    uint32_t values;    /* --trace-values: the first K elements of each output; 0: none */
    bool part;          /* path is an MPI run's part file (dist_observe.h), written as it is */
} trn_trace_opts;

/* Which instructions a trace keeps: every key given must match (AND),
 * any entry of a key's list may (OR). */
#define TRN_FILTER_MAX_RANGES 64
#define TRN_FILTER_MAX_NAMES  64
typedef struct trn_trace_filter {
    bool by_opcode, by_core, by_index, by_family, by_module;
    bool opcode[TRN_IT_MAX + 1];
    uint64_t core_lo[TRN_FILTER_MAX_RANGES], core_hi[TRN_FILTER_MAX_RANGES];
    uint64_t index_lo[TRN_FILTER_MAX_RANGES], index_hi[TRN_FILTER_MAX_RANGES];
    int n_core, n_index;
    const char *family[TRN_FILTER_MAX_NAMES],
        *module[TRN_FILTER_MAX_NAMES]; /* the modules' own strings */
    int n_family, n_module;
} trn_trace_filter;

/* Parse --trace-filter text against the loaded modules (opcode, family and
 * module names must exist: a misspelling gets a "did you mean"). */
int trn_trace_filter_parse(const trn_sim *s, const char *text, trn_trace_filter *f, trn_error *e);
bool trn_trace_filter_keeps(const trn_trace_filter *f, const trn_observation *ob);

typedef struct trn_trace trn_trace;

/* Check the options, create the file and register the observer. Nothing
 * is created when the options are bad. */
int trn_trace_begin(trn_sim *s, const trn_trace_opts *o, trn_trace **out, trn_error *e);
/* Unregister, flush and close; -1 when writing failed (the message names
 * the file). NULL does nothing. */
int trn_trace_end(trn_sim *s, trn_trace *t, trn_error *e);

/* The timeline (--timeline FILE.json, docs/observability.md): Chrome
 * trace-event JSON, one track per core, one complete slice per
 * instruction, waits as their own slices and a collective's rendezvous as
 * flow arrows, written as the run goes by one of the host's observers. */

typedef struct trn_timeline trn_timeline;

int trn_timeline_begin(trn_sim *s, const char *path, trn_timeline **out, trn_error *e);
/* The same into an MPI run's part file (dist_observe.h), written as it is. */
int trn_timeline_begin_part(trn_sim *s, const char *path, trn_timeline **out, trn_error *e);
/* Closes the JSON (also after a failed run); -1 when writing failed. */
int trn_timeline_end(trn_sim *s, trn_timeline *t, trn_error *e);

/* Lockstep comparison of two simulators running one program (trnsim diff,
 * docs/cli.md): after an instruction both completed, every output operand
 * (its bits and its written-byte map) and the core's registers, bit for
 * bit; after the run, every tensor. */

#include <stdbool.h>
#include <stdint.h>

#include "program/program.h"

/* What differs: the bits of elements, or which bytes were ever written
 * (one side wrote a byte the other did not, whatever the values). */
enum { TRN_DIFF_VALUE = 0, TRN_DIFF_WRITTEN = 1 };

/* One operand that differs. Indices are C order: `index` over the
 * operand's access pattern ([partition, dim 0, ...]), `tensor_index` over
 * the shape of the tensor holding the first differing element (for
 * TRN_DIFF_WRITTEN: the element holding the first byte only one side
 * wrote). */
typedef struct trn_diff_found {
    int kind;           /* TRN_DIFF_VALUE or TRN_DIFF_WRITTEN */
    int written_by;     /* WRITTEN: 0 A wrote that byte and B did not, 1 the reverse */
    uint32_t byte;      /* WRITTEN: the byte's place in its element */
    char operand[96];   /* "outputs[0]", "register 5", "tensor 'y' on core 1" */
    const char *tensor; /* the tensor of the first differing element, NULL: none */
    int dtype;          /* trn_dtype; -1: a register (int64) */
    int64_t count;      /* elements compared */
    int64_t differing;  /* elements whose bits differ (WRITTEN: that hold a byte one side wrote) */
    int64_t first;      /* the first of them, in the operand's order */
    int ndim;
    int64_t index[TRN_AP_MAX_DIMS + 1];
    int tensor_ndim;
    int64_t tensor_index[TRN_MAX_SHAPE];
    uint64_t bits[2]; /* A's and B's bit pattern of that element */
    double value[2];
    bool has_value;    /* false for packed dtypes */
    bool ulp_known;    /* false when a side is NaN or the dtype is packed */
    uint64_t ulp;      /* float: ULP distance; integer: |A - B| */
    int64_t nan_pairs; /* VALUE: of the differing elements, those where both sides hold a NaN */
} trn_diff_found;

/* A copy of what the instruction st describes (just completed by s,
 * trn_sim_step) left in its output operands and its core's registers, so
 * two runs whose cores finish instructions in another order can still be
 * compared instruction by instruction. NULL with a message on failure. */
typedef struct trn_diff_snap trn_diff_snap;
trn_diff_snap *trn_diff_snap_take(trn_sim *s, const trn_step *st, trn_error *e);
void trn_diff_snap_free(trn_diff_snap *d);
const trn_step *trn_diff_snap_step(const trn_diff_snap *d);
size_t trn_diff_snap_size(const trn_diff_snap *d); /* bytes of operand data held */
/* Whether both are the same execution (core, stream index, instruction). */
bool trn_diff_snap_same(const trn_diff_snap *a, const trn_diff_snap *b);
/* The differing operands of two snapshots of one execution (s, either
 * side, names the tensors): fills up to cap entries of out, returns how
 * many differ. */
int trn_diff_snap_compare(const trn_sim *s, const trn_diff_snap *a, const trn_diff_snap *b,
                          trn_diff_found *out, int cap);

/* Every tensor of every core after both runs ended; as above. */
int trn_diff_tensors(trn_sim *a, trn_sim *b, trn_diff_found *out, int cap, trn_error *e);

/* The instruction's opcode name and family in s ("?" / "-" without one). */
const char *trn_diff_opname(const trn_sim *s, const trn_inst *in);
const char *trn_diff_family(const trn_sim *s, const trn_inst *in);

/* Bits of an element of dtype dt as an integer, and its ULP distance to
 * another (false: a NaN or a packed dtype). */
bool trn_diff_ulp(int dtype, uint64_t a, uint64_t b, uint64_t *ulp);

/* --trace and --timeline in a distributed (MPI) run (docs/observability.md,
 * "In an MPI run"): each process writes the records of its own cores, with
 * the ordinary writers, into a private file that has no name on disk; after
 * the run rank 0 gathers every process's file through the transport and
 * writes the one requested file: the trace's records process after process
 * under one header and one end record, the timeline's events on one track
 * per core with every process's clock moved onto rank 0's. The file goes
 * through the one guard for every file trnsim writes (common/common.h). */

#include <stdbool.h>
#include <stdint.h>

typedef enum trn_dist_obs_kind { TRN_DIST_TRACE, TRN_DIST_TIMELINE } trn_dist_obs_kind;

typedef struct trn_dist_obs trn_dist_obs;

/* Before the run, on every process: the private part file (its path, for
 * the writer to open: trn_dist_obs_part_path), and on rank 0 the hidden
 * temporary beside `path` ("-": standard error, no temporary). limit: the
 * trace's --trace-limit (0: none). An error names the option and the path,
 * as the single-process writers do. */
int trn_dist_obs_open(trn_sim *s, trn_dist_obs_kind kind, const char *path, uint64_t limit,
                      trn_dist_obs **out, trn_error *e);
const char *trn_dist_obs_part_path(const trn_dist_obs *o);
/* The writer opened its part: the part's name goes now, so that nothing is
 * left on disk however the process ends (the file stays open here). */
void trn_dist_obs_forget_name(trn_dist_obs *o);

/* After the writer closed its part; every process calls it at the same
 * point. Rank 0 writes the merged file to its temporary (run_failed: the
 * trace's end record says "error"). -1 (with a message naming the file)
 * when this process could not read its part or rank 0 could not write. */
int trn_dist_obs_merge(trn_sim *s, trn_dist_obs *o, bool run_failed, trn_error *e);
/* Rank 0: the temporary renamed onto the target (nothing for "-"). */
int trn_dist_obs_commit(trn_dist_obs *o, trn_error *e);
/* Removes what is left (an uncommitted temporary) and frees; NULL: nothing. */
void trn_dist_obs_close(trn_dist_obs *o);

/* The lockstep loop (lockstep.c) shared by `trnsim diff` and `trnsim
 * conform`: both simulators have the program loaded and their run started
 * (trn_sim_run_start); each is stepped in turn, every execution both
 * completed is compared, and after the run every tensor. */
#define TRN_LOCKSTEP_MAX_FOUND 64 /* differing operands reported per instruction */

typedef struct trn_lockstep_report {
    void *arg;
    /* n operands of st differ (st NULL: tensors after the run); f holds the
     * first min(n, TRN_LOCKSTEP_MAX_FOUND) */
    void (*found)(void *arg, const trn_step *st, const trn_diff_found *f, int n);
    /* The two runs did not complete the same instructions. */
    void (*diverged)(void *arg, const char *what);
    /* Optional: whether st's opcode leaves a NaN's payload and sign open
     * (a module's documented *.unpinned_nan_payload quirk). Its outputs then
     * compare NaN equal to any NaN; such instructions are counted in
     * trn_lockstep.nan_payload_only, and so are the run's final tensors when
     * their only differences are NaN against NaN after one. */
    bool (*nan_payload_open)(void *arg, const trn_step *st);
} trn_lockstep_report;

typedef struct trn_lockstep {
    trn_sim *sim[2];
    const char *label[2]; /* how an error names each side: "A (LABEL)" */
    bool keep_going;      /* false: stop at the first differing instruction */
    trn_lockstep_report report;
    uint64_t compared;         /* instructions both completed */
    uint64_t differing;        /* of them, with a difference */
    uint64_t nan_payload_only; /* of them, differing only in NaN payloads left open */
    int failed_side;           /* after -1: the side whose instruction failed, or -1 */
} trn_lockstep;

/* 0: identical, 1: a difference (reported), -1: an error in e. */
int trn_lockstep_run(trn_lockstep *l, trn_error *e);

#endif
