/* The written-byte map (memory/memory.h) against the plain byte loop it
 * replaces: one bool per byte, marked, cleared and checked a byte at a
 * time. Random sequences of marks, clears, element marks and checks over
 * ranges from one byte to several 4 KiB chunks, aligned and not, with and
 * without another process's bits (remote_written); every answer, every
 * first never-written byte and every copied-out map must be the oracle's,
 * and every summary bit must stand for a chunk whose words are all ones. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "memory/memory.h"
#include "host/test_util.h"

#define TEST_RANDOM_SEED 0x6a09e667f3bcc909ull
#include "host/test_random.h"

#define PARTS  4
#define PBYTES 65536
#define TOTAL  ((uint64_t)PARTS * PBYTES)

/* The oracle: what the map must say, byte by byte. */
static bool local[TOTAL], remote[TOTAL];

static bool oracle_written(uint64_t addr, uint64_t len, uint64_t *first) {
    for (uint64_t b = addr; b < addr + len; ++b)
        if (!local[b] && !remote[b]) {
            *first = b;
            return false;
        }
    return true;
}

/* A range: mostly short (elements), sometimes long; aligned to a word or a
 * chunk now and then, so the whole-word and whole-chunk paths run. */
static void random_range(uint64_t *addr, uint64_t *len) {
    uint64_t r = rnd();
    switch (r % 6) {
        case 0: *len = 1 + rnd() % 8; break;
        case 1: *len = 1 + rnd() % 200; break;
        case 2: *len = 1 + rnd() % 20000; break;
        case 3: *len = (1 + rnd() % 6) * TRN_MEM_CHUNK; break;
        case 4: *len = 64 * (1 + rnd() % 100); break;
        default: *len = rnd() % 3; break; /* empty ranges too */
    }
    if (*len > TOTAL) *len = TOTAL;
    *addr = rnd() % (TOTAL - *len + 1);
    if (r % 7 == 0)
        *addr &= ~(uint64_t)(TRN_MEM_CHUNK - 1);
    else if (r % 5 == 0)
        *addr &= ~(uint64_t)63;
    if (*addr + *len > TOTAL) *len = TOTAL - *addr;
}

static void check_summary(const trn_memory *m) {
    for (uint64_t c = 0; c < TOTAL / TRN_MEM_CHUNK; ++c) {
        if (!(m->full[c >> 6] >> (c & 63) & 1)) continue;
        for (uint64_t w = c * (TRN_MEM_CHUNK / 64); w < (c + 1) * (TRN_MEM_CHUNK / 64); ++w)
            if (m->written[w] != ~0ull)
                fail_msg("chunk %" PRIu64 " is marked full but map word %" PRIu64 " is %#" PRIx64,
                         c, w, m->written[w]);
    }
}

static void check_range(const trn_memory *m, uint64_t addr, uint64_t len, int step) {
    uint64_t want_first = UINT64_MAX, got_first = UINT64_MAX;
    bool want = oracle_written(addr, len, &want_first);
    bool got = trn_mem_is_written(m, addr, len, &got_first);
    if (got != want || (!want && got_first != want_first))
        fail_msg("step %d: [%" PRIu64 ", +%" PRIu64 "): map says %d (first %" PRIu64
                 "), bytes say %d (first %" PRIu64 ")",
                 step, addr, len, got, got_first, want, want_first);
    if (trn_mem_is_written(m, addr, len, NULL) != want)
        fail_msg("step %d: the answer depends on first_unwritten", step);
}

static void check_copy(const trn_memory *m, uint64_t addr, uint64_t len, int step) {
    uint8_t *out = malloc((size_t)(len + 7) / 8 + 1);
    out[(len + 7) / 8] = 0xa5; /* a guard byte past the end */
    trn_mem_copy_written(m, addr, len, out);
    for (uint64_t i = 0; i < (len + 7) / 8 * 8; ++i) {
        bool bit = out[i >> 3] >> (i & 7) & 1,
             want = i < len && (local[addr + i] || remote[addr + i]);
        if (bit != want)
            fail_msg("step %d: copy of [%" PRIu64 ", +%" PRIu64 ") bit %" PRIu64
                     " is %d, expected %d",
                     step, addr, len, i, bit, want);
    }
    assert_int_equal(out[(len + 7) / 8], 0xa5);
    free(out);
}

