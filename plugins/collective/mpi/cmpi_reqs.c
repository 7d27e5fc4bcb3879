/* Nonblocking messages in pieces, and waiting for them without hanging:
 * every wait has a deadline and gives the CPU to the other processes
 * (runs are often oversubscribed: more processes than CPUs). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmpi.h"

MPI_Request *cmpi_slot(cmpi_reqs *r) {
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        MPI_Request *v = realloc(r->v, cap * sizeof *v);
        if (!v) return NULL;
        r->v = v;
        r->cap = cap;
    }
    return &r->v[r->n++];
}

static int post(cmpi *m, cmpi_reqs *r, void *buf, size_t bytes, int peer, int tag, bool send) {
    size_t off = 0;
    do {
        size_t piece = bytes - off < CMPI_PIECE ? bytes - off : CMPI_PIECE;
        MPI_Request *q = cmpi_slot(r);
        if (!q) return -1;
        char *p = (char *)buf + off;
        if (send)
            MPI_Isend(p, (int)piece, MPI_BYTE, peer, tag, m->comm, q);
        else
            MPI_Irecv(p, (int)piece, MPI_BYTE, peer, tag, m->comm, q);
        off += piece;
    } while (off < bytes);
    return 0;
}

int cmpi_isend(cmpi *m, cmpi_reqs *r, const void *buf, size_t bytes, int peer, int tag) {
    return post(m, r, (void *)buf, bytes, peer, tag, true);
}
int cmpi_irecv(cmpi *m, cmpi_reqs *r, void *buf, size_t bytes, int peer, int tag) {
    return post(m, r, buf, bytes, peer, tag, false);
}

bool cmpi_test(cmpi_reqs *r) {
    if (!r->n) return true;
    int flag = 0;
    MPI_Testall((int)r->n, r->v, &flag, MPI_STATUSES_IGNORE);
    return flag != 0;
}

void cmpi_reqs_cancel(cmpi_reqs *r) {
    for (size_t i = 0; i < r->n; ++i) {
        if (r->v[i] == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&r->v[i]);
        MPI_Request_free(&r->v[i]);
    }
    r->n = 0;
}

void cmpi_reqs_free(cmpi_reqs *r) {
    free(r->v);
    *r = (cmpi_reqs){0};
}

bool cmpi_someone_failed(cmpi *m) {
    if (m->quiet_failure) return true;
    int flag = 0;
    MPI_Status s;
    MPI_Iprobe(MPI_ANY_SOURCE, CMPI_TAG_ABORT, m->comm, &flag, &s);
    if (!flag) return false;
    int notice[2];
    MPI_Recv(notice, 2, MPI_INT, s.MPI_SOURCE, CMPI_TAG_ABORT, m->comm, MPI_STATUS_IGNORE);
    /* a notice of a failure that was agreed on already (every process failed
     * on its own, and the notices crossed the agreement) says nothing new */
    if (notice[1] < m->epoch) return cmpi_someone_failed(m);
    m->quiet_failure = true;
    m->failed_rank = notice[0];
    return true;
}

/* Yield first; after a while without news sleep briefly, so that waiting
 * processes do not starve the ones doing the work. */
void cmpi_pause(cmpi *m) {
    if (++m->idle_spins < 64) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

double cmpi_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmpi_wait(cmpi *m, cmpi_reqs *r, double timeout, bool abort_aware, const char *what, char *err,
              size_t errlen) {
    double t0 = cmpi_now();
    m->idle_spins = 0;
    while (!cmpi_test(r)) {
        /* the probe for a notice also moved the data: an exchange the
         * notifier finished before failing may have completed here too */
        if (abort_aware && cmpi_someone_failed(m) && !cmpi_test(r)) {
            cmpi_reqs_cancel(r);
            snprintf(err, errlen, "%s: stopped, MPI process %d failed", what, m->failed_rank);
            return -1;
        }
        if (cmpi_now() - t0 > timeout) {
            cmpi_reqs_cancel(r);
            m->broken = true;
            snprintf(err, errlen,
                     "%s: no answer from the other MPI processes within %g s (setting mpi_timeout)",
                     what, timeout);
            return -1;
        }
        cmpi_pause(m);
    }
    m->idle_spins = 0;
    return 0;
}

void cmpi_track(cmpi *m, cmpi_op *x) {
    if (m->n_live == m->cap_live) {
        size_t cap = m->cap_live ? m->cap_live * 2 : 16;
        cmpi_op **v = realloc(m->live, cap * sizeof *v);
        if (!v) return; /* only used to cancel on failure; losing track is harmless */
        m->live = v;
        m->cap_live = cap;
    }
    m->live[m->n_live++] = x;
}

void cmpi_drop_all(cmpi *m) {
    while (m->n_live) {
        cmpi_op *op = m->live[--m->n_live];
        cmpi_reqs_cancel(&op->reqs);
        op->destroy(op);
    }
}

void cmpi_untrack(cmpi *m, cmpi_op *x) {
    for (size_t i = 0; i < m->n_live; ++i)
        if (m->live[i] == x) {
            m->live[i] = m->live[--m->n_live];
            return;
        }
}

void *cmpi_buf_get(cmpi *m, size_t bytes, size_t *cap) {
    int best = -1;
    for (int i = 0; i < 8; ++i)
        if (m->pool[i].p && m->pool[i].cap >= bytes &&
            (best < 0 || m->pool[i].cap < m->pool[best].cap))
            best = i;
    if (best >= 0) {
        void *p = m->pool[best].p;
        *cap = m->pool[best].cap;
        m->pool[best].p = NULL;
        return p;
    }
    *cap = bytes ? bytes : 1;
    void *p = NULL;
    return posix_memalign(&p, 64, *cap) ? NULL : p;
}

void cmpi_buf_put(cmpi *m, void *p, size_t cap) {
    if (!p) return;
    int slot = -1;
    for (int i = 0; i < 8 && slot < 0; ++i)
        if (!m->pool[i].p) slot = i;
    if (slot < 0) { /* full: drop the smallest */
        slot = 0;
        for (int i = 1; i < 8; ++i)
            if (m->pool[i].cap < m->pool[slot].cap) slot = i;
        if (m->pool[slot].cap > cap) {
            free(p);
            return;
        }
        free(m->pool[slot].p);
    }
    m->pool[slot].p = p;
    m->pool[slot].cap = cap;
}

void cmpi_pool_free(cmpi *m) {
    for (int i = 0; i < 8; ++i) {
        free(m->pool[i].p);
        m->pool[i].p = NULL;
    }
}

bool cmpi_poll(cmpi *m, double budget) {
    double t0 = cmpi_now();
    do {
        for (size_t i = 0; i < m->n_live; ++i)
            if (m->live[i]->ready(m->live[i])) return true;
        if (cmpi_someone_failed(m)) return true;
        sched_yield();
    } while (cmpi_now() - t0 < budget);
    return false;
}
