/* --trace / --timeline over several processes (dist_observe.h): private
 * part files, gathered to rank 0 in chunks through the transport's to_root
 * and merged line by line. The writers' formats (trace.c, timeline.c) put
 * one record or one event on each line, which is all the merge relies on:
 * it recognises a line by its first key and rewrites only the timeline's
 * "ts" and flow "id" values. */
#define _GNU_SOURCE
#include "observers/observers.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/exec.h"

#define CHUNK      ((size_t)1 << 20)
#define OUT_BUFFER (1u << 16)

struct trn_dist_obs {
    trn_dist_obs_kind kind;
    const char *option; /* "--trace" / "--timeline" */
    char *path;         /* the target ("-": standard error) */
    char part[PATH_MAX];
    bool part_named; /* the part's name still exists */
    int part_fd;
    trn_outfile temp; /* rank 0: the temporary beside the target */
    bool have_temp;   /* false elsewhere, and for "-" */
    int temp_fd;
    uint64_t limit;
    /* the merge, on rank 0 */
    FILE *out;
    bool write_failed, header_done;
    int write_errno;
    uint64_t records, events;
    uint32_t from, ranks; /* whose part is being merged */
    uint64_t shift_ns;    /* that part's clock onto the earliest */
    trn_strbuf carry, line;
};

/* What each process tells the others before the parts move. */
typedef struct part_info {
    uint64_t bytes;
    uint64_t start_real_ns; /* when its run began, on the real-time clock */
} part_info;

static bool to_stderr(const trn_dist_obs *o) { return !strcmp(o->path, "-"); }

static bool root(const trn_sim *s) { return trn_sim_dist_c(s)->tinfo.rank == 0; }

/* The temporary beside the target, through the one guard for every file
 * trnsim writes (common/common.h): created now, so that a target in a
 * place that cannot take a file is an error before the run. */
static int open_temp(trn_dist_obs *o, trn_error *e) {
    if (trn_outfile_create(&o->temp, o->option, o->path, e)) return -1;
    o->temp_fd = o->temp.fd;
    o->have_temp = true;
    return 0;
}

static int open_part(trn_dist_obs *o, trn_error *e) {
    const char *tmp = getenv("TMPDIR");
    snprintf(o->part, sizeof o->part, "%s/trnsim-%s-part-XXXXXX", tmp && *tmp ? tmp : "/tmp",
             o->kind == TRN_DIST_TRACE ? "trace" : "timeline");
    o->part_fd = mkstemp(o->part);
    if (o->part_fd < 0)
        return trn_errorf(e, "%s %s: cannot create this process's part file %s: %s", o->option,
                          o->path, o->part, strerror(errno));
    o->part_named = true;
    return 0;
}

int trn_dist_obs_open(trn_sim *s, trn_dist_obs_kind kind, const char *path, uint64_t limit,
                      trn_dist_obs **out, trn_error *e) {
    *out = NULL;
    trn_dist_obs *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        return trn_errorf(e, "out of memory");
    }
    o->kind = kind;
    o->option = kind == TRN_DIST_TRACE ? "--trace" : "--timeline";
    o->limit = limit;
    o->part_fd = o->temp_fd = -1;
    if ((root(s) && !to_stderr(o) && open_temp(o, e)) || open_part(o, e)) {
        trn_dist_obs_close(o);
        return -1;
    }
    *out = o;
    return 0;
}

const char *trn_dist_obs_part_path(const trn_dist_obs *o) { return o->part; }

void trn_dist_obs_forget_name(trn_dist_obs *o) {
    if (o && o->part_named) unlink(o->part);
    if (o) o->part_named = false;
}

void trn_dist_obs_close(trn_dist_obs *o) {
    if (!o) return;
    trn_dist_obs_forget_name(o);
    if (o->part_fd >= 0) close(o->part_fd);
    if (o->out) fclose(o->out);
    if (o->have_temp) trn_outfile_discard(&o->temp);
    trn_sb_free(&o->carry);
    trn_sb_free(&o->line);
    free(o->path);
    free(o);
}

/* ---- writing the merged file (rank 0) ---------------------------------- */

static void put(trn_dist_obs *o, const char *text, size_t len) {
    if (!o->write_failed && len && fwrite(text, 1, len, o->out) != len) {
        o->write_failed = true;
        o->write_errno = errno;
    }
}

static void put_line(trn_dist_obs *o, const char *text, size_t len) {
    put(o, text, len);
    put(o, "\n", 1);
}

static bool starts(const char *line, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    return len >= n && !memcmp(line, prefix, n);
}

/* The trace: rank 0's header, every part's instruction records (at most
 * `limit` in all, then the limit record), one end record (merge_end). */
static void trace_line(trn_dist_obs *o, const char *line, size_t len) {
    if (starts(line, len, "{\"type\":\"header\"")) {
        if (!o->header_done) put_line(o, line, len);
        o->header_done = true;
        return;
    }
    if (!starts(line, len, "{\"type\":\"instruction\""))
        return; /* the parts' limit and end records */
    if (o->limit && o->records >= o->limit) return;
    put_line(o, line, len);
    if (++o->records == o->limit) {
        char rec[256];
        int n = snprintf(rec, sizeof rec,
                         "{\"type\":\"limit\",\"records\":%" PRIu64
                         ",\"message\":\"--trace-limit %" PRIu64
                         " reached: later instructions are not traced\"}",
                         o->records, o->limit);
        put_line(o, rec, (size_t)n);
    }
}

