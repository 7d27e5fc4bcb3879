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

#include "cli/cli_internal.h"

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

static bool is_held(int fd) {
    for (int i = 0; i < n_held; ++i)
        if (held[i] == fd) return true;
    return false;
}

/* In the grandchild: nothing but the held descriptors stays open (a pipe
 * to a parent that waits for EOF must not wait for us), no handler runs. */
_Noreturn static void free_in_background(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    struct rlimit rl;
    int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
    for (int fd = 0; fd < max; ++fd)
        if (!is_held(fd)) close(fd);
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
