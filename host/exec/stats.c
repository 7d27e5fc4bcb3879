#include "exec/exec.h"
#include "common/common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arith/arith.h"
#include "memory/memory.h"

trn_coll_stat *trn_stats_coll(trn_stats *st, uint64_t number) {
    for (size_t i = 0; i < st->n_coll; ++i)
        if (st->coll[i].number == number) return &st->coll[i];
    if (st->n_coll == st->cap_coll) {
        size_t cap = st->cap_coll ? 2 * st->cap_coll : 16;
        trn_coll_stat *n = realloc(st->coll, cap * sizeof *n);
        if (!n) return NULL;
        st->coll = n;
        st->cap_coll = cap;
    }
    trn_coll_stat *c = &st->coll[st->n_coll++];
    memset(c, 0, sizeof *c);
    c->number = number;
    return c;
}

void trn_stats_free(trn_stats *st) {
    free(st->coll);
    st->coll = NULL;
    st->n_coll = st->cap_coll = 0;
}

/* As nccl-tests' per-collective busBw factors: an all-reduce moves each byte
 * twice around the ring, the gathers and scatters once, a point-to-point
 * transfer exactly once. */
double trn_stats_busbw_factor(const char *kind, uint32_t n) {
    if (n == 0) return 0;
    double f = (double)(n - 1) / (double)n;
    if (!strcmp(kind, "AllReduce")) return 2 * f;
    if (!strcmp(kind, "AllGather") || !strcmp(kind, "ReduceScatter") || !strcmp(kind, "AllToAll") ||
        !strcmp(kind, "AllToAllV"))
        return f;
    return 1;
}

/* A JSON string: opcode names come from modules and may hold any byte. */
static void stats_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_opcodes(const trn_stats *st, const char *const *names, FILE *out, int json) {
    int first = 1;
    if (json)
        fprintf(out, "{\"opcodes\": [");
    else
        fprintf(out, "%-4s %-28s %10s %8s %12s %14s %10s %10s\n", "IT", "opcode", "count",
                "skipped", "seconds", "elements", "nan", "inf");
    for (int it = 0; it <= (int)TRN_IT_MAX; ++it) {
        if (!st->count[it] && !st->skipped[it]) continue;
        const char *name = names[it] ? names[it] : "?";
        unsigned long long c = st->count[it], sk = st->skipped[it], el = st->elements[it],
                           nan = st->nan[it], inf = st->inf[it];
        if (json) {
            fprintf(out, "%s\n  {\"it\": %d, \"name\": ", first ? "" : ",", it);
            stats_json_string(out, name);
            fprintf(out,
                    ", \"count\": %llu, \"skipped\": %llu, \"seconds\": %.9f, \"elements\": %llu, "
                    "\"nan\": %llu, "
                    "\"inf\": %llu}",
                    c, sk, st->seconds[it], el, nan, inf);
        } else
            fprintf(out, "%-4d %-28s %10llu %8llu %12.6f %14llu %10llu %10llu\n", it, name, c, sk,
                    st->seconds[it], el, nan, inf);
        first = 0;
    }
    if (json) fprintf(out, "\n]");
}

static void print_memories(const trn_stats *st, FILE *out, int json) {
    if (json)
        fprintf(out, ", \"memories\": [");
    else
        fprintf(out, "\n%-6s %16s %16s\n", "memory", "bytes read", "bytes written");
    for (int m = 0; m < 3; ++m) {
        unsigned long long r = st->bytes_read[m], w = st->bytes_written[m];
        if (json)
            fprintf(out, "%s\n  {\"name\": \"%s\", \"bytes_read\": %llu, \"bytes_written\": %llu}",
                    m ? "," : "", trn_mem_names[m], r, w);
        else
            fprintf(out, "%-6s %16llu %16llu\n", trn_mem_names[m], r, w);
    }
    if (json) fprintf(out, "\n]");
}

/* nccl-tests' columns; time is one execution's handler time summed over
 * the cores (the simulator runs them one after another), in us. */
static void print_collectives(const trn_stats *st, FILE *out, int json) {
    if (json)
        fprintf(out, ", \"collectives\": [");
    else if (st->n_coll)
        fprintf(out, "\n%11s %-22s %12s %10s %-9s %-6s %5s %10s %11s %11s %8s\n", "instruction",
                "collective", "size(B)", "count", "type", "redop", "ranks", "time(us)",
                "algbw(GB/s)", "busbw(GB/s)", "#wrong");
    for (size_t i = 0; i < st->n_coll; ++i) {
        const trn_coll_stat *c = &st->coll[i];
        uint32_t w = trn_dtype_width((trn_dtype)c->dtype);
        double t = c->executions ? c->seconds / (double)c->executions : 0;
        double alg = t > 0 ? (double)c->bytes / t / 1e9 : 0,
               bus = alg * trn_stats_busbw_factor(c->kind, c->ranks);
        unsigned long long n = (unsigned long long)c->number, size = c->bytes,
                           count = w ? c->bytes / w : 0;
        if (json) {
            fprintf(out,
                    "%s\n  {\"instruction\": %llu, \"collective\": \"%s\", \"size\": %llu, "
                    "\"count\": %llu, "
                    "\"type\": \"%s\", \"redop\": %s%s%s, \"ranks\": %u, \"executions\": %llu, "
                    "\"time_us\": %.3f, "
                    "\"algbw\": %.6f, \"busbw\": %.6f, \"busbw_factor\": %.6f, \"wrong\": ",
                    i ? "," : "", n, c->kind, size, count, trn_dtype_name((trn_dtype)c->dtype),
                    c->redop ? "\"" : "", c->redop ? c->redop : "null", c->redop ? "\"" : "",
                    c->ranks, (unsigned long long)c->executions, t * 1e6, alg, bus,
                    trn_stats_busbw_factor(c->kind, c->ranks));
            if (c->checked)
                fprintf(out, "%llu}", (unsigned long long)c->wrong);
            else
                fprintf(out, "null}");
        } else {
            char wrong[24] = "N/A";
            if (c->checked) snprintf(wrong, sizeof wrong, "%llu", (unsigned long long)c->wrong);
            fprintf(out, "%11llu %-22s %12llu %10llu %-9s %-6s %5u %10.2f %11.4f %11.4f %8s\n", n,
                    c->kind, size, count, trn_dtype_name((trn_dtype)c->dtype),
                    c->redop ? c->redop : "none", c->ranks, t * 1e6, alg, bus, wrong);
        }
    }
    if (json) fprintf(out, "\n]");
}

void trn_stats_print(const trn_stats *st, const char *const *names, FILE *out, int json) {
    print_opcodes(st, names, out, json);
    print_memories(st, out, json);
    print_collectives(st, out, json);
    if (json) fprintf(out, "}\n");
}
