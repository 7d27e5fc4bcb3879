/* libFuzzer: --restore of a dump folder (docs/dumps.md): the manifest and
 * every file the host and the modules read back, against programs that
 * keep module state (collectives in a loop, rng), on the small machine
 * (fuzz_common.h). Any refusal is fine; a crash, a sanitizer report, a hang
 * or an allocation past -rss_limit_mb is a finding.
 *
 * One input is a folder, packed: a byte that picks the program, then
 * records (u8 name length, name, u32 little-endian data length, data) until
 * the end; a name is a relative path of [A-Za-z0-9_.-/] without "..", and
 * a record that does not fit is skipped. The seeds are real dumps: with
 * FUZZ_DUMP_SEEDS=DIR set, initialising writes a dump at every point of
 * each program, packed, into DIR (fuzz/run.sh does this before fuzzing, so
 * the seeds always carry the digests of the build's own config).
 * FUZZ_DUMP_VERBOSE=1 prints each input's outcome (to check the seeds). */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/dump.h"

static const char *const programs[] = {
    /* two cores: AllReduces in a loop, then a Send / Recv pair */
    "{\"cores\": 2, \"tensors\": ["
    "{\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4], "
    "\"data_per_core\": [[1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16]]},"
    "{\"name\": \"z\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4]},"
    "{\"name\": \"w\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [2, 4], "
    "\"fill\": 0}],"
    "\"instructions\": [{\"loop\": {\"trips\": 3, \"register\": 1, \"body\": ["
    "{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllReduce\", \"reduce_op\": \"add\", "
    "\"inputs\": [\"y\"], "
    "\"outputs\": [\"z\"]},"
    "{\"opcode\": \"CollectiveCompute\", \"kind\": \"AllGather\", \"inputs\": "
    "[{\"tensor\": \"z\", \"partitions\": 1}], \"outputs\": [\"y\"]}]}},"
    "{\"opcode\": \"CollectiveSend\", \"inputs\": [\"y\"], \"peer_id\": [1, -1]},"
    "{\"opcode\": \"CollectiveRecv\", \"outputs\": [\"w\"], \"peer_id\": [-1, 0]}]}",
    /* one core: the rng generators' state */
    "{\"tensors\": [{\"name\": \"f\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
    "\"shape\": [4, 3]},"
    "{\"name\": \"p\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": [4, 2]}],"
    "\"instructions\": [{\"opcode\": \"SetRandState2\", \"seed\": 42}, "
    "{\"opcode\": \"Rand2\", \"outputs\": [\"f\"]},"
    "{\"opcode\": \"Rand\", \"algorithm\": \"PCG32\", \"outputs\": [\"p\"]},"
    "{\"opcode\": \"Rand2\", \"outputs\": [\"f\"]}]}",
};
#define N_PROGRAMS (sizeof programs / sizeof programs[0])

static trn_sim *sims[N_PROGRAMS];
static char work[PATH_MAX]; /* this process's folder; each input is unpacked into work/d */
static bool verbose;        /* FUZZ_DUMP_VERBOSE set: each input's outcome on stderr */

static trn_sim *open_sim(size_t p) {
    static const char *const sets[] = {FUZZ_MACHINE_SETS};
    trn_sim_opts o = {.sets = sets,
                      .n_sets = sizeof sets / sizeof sets[0],
                      .max_instructions = 2000,
                      .timeout_seconds = 1.0};
    trn_sim *s;
    trn_error e;
    if (trn_sim_open(&s, &o, &e) || trn_sim_load_program_text(s, programs[p], "fuzz.json", &e)) {
        fprintf(stderr, "fuzz_dump: program %zu: %s\n", p, e.msg);
        abort();
    }
    return s;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_tree(const char *dir) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* ---- packing (seeds) ---- */

static FILE *pack_out;
static size_t pack_root;

static int pack_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)ftw;
    if (flag != FTW_F || !S_ISREG(st->st_mode)) return 0;
    const char *rel = path + pack_root + 1;
    if (!strncmp(rel, "tensors/", 8)) return 0; /* for people; a restore reads none */
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t len = (uint8_t)strlen(rel);
    uint32_t n = (uint32_t)st->st_size;
    uint8_t le[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    fwrite(&len, 1, 1, pack_out);
    fwrite(rel, 1, len, pack_out);
    fwrite(le, 1, 4, pack_out);
    for (int c; (c = fgetc(f)) != EOF;) fputc(c, pack_out);
    fclose(f);
    return 0;
}

