/* The transport table the host calls (trn_transport_desc): MPI start-up
 * and shut-down, idling, the allgather of the program check, agreeing on
 * every rank's status, and output tensors to rank 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

trn_status cmpi_init(coll_state *st, const trn_host_api *api, const trn_settings *s, char *err, size_t errlen) {
    cmpi *m = calloc(1, sizeof *m);
    if (!m) return trn_fail(err, errlen, "out of memory");
    const char *reduce = "exact";
    api->setting_string(s, "mpi_reduce", &reduce);
    api->setting_float(s, "mpi_timeout", &m->timeout);
    m->reduce = strcmp(reduce, "native") == 0 ? CMPI_REDUCE_NATIVE : CMPI_REDUCE_EXACT;
    m->comm = MPI_COMM_NULL;
    m->win = MPI_WIN_NULL;
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
        int who;
        MPI_Recv(&who, 1, MPI_INT, s.MPI_SOURCE, CMPI_TAG_ABORT, m->comm, MPI_STATUS_IGNORE);
    }
}

void cmpi_fini(coll_state *st) {
    cmpi *m = st->remote;
    if (!m) return;
    if (m->comm != MPI_COMM_NULL) {
        cmpi_drop_all(m);
        drain(m);
        cmpi_rma_close(m);
        MPI_Comm_free(&m->comm);
    }
    int done = 0;
    MPI_Finalized(&done);
    if (m->we_initialised && !done) MPI_Finalize();
    free(m->live);
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

static trn_status attach(void *state, trn_transport_info *info, char *err, size_t errlen) {
    cmpi *m = of(state);
    int up = 0;
    MPI_Initialized(&up);
    if (!up && !launched_by_mpi()) { /* plain `trnsim run`: one process, every core here, no MPI at all */
        info->rank = 0;
        info->ranks = 1;
        info->timeout = m->timeout;
        m->ranks = 1;
        return TRN_OK;
    }
    if (!up) {
        int provided, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
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
    if (cmpi_someone_failed(m)) return trn_fail(err, errlen, "stopped: MPI process %d failed", m->failed_rank);
    if (!moved) cmpi_pause(m);
    return TRN_OK;
}

static trn_status allgather(void *state, const void *mine, void *all, size_t bytes, char *err, size_t errlen) {
    cmpi *m = of(state);
    cmpi_reqs r = {0};
    int rc = 0;
    memcpy((char *)all + (size_t)m->rank * bytes, mine, bytes);
    for (int p = 0; p < m->ranks && rc == 0; ++p)
        if (p != m->rank)
            rc = cmpi_irecv(m, &r, (char *)all + (size_t)p * bytes, bytes, p, CMPI_TAG_ALLGATHER) ||
                 cmpi_isend(m, &r, mine, bytes, p, CMPI_TAG_ALLGATHER);
    if (rc) snprintf(err, errlen, "out of memory");
    else rc = cmpi_wait(m, &r, m->timeout, true, "checking that every process runs the same program", err, errlen);
    if (rc && !m->quiet_failure) cmpi_reqs_cancel(&r);
    cmpi_reqs_free(&r);
    return rc ? TRN_ERR : TRN_OK;
}

/* A rank that failed on its own tells every other rank at once, so that
 * none of them waits for it until its timeout. */
static void announce_failure(cmpi *m) {
    for (int p = 0; p < m->ranks; ++p) {
        if (p == m->rank) continue;
        MPI_Request q;
        MPI_Isend(&m->rank, 1, MPI_INT, p, CMPI_TAG_ABORT, m->comm, &q);
        MPI_Request_free(&q);
    }
}

/* Rank 0 picks the message: the lowest rank that failed on its own (not
 * merely because another one did). */
static void choose(cmpi *m, const status_msg *all, int *failed, char *msg, size_t len) {
    int pick = -1;
    for (int p = 0; p < m->ranks; ++p)
        if (all[p].failed && (pick < 0 || (all[pick].quiet && !all[p].quiet))) pick = p;
    *failed = pick >= 0;
    if (pick < 0) msg[0] = 0;
    else if (m->ranks > 1) snprintf(msg, len, "MPI process %d: %s", pick, all[pick].msg);
    else snprintf(msg, len, "%s", all[pick].msg);
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
    cmpi_reqs r = {0};
    int verdict = 0, rc = 0;
    double patience = 2 * m->timeout + 5; /* a stuck rank hits its own timeout first */
    char err[512] = "";
    if (m->rank == 0) {
        all[0] = *mine;
        for (int p = 1; p < m->ranks && rc == 0; ++p) rc = cmpi_irecv(m, &r, &all[p], sizeof *all, p, CMPI_TAG_STATUS);
        if (rc == 0) rc = cmpi_wait(m, &r, patience, false, "collecting every process's status", err, sizeof err);
        if (rc == 0) {
            choose(m, all, &verdict, msg, len);
            cmpi_reqs_free(&r);
            for (int p = 1; p < m->ranks && rc == 0; ++p) rc = cmpi_isend(m, &r, &verdict, sizeof verdict, p, CMPI_TAG_VERDICT);
            if (rc == 0) rc = cmpi_wait(m, &r, patience, false, "sending the verdict", err, sizeof err);
        }
    } else {
        rc = cmpi_isend(m, &r, mine, sizeof *mine, 0, CMPI_TAG_STATUS) ||
             cmpi_irecv(m, &r, &verdict, sizeof verdict, 0, CMPI_TAG_VERDICT);
        if (rc == 0) rc = cmpi_wait(m, &r, patience, false, "waiting for process 0's verdict", err, sizeof err);
        msg[0] = 0;
    }
    cmpi_reqs_free(&r);
    free(mine);
    free(all);
    if (rc) {
        snprintf(msg, len, "%s", err[0] ? err : "out of memory");
        return TRN_ERR;
    }
    *failed = verdict;
    m->quiet_failure = false;
    return TRN_OK;
}

static trn_status to_root(void *state, uint32_t from, void *buf, size_t bytes, char *err, size_t errlen) {
    cmpi *m = of(state);
    if ((int)from == m->rank && m->rank == 0) return TRN_OK;
    cmpi_reqs r = {0};
    int rc = 0;
    if ((int)from == m->rank) rc = cmpi_isend(m, &r, buf, bytes, 0, CMPI_TAG_ROOT);
    else if (m->rank == 0) rc = cmpi_irecv(m, &r, buf, bytes, (int)from, CMPI_TAG_ROOT);
    if (rc) snprintf(err, errlen, "out of memory");
    else rc = cmpi_wait(m, &r, m->timeout, false, "gathering an output", err, errlen);
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
