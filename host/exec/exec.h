#ifndef TRNSIM_HOST_EXEC_EXEC_H
#define TRNSIM_HOST_EXEC_EXEC_H

/* What --stats reports: per opcode the instructions, skips, time, output
 * elements and the NaN / Inf they produced; bytes each memory gave and
 * took through the host API; and per collective instruction a line in
 * nccl-tests' style (docs/cli.md, "Statistics"). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/common.h"
#include "trnsim/plugin.h"

/* One collective instruction of the program, over its executions. */
typedef struct trn_coll_stat {
    uint64_t number;     /* the instruction's number */
    const char *kind;    /* "AllReduce", ..., "Send", "Recv" */
    const char *redop;   /* "add", ...; NULL: none */
    uint32_t dtype;      /* trn_dtype of the data */
    uint64_t bytes;      /* nccl-tests' size: the larger of one rank's input and output */
    uint32_t ranks;      /* the group size */
    uint32_t first_core; /* executions are counted on this core */
    uint64_t executions;
    uint64_t completions; /* on every core */
    double seconds;       /* handler time on every core */
    bool checked;         /* a check compared its outputs (trnsim diff) */
    uint64_t wrong;       /* elements the check found differing */
} trn_coll_stat;

typedef struct trn_stats {
    uint64_t count[TRN_IT_MAX + 1];
    uint64_t skipped[TRN_IT_MAX + 1];
    double seconds[TRN_IT_MAX + 1];
    uint64_t elements[TRN_IT_MAX + 1]; /* elements of the outputs of the completed instructions */
    uint64_t nan[TRN_IT_MAX + 1], inf[TRN_IT_MAX + 1]; /* of them, NaN and +-Inf */
    uint64_t bytes_read[3], bytes_written[3];          /* by trn_mem */
    trn_coll_stat *coll;
    size_t n_coll, cap_coll;
} trn_stats;

/* names[it] may be NULL. */
void trn_stats_print(const trn_stats *st, const char *const *names, FILE *out, int json);
/* The collective line of instruction `number`, made when new (NULL: out of memory). */
trn_coll_stat *trn_stats_coll(trn_stats *st, uint64_t number);
/* nccl-tests' bus bandwidth factor of a collective kind over n ranks. */
double trn_stats_busbw_factor(const char *kind, uint32_t n);
void trn_stats_free(trn_stats *st);

/* Budgets that bound what any program or config can cost, each checked
 * before the memory or time is spent (docs/config.md, "Budgets"):
 *   machine.max_bytes              the whole run's memory
 *   machine.max_instruction_bytes  one instruction's operand working memory
 *   --max-instructions, --timeout  the run's execution. */

#include <stdint.h>

#include "program/program.h"
#include "memory/memory.h"

/* Defaults when the config leaves a budget 0. */
uint64_t trn_budget_default_max_bytes(void); /* half of physical memory */
#define TRN_BUDGET_DEFAULT_INSTRUCTION_BYTES (1ull << 30)
/* machine.max_instruction_bytes, or its default. */
uint64_t trn_budget_instruction_limit(const trn_machine *m);
/* One AP's element limit (memory/ap.c): an operand above it is refused there. */
#define TRN_BUDGET_AP_MAX_ELEMS (1ull << 30)

/* Working memory an instruction's operands can need: each operand's
 * elements at max(4, width) bytes (an fp32 working copy, or the raw value);
 * for an opcode that streams (TRN_OPF_STREAMS) whose inputs cannot share
 * bytes with its outputs, at most TRN_STREAM_PIECE_BYTES an operand.
 * Refuses an operand over the per-instruction budget, naming it, its element
 * count and the budget. *bytes gets the instruction's total. */
int trn_budget_instruction(const trn_machine *m, const trn_inst *in, bool streams, uint64_t *bytes,
                           trn_error *e);

/* The same in two steps, for a caller that keeps each operand list's sums
 * (they depend only on the list): the sums of one list, then the charge of
 * an instruction from its inputs' and outputs' sums. */
typedef struct trn_budget_sum {
    uint64_t whole;    /* every operand's whole working copy */
    uint64_t streamed; /* every operand's, at most TRN_STREAM_PIECE_BYTES each */
    uint64_t largest;  /* the largest whole working copy */
} trn_budget_sum;
void trn_budget_list(const trn_operand *ops, int n, trn_budget_sum *sum);
int trn_budget_charge(const trn_machine *m, const trn_inst *in, bool streams,
                      const trn_budget_sum sum[2], uint64_t *bytes, trn_error *e);

