/* Reading a program: simple instructions (TensorCopy between two SBUF
 * tensors, no attributes) parsed per second, against jansson parsing the
 * same text alone; and the memory a loaded program keeps, as a ratio to
 * its file size (measured in a child process, so that nothing else the
 * bench allocated counts). docs/internals/programs.md says what the loaded
 * form holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "bench.h"
#include "exec/exec_test.h"
#include "frontend/frontend.h"

static const char copy_config[] = "plugins = ( { family = \"dma\"; module = \"trnsim-dma\"; } );";

static char *simple_program(int n, size_t *len) {
    size_t cap = 256 + (size_t)n * 160, k = 0;
    char *p = malloc(cap);
    if (!p) abort();
    k += (size_t)snprintf(
        p + k, cap - k,
        "{\"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
        "\"shape\": [128, 64]}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
        "\"shape\": [128, 64]}], \"instructions\": [\n");
    for (int i = 0; i < n; ++i) {
        int off = (i % 8) * 8;
        k += (size_t)snprintf(
            p + k, cap - k,
            "%s{\"opcode\": \"TensorCopy\", \"inputs\": [{\"tensor\": \"a\", \"offset\": %d, "
            "\"ap\": "
            "[[1, 8]]}], \"outputs\": [{\"tensor\": \"b\", \"offset\": %d, \"ap\": [[1, 8]]}]}\n",
            i ? "," : "", off, off);
    }
    k += (size_t)snprintf(p + k, cap - k, "]}\n");
    *len = k;
    return p;
}

typedef struct load_arg {
    trn_sim *s;
    const char *text;
} load_arg;

static void do_load(void *arg) {
    load_arg *l = arg;
    bench_load(l->s, l->text);
}

/* The front end alone: text -> loaded program, no module checks. */
static void do_parse(void *arg) {
    load_arg *l = arg;
    trn_sim *s = l->s;
    trn_load_opts o = {.machine = &s->cfg.machine,
                       .default_cores = 1,
                       .resolve = trn_dispatch_resolve_name,
                       .handled = trn_dispatch_handled,
                       .arg = s};
    trn_program p;
    trn_error e;
    if (trn_program_load(&p, "<bench program>", l->text, &o, &e)) abort();
    trn_program_free(&p);
}

static void do_jansson(void *arg) {
    json_error_t je;
    json_t *doc = json_loads(((load_arg *)arg)->text, JSON_REJECT_DUPLICATES, &je);
    if (!doc) abort();
    json_decref(doc);
}

/* kB of a /proc/self/status line, or -1. */
static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n)) v = strtol(line + n + 1, NULL, 10);
    if (f) fclose(f);
    return v;
}

/* In a child: the resident memory the loaded program adds (the text
 * itself freed first) and the peak during the load, in kB. */
