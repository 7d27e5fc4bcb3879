/* The transport table the host calls (trn_transport_desc): MPI start-up
 * and shut-down, idling, the allgather of the program check, agreeing on
 * every rank's status, and output tensors to rank 0. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmpi.h"

#define STATUS_MSG 1024

typedef struct status_msg {
    int failed, quiet;
    char msg[STATUS_MSG];
} status_msg;

static cmpi *of(void *state) { return ((coll_state *)state)->remote; }

static void mpi_text(int code, char *buf, size_t len) {
    char t[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(code, t, &n);
    snprintf(buf, len, "%.*s", n, t);
}

trn_status cmpi_init(coll_state *st, const trn_host_api *api, const trn_settings *s, char *err,
                     size_t errlen) {
    cmpi *m = calloc(1, sizeof *m);
    if (!m) return trn_fail(err, errlen, "out of memory");
    const char *reduce = "exact";
    api->setting_string(s, "mpi_reduce", &reduce);
    api->setting_float(s, "mpi_timeout", &m->timeout);
    m->reduce = strcmp(reduce, "native") == 0 ? CMPI_REDUCE_NATIVE : CMPI_REDUCE_EXACT;
    m->comm = MPI_COMM_NULL;
    m->win = MPI_WIN_NULL;
    for (size_t i = 0; i < sizeof m->offer_req / sizeof m->offer_req[0]; ++i)
        m->offer_req[i] = MPI_REQUEST_NULL;
    st->remote = m;
    st->remote_ops = &cmpi_remote_ops;
    return TRN_OK;
}

/* Messages nobody will read any more (abort notices that crossed the
 * agreement) are received, so that MPI_Finalize finds nothing pending. */
static void drain(cmpi *m) {
    for (;;) {
        int flag = 0;
        MPI_Status s;
        MPI_Iprobe(MPI_ANY_SOURCE, CMPI_TAG_ABORT, m->comm, &flag, &s);
        if (!flag) return;
        int notice[2];
        MPI_Recv(notice, 2, MPI_INT, s.MPI_SOURCE, CMPI_TAG_ABORT, m->comm, MPI_STATUS_IGNORE);
    }
}

/* A broken job ends at the first process that exits (mpirun stops the
 * rest): so every process that still answers tells every other one that it
 * has said its line, and leaves once they all have (or after 2 s). */
static void leave_broken(cmpi *m) {
    static int token;
    cmpi_reqs r = {0};
    char err[256];
    for (int p = 0; p < m->ranks; ++p) {
        if (p == m->rank || (m->silent && m->silent[p])) continue;
        MPI_Request q;
        MPI_Isend(&token, 1, MPI_INT, p, CMPI_TAG_DONE, m->comm, &q);
        MPI_Request_free(&q);
    }
    int *from = calloc((size_t)m->ranks, sizeof *from);
    for (int p = 0; from && p < m->ranks; ++p)
        if (p != m->rank && !(m->silent && m->silent[p]))
            cmpi_irecv(m, &r, &from[p], sizeof from[p], p, CMPI_TAG_DONE);
    cmpi_wait(m, &r, 2.0, false, "", err, sizeof err);
    cmpi_reqs_free(&r);
    free(from);
}

void cmpi_fini(coll_state *st) {
    cmpi *m = st->remote;
    if (!m) return;
    /* A silent process would hold every collective call below (the
     * window's free, the communicator's, MPI_Finalize) for ever: skip them;
     * the process then exits without finalising, and mpirun ends the job,
     * the silent process with it (docs/mpi.md, "A silent process"). */
    if (m->broken && m->comm != MPI_COMM_NULL) leave_broken(m);
    if (m->broken) m->comm = MPI_COMM_NULL, m->we_initialised = false;
    if (m->comm != MPI_COMM_NULL) {
        cmpi_drop_all(m);
        cmpi_progress_close(m);
        drain(m);
        cmpi_rma_close(m);
        MPI_Comm_free(&m->comm);
    }
    int done = 0;
    MPI_Finalized(&done);
    if (m->we_initialised && !done) MPI_Finalize();
    cmpi_progress_close(m); /* a broken job: only the memory */
    free(m->live);
    free(m->silent);
    cmpi_pool_free(m);
    free(m);
    st->remote = NULL;
}