/* The run's memory: cores x (SBUF + PSUM + HBM + their written-byte maps +
 * registers), the staging of the largest tensor, and the largest
 * instruction's working memory; refused over machine.max_bytes. */
int trn_budget_run(const trn_machine *m, uint32_t cores, uint64_t largest_tensor_bytes,
                   uint64_t scratch_bytes, uint64_t *need, trn_error *e);

/* What modules keep between instructions (host API keep_bytes): *kept
 * changes by delta unless the run's need plus it would pass
 * machine.max_bytes, which is refused, naming both. */
int trn_budget_keep(const trn_machine *m, uint64_t need, uint64_t *kept, int64_t delta,
                    const char *module, trn_error *e);

/* The one-line progress display of a long run on stderr: instructions
 * done of the total, each core's position, elapsed time and ETA
 * (docs/cli.md, "Progress"). The run loop calls trn_progress_tick every
 * TRN_PROGRESS_EVERY + 1 instructions, so a run without a display pays one
 * test of a NULL pointer per instruction. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TRN_PROGRESS_EVERY 1023u /* a power of two minus one: a mask */

typedef struct trn_progress trn_progress;
struct trn_sim;

/* A display for the run of s that is starting, or NULL when there is none:
 * mode 1 shows it when `out` is a terminal and the run has taken more than
 * a second; 2 always (from the start, one line per update when `out` is not
 * a terminal); 0 never. NULL also when out of memory: a display is no
 * reason to fail a run. */
trn_progress *trn_progress_start(struct trn_sim *s, int mode, FILE *out);
void trn_progress_tick(trn_progress *p, uint64_t executed);
/* The last line (when anything was shown, or the display was forced),
 * then free. */
void trn_progress_finish(trn_progress *p, int failed);

/* The host as a library: what the CLI, the benchmark and the tests drive.
 * A trn_sim owns the config, the loaded modules, the sealed dispatch table,
 * one loaded program and the per-core memories. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dist/dist.h"
#include "modules/modules.h"

typedef struct trn_sim trn_sim;

typedef struct trn_sim_opts {
    const char *config_path; /* NULL: the embedded default config */
    const char *config_text; /* used when config_path is NULL and this is non-NULL */
    bool trace;              /* one line per instruction on trace_out */
    bool stats;              /* per-opcode counts and time */
    FILE *trace_out;         /* NULL: stderr */
    const char *module_dir;  /* searched before anything else; NULL: none */
    const char *exe_dir;     /* the executable's (or the library's) directory; NULL: none */
    bool exe_is_library;     /* exe_dir holds libtrnsim: also search exe_dir/trnsim */
    const char *const
        *sets; /* KEY=VALUE overrides (--set) applied in order over the config (docs/config.md) */
    size_t n_sets;
    int format; /* programs' format: 0 from the content, 1 native, 2 BIR (docs/bir.md) */
    uint64_t max_instructions; /* a run stops with an error before instruction N+1; 0: no limit */
    double timeout_seconds;    /* a run stops with an error once this much time passed; 0: none */
    const char *const
        *module_swaps; /* FAMILY=PATH: that family's module loaded from PATH instead */
    size_t n_module_swaps;
    int progress; /* progress line on stderr: 0 never, 1 when stderr is a terminal, 2 always */
} trn_sim_opts;

/* Read the config, load and validate every module, seal dispatch.
 * Every failing call below also says its step in e->kind (error.h). */
int trn_sim_open(trn_sim **out, const trn_sim_opts *opts, trn_error *e);
void trn_sim_close(trn_sim *s);

/* Parse and validate a program (file or text), then place its tensors and
 * give each core fresh memories with the tensors' initial data. */
int trn_sim_load_program(trn_sim *s, const char *path, trn_error *e);
int trn_sim_load_program_text(trn_sim *s, const char *text, const char *name, trn_error *e);
/* A native program's document built in memory (taken: freed with the
 * program, also on failure); name labels messages. */
struct json_t;
int trn_sim_load_program_document(trn_sim *s, struct json_t *root, const char *name, trn_error *e);

/* Raw bytes of a whole tensor in its dtype, C order. core -1 = every core
 * (set) / core 0 (get). Marks the bytes written. */
int trn_sim_set_tensor(trn_sim *s, const char *name, int core, const void *data, size_t bytes,
                       trn_error *e);
