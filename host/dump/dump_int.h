/* Dumps and restore, private to dump/: the options, the hooks and the
 * parts (write, read, directories, digests, module state). The one
 * folder outside exec/ that includes exec_int.h: a dump saves and a restore
 * sets the run state itself (core positions, trips, waits). */
#ifndef TRNSIM_HOST_DUMP_INT_H
#define TRNSIM_HOST_DUMP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/exec_int.h"
#include "dump/dump.h"

#define TRN_DUMP_MAX_AT 64

/* dump.c: the options of s (hooks_state). */
#define DUMP(s) ((trn_dump_cfg *)trn_sim_hooks_state(s))

typedef struct trn_dump_at {
    uint32_t core;
    uint64_t index;
    char *dir;
    bool done;
} trn_dump_at;

struct trn_dump_cfg {
    trn_dump_at at[TRN_DUMP_MAX_AT];
    int n_at;
    char *on_error;     /* --dump-on-error DIR, or NULL */
    char *restore;      /* --restore DIR for the next run, or NULL */
    char *start;        /* dump-on-error: the run's start, a private directory, or NULL */
    uint64_t stop_at;   /* replay: dump before attempt stop_at - 1 and stop (0: none) */
    uint64_t failed_at; /* the attempt whose handler failed, + 1 (0: none) */
    bool replaying;
    char cfg_digest[17]; /* taken when the options are set, while the config's text is at hand */
    char *cfg_text;
};

/* The run hooks (exec/exec.h) dump.c installs when an option is set. */
/* Before an attempt on core c: the dumps due there. 0 go on, 1 stop, -1 error. */
int trn_dump_before(trn_sim *s, uint32_t c, trn_error *e);
/* The handler of attempt `attempt` (0-based) failed. */
void trn_dump_failed(trn_sim *s, uint64_t attempt);
/* A whole run with the dump options: begin, restore, loop, dump on error. */
int trn_dump_run(trn_sim *s, trn_error *e);
void trn_dump_free(trn_sim *s);

/* What a dump is for: a user's (--dump-at, --dump-on-error: tensors as .npy
 * too) or the private start of a dump-on-error run (restore data only). */
typedef enum trn_dump_kind {
    TRN_DUMP_AT = 0,
    TRN_DUMP_ON_ERROR = 1,
    TRN_DUMP_PRIVATE = 2
} trn_dump_kind;

/* dump_write.c: the state now into dir (created; all or nothing).
 * why: the manifest's "reason" text (the error message on error). */
int trn_dump_write(trn_sim *s, const char *dir, trn_dump_kind kind, const char *why, trn_error *e);
/* The manifest's "machine" block of this run (a jansson json_t *). */
struct json_t *trn_dump_machine_json(const trn_sim *s);
/* dump_read.c: check a dump against the loaded program and config
 * (digests, cores, modules), then (apply) overwrite the state with it.
 * Apply only after trn_dispatch_run_start. */
int trn_dump_check(trn_sim *s, const char *dir, trn_error *e);
int trn_dump_apply(trn_sim *s, const char *dir, trn_error *e);

/* dump_dir.c: directories. */
/* Whether dir can become a dump: a new path, or an empty directory, in a
 * directory where we can create one (tried, then removed). opt names the
 * option in the message. */
int trn_dump_dir_usable(const char *dir, const char *opt, trn_error *e);
/* A fresh private directory beside dir (".BASE.trnsim-XXXXXX"), into *tmp. */
int trn_dump_dir_temp(const char *dir, char *tmp, size_t len, trn_error *e);
/* Rename tmp to dir (replacing an empty directory). */
int trn_dump_dir_commit(const char *tmp, const char *dir, trn_error *e);
/* Remove a directory tree this process made. */
void trn_dump_dir_remove(const char *tmp);
int trn_dump_mkdir(const char *path, trn_error *e);
/* Whether path, a file of the dump dir, may be opened: 0 a regular file
 * whose real place is inside dir, 1 absent, -1 anything else (a FIFO, whose
 * open would block for ever, a device, a link out of the dump). */
int trn_dump_dump_file(const char *dir, const char *path, trn_error *e);

/* dump_digest.c: FNV-1a 64 of the program (its native form) and of the
 * config (its file's text and every --set, in order), as 16 hex digits. */
void trn_dump_program_digest(const trn_sim *s, char out[17]);
void trn_dump_config_digest(const trn_sim *s, char out[17]);
/* The config's text: the file as read, or the embedded default (malloc'd;
 * NULL when the file cannot be read again). */
char *trn_dump_config_text(const trn_sim *s);

/* dump_state.c: every module's state_save into dir/modules/FAMILY, and
 * back. A json array describing them is appended to `mods`. */
int trn_dump_modules_save(trn_sim *s, const char *dir, void *mods_json, trn_error *e);
int trn_dump_modules_restore(trn_sim *s, const char *dir, trn_error *e);

#endif
