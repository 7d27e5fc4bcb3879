/* Scalar oracle: the reference's code, transliterated (see search_oracle.h). */
#include "search_oracle.h"

#include <stdint.h>

void oracle_max8(const float *data, size_t n, float slot[8]) {
    uint8_t valid[8] = {0};
    for (size_t i = 0; i < n; ++i) {
        float carry = data[i];
        for (int k = 0; k < 8; ++k) {
            if (!valid[k]) {
                slot[k] = carry;
                valid[k] = 1;
                break;
            }
            if (carry > slot[k]) {
                float demoted = slot[k];
                slot[k] = carry;
                carry = demoted;
            }
        }
    }
}

/* Slot k of the s-th step of the slot loop. */
static int slot_of(int s, int descending) { return descending ? 7 - s : s; }

void oracle_max_index(const float *data, size_t n, const float max_vals[8], int descending,
                      uint32_t out_idx[8]) {
    for (int k = 0; k < 8; ++k) out_idx[k] = 0xFFFFFFFFu;
    uint8_t matched[8] = {0};
    for (size_t i = 0; i < n; ++i) {
        float d = data[i];
        for (int s = 0; s < 8; ++s) {
            int k = slot_of(s, descending);
            if (matched[k]) continue;
            if (d == max_vals[k]) {
                out_idx[k] = (uint32_t)i;
                matched[k] = 1;
                break;
            }
        }
    }
}

void oracle_match_replace(const float *data, size_t n, const float max_vals[8], float sentinel,
                          int descending, float *out, uint32_t *idx_out) {
    if (idx_out)
        for (int k = 0; k < 8; ++k) idx_out[k] = 0xFFFFFFFFu;
    uint8_t matched[8] = {0};
    for (size_t i = 0; i < n; ++i) {
        float d = data[i];
        out[i] = d;
        for (int s = 0; s < 8; ++s) {
            int k = slot_of(s, descending);
            if (matched[k]) continue;
            if (d == max_vals[k]) {
                matched[k] = 1;
                out[i] = sentinel;
                if (idx_out) idx_out[k] = (uint32_t)i;
                break;
            }
        }
    }
}
