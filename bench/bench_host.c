/* Host-level benchmarks: dispatch overhead and raw tensor transfer. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const char nop_config[] =
    "plugins = ( { family = \"benchnop\"; module = \"trnsim-benchnop\"; } );";

static char *nop_program(int n) {
    size_t cap = 64 + (size_t)n * 24;
    char *p = malloc(cap), *w = p;
    w += sprintf(w, "{\"tensors\": [], \"instructions\": [");
    for (int i = 0; i < n; ++i) w += sprintf(w, "%s{\"opcode\": 250}", i ? "," : "");
    sprintf(w, "]}");
    return p;
}

typedef struct direct_arg {
    trn_handler fn;
    int n;
} direct_arg;

static void call_direct(void *arg) {
    direct_arg *d = arg;
    for (int i = 0; i < d->n; ++i) d->fn(NULL, NULL, NULL);
}

/* The same handler called directly, without the host: the module is opened
 * the way the loader opens it. */
static trn_handler nop_handler(void) {
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 40);
    path[n > 0 ? n : 0] = 0;
    char *slash = strrchr(path, '/');
    strcpy(slash ? slash + 1 : path, "trnsim-benchnop.so");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const trn_plugin_desc *d = h ? dlsym(h, TRN_PLUGIN_SYMBOL) : NULL;
    return d ? d->ops[0].handler : NULL;
}

BENCH_CASE(host_dispatch) {
    trn_handler fn = nop_handler();
    if (!fn) {
        printf("skipped: trnsim-benchnop.so not found beside the benchmark\n");
        return;
    }
    int sizes[] = {1000, 10000, 100000};
    for (int k = 0; k < 3; ++k) {
        int n = bench_quick() ? sizes[k] / 10 : sizes[k];
        trn_sim *s = bench_open(nop_config);
        char *prog = nop_program(n);
        bench_load(s, prog);
        direct_arg d = {fn, n};
        const bench_job base = {call_direct, &d};
        bench_paired r;
        bench_compare(bench_run_job(s), &base, 1, 0.6, &r);
        char size[32];
        snprintf(size, sizeof size, "%d instr", n);
        /* nothing to recheck: the opcode has no result */
        bench_report("dispatch BenchNop (module)", size, n, "instr", "direct handler call", &r);
        free(prog);
        trn_sim_close(s);
    }
}

typedef struct copy_arg {
    void *dst;      /* the host's destination (do_get) */
    void *copy_dst; /* memcpy's own destination, so the two results stay apart */
    const void *src;
    size_t n;
    trn_sim *sim;
} copy_arg;

static void do_memcpy(void *arg) {
    copy_arg *c = arg;
    memcpy(c->copy_dst, c->src, c->n);
}

static void do_set(void *arg) {
    copy_arg *c = arg;
    bench_set(c->sim, "t", c->src, c->n);
}

BENCH_CASE(host_raw_write) {
    size_t mib[] = {1, 16, 64};
    for (int k = 0; k < 3; ++k) {
        size_t bytes = (bench_quick() ? mib[k] / 4 + 1 : mib[k]) << 20;
        char prog[256];
        snprintf(prog, sizeof prog,
                 "{\"tensors\": [{\"name\": \"t\", \"memory\": \"hbm\", \"dtype\": \"float32\", "
                 "\"shape\": [%zu]}],"
                 " \"instructions\": []}",
                 bytes / 4);
        trn_sim *s = bench_open(nop_config);
        bench_load(s, prog);
        uint8_t *src = malloc(bytes), *dst = malloc(bytes), *back = malloc(bytes);
        for (size_t i = 0; i < bytes; ++i) src[i] = (uint8_t)(i * 131 + (i >> 12));
        memset(dst, 2, bytes);
        copy_arg c = {NULL, dst, src, bytes, s};
        const bench_job base = {do_memcpy, &c};
        bench_paired r;
        bench_compare((bench_job){do_set, &c}, &base, 1, 0.6, &r);
        char size[32];
        snprintf(size, sizeof size, "%zu MiB", bytes >> 20);
        bench_get(s, "t", back, bytes);
        if (memcmp(back, src, bytes))
            bench_mismatch_after("host write through AP");
        else
            bench_report("host write through AP (hbm)", size, (double)bytes, "B", "memcpy", &r);
        free(src);
        free(dst);
        free(back);
        trn_sim_close(s);
    }
}

