/* The config reader's bounds, checked before libconfig sees the text: file
 * size (any file type, so a FIFO ends), string length (libconfig's scanner
 * is quadratic in it), integer literals that libconfig would silently wrap
 * (reported as written), and a syntax error that makes libconfig leak. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/exec_test.h"
#include "host/test_util.h"

static void expect_error(const trn_sim_opts *o, const char *want) {
    trn_sim *s = NULL;
    trn_error e = {.msg = ""};
    assert_int_equal(trn_sim_open(&s, o, &e), -1);
    assert_null(s);
    assert_string_equal(e.msg, want);
}

static void expect_text_error(const char *text, const char *want) {
    trn_sim_opts o = {.config_text = text, .exe_dir = TRNSIM_MODULE_DIR};
    expect_error(&o, want);
}

static char tmpdir[] = "/tmp/trnsim_cfg_XXXXXX";

static const char *tmp_path(const char *name) {
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* 1 MiB + 1 byte of comments: refused from its size, whatever follows. */
static void file_size_capped(void **st) {
    const char *p = tmp_path("big.cfg");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 0; i < (1 << 20) + 1; ++i) fputc(i % 64 ? '#' : '\n', f);
    fclose(f);
    trn_sim_opts o = {.config_path = p, .exe_dir = TRNSIM_MODULE_DIR};
    char want[512];
    snprintf(want, sizeof want, "%s: the config is more than 1048576 bytes (at most 1048576)", p);
    expect_error(&o, want);
    unlink(p);
}

/* A FIFO whose writer never stops: the read ends at the cap. */
static void fifo_config_ends(void **st) {
    const char *p = tmp_path("fifo.cfg");
    assert_int_equal(mkfifo(p, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        int fd = open(p, O_WRONLY);
        char b[4096];
        memset(b, '\n', sizeof b);
        for (;;)
            if (write(fd, b, sizeof b) < 0) _exit(0);
    }
    trn_sim_opts o = {.config_path = p, .exe_dir = TRNSIM_MODULE_DIR};
    char want[512];
    snprintf(want, sizeof want, "%s: the config is more than 1048576 bytes (at most 1048576)", p);
    expect_error(&o, want);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    unlink(p);
}

static void string_length_capped(void **st) {
    size_t n = (1 << 16) + 1;
    char *t = malloc(100000);
    int k = sprintf(t, "machine = {};\nx = \"");
    memset(t + k, 'a', n);
    strcpy(t + k + n, "\";\n");
    expect_text_error(
        t,
        "<config text>:2: a string of more than 65536 bytes (the most a config string may hold)");
    /* adjacent literals, which libconfig joins, count together */
    k = sprintf(t, "x = ");
    for (int i = 0; i < 3; ++i) {
        t[k++] = '"';
        memset(t + k, 'b', 30000);
        k += 30000;
        t[k++] = '"';
        t[k++] = ' ';
    }
    strcpy(t + k, ";\n");
    expect_text_error(
        t,
        "<config text>:1: a string of more than 65536 bytes (the most a config string may hold)");
    free(t);
}

/* Literals past 32 bits are read whole; past 64 bits libconfig would clamp
 * them silently, so they are refused as written. */
static void integers_as_written(void **st) {
    expect_text_error("machine = {\n  cores = 99999999999999999999;\n};",
                      "<config text>:2: integer 99999999999999999999 is outside the 64-bit range "
                      "[-2^63, 2^63-1]");
    expect_text_error("machine = { cores = 99999999999999999999L; };",
                      "<config text>:1: integer 99999999999999999999L is outside the 64-bit range "
                      "[-2^63, 2^63-1]");
    expect_text_error(
        "machine = { cores = -0x8000000000000001; };",
        "<config text>:1: integer -0x8000000000000001 is outside the 64-bit range [-2^63, 2^63-1]");
    expect_text_error("machine = { cores = 0xffffffff; };",
                      "<config text>:1: machine.cores = 4294967295 is outside [1, 1024]");
    /* in a string, a comment or a name: untouched */
    trn_sim *s = NULL;
    trn_error e;
    assert_int_equal(
        test_open("x_99999999999999999999 = \"99999999999999999999\"; # 99999999999999999999\n", &s,
                  &e),
        -1);
    assert_string_equal(e.msg,
                        "<config text>:1: unknown key 'x_99999999999999999999' in the top level");
    assert_int_equal(
        test_open("machine = { hbm_bytes = 68719476736; max_bytes = 1099511627776L; };", &s, &e),
        0);
    assert_int_equal(s->cfg.machine.hbm_bytes, 68719476736ll);
    trn_sim_close(s);
}

/* A file holding only "x": libconfig reports a syntax error (and leaks a
 * scanner buffer, suppressed by name in tests/sanitizers/lsan.supp). */
static void lone_string_is_a_syntax_error(void **st) {
    expect_text_error("\"x\"", "<config text>:1: syntax error");
    /* the fuzzer's finding: a string where a setting name belongs */
    expect_text_error("machine = {\n  cores = 1;  \"skip\"\n  partitions = 128;\n};",
                      "<config text>:2: syntax error");
    /* and its second form: an empty literal after a name */
    expect_text_error("# a comment\nmac\"\"\"\" plugin_paths\n", "<config text>:2: syntax error");
}

static int setup(void **st) { return mkdtemp(tmpdir) ? 0 : -1; }
static int teardown(void **st) { return rmdir(tmpdir); }

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_size_capped),
        cmocka_unit_test(fifo_config_ends),
        cmocka_unit_test(string_length_capped),
        cmocka_unit_test(integers_as_written),
        cmocka_unit_test(lone_string_is_a_syntax_error),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