static int measure_rss(int n, long out[2]) {
    int fd[2];
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        trn_sim *s = bench_open(copy_config);
        size_t len;
        char *text = simple_program(n, &len);
        long before = status_kb("VmRSS:");
        bench_load(s, text);
        free(text);
        long r[2] = {status_kb("VmRSS:") - before, status_kb("VmHWM:") - before};
        ssize_t w = write(fd[1], r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = pid > 0 ? read(fd[0], out, 2 * sizeof *out) : -1;
    close(fd[0]);
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    return got == (ssize_t)(2 * sizeof *out) && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0
                                                                                              : -1;
}

BENCH_CASE(program_parse) {
    int n = bench_quick() ? 10000 : 100000;
    size_t len;
    char *text = simple_program(n, &len);
    trn_sim *s = bench_open(copy_config);
    load_arg l = {s, text};
    bench_load(s, text);
    if (s->prog.n_insts != (size_t)n) {
        printf("program_parse: %zu instructions loaded, %d written; no timing\n", s->prog.n_insts,
               n);
    } else {
        const bench_job base = {do_jansson, &l};
        bench_paired r;
        bench_compare((bench_job){do_load, &l}, &base, 1, 3.0, &r);
        char size[64];
        snprintf(size, sizeof size, "%d instr, %zu KiB", n, len >> 10);
        bench_report("load a native program (TensorCopy)", size, n, "instr",
                     "jansson parsing the text alone", &r);
        bench_compare((bench_job){do_parse, &l}, &base, 1, 3.0, &r);
        bench_report("parse it (front end only)", size, n, "instr",
                     "jansson parsing the text alone", &r);
    }
    trn_sim_close(s);
    free(text);
    int big = bench_quick() ? 100000 : 1000000;
    long kb[2];
    char *bt = simple_program(big, &len);
    free(bt);
    if (measure_rss(big, kb)) {
        printf("program_parse: the memory measurement failed\n");
        return;
    }
    printf("memory of a loaded %d-instruction program (file %.1f MiB): resident %.1f MiB = %.2fx "
           "the file, "
           "%.0f bytes per instruction; peak during the load %.1f MiB = %.2fx\n",
           big, len / 1048576.0, kb[0] / 1024.0, kb[0] * 1024.0 / (double)len, kb[0] * 1024.0 / big,
           kb[1] / 1024.0, kb[1] * 1024.0 / (double)len);
}

/* Many names: 100k native tensors, 100k BIR allocations. Each
 * name was compared with every earlier one (24 s and 15 s); the loaders
 * now look names up in a hash index, and the BIR reader reads one
 * allocation at a time, built by the scanner, not the list as one jansson
 * document. The baseline is jansson parsing the same text. */
static char *many_names(int n, bool bir, size_t *len) {
    size_t cap = 256 + (size_t)n * 260, k = 0;
    char *p = malloc(cap);
    if (!p) abort();
    k += (size_t)snprintf(p + k, cap - k,
                          bir ? "{\"version\": 2, \"arch\": \"gen3\", \"functions\": [{\"name\": "
                                "\"f\", \"blocks\": [{\"name\": \"main\", \"instructions\": []}], "
                                "\"allocations\": [\n"
                              : "{\"instructions\": [], \"tensors\": [\n");
    for (int i = 0; i < n; ++i)
        k += (size_t)snprintf(
            p + k, cap - k,
            bir ? "%s{\"Skind\": \"memory_location_set\", \"name\": \"a%d\", "
                  "\"kind\": \"Internal\", \"dtype\": \"float32\", \"partition_dim\": 0, "
                  "\"tensor_shape\": [4], \"memorylocations\": [{\"Skind\": "
                  "\"memory_location\", \"name\": \"l%d\", \"type\": \"DRAM\", \"addr\": %d, "
                  "\"dims\": [16]}]}\n"
                : "%s{\"name\": \"t%d\", \"memory\": \"hbm\", \"dtype\": \"float32\", "
                  "\"shape\": [4]}\n",
            i ? "," : "", i, i, i * 16);
    k += (size_t)snprintf(p + k, cap - k, bir ? "]}]}\n" : "]}\n");
    *len = k;
    return p;
}

typedef struct names_arg {
    load_arg l;
    trn_format format;
} names_arg;

static void do_parse_names(void *arg) {
    names_arg *a = arg;
    trn_sim *s = a->l.s;
    trn_load_opts o = {.machine = &s->cfg.machine,
                       .default_cores = 1,
                       .resolve = trn_dispatch_resolve_name,
                       .handled = trn_dispatch_handled,
                       .arg = s,
                       .format = a->format};
    trn_program p;
    trn_error e;
    if (trn_program_load(&p, "<bench program>", a->l.text, &o, &e)) {
        fprintf(stderr, "program_names: %s\n", e.msg);
        abort();
    }
    trn_program_free(&p);
}

BENCH_CASE(program_names) {
    int n = bench_quick() ? 10000 : 100000;
    trn_sim *s = bench_open(copy_config);
    for (int bir = 0; bir < 2; ++bir) {
        size_t len;
        char *text = many_names(n, bir, &len);
        names_arg a = {{s, text}, bir ? TRN_FORMAT_BIR : TRN_FORMAT_NATIVE};
        const bench_job base = {do_jansson, &a.l};
        bench_paired r;
        bench_compare((bench_job){do_parse_names, &a}, &base, 1, 3.0, &r);
        char size[64];
        snprintf(size, sizeof size, "%d names, %zu KiB", n, len >> 10);
        bench_report(bir ? "parse BIR allocations (front end only)"
                         : "parse native tensors (front end only)",
                     size, n, "name", "jansson parsing the text alone", &r);
        free(text);
    }
    trn_sim_close(s);
}