void cmpi_run_begin(coll_state *st, uint32_t cores) {
    cmpi *m = st->remote;
    cmpi_drop_all(m);
    m->cores = cores;
    m->per = m->ranks ? cores / (uint32_t)m->ranks : cores;
    if (!m->per) m->per = 1;
    m->native_reductions = 0; /* the note on native mode stays once per process */
}

/* Started by mpirun / mpiexec (Open MPI, or a PMI launcher such as MPICH's
 * Hydra or Slurm)? */
static bool launched_by_mpi(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
        if (getenv(vars[i])) return true;
    return false;
}

/* Start-up: MPI_Init returns only when every process of the job has
 * joined, and one that never does (stopped, or started by mpirun without
 * the MPI config) would hold the others there for ever, where no error can
 * be returned. So a watchdog thread says so and ends this process after
 * mpi_timeout; mpirun then ends the job (docs/mpi.md, "A silent process"). */
typedef struct init_watch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    double timeout;
} init_watch;

static void *watch_init(void *arg) {
    init_watch *w = arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)w->timeout;
    until.tv_nsec += (long)((w->timeout - (double)(time_t)w->timeout) * 1e9);
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&w->mu);
    int rc = 0;
    while (!w->done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&w->cv, &w->mu, &until);
    bool late = !w->done;
    pthread_mutex_unlock(&w->mu);
    if (!late) return NULL;
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank) rank = getenv("PMIX_RANK");
    if (!rank) rank = getenv("PMI_RANK");
    char line[400];
    int n = snprintf(line, sizeof line,
                     "trnsim: MPI process %s: MPI did not start within %g s "
                     "(collective.mpi_timeout): a process of the job never joined (stopped, or "
                     "started without --config config/mpi.cfg); the job ends\n",
                     rank ? rank : "?", w->timeout);
    ssize_t ignored = write(2, line, (size_t)n);
    (void)ignored;
    _exit(1); /* MPI_Abort needs MPI started; nothing of this process's is written yet */
}

static int init_watched(cmpi *m, int *provided) {
    init_watch w = {.done = false, .timeout = m->timeout};
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    pthread_t t;
    bool watching = pthread_create(&t, NULL, watch_init, &w) == 0;
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, provided);
    if (watching) {
        pthread_mutex_lock(&w.mu);
        w.done = true;
        pthread_cond_signal(&w.cv);
        pthread_mutex_unlock(&w.mu);
        pthread_join(t, NULL);
    }
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    return rc;
}

static trn_status attach(void *state, trn_transport_info *info, char *err, size_t errlen) {
    cmpi *m = of(state);
    int up = 0;
    MPI_Initialized(&up);
    if (!up &&
        !launched_by_mpi()) { /* plain `trnsim run`: one process, every core here, no MPI at all */
        info->rank = 0;
        info->ranks = 1;
        info->timeout = m->timeout;
        m->ranks = 1;
        return TRN_OK;
    }
    if (!up) {
        int provided, rc = init_watched(m, &provided);
        if (rc != MPI_SUCCESS) {
            char t[256];
            mpi_text(rc, t, sizeof t);
            return trn_fail(err, errlen, "MPI_Init failed: %s", t);
        }
        m->we_initialised = true;
    }
    /* a private communicator: the simulator's messages never meet another
     * library's in the same process */
    MPI_Comm_dup(MPI_COMM_WORLD, &m->comm);
    MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->ranks);
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(m->comm, MPI_TAG_UB, &ub, &flag);
    if (flag && *ub < CMPI_TAG_COLL + (1 << 21))
        return trn_fail(err, errlen, "this MPI allows tags up to %d, the transport needs %d", *ub,
                        CMPI_TAG_COLL + (1 << 21));
    info->rank = (uint32_t)m->rank;
    info->ranks = (uint32_t)m->ranks;
    info->timeout = m->timeout;
    if (m->ranks > 1) cmpi_rma_open(m); /* collective: every process, here */
    return TRN_OK;
}

