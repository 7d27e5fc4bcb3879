/* Errors as values: a function that can fail takes a trn_error * and
 * returns 0 on success or -1 after writing one message into it. The message
 * travels up unchanged and is printed once, at the top, with context. */
#ifndef TRNSIM_HOST_ERROR_H
#define TRNSIM_HOST_ERROR_H

#include "trnsim/plugin.h"

#define TRN_ERROR_MAX 1024

typedef struct trn_error {
    char msg[TRN_ERROR_MAX];
} trn_error;

/* Write a message into e (if e is non-NULL) and return -1. */
int trn_errorf(trn_error *e, const char *fmt, ...) TRN_PRINTF(2, 3);

/* Prefix an existing message: "<prefix>: <old message>". Returns -1. */
int trn_error_prefix(trn_error *e, const char *fmt, ...) TRN_PRINTF(2, 3);

#endif