int trn_sim_get_tensor(trn_sim *s, const char *name, int core, void *data, size_t bytes,
                       trn_error *e);
/* 0 when every byte of the tensor on core `core` (-1: every core) that
 * this process holds was written; else -1 naming the tensor, the core and
 * its first never-written element (index, coordinates, address). */
int trn_sim_check_written(trn_sim *s, const char *name, int core, trn_error *e);
/* The same, refusing bytes nothing wrote (the message names the element),
 * as an instruction reading them would. */
int trn_sim_get_written_tensor(trn_sim *s, const char *name, int core, void *data, size_t bytes,
                               trn_error *e);
/* As trn_sim_set_tensor, but the tensor's bytes stay in the caller's
 * buffer (memory/memory.h) until it is set or bound again, a run writes
 * into it, the program is replaced or the sim closed; data must stay valid
 * and unchanged that long and be aligned to the dtype's width. A tensor
 * whose rows do not abut in one partition range, or a distributed run, gets
 * a copy instead. */
int trn_sim_bind_tensor(trn_sim *s, const char *name, int core, const void *data, size_t bytes,
                        trn_error *e);
/* Settle the tensor's bindings on core (-1: every core) into simulator memory. */
int trn_sim_unbind_tensor(trn_sim *s, const char *name, int core, trn_error *e);
/* Copy every binding into simulator memory (for readers of raw memory). */
void trn_sim_settle_bindings(trn_sim *s);

/* The same without a caller's buffer: fn(ctx, bytes, len, e) is handed
 * the tensor's own bytes in simulator memory, run by run in C order (one
 * run per partition, or one for partitions laid end to end), and fills
 * them (fill) or reads them (drain). fill on core -1 fills the first core
 * of this process and copies it to the others; a core held by another
 * process (a distributed run) is passed as NULL runs of the same lengths,
 * so a reader can skip its bytes. Filled bytes are marked written. */
typedef int (*trn_sim_span_fn)(void *ctx, uint8_t *bytes, size_t len, trn_error *e);
int trn_sim_fill_tensor(trn_sim *s, const char *name, int core, trn_sim_span_fn fill, void *ctx,
                        trn_error *e);
int trn_sim_drain_tensor(trn_sim *s, const char *name, int core, trn_sim_span_fn drain, void *ctx,
                         trn_error *e);

/* Run the loaded program from its first instruction on every core.
 * Memories keep their contents between runs (the benchmark reruns). */
int trn_sim_run(trn_sim *s, trn_error *e);

/* The same run one instruction at a time, for a lockstep diff of two
 * simulators: trn_sim_run_start, then trn_sim_step until it returns 0 (the
 * run is complete) or -1 (an error, in e); 1 means one instruction
 * completed, described in *out. The cores take the same turns as in
 * trn_sim_run. trn_sim_run_end frees the run's state (also after an error). */
typedef struct trn_step {
    uint32_t core;
    uint64_t index;              /* in the core's stream (loops written out) */
    const struct trn_inst *inst; /* the instruction (program/program.h) */
} trn_step;
int trn_sim_run_start(trn_sim *s, trn_error *e);
int trn_sim_step(trn_sim *s, trn_step *out, trn_error *e);
void trn_sim_run_end(trn_sim *s);

/* --stats: a check (trnsim diff) compared the outputs of the instruction
 * st completed and found `wrong` elements differing; a collective's line
 * then shows them as #wrong. */
void trn_sim_stats_checked(trn_sim *s, const trn_step *st, uint64_t wrong);

/* Run hooks: a folder above exec/ takes over parts of a run (dump/:
 * dumps and restore) without exec/ calling up into it. exec/ tests s->hooks
 * on the slow path of the run loop only, so a plain run does not pay for it. */
typedef struct trn_run_hooks {
    /* Before an attempt on core c: 0 go on, 1 stop the run here, -1 error. */
    int (*before)(trn_sim *s, uint32_t core, trn_error *e);
    /* The handler of attempt `attempt` (0-based) failed. */
    void (*failed)(trn_sim *s, uint64_t attempt);
    /* A whole run (trn_sim_run), in place of the plain loop. */
    int (*run)(trn_sim *s, trn_error *e);
    /* The simulator closes: free hooks_state. */
    void (*free)(trn_sim *s);
} trn_run_hooks;
/* Install hooks and their state (NULL, NULL: none). */
void trn_sim_set_hooks(trn_sim *s, const trn_run_hooks *hooks, void *state);
void *trn_sim_hooks_state(const trn_sim *s);