/* The cores wait for exchanges: drive MPI until one of them can move on
 * (MPI progresses only inside its calls), yielding the CPU between polls;
 * back to the host at least every few milliseconds for its timeout. */
static trn_status idle(void *state, char *err, size_t errlen) {
    cmpi *m = of(state);
    bool moved = m->n_live ? cmpi_poll(m, 0.005) : false;
    if (cmpi_someone_failed(m))
        return trn_fail(err, errlen, "stopped: MPI process %d failed", m->failed_rank);
    if (!moved) cmpi_pause(m);
    return TRN_OK;
}

static trn_status allgather(void *state, const void *mine, void *all, size_t bytes, char *err,
                            size_t errlen) {
    cmpi *m = of(state);
    cmpi_reqs r = {0};
    int rc = 0;
    memcpy((char *)all + (size_t)m->rank * bytes, mine, bytes);
    for (int p = 0; p < m->ranks && rc == 0; ++p)
        if (p != m->rank)
            rc = cmpi_irecv(m, &r, (char *)all + (size_t)p * bytes, bytes, p, CMPI_TAG_ALLGATHER) ||
                 cmpi_isend(m, &r, mine, bytes, p, CMPI_TAG_ALLGATHER);
    if (rc)
        snprintf(err, errlen, "out of memory");
    else
        rc = cmpi_wait(m, &r, m->timeout, true, "checking that every process runs the same program",
                       err, errlen);
    if (rc && !m->quiet_failure) cmpi_reqs_cancel(&r);
    cmpi_reqs_free(&r);
    return rc ? TRN_ERR : TRN_OK;
}

/* A rank that failed on its own tells every other rank at once, so that
 * none of them waits for it until its timeout. */
static void announce_failure(cmpi *m) {
    m->abort_msg[0] = m->rank;
    m->abort_msg[1] = m->epoch;
    for (int p = 0; p < m->ranks; ++p) {
        if (p == m->rank) continue;
        MPI_Request q;
        MPI_Isend(m->abort_msg, 2, MPI_INT, p, CMPI_TAG_ABORT, m->comm, &q);
        MPI_Request_free(&q);
    }
}

/* Every process failed with the same message: a failure of the whole job
 * (the processes disagree on the run, or share a bad option; each saw it),
 * which names the processes it is about itself. Whether a process's
 * failure counts as its own then only says whose announcement came first. */
static bool job_wide(const cmpi *m, const status_msg *all) {
    for (int p = 0; p < m->ranks; ++p)
        if (!all[p].failed || strcmp(all[p].msg, all[0].msg)) return false;
    return true;
}

/* Rank 0 picks the message: the lowest rank that failed on its own (not
 * merely because another one did), prefixed with that rank unless the
 * failure is the whole job's. */
static void choose(cmpi *m, const status_msg *all, int *failed, char *msg, size_t len) {
    int pick = -1;
    for (int p = 0; p < m->ranks; ++p)
        if (all[p].failed && (pick < 0 || (all[pick].quiet && !all[p].quiet))) pick = p;
    *failed = pick >= 0;
    if (pick < 0)
        msg[0] = 0;
    else if (m->ranks > 1 && !job_wide(m, all))
        snprintf(msg, len, "MPI process %d: %s", pick, all[pick].msg);
    else
        snprintf(msg, len, "%s", all[pick].msg);
}

/* Process 0's answer: 0 every process succeeded, 1 one failed (its
 * message is process 0's), 2 some process gave no status in time (named in
 * silent): the job ends. */
