/* The MPI transport of the collective module (docs/mpi.md,
 * docs/internals/mpi.md): one process per group of M consecutive cores;
 * inside a process the in-process registry, between processes MPI
 * point-to-point messages on a private communicator. Built only when CMake
 * finds MPI, as trnsim-collective-mpi. */
#ifndef COLL_MPI_H
#define COLL_MPI_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../coll.h"
#include "trnsim/plugin.h"

/* Tags on the private communicator. Collective and point-to-point data
 * carry their identity in the tag (cmpi_coll_tag, cmpi_p2p_tag). */
enum {
    CMPI_TAG_ABORT = 1,   /* "I failed": lets the others stop waiting */
    CMPI_TAG_STATUS = 2,  /* agree: each rank's status to rank 0 */
    CMPI_TAG_VERDICT = 3, /* agree: rank 0's verdict to each rank */
    CMPI_TAG_ROOT = 4,    /* to_root: output tensors */
    CMPI_TAG_ALLGATHER = 5,
    CMPI_TAG_DONE = 6,       /* a broken job: rank 0 said its line and is leaving */
    CMPI_TAG_PROGRESS = 7,   /* progress: a rank's executed count to rank 0 */
    CMPI_TAG_P2P = 1 << 20,  /* + src_local * M + dst_local */
    CMPI_TAG_COLL = 1 << 22, /* + (key mod 2^19) * 4 + phase */
};

typedef enum cmpi_reduce { CMPI_REDUCE_EXACT = 0, CMPI_REDUCE_NATIVE = 1 } cmpi_reduce;

/* Requests in flight for one exchange; large buffers go in pieces of at
 * most CMPI_PIECE bytes (MPI counts are ints). */
#define CMPI_PIECE ((size_t)1 << 30)
typedef struct cmpi_reqs {
    MPI_Request *v;
    size_t n, cap;
} cmpi_reqs;

typedef struct cmpi {
    MPI_Comm comm;
    bool we_initialised;
    int rank, ranks;
    uint32_t cores, per; /* cores of the run, cores per process */
    cmpi_reduce reduce;
    double timeout;
    bool quiet_failure;    /* this rank stopped because another failed */
    int failed_rank;       /* that rank */
    bool broken;           /* a process stopped answering: no collective teardown (it would
                            * wait for that process for ever), the job ends without it */
    unsigned char *silent; /* [rank]: that process gave no answer (NULL: none known) */
    int epoch;             /* agreements completed: an abort notice of an earlier one is stale */
    int abort_msg[2];      /* this rank's notice: {rank, epoch} (sent without waiting) */
    uint64_t native_reductions; /* fast-mode folds this run (reported once) */
    bool native_noted;
    uint64_t idle_spins;
    /* exchanges that may still have requests in flight when a run fails */
    struct cmpi_op **live;
    size_t n_live, cap_live;
    /* remote DMA (cmpi_rma.c): the dynamic window, this process's attached
     * regions and every process's region addresses [rank][region] */
    MPI_Win win;
    void **attached;
    MPI_Aint *bases;
    uint32_t n_regions;
    /* the progress display's counts (cmpi_progress.c): rank 0's newest of
     * each rank (heard, finals), a rank's offers still under way */
    uint64_t *heard_count;
    unsigned char *heard, *heard_final;
    uint64_t offer[4];
    MPI_Request offer_req[4];
    /* large buffers kept between exchanges (no page faults per operation) */
    struct {
        void *p;
        size_t cap;
    } pool[8];
} cmpi;

/* A buffer of at least `bytes` from the pool (or new), and back. */
void *cmpi_buf_get(cmpi *m, size_t bytes, size_t *cap);
void cmpi_buf_put(cmpi *m, void *p, size_t cap);
void cmpi_pool_free(cmpi *m);
/* Poll the tracked exchanges for up to `budget` seconds: true as soon as
 * one of them can move on. */
bool cmpi_poll(cmpi *m, double budget);

/* The transport's progress call (cmpi_progress.c), and what is left of it
 * at the end: offers not yet received (rank 0), offers under way (others). */
trn_status cmpi_progress(void *state, uint64_t mine, int final, uint64_t *total, char *err,
                         size_t errlen);
void cmpi_progress_close(cmpi *m);

/* The module's descriptor pieces (coll_plugin.c). */
extern const trn_transport_desc cmpi_transport;
extern const coll_remote_ops cmpi_remote_ops;
trn_status cmpi_init(coll_state *st, const trn_host_api *api, const trn_settings *s, char *err,
                     size_t errlen);