/* A decimal "SEC.NNN" microsecond value at p as ns; *end past it. */
static uint64_t parse_us(const char *p, const char **end) {
    char *q;
    uint64_t us = strtoull(p, &q, 10), ns = 0;
    if (*q == '.') {
        int digits = 0;
        for (++q; *q >= '0' && *q <= '9'; ++q)
            if (digits++ < 3) ns = ns * 10 + (uint64_t)(*q - '0');
        while (digits++ < 3) ns *= 10;
    }
    *end = q;
    return us * 1000 + ns;
}

/* One event of a part: its "ts" moved by the part's shift, a flow's "id"
 * made unique over the processes (the writer puts "ts" before "id"),
 * written after the separator. */
static void timeline_event(trn_dist_obs *o, const char *line, size_t len) {
    trn_strbuf *b = &o->line;
    trn_sb_clear(b);
    const char *at = line, *stop = line + len;
    const char *ts = memmem(at, len, ",\"ts\":", 6);
    if (ts) {
        const char *after;
        uint64_t v = parse_us(ts + 6, &after) + o->shift_ns;
        trn_sb_printf(b, "%.*s,\"ts\":%" PRIu64 ".%03u", (int)(ts - at), at, v / 1000,
                      (unsigned)(v % 1000));
        at = after;
    }
    bool flow = starts(line, len, "{\"ph\":\"s\"") || starts(line, len, "{\"ph\":\"f\"");
    const char *id = flow ? memmem(at, (size_t)(stop - at), ",\"id\":", 6) : NULL;
    if (id) {
        char *q;
        uint64_t v = strtoull(id + 6, &q, 10);
        trn_sb_printf(b, "%.*s,\"id\":%" PRIu64, (int)(id - at), at,
                      (v ? v - 1 : 0) * o->ranks + o->from + 1);
        at = q;
    }
    trn_sb_printf(b, "%.*s", (int)(stop - at), at);
    if (b->failed) {
        o->write_failed = true;
        o->write_errno = ENOMEM;
    }
    bool first = o->events++ == 0;
    put(o, first ? "\n" : ",\n", first ? 1 : 2);
    put(o, b->text ? b->text : "", b->len);
}

/* The timeline: rank 0's opening and its metadata (every core's track),
 * then every part's events; the closing comes in merge_end. */
static void timeline_line(trn_dist_obs *o, const char *line, size_t len) {
    if (len && line[len - 1] == ',') --len; /* the writer's separator */
    if (starts(line, len, "{\"displayTimeUnit\"")) {
        if (!o->header_done) put(o, line, len);
        o->header_done = true;
        return;
    }
    if (!starts(line, len, "{\"ph\":")) return; /* the closing "]}" */
    if (starts(line, len, "{\"ph\":\"M\"") && o->from != 0) return;
    timeline_event(o, line, len);
}

static void one_line(trn_dist_obs *o, const char *line, size_t len) {
    if (o->kind == TRN_DIST_TRACE)
        trace_line(o, line, len);
    else
        timeline_line(o, line, len);
}

/* Bytes of the current part: complete lines are merged, the rest waits for
 * the next chunk. */
static void feed(trn_dist_obs *o, const char *p, size_t n) {
    while (n) {
        const char *nl = memchr(p, '\n', n);
        if (!nl) {
            trn_sb_printf(&o->carry, "%.*s", (int)n, p);
            return;
        }
        size_t k = (size_t)(nl - p);
        if (o->carry.len) {
            trn_sb_printf(&o->carry, "%.*s", (int)k, p);
            one_line(o, o->carry.text, o->carry.len);
            trn_sb_clear(&o->carry);
        } else {
            one_line(o, p, k);
        }
        p += k + 1;
        n -= k + 1;
    }
}

static void part_done(trn_dist_obs *o) {
    if (o->carry.len) one_line(o, o->carry.text, o->carry.len); /* a part cut short */
    if (o->carry.failed) o->write_failed = true, o->write_errno = ENOMEM;
    trn_sb_clear(&o->carry);
}

static void merge_end(trn_dist_obs *o, bool run_failed) {
    if (o->kind == TRN_DIST_TIMELINE) {
        put(o, "\n]}\n", 4);
        return;
    }
    char rec[256];
    int n = snprintf(rec, sizeof rec,
                     "{\"type\":\"end\",\"status\":\"%s\",\"records\":%" PRIu64
                     ",\"limit_reached\":%s}",
                     run_failed ? "error" : "ok", o->records,
                     o->limit && o->records >= o->limit ? "true" : "false");
    put_line(o, rec, (size_t)n);
}

/* ---- moving the parts -------------------------------------------------- */

