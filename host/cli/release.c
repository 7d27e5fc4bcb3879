/* The files an output replaced: their names go at once, their pages later.
 *
 * Deleting a file whose data is in the page cache frees every page and
 * block when the last reference to the inode goes, not when the name goes:
 * for a 64 MiB file that is 40-200 ms of kernel time, paid by whoever drops
 * the last reference. So the old file is opened (O_PATH: no read permission
 * needed) before its name is unlinked, which makes the unlink cheap and
 * leaves the name gone, as the user sees it; then a detached grandchild
 * process that holds only those descriptors closes them and frees the
 * pages while trnsim exits (docs/internals/datapath.md). If the helper
 * cannot be started, the descriptors are closed here: the same work, on
 * the critical path as before. Nothing here touches the new files. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_int.h"

static int held[MAX_FILES];
static int n_held;

void cli_drop_old_file(const char *path) {
    int fd = n_held < MAX_FILES ? open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC) : -1;
    unlink(path);
    if (fd >= 0) held[n_held++] = fd;
}

static void close_held(void) {
    for (int i = 0; i < n_held; ++i) close(held[i]);
    n_held = 0;
}

/* Every descriptor but the held ones, closed: close_range over the gaps
 * between them (held is sorted first), or one close a descriptor where the
 * kernel has no close_range. */
static void close_all_but_held(void) {
    for (int i = 1; i < n_held; ++i)
        for (int j = i; j > 0 && held[j - 1] > held[j]; --j) {
            int t = held[j];
            held[j] = held[j - 1];
            held[j - 1] = t;
        }
    unsigned lo = 0;
    for (int i = 0; i <= n_held; ++i) {
        unsigned hi = i < n_held ? (unsigned)held[i] : ~0u;
        if (hi > lo && close_range(lo, i < n_held ? hi - 1 : hi, 0) != 0) {
            struct rlimit rl;
            unsigned max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536
                               ? (unsigned)rl.rlim_cur
                               : 65536;
            for (unsigned fd = lo; fd < (i < n_held ? hi : max); ++fd) close((int)fd);
        }
        lo = hi + 1;
    }
}

/* In the grandchild: nothing but the held descriptors stays open (a pipe
 * to a parent that waits for EOF must not wait for us), no handler runs. */
_Noreturn static void free_in_background(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    close_all_but_held();
    close_held();
    _exit(0);
}

void cli_release_old_files(bool detached) {
    if (n_held == 0) return;
    pid_t child = detached ? fork() : -1;
    if (child == 0) {
        if (fork() == 0) free_in_background(); /* the grandchild: reparented, never waited for */
        _exit(0);
    }
    if (child > 0) waitpid(child, NULL, 0); /* the child exits at once */
    close_held(); /* the last reference when no helper started; else the helper's copies are */
}
