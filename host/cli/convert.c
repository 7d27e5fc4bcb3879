/* trnsim convert: the program as read (a BIR file's translation) written
 * as a native program, or with --to bir as BIR JSON (docs/bir.md), to
 * stdout or -o FILE (through the one guard for every file trnsim writes,
 * common/common.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "observers/observers.h"

typedef int (*writer_fn)(const trn_sim *s, FILE *out, trn_error *e);

/* Through the one guard (common/common.h): a new path or a regular file
 * only, written to a temporary and put in place complete, with the
 * replaced file's mode; a failure names the path and the OS's reason. */
static int write_file(const trn_sim *s, writer_fn write, const char *path, trn_error *e) {
    trn_outfile o;
    if (trn_outfile_create(&o, "-o", path, e)) return -1;
    int fd = dup(o.fd);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int rc =
        f ? write(s, f, e) : trn_errorf(e, "-o %s: cannot write it: %s", path, strerror(errno));
    if (f && (fflush(f) != 0 || ferror(f))) /* a full disk: say so, with the path */
        rc = trn_errorf(e, "-o %s: writing failed: %s; %s was not changed", path, strerror(errno),
                        path);
    if (f && fclose(f) != 0 && rc == 0)
        rc = trn_errorf(e, "-o %s: writing failed: %s; %s was not changed", path, strerror(errno),
                        path);
    if (!f && fd >= 0) close(fd);
    if (rc == 0) rc = trn_outfile_commit(&o, e);
    trn_outfile_discard(&o);
    return rc;
}

int cli_cmd_convert(int argc, char **argv) {
    static run_args a;
    const char *out = NULL;
    writer_fn write = trn_sim_write_native;
    char *rest[64];
    int n = 0;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--to") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "bir") || !strcmp(argv[i + 1], "native")))
            write = !strcmp(argv[++i], "bir") ? trn_sim_write_bir : trn_sim_write_native;
        else if (!strcmp(argv[i], "--to"))
            return cli_fail("convert: --to takes bir or native (see trnsim help convert)");
        else if (n < 64)
            rest[n++] = argv[i];
        else
            return cli_fail("convert: too many arguments (see trnsim --help)");
    }
    trn_error e;
    if (cli_parse_run_args(n, rest, &a, &e)) return cli_fail(e.msg);
    if (!a.program) return cli_fail("convert: missing PROGRAM.json (see trnsim --help)");
    if (a.n_in || a.n_out) return cli_fail("convert: --input / --output belong to run");
    if (cli_refuse_dump_args(&a, "convert", &e)) return cli_fail(e.msg);
    if (out && cli_check_convert_target(&a, out, &e)) return cli_fail(e.msg);
    cli_install_signal_cleanup(NULL);
    trnsim_sim *s = NULL;
    int rc =
        cli_open_sim(&s, &a, &e) || (trnsim_load_program_file(s, a.program) && cli_api_error(&e));
    if (!rc) {
        const trn_sim *h = trn_embed_host_sim(s);
        rc = out ? write_file(h, write, out, &e) : write(h, stdout, &e);
    }
    trnsim_close(s);
    return rc ? cli_fail(e.msg) : 0;
}
