/* libFuzzer: --restore of a dump folder (docs/dumps.md): the manifest and
 * every file the host and the modules read back, against programs that
 * keep module state (collectives in a loop, rng), on the small machine
 * (fuzz_common.h). Any refusal is fine; a crash, a sanitizer report, a hang
 * or an allocation past -rss_limit_mb is a finding.
 *
 * One input is a folder, packed (fuzz/dump_folder.h): a byte that picks the
 * program, then records of a relative path and its bytes. It is unpacked
 * into one folder of this process (on tmpfs when there is one), kept from
 * input to input with only the differences written (dump_folder.c says
 * why); the restore reads it through the same checks as any dump. The
 * seeds are real dumps: with FUZZ_DUMP_SEEDS=DIR set, initialising writes
 * a dump at every point of each program, packed, into DIR (fuzz/run.sh does
 * this before fuzzing, so the seeds always carry the digests of the build's
 * own config). FUZZ_DUMP_VERBOSE=1 prints each input's outcome (to check
 * the seeds); FUZZ_DUMP_CHECK=1 compares the kept folder with the input
 * unpacked into an empty one, on every input, and aborts on a difference. */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/dump.h"
#include "dump_folder.h"

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
static bool check; /* FUZZ_DUMP_CHECK set: the kept folder compared with a fresh unpacking */

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

/* A dump at every index of every core of each program, packed into seeds. */
static void make_seeds(const char *into) {
    char dump[PATH_MAX], seed[PATH_MAX];
    for (size_t p = 0; p < N_PROGRAMS; ++p)
        for (uint32_t core = 0; core < 2; ++core)
            for (uint64_t index = 0; index < 16; ++index) {
                trn_sim *s = open_sim(p);
                trn_error e;
                snprintf(dump, sizeof dump, "%s/seed", work);
                folder_remove(dump);
                if (trn_sim_dump_at(s, core, index, dump, &e) == 0 && trn_sim_run(s, &e) == 0) {
                    snprintf(seed, sizeof seed, "%s/dump-%zu-%u-%02llu", into, p, core,
                             (unsigned long long)index);
                    folder_pack(dump, seed, (uint8_t)p);
                }
                trn_sim_close(s);
            }
    folder_remove(dump);
}

/* This process's folder: in memory (tmpfs) when there is one. On a disk
 * file system, creating and deleting files per input cost most of an
 * execution (ext4's inode allocation scans for recently deleted inodes,
 * 2-6 ms an input); the restore reads the same files either way. */
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

static void remove_work(void) { folder_remove(work); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    make_work();
    atexit(remove_work);
    verbose = getenv("FUZZ_DUMP_VERBOSE") != NULL;
    check = getenv("FUZZ_DUMP_CHECK") != NULL;
    const char *seeds = getenv("FUZZ_DUMP_SEEDS");
    if (seeds) make_seeds(seeds);
    for (size_t p = 0; p < N_PROGRAMS; ++p) sims[p] = open_sim(p);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    trn_sim *s = sims[data[0] % N_PROGRAMS];
    char dir[PATH_MAX], fresh[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/d", work);
    folder_unpack(data + 1, size - 1, dir);
    if (check) {
        snprintf(fresh, sizeof fresh, "%s/fresh", work);
        folder_unpack_fresh(data + 1, size - 1, fresh);
        if (!folder_same(fresh, dir)) {
            fprintf(stderr, "fuzz_dump: the kept folder %s is not the input's folder %s\n", dir,
                    fresh);
            abort();
        }
        folder_remove(fresh);
    }
    trn_error e;
    int rc = trn_sim_restore(s, dir, &e) || trn_sim_run(s, &e);
    if (verbose) fprintf(stderr, "fuzz_dump: %s\n", rc ? e.msg : "restored and ran");
    return 0;
}
