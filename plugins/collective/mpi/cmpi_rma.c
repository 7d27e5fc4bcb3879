/* Remote DMA across processes: the transport's ABI 3 remote-memory calls
 * on one MPI dynamic window. Each process attaches its cores' memories
 * (local: MPI_Win_attach needs no other process) and every process learns
 * the others' addresses; an access is a passive-target epoch on the owner
 * (MPI_Win_lock shared for a read, exclusive for a write) with MPI_Get /
 * MPI_Put over an hindexed datatype of the extents (the same layout on
 * both sides), MPI_Win_flush before a get's bytes are used, and
 * MPI_Win_unlock, after which a put is complete at the owner. The owner
 * takes no part, so a busy or waiting process is reachable all the same. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmpi.h"

static void mpi_text(int code, const char *call, char *err, size_t errlen) {
    char t[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(code, t, &n);
    snprintf(err, errlen, "%s failed: %.*s", call, n, t);
}

int cmpi_rma_open(cmpi *m) {
    m->win = MPI_WIN_NULL;
    if (MPI_Win_create_dynamic(MPI_INFO_NULL, m->comm, &m->win) != MPI_SUCCESS) {
        m->win = MPI_WIN_NULL; /* remote DMA then says why when a program needs it */
        return -1;
    }
    MPI_Win_set_errhandler(m->win, MPI_ERRORS_RETURN);
    return 0;
}

static void detach_all(cmpi *m) {
    for (uint32_t i = 0; i < m->n_regions; ++i)
        if (m->attached[i]) MPI_Win_detach(m->win, m->attached[i]);
    free(m->attached);
    free(m->bases);
    m->attached = NULL;
    m->bases = NULL;
    m->n_regions = 0;
}

void cmpi_rma_close(cmpi *m) {
    if (m->win == MPI_WIN_NULL) return;
    detach_all(m);
    MPI_Win_free(&m->win);
}

trn_status cmpi_expose(void *state, const trn_region *mine, uint32_t n, char *err, size_t errlen) {
    cmpi *m = ((coll_state *)state)->remote;
    if (m->win != MPI_WIN_NULL) detach_all(m);
    /* No window: programs that stay on their own process's cores run all
     * the same; the first remote access says why it cannot (remote_begin). */
    if (n == 0 || m->win == MPI_WIN_NULL) return TRN_OK;
    m->attached = calloc(n, sizeof *m->attached);
    m->bases = calloc((size_t)n * (size_t)m->ranks, sizeof *m->bases);
    MPI_Aint *addr = calloc(n, sizeof *addr);
    if (!m->attached || !m->bases || !addr) {
        free(addr);
        detach_all(m);
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
    m->n_regions = n;
    for (uint32_t i = 0; i < n; ++i) {
        if (!mine[i].base || !mine[i].bytes) continue;
        int rc = MPI_Win_attach(m->win, mine[i].base, (MPI_Aint)mine[i].bytes);
        if (rc != MPI_SUCCESS) {
            mpi_text(rc, "MPI_Win_attach", err, errlen);
            free(addr);
            detach_all(m);
            return TRN_ERR;
        }
        m->attached[i] = mine[i].base;
        MPI_Get_address(mine[i].base, &addr[i]);
    }
    trn_status st = cmpi_transport.allgather(state, addr, m->bases, n * sizeof *addr, err, errlen);
    free(addr);
    if (st != TRN_OK) detach_all(m);
    return st;
}

trn_status cmpi_remote_begin(void *state, uint32_t rank, int exclusive, char *err, size_t errlen) {
    cmpi *m = ((coll_state *)state)->remote;
    if (m->win == MPI_WIN_NULL) {
        snprintf(
            err, errlen,
            "this MPI cannot create an RMA window (MPI_Win_create_dynamic failed at start-up), "
            "which remote DMA across processes needs (an MPI whose one-sided support covers "
            "dynamic windows can, "
            "such as Open MPI's osc rdma)");
        return TRN_ERR;
    }
    int rc = MPI_Win_lock(exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, (int)rank, 0, m->win);
    if (rc == MPI_SUCCESS) return TRN_OK;
    mpi_text(rc, "MPI_Win_lock", err, errlen);
    return TRN_ERR;
}

trn_status cmpi_remote_end(void *state, uint32_t rank, char *err, size_t errlen) {
    cmpi *m = ((coll_state *)state)->remote;
    int rc = MPI_Win_unlock((int)rank, m->win);
    if (rc == MPI_SUCCESS) return TRN_OK;
    mpi_text(rc, "MPI_Win_unlock", err, errlen);
    return TRN_ERR;
}

/* The extents as one datatype (blocks of at most 1 GiB: MPI lengths are
 * ints), displacements from the region's start. */
static int extents_type(const trn_extent *x, size_t n, MPI_Datatype *t) {
    size_t blocks = 0;
    for (size_t i = 0; i < n; ++i) blocks += x[i].bytes / CMPI_PIECE + 1;
    if (blocks > INT_MAX) return -1;
    int *len = malloc((blocks ? blocks : 1) * sizeof *len);
    MPI_Aint *disp = malloc((blocks ? blocks : 1) * sizeof *disp);
    size_t k = 0;
    for (size_t i = 0; len && disp && i < n; ++i)
        for (uint64_t off = 0; off < x[i].bytes; off += CMPI_PIECE, ++k) {
            uint64_t piece = x[i].bytes - off < CMPI_PIECE ? x[i].bytes - off : CMPI_PIECE;
            len[k] = (int)piece;
            disp[k] = (MPI_Aint)(x[i].offset + off);
        }
    int rc = len && disp &&
                     MPI_Type_create_hindexed((int)k, len, disp, MPI_BYTE, t) == MPI_SUCCESS &&
                     MPI_Type_commit(t) == MPI_SUCCESS
                 ? 0
                 : -1;
    free(len);
    free(disp);
    return rc;
}

static trn_status move(cmpi *m, uint32_t rank, uint32_t region, const trn_extent *x, size_t n,
                       void *local, bool put, char *err, size_t errlen) {
    if (!n) return TRN_OK;
    if (region >= m->n_regions || rank >= (uint32_t)m->ranks) {
        snprintf(err, errlen, "remote region %u of MPI process %u does not exist", region, rank);
        return TRN_ERR;
    }
    MPI_Datatype t;
    if (extents_type(x, n, &t)) {
        snprintf(err, errlen, "out of memory for an MPI datatype of %zu extents", n);
        return TRN_ERR;
    }
    MPI_Aint base = m->bases[(size_t)rank * m->n_regions + region];
    int rc = put ? MPI_Put(local, 1, t, (int)rank, base, 1, t, m->win)
                 : MPI_Get(local, 1, t, (int)rank, base, 1, t, m->win);
    if (rc == MPI_SUCCESS && !put) rc = MPI_Win_flush((int)rank, m->win);
    MPI_Type_free(&t);
    if (rc == MPI_SUCCESS) return TRN_OK;
    mpi_text(rc, put ? "MPI_Put" : "MPI_Get", err, errlen);
    return TRN_ERR;
}

trn_status cmpi_remote_get(void *state, uint32_t rank, uint32_t region, const trn_extent *x,
                           size_t n, void *local, char *err, size_t errlen) {
    return move(((coll_state *)state)->remote, rank, region, x, n, local, false, err, errlen);
}

trn_status cmpi_remote_put(void *state, uint32_t rank, uint32_t region, const trn_extent *x,
                           size_t n, const void *local, char *err, size_t errlen) {
    return move(((coll_state *)state)->remote, rank, region, x, n, (void *)local, true, err,
                errlen);
}
