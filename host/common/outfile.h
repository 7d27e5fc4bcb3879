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
#ifndef TRNSIM_HOST_OUTFILE_H
#define TRNSIM_HOST_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

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

#endif