static void pack(const char *dir, const char *file, uint8_t program) {
    pack_out = fopen(file, "wb");
    if (!pack_out) return;
    fputc(program, pack_out);
    pack_root = strlen(dir);
    nftw(dir, pack_one, 16, FTW_PHYS);
    fclose(pack_out);
}

/* A dump at every index of every core of each program, packed into seeds. */
static void make_seeds(const char *into) {
    char dump[PATH_MAX], seed[PATH_MAX];
    for (size_t p = 0; p < N_PROGRAMS; ++p)
        for (uint32_t core = 0; core < 2; ++core)
            for (uint64_t index = 0; index < 16; ++index) {
                trn_sim *s = open_sim(p);
                trn_error e;
                snprintf(dump, sizeof dump, "%s/seed", work);
                remove_tree(dump);
                if (trn_sim_dump_at(s, core, index, dump, &e) == 0 && trn_sim_run(s, &e) == 0) {
                    snprintf(seed, sizeof seed, "%s/dump-%zu-%u-%02llu", into, p, core,
                             (unsigned long long)index);
                    pack(dump, seed, (uint8_t)p);
                }
                trn_sim_close(s);
            }
    remove_tree(dump);
}

/* The folder every input is unpacked into: in memory (tmpfs) when there is
 * one. On a disk file system, creating and deleting a folder of files per
 * input cost most of an execution (ext4's inode allocation scans for
 * recently deleted inodes); the restore reads the same files either way. */
static void make_work(void) {
    const char *bases[] = {getenv("FUZZ_DUMP_TMPDIR"), "/dev/shm", getenv("TMPDIR"), "/tmp"};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; ++i) {
        struct stat st;
        if (!bases[i] || stat(bases[i], &st) || !S_ISDIR(st.st_mode)) continue;
        snprintf(work, sizeof work, "%s/fuzz_dump.XXXXXX", bases[i]);
        if (mkdtemp(work)) return;
    }
    fprintf(stderr, "fuzz_dump: cannot make a work folder (%s)\n", strerror(errno));
    abort();
}

static void remove_work(void) { remove_tree(work); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    make_work();
    atexit(remove_work);
    verbose = getenv("FUZZ_DUMP_VERBOSE") != NULL;
    const char *seeds = getenv("FUZZ_DUMP_SEEDS");
    if (seeds) make_seeds(seeds);
    for (size_t p = 0; p < N_PROGRAMS; ++p) sims[p] = open_sim(p);
    return 0;
}

/* ---- unpacking ---- */

static bool name_ok(const char *name, size_t n) {
    if (n == 0 || name[0] == '/' || memmem(name, n, "..", 2)) return false;
    for (size_t i = 0; i < n; ++i) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-' || c == '/'))
            return false;
    }
    return name[n - 1] != '/';
}

/* Make the parent folders of root/rel. */
static void make_parents(char *path, size_t root) {
    for (char *q = path + root + 1; (q = strchr(q, '/')) != NULL; ++q) {
        *q = 0;
        mkdir(path, 0700);
        *q = '/';
    }
}

static void unpack(const uint8_t *data, size_t size, const char *dir) {
    mkdir(dir, 0700);
    size_t at = 0, root = strlen(dir);
    char path[PATH_MAX];
    while (at < size) {
        size_t n = data[at++];
        if (at + n + 4 > size) return;
        const char *name = (const char *)data + at;
        at += n;
        uint32_t len = (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 |
                       (uint32_t)data[at + 2] << 16 | (uint32_t)data[at + 3] << 24;
        at += 4;
        if (len > size - at) len = (uint32_t)(size - at);
        if (name_ok(name, n)) {
            snprintf(path, sizeof path, "%s/%.*s", dir, (int)n, name);
            make_parents(path, root);
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(data + at, 1, len, f);
                fclose(f);
            }
        }
        at += len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    trn_sim *s = sims[data[0] % N_PROGRAMS];
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/d", work);
    remove_tree(dir);
    unpack(data + 1, size - 1, dir);
    trn_error e;
    int rc = trn_sim_restore(s, dir, &e) || trn_sim_run(s, &e);
    if (verbose) fprintf(stderr, "fuzz_dump: %s\n", rc ? e.msg : "restored and ran");
    remove_tree(dir);
    return 0;
}
