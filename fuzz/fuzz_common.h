/* Shared by the libFuzzer harnesses: one small machine, every family the
 * build compiled in, and budgets low enough that no input can run long. */
#ifndef TRNSIM_FUZZ_COMMON_H
#define TRNSIM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The input as a NUL-terminated string (the readers take text). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    char *t = malloc(size + 1);
    if (!t) abort();
    memcpy(t, data, size);
    t[size] = 0;
    return t;
}

/* 4 partitions of 4 KiB SBUF / 1 KiB PSUM, 64 KiB HBM, 8 registers, and a
 * 256 MiB memory budget (a core costs ~100 KiB, so even 1024 cores fit); an
 * instruction's operands are held to 16 MiB. As --set overlays. */
#define FUZZ_MACHINE_SETS                                                                          \
    "machine.partitions=4", "machine.sbuf_partition_bytes=4096",                                   \
        "machine.psum_partition_bytes=1024", "machine.hbm_bytes=65536", "machine.registers=8",     \
        "machine.max_bytes=268435456", "machine.max_instruction_bytes=16777216"

#endif
