/* dma_ap_slice: the pieces of a dense range, concatenated, visit exactly the
 * elements of that range of the AP, in order (brute-force address lists). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dma_apslice.h"

typedef struct addr {
    int64_t part, elem;
} addr;

/* Every element of ap in visiting order (the plugin.h definition). */
static size_t addresses(const trn_ap *ap, addr *out) {
    size_t k = 0;
    int64_t free = trn_ap_free_elems(ap);
    for (uint32_t p = 0; p < ap->part_count; ++p)
        for (int64_t f = 0; f < free; ++f) {
            int64_t rem = f, elem = ap->offset;
            for (int d = (int)ap->ndims - 1; d >= 0; --d) {
                elem += (rem % ap->dims[d].num) * ap->dims[d].step;
                rem /= ap->dims[d].num;
            }
            out[k].part = (int64_t)ap->part_start + (int64_t)p * ap->part_step;
            out[k].elem = elem;
            ++k;
        }
    return k;
}

static uint64_t rs = 12345;
static uint32_t rnd(uint32_t n) {
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rs >> 33) % n;
}

static void check_range(const trn_ap *ap, int64_t start, int64_t count, addr *all, addr *got) {
    trn_ap pieces[DMA_SLICE_MAX];
    int k = dma_ap_slice(ap, start, count, pieces);
    assert_true(k >= 0 && k <= DMA_SLICE_MAX);
    if (count == 0) assert_int_equal(k, 0);
    size_t n = 0;
    for (int i = 0; i < k; ++i) {
        assert_int_equal(pieces[i].mem, ap->mem);
        assert_int_equal(pieces[i].dtype, ap->dtype);
        assert_true(pieces[i].part_count >= 1);
        n += addresses(&pieces[i], got + n);
    }
    assert_int_equal(n, (size_t)count);
    assert_memory_equal(got, all + start, (size_t)count * sizeof(addr));
}

static void test_slice_known(void **st) {
    (void)st;
    /* 4 partitions x [3][5]: elements 7 .. 37 */
    trn_ap ap = {.mem = TRN_MEM_SBUF,
                 .dtype = TRN_DT_FP32,
                 .part_start = 2,
                 .part_count = 4,
                 .part_step = 3,
                 .offset = 10,
                 .ndims = 2,
                 .dims = {{7, 3}, {1, 5}}};
    addr all[60], got[60];
    assert_int_equal(addresses(&ap, all), 60);
    check_range(&ap, 7, 31, all, got);
    trn_ap pieces[DMA_SLICE_MAX];
    /* head: rest of row 1 of partition 0 (3 elems), row 2 (5); whole
     * partition 1; tail: row 0 of partition 2 (5) and 3 elements of row 1 */
    assert_int_equal(dma_ap_slice(&ap, 7, 31, pieces), 5);
    assert_int_equal(pieces[2].part_start, 5);
    assert_int_equal(pieces[2].part_count, 1);
    assert_int_equal(dma_ap_slice(&ap, 0, 60, pieces), 1);
    assert_int_equal(dma_ap_slice(&ap, 15, 30, pieces), 1); /* partitions 1..2 */
    assert_int_equal(pieces[0].part_start, 5);
    assert_int_equal(pieces[0].part_count, 2);
    assert_int_equal(dma_ap_slice(&ap, 5, 0, pieces), 0);
}

static void test_slice_random(void **st) {
    (void)st;
    addr *all = malloc(4096 * sizeof(addr)), *got = malloc(4096 * sizeof(addr));
    for (int iter = 0; iter < 3000; ++iter) {
        trn_ap ap = {.mem = TRN_MEM_HBM,
                     .dtype = TRN_DT_BF16,
                     .part_start = rnd(4),
                     .part_count = 1 + rnd(4),
                     .part_step = rnd(3),
                     .offset = rnd(50),
                     .ndims = rnd(5)};
        for (uint32_t d = 0; d < ap.ndims; ++d) {
            ap.dims[d].num = 1 + rnd(4);
            ap.dims[d].step = (int64_t)rnd(9) - 4; /* negative and zero steps too */
        }
        size_t n = addresses(&ap, all);
        int64_t a = rnd((uint32_t)n + 1);
        int64_t c = rnd((uint32_t)(n - (size_t)a) + 1);
        check_range(&ap, a, c, all, got);
        check_range(&ap, 0, (int64_t)n, all, got);
    }
    free(all);
    free(got);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice_known),
        cmocka_unit_test(test_slice_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
