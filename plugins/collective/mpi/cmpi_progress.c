/* The whole job's count for the progress display (trn_transport_desc
 * .progress, docs/mpi.md): every rank other than 0 offers its executed
 * count to rank 0 as a message of its own (CMPI_TAG_PROGRESS), never
 * waiting for it; rank 0 takes whatever has arrived when it draws. Nothing
 * here touches a run's data or its exchanges. */
#include <stdlib.h>
#include <string.h>

#include "cmpi.h"

#define FINAL_BIT (1ull << 63) /* an offer that is a rank's last count */
#define N_OFFERS  (sizeof((cmpi *)0)->offer / sizeof((cmpi *)0)->offer[0])

static cmpi *of(void *state) { return ((coll_state *)state)->remote; }

/* A free offer slot (its earlier send complete), or -1: this offer is
 * dropped, a newer one follows. */
static int free_slot(cmpi *m) {
    for (size_t i = 0; i < N_OFFERS; ++i) {
        int done = 1;
        if (m->offer_req[i] != MPI_REQUEST_NULL)
            MPI_Test(&m->offer_req[i], &done, MPI_STATUS_IGNORE);
        if (done) return (int)i;
    }
    return -1;
}

static void offer(cmpi *m, uint64_t mine, int final) {
    int i = free_slot(m);
    if (i < 0) return;
    m->offer[i] = mine | (final ? FINAL_BIT : 0);
    MPI_Isend(&m->offer[i], 1, MPI_UINT64_T, 0, CMPI_TAG_PROGRESS, m->comm, &m->offer_req[i]);
}

/* Rank 0: every offer that has arrived, the newest of each rank kept; how
 * many arrived. */
static int take_offers(cmpi *m) {
    for (int got = 0;; ++got) {
        int flag = 0;
        MPI_Status s;
        MPI_Iprobe(MPI_ANY_SOURCE, CMPI_TAG_PROGRESS, m->comm, &flag, &s);
        if (!flag) return got;
        uint64_t v;
        MPI_Recv(&v, 1, MPI_UINT64_T, s.MPI_SOURCE, CMPI_TAG_PROGRESS, m->comm, MPI_STATUS_IGNORE);
        if (!m->heard) continue; /* no room to keep them: received all the same */
        m->heard[s.MPI_SOURCE] = 1;
        m->heard_final[s.MPI_SOURCE] |= (v & FINAL_BIT) != 0;
        m->heard_count[s.MPI_SOURCE] = v & ~FINAL_BIT;
    }
}

/* Rank 0's final call waits while the ranks it has heard from still run:
 * until each has sent its last count, a rank failed, the timeout passed,
 * or none has said anything for QUIET seconds (a running rank offers its
 * count every second; a stopped one is the agreement's to name, within
 * mpi_timeout). */
#define QUIET 3.0

static bool finals_in(const cmpi *m) {
    for (int p = 1; p < m->ranks; ++p)
        if (m->heard[p] && !m->heard_final[p]) return false;
    return true;
}

trn_status cmpi_progress(void *state, uint64_t mine, int final, uint64_t *total, char *err,
                         size_t errlen) {
    (void)err, (void)errlen;
    cmpi *m = of(state);
    *total = mine;
    if (m->ranks <= 1 || m->comm == MPI_COMM_NULL) return TRN_OK;
    if (m->rank != 0) return offer(m, mine, final), TRN_OK;
    if (!m->heard) {
        m->heard_count = calloc((size_t)m->ranks, sizeof *m->heard_count);
        m->heard = calloc((size_t)m->ranks, 1);
        m->heard_final = calloc((size_t)m->ranks, 1);
        if (!m->heard_count || !m->heard || !m->heard_final) cmpi_progress_close(m);
    }
    take_offers(m);
    double t0 = cmpi_now(), news = t0;
    m->idle_spins = 0;
    while (final && m->heard && !finals_in(m) && cmpi_now() - t0 <= m->timeout &&
           cmpi_now() - news <= QUIET && !cmpi_someone_failed(m)) {
        cmpi_pause(m);
        if (take_offers(m)) news = cmpi_now();
    }
    for (int p = 1; m->heard && p < m->ranks; ++p) *total += m->heard_count[p];
    return TRN_OK;
}

void cmpi_progress_close(cmpi *m) {
    if (m->comm != MPI_COMM_NULL && m->rank == 0) take_offers(m);
    for (size_t i = 0; i < N_OFFERS; ++i)
        if (m->offer_req[i] != MPI_REQUEST_NULL) {
            int done = 0;
            MPI_Test(&m->offer_req[i], &done, MPI_STATUS_IGNORE);
            if (!done) {
                MPI_Cancel(&m->offer_req[i]);
                MPI_Request_free(&m->offer_req[i]);
            }
        }
    free(m->heard_count);
    free(m->heard);
    free(m->heard_final);
    m->heard_count = NULL;
    m->heard = m->heard_final = NULL;
}
