#include "observers/obs_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void release(trn_obs_file *o) {
    free(o->path);
    free(o->buf);
    o->path = o->buf = NULL;
    o->f = NULL;
}

int trn_obs_file_open(trn_obs_file *o, const char *option, const char *path, size_t buffer, trn_error *e) {
    *o = (trn_obs_file){.option = option, .path = strdup(path), .buf = malloc(buffer)};
    if (!o->path || !o->buf) {
        release(o);
        return trn_errorf(e, "%s %s: out of memory", option, path);
    }
    int fd = strcmp(path, "-") ? -1 : dup(2);
    o->f = fd >= 0 ? fdopen(fd, "w") : fopen(path, "w");
    if (!o->f) {
        trn_errorf(e, "%s %s: cannot create it: %s", option, path, strerror(errno));
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
    int rc = o->failed ? trn_errorf(e, "%s %s: writing failed: %s", o->option, o->path, strerror(o->err)) : 0;
    release(o);
    return rc;
}
