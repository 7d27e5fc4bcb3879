/* Runs a libFuzzer entry point over files, for builds without libFuzzer:
 * the corpus becomes a regression test. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
        size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
        fclose(f);
        if (!buf || got != (size_t)n) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            free(buf);
            return 1;
        }
        LLVMFuzzerTestOneInput(buf, got);
        free(buf);
    }
    printf("replayed %d input(s)\n", argc - 1);
    return 0;
}