typedef struct verdict_msg {
    int verdict;
    char silent[256];
} verdict_msg;

/* Waits for each rank's own request set; `answered[p]` says who made it. */
static void wait_each(cmpi *m, cmpi_reqs *rr, bool *answered, double timeout) {
    double t0 = cmpi_now();
    bool all;
    do {
        all = true;
        for (int p = 1; p < m->ranks; ++p) {
            if (!answered[p]) answered[p] = cmpi_test(&rr[p]);
            all = all && answered[p];
        }
        if (!all) cmpi_pause(m);
    } while (!all && cmpi_now() - t0 <= timeout);
}

static void name_silent(cmpi *m, const bool *answered, char *out, size_t len) {
    size_t n = 0;
    out[0] = 0;
    for (int p = 1; p < m->ranks && n < len; ++p)
        if (!answered[p]) {
            int w = snprintf(out + n, len - n, "%s%d", n ? ", " : "", p);
            if (w > 0) n += (size_t)w;
        }
}

static void silent_message(cmpi *m, const char *silent, char *msg, size_t len) {
    m->broken = true;
    if (!m->silent) m->silent = calloc((size_t)m->ranks, 1);
    for (const char *p = silent; m->silent && *p;) { /* "1, 3" */
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p) break;
        if (r >= 0 && r < m->ranks) m->silent[r] = 1;
        p = end + strspn(end, ", ");
    }
    snprintf(msg, len,
             "MPI process %d: no answer from MPI process%s %s within %g s "
             "(collective.mpi_timeout); the job ends without %s",
             m->rank, strchr(silent, ',') ? "es" : "", silent, m->timeout,
             strchr(silent, ',') ? "them" : "it");
}

/* Rank 0: every status, each within the timeout; then the verdict to every
 * process that answered. */
static int agree_root(cmpi *m, status_msg *all, verdict_msg *v, char *msg, size_t len) {
    cmpi_reqs *rr = calloc((size_t)m->ranks, sizeof *rr);
    bool *answered = calloc((size_t)m->ranks, sizeof *answered);
    int rc = rr && answered ? 0 : -1;
    for (int p = 1; p < m->ranks && rc == 0; ++p)
        rc = cmpi_irecv(m, &rr[p], &all[p], sizeof *all, p, CMPI_TAG_STATUS);
    if (rc == 0) wait_each(m, rr, answered, m->timeout);
    if (rc == 0) name_silent(m, answered, v->silent, sizeof v->silent);
    if (rc == 0 && v->silent[0])
        v->verdict = 2, silent_message(m, v->silent, msg, len);
    else if (rc == 0)
        choose(m, all, &v->verdict, msg, len);
    cmpi_reqs sends = {0};
    for (int p = 1; p < m->ranks && rc == 0; ++p) {
        if (!answered[p])
            cmpi_reqs_cancel(&rr[p]);
        else
            rc = cmpi_isend(m, &sends, v, sizeof *v, p, CMPI_TAG_VERDICT);
    }
    char err[512] = "";
    if (rc == 0 &&
        cmpi_wait(m, &sends, m->timeout, false, "sending the verdict", err, sizeof err)) {
        snprintf(msg, len, "%s", err);
        rc = -1;
    }
    cmpi_reqs_free(&sends);
    for (int p = 0; rr && p < m->ranks; ++p) cmpi_reqs_free(&rr[p]);
    free(rr);
    free(answered);
    if (rc && !msg[0]) snprintf(msg, len, "out of memory");
    return rc == 0 && v->verdict != 2 ? 0 : -1;
}

/* Any other rank: its status to rank 0, and the verdict back, waiting a
 * little longer than rank 0 does, so that a silent third process is named
 * by rank 0's verdict rather than blamed on rank 0. */
