/* For tests only: the simulator's private state (exec_int.h), which the
 * unit tests, the benchmark and the fuzzers reach to set up and inspect a
 * run below the façade. Nothing under host/ includes this header (the
 * layout check fails if one does), as Lua's ltests.h. */
#ifndef TRNSIM_HOST_EXEC_TEST_H
#define TRNSIM_HOST_EXEC_TEST_H

#include "exec/exec_int.h"

#endif
