#ifndef TRNSIM_HOST_COMMON_COMMON_H
#define TRNSIM_HOST_COMMON_COMMON_H

/* Errors as values: a function that can fail takes a trn_error * and
 * returns 0 on success or -1 after writing one message into it. The message
 * travels up unchanged and is printed once, at the top, with context.
 * Where the failing instruction is known, its place is also recorded as
 * fields (for the embedding API, which hands them out separately). */

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

/* "Did you mean": the closest of a set of known names to a misspelled one,
 * for messages about unknown keys, settings and names. */

#include <stddef.h>

/* The candidate nearest to word (optimal string alignment distance, letters
 * compared without case), or NULL when none is near enough to be a likely
 * typo: at most 1 edit for names up to 4 letters, else a third of the
 * longer name. cands may hold NULL entries, which are ignored. */
const char *trn_suggest(const char *word, const char *const *cands, size_t n);

/* "; did you mean 'X'?" into buf when trn_suggest finds X, else "". */
const char *trn_suggest_text(const char *word, const char *const *cands, size_t n, char *buf,
                             size_t len);

/* A 64-bit digest of a byte stream: XXH64 with seed 0 (the xxHash
 * project's 64-bit hash, written here from its published algorithm), so a
 * trace's digests can be checked with any xxHash implementation. Bytes may
 * come in pieces of any size; the digest is that of their concatenation. */

#include <stddef.h>
#include <stdint.h>

typedef struct trn_digest {
    uint64_t acc[4];
    uint64_t total;   /* bytes so far */
    uint8_t tail[32]; /* a stripe not yet full */
    uint32_t tail_len;
} trn_digest;

void trn_digest_init(trn_digest *d);
void trn_digest_update(trn_digest *d, const void *bytes, size_t n);
uint64_t trn_digest_final(const trn_digest *d);
/* The digest of one buffer. */
uint64_t trn_digest_bytes(const void *bytes, size_t n);
/* The digest of the first `size` bytes of the file open at fd, mapped
 * (read through the page cache, not read(2); pread when it cannot be
 * mapped). 0, or the errno of a failed read. */
int trn_digest_fd(int fd, uint64_t size, uint64_t *out);

/* A growable text buffer for records written a line at a time (the JSONL
 * trace, the timeline). Appends never fail visibly: on out-of-memory the
 * buffer is marked failed and the writer reports it once. */

#include <stdbool.h>
#include <stddef.h>

typedef struct trn_strbuf {
    char *text;
    size_t len, cap;
    bool failed; /* an allocation failed: the text is incomplete */
} trn_strbuf;

void trn_sb_printf(trn_strbuf *b, const char *fmt, ...) TRN_PRINTF(2, 3);
void trn_sb_putc(trn_strbuf *b, char c);
/* s as a JSON string, quotes included (NULL: null). */
void trn_sb_json_string(trn_strbuf *b, const char *s);
void trn_sb_clear(trn_strbuf *b);
void trn_sb_free(trn_strbuf *b);

/* The host's one clock (clock.c). */

#include <stdint.h>

double trn_now(void);      /* seconds, monotonic */
uint64_t trn_now_ns(void); /* the same clock in ns */

/* The one guard for every file trnsim writes (docs/cli.md, "Files a run
 * writes"): .npy outputs, --trace, --timeline, dump directories, convert -o,
 * and anything added later go through it.
 *
 * Before anything runs, trn_outfile_check looks at every target at once:
 * its kind (a regular file or a new path; a directory for a dump; never a
 * FIFO, a device or a socket), its folder (exists, is a folder, takes a new
 * file, is not on a read-only file system), and that no two targets, and no
 * target and no file the run reads, are one file (by path and by device and
 * inode). Each refusal is one line naming both options and the fix.
 *
 * Then each file is written to a temporary with no name on disk (O_TMPFILE,
 * so that even SIGKILL leaves nothing beside the target) or, where the file
 * system has none, under an unguessable hidden name (mkostemp) that the
 * signal cleanup removes; it gets the replaced file's mode, and is put in
 * place only when complete, one file or a set of files all or nothing. */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum trn_out_kind { TRN_OUT_FILE, TRN_OUT_DIR } trn_out_kind;