/* Distributed runs (a transport module, e.g. MPI: docs/mpi.md). Each
 * process runs its own cores; every call below is made by every process in
 * the same order. Without a transport they do nothing.
 * trn_sim_is_root: whether this process writes outputs and prints (rank 0).
 * trn_sim_agree: every process's rc; returns -1 when any failed, with the
 *   message to print in e on rank 0 and an empty message elsewhere.
 * trn_sim_gather_tensor: the tensor of core `core` (-1: every core) copied
 *   to rank 0, where trn_sim_get_tensor then reads it. */
bool trn_sim_is_root(const trn_sim *s);
bool trn_sim_is_distributed(const trn_sim *s); /* more than one process */
/* A transport module is configured (one process of a distributed run, or
 * the only one). */
bool trn_sim_has_transport(const trn_sim *s);
/* The processes of a distributed run (1 otherwise). */
uint32_t trn_sim_ranks(const trn_sim *s);
/* Every process's `bytes` bytes, in rank order, to every process (a
 * distributed run; a collective call of all of them). */
int trn_sim_allgather(trn_sim *s, const void *mine, void *all, size_t bytes, trn_error *e);
int trn_sim_agree(trn_sim *s, int rc, trn_error *e);
/* A distributed run whose agreements so far all came back (a failed run
 * included): the processes can still move data to rank 0. */
bool trn_sim_dist_healthy(const trn_sim *s);
/* The processes the run is spread over (dist/dist.h), for the observers'
 * merge of every process's records; when this process's run began. */
trn_dist *trn_sim_dist(trn_sim *s);
const trn_dist *trn_sim_dist_c(const trn_sim *s);
uint64_t trn_sim_run_started_ns(const trn_sim *s);
int trn_sim_gather_tensor(trn_sim *s, const char *name, int core, trn_error *e);

/* A tensor of the loaded program. */
typedef struct trn_tensor_info {
    const char *name;
    int dtype; /* trn_dtype */
    int ndim;
    const int64_t *shape;
    int64_t count;
} trn_tensor_info;

int trn_sim_tensor_info(const trn_sim *s, const char *name, trn_tensor_info *out, trn_error *e);
/* The loaded program's tensors in declaration order (0 without a program). */
int trn_sim_tensor_count(const trn_sim *s);
int trn_sim_tensor_at(const trn_sim *s, int index, trn_tensor_info *out, trn_error *e);
/* The file the config was read from, or how it was given. */
const char *trn_sim_config_file(const trn_sim *s);
uint32_t trn_sim_cores(const trn_sim *s);
/* Instructions one core executes (loops multiplied out), 0 with no program. */
uint64_t trn_sim_executions(const trn_sim *s);
const char *trn_sim_program_path(const trn_sim *s);

/* Register one of the host's own observers (plugin.h, ABI 3: the trace,
 * the timeline, a lockstep diff): desc and state must outlive the sim or
 * the next trn_sim_remove_observer. They run after the modules' observers,
 * in the order added. */
int trn_sim_add_observer(trn_sim *s, const trn_observer_desc *desc, void *state, trn_error *e);
void trn_sim_remove_observer(trn_sim *s, const trn_observer_desc *desc, void *state);

/* What the folders above exec/ (observers, reports, the embedding API)
 * read of a simulator, instead of its fields (sim_info.c). */
const trn_program *trn_sim_program(const trn_sim *s);   /* NULL: none loaded */
const trn_registry *trn_sim_registry(const trn_sim *s); /* the modules and the IT table */
/* An opcode name to its IT, loaded or known; -1 with a "did you mean". */
int trn_sim_resolve_opcode(const trn_sim *s, const char *name, uint32_t *it, trn_error *e);
const trn_stats *trn_sim_stats(const trn_sim *s);
const trn_config *trn_sim_config(const trn_sim *s);
const trn_core_state *trn_sim_core_state(const trn_sim *s, uint32_t core);
/* Every core's memories, every byte readable (the comparisons of diff). */
trn_ap_env trn_sim_env(const trn_sim *s);
/* Output k of the instruction st completed, as the host API resolved it
 * for the handler. */
int trn_sim_step_output(trn_sim *s, const trn_step *st, int k, trn_ap *out, trn_error *e);

#endif