static int agree_other(cmpi *m, const status_msg *mine, verdict_msg *v, char *msg, size_t len) {
    cmpi_reqs r = {0};
    char err[512] = "";
    int rc = cmpi_isend(m, &r, mine, sizeof *mine, 0, CMPI_TAG_STATUS) ||
             cmpi_irecv(m, &r, v, sizeof *v, 0, CMPI_TAG_VERDICT);
    if (rc == 0)
        rc = cmpi_wait(m, &r, m->timeout + 1, false, "waiting for process 0's verdict", err,
                       sizeof err);
    cmpi_reqs_free(&r);
    msg[0] = 0;
    if (rc && err[0])
        silent_message(m, "0", msg, len);
    else if (rc)
        snprintf(msg, len, "out of memory");
    else if (v->verdict == 2)
        silent_message(m, v->silent, msg, len);
    return rc == 0 && v->verdict != 2 ? 0 : -1;
}

static trn_status agree(void *state, int *failed, char *msg, size_t len) {
    cmpi *m = of(state);
    status_msg *mine = calloc(1, sizeof *mine);
    status_msg *all = m->rank == 0 ? calloc((size_t)m->ranks, sizeof *all) : NULL;
    if (!mine || (m->rank == 0 && !all)) {
        free(mine);
        snprintf(msg, len, "out of memory");
        return TRN_ERR;
    }
    mine->failed = *failed;
    mine->quiet = *failed && m->quiet_failure;
    snprintf(mine->msg, sizeof mine->msg, "%s", msg);
    if (*failed && !m->quiet_failure) announce_failure(m);
    cmpi_drop_all(m); /* a failed run leaves exchanges behind */
    verdict_msg v = {0};
    int rc;
    if (m->rank == 0) {
        all[0] = *mine;
        rc = agree_root(m, all, &v, msg, len);
    } else {
        rc = agree_other(m, mine, &v, msg, len);
    }
    free(mine);
    free(all);
    if (rc) return TRN_ERR;
    *failed = v.verdict;
    m->quiet_failure = false;
    m->epoch++;
    return TRN_OK;
}

static trn_status to_root(void *state, uint32_t from, void *buf, size_t bytes, char *err,
                          size_t errlen) {
    cmpi *m = of(state);
    if ((int)from == m->rank && m->rank == 0) return TRN_OK;
    cmpi_reqs r = {0};
    int rc = 0;
    if ((int)from == m->rank)
        rc = cmpi_isend(m, &r, buf, bytes, 0, CMPI_TAG_ROOT);
    else if (m->rank == 0)
        rc = cmpi_irecv(m, &r, buf, bytes, (int)from, CMPI_TAG_ROOT);
    if (rc)
        snprintf(err, errlen, "out of memory");
    else
        rc = cmpi_wait(m, &r, m->timeout, false, "gathering an output", err, errlen);
    cmpi_reqs_free(&r);
    return rc ? TRN_ERR : TRN_OK;
}

const trn_transport_desc cmpi_transport = {
    .size = sizeof(trn_transport_desc),
    .attach = attach,
    .idle = idle,
    .allgather = allgather,
    .agree = agree,
    .to_root = to_root,
    .expose = cmpi_expose,
    .remote_begin = cmpi_remote_begin,
    .remote_get = cmpi_remote_get,
    .remote_put = cmpi_remote_put,
    .remote_end = cmpi_remote_end,
    .progress = cmpi_progress,
};

static bool spans(const coll_state *st, const uint32_t *members, uint32_t n) {
    const cmpi *m = st->remote;
    if (m->ranks <= 1) return false;
    for (uint32_t i = 0; i < n; ++i)
        if (cmpi_owner(m, members[i]) != m->rank) return true;
    return false;
}

static bool is_remote(const coll_state *st, uint32_t peer) {
    const cmpi *m = st->remote;
    return m->ranks > 1 && cmpi_owner(m, peer) != m->rank;
}

const coll_remote_ops cmpi_remote_ops = {
    .spans = spans,
    .compute = cmpi_compute,
    .is_remote = is_remote,
    .p2p = cmpi_p2p,
    .resume = cmpi_resume,
};