static uint64_t real_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Up to n bytes of this process's part at off; what cannot be read is
 * zeros (the sizes were promised) and an error. */
static int read_part(trn_dist_obs *o, char *buf, size_t n, uint64_t off, trn_error *e, int *rc) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(o->part_fd, buf + got, n - got, (off_t)(off + got));
        if (k <= 0) {
            memset(buf + got, 0, n - got);
            if (*rc == 0)
                *rc = trn_errorf(e, "%s %s: reading this process's part file back failed: %s",
                                 o->option, o->path,
                                 k < 0 ? strerror(errno) : "it is shorter than written");
            break;
        }
        got += (size_t)k;
    }
    return *rc;
}

static FILE *open_out(trn_dist_obs *o) {
    int fd = dup(o->temp_fd >= 0 ? o->temp_fd : 2);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0) close(fd);
    if (f) setvbuf(f, NULL, _IOFBF, OUT_BUFFER);
    return f;
}

/* Rank 0's own part, straight from its file. */
static int merge_own(trn_dist_obs *o, uint64_t bytes, char *buf, trn_error *e, int *rc) {
    for (uint64_t off = 0; off < bytes; off += CHUNK) {
        size_t n = bytes - off < CHUNK ? (size_t)(bytes - off) : CHUNK;
        read_part(o, buf, n, off, e, rc);
        feed(o, buf, n);
    }
    part_done(o);
    return *rc;
}

/* Part `from` to rank 0, chunk by chunk (only those two take part). */
static int move_part(trn_sim *s, trn_dist_obs *o, uint32_t from, uint64_t bytes, char *buf,
                     trn_error *e, int *rc) {
    bool mine = trn_sim_dist_c(s)->tinfo.rank == from, me_root = root(s);
    if (!mine && !me_root) return 0;
    for (uint64_t off = 0; off < bytes; off += CHUNK) {
        size_t n = bytes - off < CHUNK ? (size_t)(bytes - off) : CHUNK;
        if (mine) read_part(o, buf, n, off, e, rc);
        if (trn_dist_to_root(trn_sim_dist(s), from, buf, n, e))
            return trn_error_prefix(e, "%s %s: moving MPI process %u's records to process 0",
                                    o->option, o->path, from);
        if (me_root) feed(o, buf, n);
    }
    if (me_root) part_done(o);
    return 0;
}

int trn_dist_obs_merge(trn_sim *s, trn_dist_obs *o, bool run_failed, trn_error *e) {
    uint32_t ranks = trn_sim_dist_c(s)->tinfo.ranks;
    part_info mine = {0, real_ns()}, *all = calloc(ranks, sizeof *all);
    char *buf = malloc(CHUNK);
    if (!all || !buf) {
        free(all);
        free(buf);
        return trn_errorf(e, "out of memory");
    }
    struct stat st;
    if (fstat(o->part_fd, &st) == 0) mine.bytes = (uint64_t)st.st_size;
    uint64_t started = trn_sim_run_started_ns(s);
    if (started) mine.start_real_ns -= trn_now_ns() - started;
    int rc = 0;
    if (trn_dist_allgather(trn_sim_dist(s), &mine, all, sizeof mine, e))
        rc = trn_error_prefix(e, "%s %s: gathering the processes' records", o->option, o->path);
    uint64_t earliest = UINT64_MAX;
    for (uint32_t r = 0; r < ranks && rc == 0; ++r)
        if (all[r].bytes && all[r].start_real_ns < earliest) earliest = all[r].start_real_ns;
    if (rc == 0 && root(s) && !(o->out = open_out(o)))
        rc = trn_errorf(e, "%s %s: cannot write it: %s", o->option, o->path, strerror(errno));
    int local = 0; /* a failure that leaves the protocol intact: every part still moves */
    o->ranks = ranks;
    for (uint32_t r = 0; r < ranks && rc == 0; ++r) {
        o->from = r;
        o->shift_ns = all[r].start_real_ns > earliest ? all[r].start_real_ns - earliest : 0;
        if (r == 0 && root(s))
            merge_own(o, all[0].bytes, buf, e, &local);
        else if (r > 0)
            rc = move_part(s, o, r, all[r].bytes, buf, e, &local);
    }
    if (rc == 0 && root(s)) {
        merge_end(o, run_failed);
        if ((fflush(o->out) != 0 || o->write_failed) && local == 0)
            local = trn_errorf(e, "%s %s: writing failed: %s", o->option, o->path,
                               strerror(o->write_failed ? o->write_errno : errno));
    }
    free(all);
    free(buf);
    return rc ? rc : local;
}

int trn_dist_obs_commit(trn_dist_obs *o, trn_error *e) {
    if (!o || (!o->have_temp && !o->out)) return 0;
    if (o->out && fclose(o->out) != 0) {
        o->out = NULL;
        return trn_errorf(e, "%s %s: writing failed: %s", o->option, o->path, strerror(errno));
    }
    o->out = NULL;
    if (!o->have_temp) return 0; /* "-" */
    int rc = trn_outfile_commit(&o->temp, e);
    trn_outfile_discard(&o->temp);
    o->have_temp = false;
    return rc;
}