static void do_get(void *arg) {
    copy_arg *c = arg;
    bench_get(c->sim, "t", c->dst, c->n);
}

/* Reading a dense fp32 SBUF tensor out through its AP (the path every
 * family's read_f32 takes for fp32): walk, uninitialised-read guard, copy. */
BENCH_CASE(host_raw_read) {
    int cols[] = {1024, 4096, 16384};
    for (int k = 0; k < 3; ++k) {
        size_t bytes = (size_t)128 * cols[k] * 4;
        char prog[256];
        snprintf(prog, sizeof prog,
                 "{\"tensors\": [{\"name\": \"t\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
                 "\"shape\": [128, %d]}],"
                 " \"instructions\": []}",
                 cols[k]);
        trn_sim *s = bench_open("machine = { sbuf_partition_bytes = 65536; }; plugins = ();");
        bench_load(s, prog);
        uint8_t *src = malloc(bytes), *dst = malloc(bytes), *copy_dst = malloc(bytes);
        for (size_t i = 0; i < bytes; ++i) src[i] = (uint8_t)(i * 131 + (i >> 12));
        memset(dst, 2, bytes);
        memset(copy_dst, 2, bytes);
        copy_arg c = {dst, copy_dst, src, bytes, s};
        bench_set(s, "t", src, bytes);
        const bench_job base = {do_memcpy, &c};
        bench_paired r;
        bench_compare((bench_job){do_get, &c}, &base, 1, 0.6, &r);
        char size[32];
        snprintf(size, sizeof size, "128 x %d fp32", cols[k]);
        if (memcmp(dst, src, bytes))
            bench_mismatch_after("host read through AP");
        else
            bench_report("host read through AP (sbuf)", size, (double)bytes, "B", "memcpy", &r);
        free(src);
        free(dst);
        free(copy_dst);
        trn_sim_close(s);
    }
}

/* ---- the MPI input agreement's whole-file digest (cli/agree.c) ---- */

typedef struct digest_arg {
    int fd;
    const void *bytes;
    size_t n;
    uint64_t got;
} digest_arg;

static void do_digest_file(void *arg) {
    digest_arg *a = arg;
    if (trn_digest_fd(a->fd, a->n, &a->got)) a->got = 0;
}

static void do_digest_memory(void *arg) {
    digest_arg *a = arg;
    a->got = trn_digest_bytes(a->bytes, a->n);
}

/* What every MPI process pays per --input file (docs/mpi.md): the file
 * mapped and hashed from the page cache, against hashing the same bytes
 * already in memory. */
BENCH_CASE(host_input_digest) {
    size_t n = bench_quick() ? (size_t)64 << 20 : (size_t)1 << 30;
    char path[] = "/tmp/trnsim-bench-digest-XXXXXX";
    int fd = mkstemp(path);
    float *x = malloc(n);
    if (fd < 0 || !x) {
        printf("skipped: no room for a %zu-byte file\n", n);
        free(x);
        if (fd >= 0) close(fd), unlink(path);
        return;
    }
    unlink(path);
    bench_fill_f32(x, n / sizeof *x, 7, -1, 1);
    size_t done = 0;
    for (ssize_t w; done < n && (w = write(fd, (char *)x + done, n - done)) > 0;) done += (size_t)w;
    digest_arg file = {fd, NULL, n, 0}, mem = {fd, x, n, 0};
    do_digest_file(&file);
    do_digest_memory(&mem);
    if (done != n || file.got != mem.got) {
        printf(
            "host_input_digest: the file's digest differs from the bytes' (or the write failed)\n");
    } else {
        const bench_job base = {do_digest_memory, &mem};
        bench_paired r;
        bench_compare((bench_job){do_digest_file, &file}, &base, 1, 3.0, &r);
        if (file.got != mem.got) {
            bench_mismatch_after("input digest");
        } else {
            char size[32];
            snprintf(size, sizeof size, "%zu MiB", n >> 20);
            bench_report("input file digest (mmap + XXH64)", size, (double)n, "B",
                         "XXH64 of the bytes in memory", &r);
        }
    }
    close(fd);
    free(x);
}
