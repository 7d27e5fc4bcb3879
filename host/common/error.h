/* Errors as values: a function that can fail takes a trn_error * and
 * returns 0 on success or -1 after writing one message into it. The message
 * travels up unchanged and is printed once, at the top, with context.
 * Where the failing instruction is known, its place is also recorded as
 * fields (for the embedding API, which hands them out separately). */
#ifndef TRNSIM_HOST_ERROR_H
#define TRNSIM_HOST_ERROR_H

#include <stdbool.h>
#include <stdint.h>

#include "trnsim/plugin/abi.h"

#define TRN_ERROR_MAX 1024

/* The instruction an error is about. Zeroed: none known. */
typedef struct trn_error_site {
    bool known;
    uint64_t inst; /* index in the instruction list */
    int32_t core;  /* -1: not tied to one core (a load-time check) */
    uint32_t it;   /* the opcode's IT, or TRN_ERROR_NO_IT */
} trn_error_site;

#define TRN_ERROR_NO_IT UINT32_MAX

/* Which step failed; set where that step is known, zeroed: not yet said. */
typedef enum trn_error_kind {
    TRN_EK_NONE,
    TRN_EK_CONFIG,  /* the config text or file, a setting or an override */
    TRN_EK_MODULE,  /* finding, checking or starting a module */
    TRN_EK_PROGRAM, /* parsing or validating a program */
    TRN_EK_INPUT,   /* moving tensor bytes in or out */
    TRN_EK_RUN      /* executing instructions */
} trn_error_kind;

typedef struct trn_error {
    char msg[TRN_ERROR_MAX];
    trn_error_site site;
    trn_error_kind kind;
} trn_error;

/* Write a message into e (if e is non-NULL) and return -1. */
int trn_errorf(trn_error *e, const char *fmt, ...) TRN_PRINTF(2, 3);

/* Prefix an existing message: "<prefix>: <old message>". Returns -1. */
int trn_error_prefix(trn_error *e, const char *fmt, ...) TRN_PRINTF(2, 3);

/* Record which instruction the error is about (keeps the message). */
void trn_error_at(trn_error *e, uint64_t inst, int32_t core, uint32_t it);

/* Say which step failed unless a deeper step already said it. Returns -1. */
int trn_error_kind_default(trn_error *e, trn_error_kind kind);

#endif
