/* The host's one clock (clock.c). */
#ifndef TRNSIM_HOST_CLOCK_H
#define TRNSIM_HOST_CLOCK_H

#include <stdint.h>

double trn_now(void);      /* seconds, monotonic */
uint64_t trn_now_ns(void); /* the same clock in ns */

#endif
