#include "runtime/stats.h"

#include <time.h>

double trn_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A JSON string: opcode names come from modules and may hold any byte. */
static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

void trn_stats_print(const trn_stats *st, const char *const *names, FILE *out, int json) {
    int first = 1;
    if (json) fprintf(out, "{\"opcodes\": [");
    else fprintf(out, "%-4s %-28s %10s %8s %12s\n", "IT", "opcode", "count", "skipped", "seconds");
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) {
        if (!st->count[it] && !st->skipped[it]) continue;
        const char *name = names[it] ? names[it] : "?";
        if (json) {
            fprintf(out, "%s\n  {\"it\": %d, \"name\": ", first ? "" : ",", it);
            json_string(out, name);
            fprintf(out, ", \"count\": %llu, \"skipped\": %llu, \"seconds\": %.9f}", (unsigned long long)st->count[it],
                    (unsigned long long)st->skipped[it], st->seconds[it]);
        } else
            fprintf(out, "%-4d %-28s %10llu %8llu %12.6f\n", it, name, (unsigned long long)st->count[it],
                    (unsigned long long)st->skipped[it], st->seconds[it]);
        first = 0;
    }
    if (json) fprintf(out, "\n]}\n");
}
