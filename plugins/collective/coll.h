/* The collective family's internal interface for its transport (mpi/): what the
 * in-process module offers a backend that carries cores in other processes. The
 * module's state and registry (coll_state.h), running a collective once every
 * participant has arrived (coll_exec.h, coll_exec_common.h), the reducer
 * (coll_reduce.h), moving data through the host (coll_xfer.h) and telling
 * observers who met (coll_met.h). mpi/ includes this header, not the coll_*.h
 * behind it, so the family's files can move without touching the transport's. */
#ifndef COLL_H
#define COLL_H

#include "coll_exec.h"
#include "coll_exec_common.h"
#include "coll_met.h"
#include "coll_reduce.h"
#include "coll_state.h"
#include "coll_xfer.h"

#endif
