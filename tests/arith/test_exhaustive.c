/* Every one of the 2^32 fp32 patterns (ctest label `exhaustive`):
 *   fp16: the element encoder equals the compiler's (_Float16)x (cc_f16.h) for every
 *         non-NaN pattern and gives 0x7e00 | sign for NaN;
 *   bf16: the element encoder equals the integer RNE formula
 *         (u + 0x7fff + lsb) >> 16 for every non-NaN pattern, 0x7fc0 for NaN
 *         (the formula is written independently of the reference's guard / lsb /
 *         sticky form; test_bf16 checks it against exact distances);
 *   both: the span encoders equal the element encoders.
 * Blocks of 64 Ki patterns; one cmocka test per format so a failure says
 * which. */
#include "cc_f16.h"

enum { BLOCK = 1 << 16 };

static void test_f16_all(void **state) {
    (void)state;
    static float f[BLOCK];
    static uint16_t span[BLOCK];
    for (uint64_t base = 0; base <= 0xffffffffu; base += BLOCK) {
        for (uint32_t i = 0; i < BLOCK; i++) f[i] = bitsf((uint32_t)base + i);
        trn_narrow_span(TRN_DT_FP16, f, span, BLOCK);
        for (uint32_t i = 0; i < BLOCK; i++) {
            uint32_t u = (uint32_t)base + i;
            uint16_t got = trn_f32_to_f16(f[i]);
            uint16_t want =
                isnan(f[i]) ? (uint16_t)(0x7e00u | ((u >> 16) & 0x8000u)) : cc_f16(f[i]);
            if (got != want || span[i] != got)
                fail_msg("fp16: f32 %08x -> element %04x, span %04x, expected %04x", u, got,
                         span[i], want);
        }
    }
}

static void test_bf16_all(void **state) {
    (void)state;
    static float f[BLOCK];
    static uint16_t span[BLOCK];
    for (uint64_t base = 0; base <= 0xffffffffu; base += BLOCK) {
        for (uint32_t i = 0; i < BLOCK; i++) f[i] = bitsf((uint32_t)base + i);
        trn_narrow_span(TRN_DT_BF16, f, span, BLOCK);
        for (uint32_t i = 0; i < BLOCK; i++) {
            uint32_t u = (uint32_t)base + i;
            uint16_t got = trn_f32_to_bf16(f[i]);
            uint16_t want = (u & 0x7fffffffu) > 0x7f800000u
                                ? 0x7fc0
                                : (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
            if (got != want || span[i] != got)
                fail_msg("bf16: f32 %08x -> element %04x, span %04x, expected %04x", u, got,
                         span[i], want);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_all),
        cmocka_unit_test(test_bf16_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