static void one_sequence(trn_memory *m, bool with_remote, int ops) {
    for (int step = 0; step < ops; ++step) {
        uint64_t addr, len;
        random_range(&addr, &len);
        uint64_t r = rnd() % 16;
        if (r < 5) {
            trn_mem_mark_written(m, addr, len);
            for (uint64_t b = addr; b < addr + len; ++b) local[b] = true;
        } else if (r < 7) {
            uint32_t w = 1u << (rnd() % 4);
            addr = rnd() % (TOTAL - w + 1);
            if (rnd() % 2) addr &= ~(uint64_t)(w - 1);
            trn_mem_mark_elem(m, addr, w);
            for (uint64_t b = addr; b < addr + w; ++b) local[b] = true;
        } else if (r < 8) {
            trn_mem_clear_written(m, addr, len);
            for (uint64_t b = addr; b < addr + len; ++b) local[b] = false;
        } else if (r < 9 && with_remote) { /* another process wrote here */
            for (uint64_t b = addr; b < addr + len && b < addr + 300; ++b) {
                m->remote_written[b >> 6] |= 1ull << (b & 63);
                remote[b] = true;
            }
        } else if (r < 11) {
            uint32_t w = 1u << (rnd() % 4);
            addr = rnd() % (TOTAL - w + 1);
            uint64_t first;
            if (trn_mem_elem_written(m, addr, w) != oracle_written(addr, w, &first))
                fail_msg("step %d: element [%" PRIu64 ", +%u) disagrees", step, addr, w);
        } else if (r < 12) {
            check_copy(m, addr, len < 5000 ? len : 5000, step);
        } else {
            check_range(m, addr, len, step);
        }
    }
    check_summary(m);
}

static void random_sequences(void **st) {
    (void)st;
    int sequences = 0, ops = 0;
    for (int run = 0; run < 120; ++run) {
        trn_machine mach = {.partitions = PARTS,
                            .sbuf_partition_bytes = PBYTES,
                            .psum_partition_bytes = 64,
                            .hbm_bytes = 64,
                            .registers = 1};
        trn_core_state core;
        trn_error e;
        if (trn_core_state_init(&core, &mach, &e)) fail_msg("%s", e.msg);
        trn_memory *m = &core.mem[TRN_MEM_SBUF];
        bool with_remote = run % 3 == 0;
        if (with_remote && trn_mem_enable_remote_map(m, &e)) fail_msg("%s", e.msg);
        memset(local, 0, sizeof local);
        memset(remote, 0, sizeof remote);
        /* a few long runs fill most of the memory, so the summary matters */
        if (run % 4 == 1) {
            trn_mem_mark_written(m, 0, TOTAL);
            memset(local, 1, sizeof local);
        }
        int n = 300 + (int)(rnd() % 300);
        one_sequence(m, with_remote, n);
        /* and every chunk checked whole once, then again from its summary */
        for (int again = 0; again < 2; ++again)
            for (uint64_t c = 0; c < TOTAL; c += TRN_MEM_CHUNK)
                check_range(m, c, TRN_MEM_CHUNK, -1);
        check_summary(m);
        trn_core_state_free(&core);
        sequences++;
        ops += n;
    }
    printf("written map: %d sequences, %d operations, all as the byte loop says\n", sequences, ops);
}

/* The uninitialised-read guard's message is the byte loop's first byte. */
static void first_byte_in_messages(void **st) {
    (void)st;
    trn_machine mach = {.partitions = PARTS,
                        .sbuf_partition_bytes = PBYTES,
                        .psum_partition_bytes = 64,
                        .hbm_bytes = 64,
                        .registers = 1};
    trn_core_state core;
    trn_error e;
    assert_int_equal(trn_core_state_init(&core, &mach, &e), 0);
    trn_memory *m = &core.mem[TRN_MEM_SBUF];
    trn_mem_mark_written(m, 0, TOTAL);
    uint64_t first = 0;
    assert_true(trn_mem_is_written(m, 0, TOTAL, &first));
    trn_mem_clear_written(m, 70000, 1); /* one byte inside a chunk that was full */
    assert_false(trn_mem_is_written(m, 4096, TOTAL - 4096, &first));
    assert_int_equal(first, 70000);
    trn_mem_mark_elem(m, 70000, 1); /* a 1-byte write marks one byte */
    assert_true(trn_mem_is_written(m, 0, TOTAL, &first));
    trn_mem_clear_written(m, 5, 2);
    assert_false(trn_mem_is_written(m, 0, 8, &first));
    assert_int_equal(first, 5);
    assert_true(trn_mem_is_written(m, 7, 100, &first));
    trn_core_state_free(&core);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(random_sequences),
                                       cmocka_unit_test(first_byte_in_messages)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