/* option: how messages name it ("--output y", "--trace", "-o"). A path of
 * "-" (standard error) is not a file and passes. */
typedef struct trn_out_target {
    const char *option;
    const char *path;
    trn_out_kind kind;
} trn_out_target;

typedef struct trn_in_file {
    const char *option; /* "--input x", "--config", "the program" */
    const char *path;
} trn_in_file;

int trn_outfile_check(const trn_out_target *t, size_t nt, const trn_in_file *in, size_t ni,
                      trn_error *e);

typedef enum {
    TRN_OUTFILE_NONE,
    TRN_OUTFILE_CREATED,
    TRN_OUTFILE_EXCHANGED,
    TRN_OUTFILE_BACKED_UP
} trn_outfile_step;

typedef struct trn_outfile {
    const char *option;
    const char *path;
    int fd;                  /* -1: closed */
    bool unnamed;            /* O_TMPFILE: no name until the commit links one */
    volatile int named;      /* tmp exists and is ours to remove (read by the signal cleanup) */
    char tmp[PATH_MAX + 64]; /* DIR/.BASE.trnsim-XXXXXX */
    char bak[PATH_MAX + 66]; /* the old file's hard link, where exchange is unsupported */
    trn_outfile_step step;
    int slot; /* in the signal cleanup's table; -1: none */
} trn_outfile;

/* Create the temporary for path (its fd in o->fd, mode that of the file it
 * replaces, else 0666 & ~umask). An error names the option, the path and
 * the OS's reason. */
int trn_outfile_create(trn_outfile *o, const char *option, const char *path, trn_error *e);
/* Close the temporary's fd; -1 with the OS's reason (a full disk found at
 * close) naming the file. */
int trn_outfile_close_fd(trn_outfile *o, trn_error *e);
/* Put every file of v in place, or none (the old files back where some
 * could not be). drop_old (may be NULL: unlink) receives each replaced old
 * file's name, which is the caller's to remove. SIGINT / SIGTERM wait. */
int trn_outfile_commit_all(trn_outfile *const *v, size_t n, void (*drop_old)(const char *path),
                           trn_error *e);
int trn_outfile_commit(trn_outfile *o, trn_error *e);
/* Remove the temporary (uncommitted) and close it; safe on a zeroed or
 * already discarded file. */
void trn_outfile_discard(trn_outfile *o);
/* From a signal handler: unlinks every named temporary (async-signal-safe). */
void trn_outfile_signal_cleanup(void);

/* A hash index from names to the positions of the first items so named,
 * for the loaders' name lookups (tensors, BIR allocations), so that a
 * program of n names loads in O(n), not O(n^2) comparisons. The index keeps
 * positions only; the caller says how to read the name at a position, so
 * the items may move (realloc, a struct copy) without the index knowing. */

#include <stddef.h>

/* The name of item i (NULL: unnamed, never found). */
typedef const char *(*trn_name_at)(const void *items, int i);

typedef struct trn_name_index {
    int *slot;   /* open addressing: an item's position, -1 free */
    size_t mask; /* slots - 1 (a power of two), 0 before the first add */
    size_t used;
} trn_name_index;

/* The first item added under name, or -1. */
int trn_name_index_find(const trn_name_index *x, const char *name, trn_name_at at,
                        const void *items);
/* Add item i under its name unless an earlier item has it: returns that
 * earlier item, else i; -2 when out of memory. */
int trn_name_index_add(trn_name_index *x, int i, trn_name_at at, const void *items);
void trn_name_index_free(trn_name_index *x);

#endif