void cmpi_fini(coll_state *st);
void cmpi_run_begin(coll_state *st, uint32_t cores);

/* Remote memory (cmpi_rma.c): the window is created at attach (every
 * process, collectively) and freed at fini; the transport's ABI 3 calls. */
int cmpi_rma_open(cmpi *m);
void cmpi_rma_close(cmpi *m);
trn_status cmpi_expose(void *state, const trn_region *mine, uint32_t n, char *err, size_t errlen);
trn_status cmpi_remote_begin(void *state, uint32_t rank, int exclusive, char *err, size_t errlen);
trn_status cmpi_remote_get(void *state, uint32_t rank, uint32_t region, const trn_extent *x,
                           size_t n, void *local, char *err, size_t errlen);
trn_status cmpi_remote_put(void *state, uint32_t rank, uint32_t region, const trn_extent *x,
                           size_t n, const void *local, char *err, size_t errlen);
trn_status cmpi_remote_end(void *state, uint32_t rank, char *err, size_t errlen);

/* Requests (cmpi_reqs.c). Posting fails only when out of memory. */
int cmpi_isend(cmpi *m, cmpi_reqs *r, const void *buf, size_t bytes, int peer, int tag);
int cmpi_irecv(cmpi *m, cmpi_reqs *r, void *buf, size_t bytes, int peer, int tag);
bool cmpi_test(cmpi_reqs *r);         /* all complete? */
MPI_Request *cmpi_slot(cmpi_reqs *r); /* room for one more request, NULL when out of memory */
void cmpi_reqs_cancel(cmpi_reqs *r);  /* a failed run: let go of what is in flight */
void cmpi_reqs_free(cmpi_reqs *r);
/* Wait for all of r, at most `timeout` seconds, giving the CPU away while
 * waiting. abort_aware: stop early when another rank says it failed. 0, or
 * -1 with a message. */
int cmpi_wait(cmpi *m, cmpi_reqs *r, double timeout, bool abort_aware, const char *what, char *err,
              size_t errlen);
/* Another rank sent CMPI_TAG_ABORT? Sets quiet_failure / failed_rank. */
bool cmpi_someone_failed(cmpi *m);
void cmpi_pause(cmpi *m);
double cmpi_now(void); /* seconds, monotonic */

static inline int cmpi_owner(const cmpi *m, uint32_t core) { return (int)(core / m->per); }
static inline int cmpi_coll_tag(uint64_t key, int phase) {
    return CMPI_TAG_COLL + (int)((key % (1u << 19)) * 4u) + phase;
}

/* An exchange in flight (a collective or a point-to-point side). Tracked
 * so that a run that ends early cancels its requests and frees it. */
typedef struct cmpi_op cmpi_op;
struct cmpi_op {
    cmpi_reqs reqs;
    /* Drive it (called by the core that owns it, whenever the host runs
     * that core): TRN_WAIT while in flight, TRN_OK when complete (the
     * exchange is then finished with and freed), TRN_ERR on error. */
    trn_status (*step)(cmpi_op *op, const trn_host_api *api, trn_ctx *ctx);
    void (*destroy)(cmpi_op *op);
    /* Would step() get further now? (Drives MPI's progress; idle polls it.) */
    bool (*ready)(cmpi_op *op);
};
void cmpi_track(cmpi *m, cmpi_op *op);
void cmpi_untrack(cmpi *m, cmpi_op *op);
void cmpi_drop_all(cmpi *m); /* cancel and free every tracked exchange */

/* The fast mode's reduction (cmpi_native.c) over a group of every core:
 * this process's members' inputs folded in position order, then
 * MPI_Allreduce / MPI_Reduce_scatter_block, on lent memory where it can. */
typedef struct cmpi_native {
    const trn_host_api *api;
    trn_ctx *ctx;
    cmpi *m;
    int64_t op;          /* COLL_OP_* */
    bool scatter;        /* ReduceScatter, else AllReduce */
    int64_t e;           /* elements per input */
    uint32_t n;          /* party size (every core) */
    coll_record **local; /* this process's members, in position order */
    uint32_t nl;
} cmpi_native;
trn_status cmpi_native_reduce(const cmpi_native *job);

/* Cross-process CollectiveCompute (cmpi_compute.c) and Send / Recv
 * (cmpi_p2p.c). */
trn_status cmpi_compute(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_record *rec,
                        const uint32_t *members, uint32_t n, const uint32_t *src_of);
trn_status cmpi_p2p(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_record *rec,
                    bool send);
trn_status cmpi_resume(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_core *me);

#endif
