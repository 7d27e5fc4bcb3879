#define _GNU_SOURCE
#include "observers/observers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void release(trn_obs_file *o) {
    if (o->guarded) trn_outfile_discard(&o->file);
    o->guarded = false;
    free(o->path);
    free(o->buf);
    o->path = o->buf = NULL;
    o->f = NULL;
}

static int open_fd(trn_obs_file *o, const char *path, bool part, trn_error *e) {
    if (!strcmp(path, "-")) return dup(2);
    if (part) return open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (trn_outfile_create(&o->file, o->option, o->path, e)) return -2;
    o->guarded = true;
    return dup(o->file.fd);
}

int trn_obs_file_open(trn_obs_file *o, const char *option, const char *path, bool part,
                      size_t buffer, trn_error *e) {
    *o = (trn_obs_file){.option = option, .path = strdup(path), .buf = malloc(buffer)};
    if (!o->path || !o->buf) {
        release(o);
        return trn_errorf(e, "%s %s: out of memory", option, path);
    }
    int fd = open_fd(o, path, part, e);
    o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!o->f) {
        if (fd != -2) trn_errorf(e, "%s %s: cannot create it: %s", option, path, strerror(errno));
        if (fd >= 0) close(fd);
        release(o);
        return -1;
    }
    setvbuf(o->f, o->buf, _IOFBF, buffer);
    return 0;
}

void trn_obs_file_fail(trn_obs_file *o, int err) {
    if (!o->failed) o->failed = true, o->err = err;
}

void trn_obs_file_write(trn_obs_file *o, const void *bytes, size_t len) {
    if (len && !o->failed && fwrite(bytes, 1, len, o->f) != len) trn_obs_file_fail(o, errno);
}

int trn_obs_file_close(trn_obs_file *o, trn_error *e) {
    if (!o->f) return 0;
    if (fflush(o->f) != 0) trn_obs_file_fail(o, errno);
    if (fclose(o->f) != 0) trn_obs_file_fail(o, errno);
    int rc = o->failed
                 ? trn_errorf(e, "%s %s: writing failed: %s", o->option, o->path, strerror(o->err))
                 : 0;
    if (!rc && o->guarded) rc = trn_outfile_commit(&o->file, e);
    release(o);
    return rc;
}
