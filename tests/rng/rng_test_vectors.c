/* Every generator against its published known answers (tests/rng/data),
 * both the plugin's kernels and the test oracle. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rng_gen1.h"
#include "rng_mt64.h"
#include "rng_oracle.h"
#include "rng_testdata.h"
#include "rng_xorwow.h"

/* ---- Philox4x32-10: Random123 kat_vectors + old_kat_vectors ------------ */

static void test_philox_kat(void **unused) {
    (void)unused;
    FILE *f = rng_data_open("philox4x32_10_kat.txt");
    char line[512];
    int rows = 0;
    while (rng_data_line(f, line, sizeof line)) {
        uint32_t v[10];
        int rounds;
        if (strncmp(line, "philox4x32 ", 11) != 0) continue;
        int got =
            sscanf(line + 11,
                   "%d %" SCNx32 " %" SCNx32 " %" SCNx32 " %" SCNx32 " %" SCNx32 " %" SCNx32
                   " %" SCNx32 " %" SCNx32 " %" SCNx32 " %" SCNx32,
                   &rounds, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
        assert_int_equal(got, 11);
        assert_int_equal(rounds, 10);
        uint32_t out[4], orc[4];
        rng_philox4x32_10(v, v + 4, out);
        orc_philox(v, v + 4, orc);
        for (int k = 0; k < 4; ++k) {
            assert_int_equal(out[k], v[6 + k]);
            assert_int_equal(orc[k], v[6 + k]);
        }
        ++rows;
    }
    fclose(f);
    assert_int_equal(rows, 3 + 52); /* both upstream sets */
}

/* ---- PCG32: the pcg-c / pcg-cpp check transcripts ---------------------- */

/* pcg32_boundedrand_r: threshold = -bound % bound, draw until r >= it. */
static uint32_t pcg_bounded(uint64_t *s, uint64_t inc, uint32_t bound) {
    uint32_t threshold = -bound % bound;
    for (;;) {
        uint32_t r = rng_pcg32_step_inc(s, inc);
        if (r >= threshold) return r % bound;
    }
}

typedef struct pcg_round {
    uint32_t raw[6], again[6];
    char coins[80];
    int rolls[33], nrolls;
    char cards[52][3];
    int ncards;
} pcg_round;

static void parse_cards(const char *s, pcg_round *r) {
    char tok[8];
    int used;
    while (sscanf(s, "%7s%n", tok, &used) == 1) {
        assert_true(r->ncards < 52);
        memcpy(r->cards[r->ncards++], tok, 3);
        s += used;
    }
}

/* The 'Round 1..5' part of a transcript. */
static int parse_pcg_transcript(const char *name, pcg_round rounds[5]) {
    FILE *f = rng_data_open(name);
    char line[512];
    int n = -1, in = 0, cards = 0;
    memset(rounds, 0, 5 * sizeof *rounds);
    while (rng_data_line(f, line, sizeof line)) {
        if (!in) {
            in = strcmp(line, "#---BEGIN-TRANSCRIPT---") == 0;
            continue;
        }
        const char *t = line + strspn(line, " \t");
        if (strncmp(t, "Round ", 6) == 0) {
            if (++n == 5) break;
            cards = 0;
        } else if (n < 0) {
            continue;
        } else if (strncmp(t, "32bit:", 6) == 0 || strncmp(t, "Again:", 6) == 0) {
            uint32_t *dst = t[0] == '3' ? rounds[n].raw : rounds[n].again;
            int got =
                sscanf(t + 6, "%" SCNx32 "%" SCNx32 "%" SCNx32 "%" SCNx32 "%" SCNx32 "%" SCNx32,
                       &dst[0], &dst[1], &dst[2], &dst[3], &dst[4], &dst[5]);
            assert_int_equal(got, 6);
            cards = 0;
        } else if (strncmp(t, "Coins:", 6) == 0) {
            assert_int_equal(sscanf(t + 6, "%79s", rounds[n].coins), 1);
            cards = 0;
        } else if (strncmp(t, "Rolls:", 6) == 0) {
            const char *s = t + 6;
            int v, used;
            while (sscanf(s, "%d%n", &v, &used) == 1) {
                rounds[n].rolls[rounds[n].nrolls++] = v;
                s += used;
            }
            cards = 0;
        } else if (strncmp(t, "Cards:", 6) == 0) {
            parse_cards(t + 6, &rounds[n]);
            cards = 1;
        } else if (cards && line[0] == '\t') {
            parse_cards(t, &rounds[n]);
        } else {
            cards = 0;
        }
    }
    fclose(f);
    return n < 0 ? 0 : (n == 5 ? 5 : n + 1);
}

/* pcg-c test-high/check-base.c, one round; the backstep of 'Again' is
 * modelled by replaying from a saved state. */
static void pcg_play_round(uint64_t *s, uint64_t inc, pcg_round *r) {
    static const char number[] = "A23456789TJQK", suit[] = "hcds";
    uint64_t saved = *s;
    for (int i = 0; i < 6; ++i) r->raw[i] = rng_pcg32_step_inc(s, inc);
    *s = saved;
    for (int i = 0; i < 6; ++i) r->again[i] = rng_pcg32_step_inc(s, inc);
    for (int i = 0; i < 65; ++i) r->coins[i] = pcg_bounded(s, inc, 2) ? 'H' : 'T';
    r->coins[65] = 0;
    r->nrolls = 33;
    for (int i = 0; i < 33; ++i) r->rolls[i] = (int)pcg_bounded(s, inc, 6) + 1;
    int deck[52];
    for (int i = 0; i < 52; ++i) deck[i] = i;
    for (int i = 52; i > 1; --i) {
        uint32_t chosen = pcg_bounded(s, inc, (uint32_t)i);
        int card = deck[chosen];
        deck[chosen] = deck[i - 1];
        deck[i - 1] = card;
    }
    r->ncards = 52;
    for (int i = 0; i < 52; ++i) {
        r->cards[i][0] = number[deck[i] / 4];
        r->cards[i][1] = suit[deck[i] % 4];
        r->cards[i][2] = 0;
    }
}

static void check_pcg_file(const char *name, uint64_t start, uint64_t inc) {
    pcg_round want[5];
    assert_int_equal(parse_pcg_transcript(name, want), 5);
    uint64_t s = start;
    for (int n = 0; n < 5; ++n) {
        pcg_round got;
        memset(&got, 0, sizeof got);
        pcg_play_round(&s, inc, &got);
        assert_memory_equal(got.raw, want[n].raw, sizeof got.raw);
        assert_memory_equal(got.again, want[n].again, sizeof got.again);
        assert_string_equal(got.coins, want[n].coins);
        assert_int_equal(want[n].nrolls, 33);
        assert_memory_equal(got.rolls, want[n].rolls, sizeof got.rolls);
        assert_int_equal(want[n].ncards, 52);
        for (int i = 0; i < 52; ++i) assert_string_equal(got.cards[i], want[n].cards[i]);
    }
}

/* pcg_oneseq_64_srandom_r / pcg_setseq_64_srandom_r. */
static uint64_t pcg_seeded(uint64_t initstate, uint64_t inc) {
    uint64_t s = 0;
    s = s * RNG_PCG32_MUL + inc;
    s += initstate;
    s = s * RNG_PCG32_MUL + inc;
    return s;
}

static void test_pcg32_oneseq(void **unused) {
    (void)unused;
    assert_true(pcg_seeded(42, RNG_PCG32_INC) ==
                0x977afd8015414a94ULL); /* the header's raw start state */
    check_pcg_file("pcg32_oneseq_expected.txt", pcg_seeded(42, RNG_PCG32_INC), RNG_PCG32_INC);
}

static void test_pcg32_setseq(void **unused) {
    (void)unused;
    uint64_t inc = (54u << 1) | 1u;
    check_pcg_file("pcg32_setseq_42_54_expected.txt", pcg_seeded(42, inc), inc);
}

/* The first round through Rand's own path: PCG32 on state words 0/1. */
static void test_pcg32_rand_words(void **unused) {
    (void)unused;
    static const uint32_t want[6] = {0xc2f57bd6, 0x6b07c4a9, 0x72b7b29b,
                                     0x44215383, 0xf5af5ead, 0x68beb632};
    uint64_t s = 0x977afd8015414a94ULL;
    uint32_t w[6] = {(uint32_t)s, (uint32_t)(s >> 32), 7, 8, 9, 10}, orc_w[6];
    memcpy(orc_w, w, sizeof w);
    uint32_t out[6], orc[6];
    rng_gen1_fill(RNG_ALG_PCG32, w, 1, out, 6);
    orc_rand(RNG_ALG_PCG32, orc_w, orc, 6);
    assert_memory_equal(out, want, sizeof want);
    assert_memory_equal(orc, want, sizeof want);
    assert_memory_equal(w, orc_w, sizeof w);
    assert_int_equal(w[2], 7); /* words 2..5 untouched */
    assert_int_equal(w[5], 10);
}

/* ---- MT19937-64 -------------------------------------------------------- */

/* The 312 words of section header in the init-states file. */
static void read_mt_section(const char *header, uint64_t out[312]) {
    FILE *f = rng_data_open("mt19937_64_init_states_public.txt");
    char line[256];
    int in = 0, n = 0;
    while (n < 312 && rng_data_line(f, line, sizeof line)) {
        if (!in) {
            in = strcmp(line, header) == 0;
            continue;
        }
        assert_true(line[0] != '[');
        out[n++] = strtoull(line, NULL, 10);
    }
    fclose(f);
    assert_int_equal(n, 312);
}

static void test_mt64_init_states(void **unused) {
    (void)unused;
    static const struct {
        const char *header;
        uint64_t seed;
    } cases[] = {{"[seed_u64 0x0123456789abcdef]", 0x0123456789ABCDEFULL}, {"[seed_u64 0]", 0}};
    for (size_t c = 0; c < 2; ++c) {
        uint64_t want[312];
        read_mt_section(cases[c].header, want);
        rng_mt64 m;
        orc_mt o;
        rng_mt64_seed(&m, cases[c].seed);
        orc_mt_init(&o, cases[c].seed);
        assert_memory_equal(m.mt, want, sizeof want);
        assert_memory_equal(o.mt, want, sizeof want);
        assert_int_equal(m.mti, 312);
    }
}

/* init_by_array64 (oracle) -> state file; the plugin's genrand64 from that
 * state -> the 1000 + 1000 values of mt19937-64.out.txt. */
static void test_mt64_reference_output(void **unused) {
    (void)unused;
    static const uint64_t key[4] = {0x12345, 0x23456, 0x34567, 0x45678};
    uint64_t want_state[312];
    read_mt_section("[init_by_array64 0x12345,0x23456,0x34567,0x45678]", want_state);
    orc_mt o = {{0}, 0};
    orc_mt_init_by_array(&o, key, 4);
    assert_memory_equal(o.mt, want_state, sizeof want_state);
    rng_mt64 m;
    memcpy(m.mt, o.mt, sizeof m.mt);
    m.mti = 312;

    FILE *f = rng_data_open("mt19937_64_ref_out.txt");
    char line[512];
    int in = 0, ints = 0, reals = 0, part = 0;
    while (rng_data_line(f, line, sizeof line)) {
        if (!in) {
            in = strcmp(line, "#---BEGIN-FILE---") == 0;
            continue;
        }
        if (strstr(line, "outputs of")) {
            part = strstr(line, "real2") ? 2 : 1;
            continue;
        }
        char *s = line, *end;
        for (;;) {
            while (*s == ' ') ++s;
            if (!*s) break;
            end = strchr(s, ' ');
            if (end) *end = 0;
            if (part == 1) {
                uint64_t r = rng_mt64_next(&m), ro = orc_mt_next(&o);
                assert_true(r == strtoull(s, NULL, 10));
                assert_true(ro == r);
                ++ints;
            } else {
                /* genrand64_real2 printed with %10.8f */
                char buf[64];
                uint64_t r = rng_mt64_next(&m);
                snprintf(buf, sizeof buf, "%10.8f", (double)(r >> 11) * (1.0 / 9007199254740992.0));
                assert_string_equal(buf, s);
                ++reals;
            }
            if (!end) break;
            s = end + 1;
        }
    }
    fclose(f);
    assert_int_equal(ints, 1000);
    assert_int_equal(reals, 1000);
}

static void test_mt64_seed5489(void **unused) {
    (void)unused;
    FILE *f = rng_data_open("mt19937_64_seed5489_public.txt");
    char line[256];
    rng_mt64 m;
    rng_mt64 unseeded = {.mti = RNG_MT64_NN + 1};
    rng_mt64_seed(&m, 5489);
    uint64_t at = 0, r = 0;
    int checked = 0;
    while (rng_data_line(f, line, sizeof line)) {
        unsigned long long idx, val;
        if (line[0] == '#' || sscanf(line, "%llu %llu", &idx, &val) != 2) continue;
        while (at < idx) {
            r = rng_mt64_next(&m);
            ++at;
        }
        assert_true(r == val);
        ++checked;
    }
    fclose(f);
    assert_int_equal(checked, 4);
    /* genrand64_int64 on an unseeded engine seeds itself with 5489. */
    assert_true(rng_mt64_next(&unseeded) == 14514284786278117030ULL);
}

/* ---- XORWOW: Marsaglia's example seeds --------------------------------- */

static void test_xorwow_marsaglia(void **unused) {
    (void)unused;
    uint32_t s[6] = {123456789, 362436069, 521288629, 88675123, 5783321, 6615241};
    uint32_t o[6];
    memcpy(o, s, sizeof s);
    FILE *f = rng_data_open("xorwow_phobos_public.txt");
    char line[256];
    int n = 0;
    while (rng_data_line(f, line, sizeof line)) {
        unsigned idx;
        uint32_t val;
        if (line[0] == '#' || sscanf(line, "%u %" SCNu32, &idx, &val) != 2) continue;
        assert_int_equal(idx, n + 1);
        assert_int_equal(rng_xorwow_next(s), val);
        assert_int_equal(orc_xorwow(o), val);
        ++n;
    }
    fclose(f);
    assert_int_equal(n, 9);
}

/* The same stream through Rand2's lane path, as raw bits, in lane 2 of a
 * 4-lane (4x2p) partition: columns 2, 6, 10, ... */
static void test_xorwow_marsaglia_lane(void **unused) {
    (void)unused;
    static const uint32_t want[9] = {246875399,  3690007200, 1264581005, 3906711041, 1866187943,
                                     2481925219, 2464530826, 1604040631, 3653403911};
    static const uint32_t seed[6] = {123456789, 362436069, 521288629, 88675123, 5783321, 6615241};
    uint32_t lanes[9 * 24];
    for (size_t i = 0; i < 9 * 24; ++i) lanes[i] = 1;
    for (size_t p = 0; p < 9; ++p) memcpy(lanes + p * 24 + 2 * 6, seed, sizeof seed);
    uint32_t out[9 * 36];
    rng_xorwow_fill_bits(lanes, 9, 4, out, 36); /* 9 partitions: a group of 8 and a tail of 1 */
    for (size_t p = 0; p < 9; ++p)
        for (size_t k = 0; k < 9; ++k) assert_int_equal(out[p * 36 + 2 + 4 * k], want[k]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_kat),
        cmocka_unit_test(test_pcg32_oneseq),
        cmocka_unit_test(test_pcg32_setseq),
        cmocka_unit_test(test_pcg32_rand_words),
        cmocka_unit_test(test_mt64_init_states),
        cmocka_unit_test(test_mt64_reference_output),
        cmocka_unit_test(test_mt64_seed5489),
        cmocka_unit_test(test_xorwow_marsaglia),
        cmocka_unit_test(test_xorwow_marsaglia_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
