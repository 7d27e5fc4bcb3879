/* The timeline: Chrome trace-event JSON in its object form
 * ({"traceEvents": [...], "displayTimeUnit": "ns"}), the format Perfetto and
 * chrome://tracing load. pid 1 is the run; tid c is core c. Each executed
 * instruction is a complete event ('X'); the attempts of an instruction
 * that waited fold into one "wait" slice between its first attempt and the
 * one that completed; at a rendezvous of every core, each core that arrived
 * earlier gets a flow arrow ('s' -> 'f', bound to the enclosing slices)
 * into the slice of the core whose arrival completed it. Sub-instructions are slices nested in
 * their parent's (held back until the parent's slice is written, so each
 * track's events come in time order). */
#include "runtime/timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "runtime/sim_internal.h"

#define TIMELINE_BUFFER (1u << 16)
#define MAX_RENDEZVOUS 64 /* open rendezvous at once; the oldest is dropped past it */

typedef struct core_track {
    bool waiting;          /* its current instruction returned TRN_WAIT */
    uint64_t wait_from_ns; /* the end of its first attempt */
    uint32_t attempts;
    trn_strbuf subs;       /* sub-instruction slices waiting for their parent's */
} core_track;

typedef struct rendezvous {
    bool used, released;
    uint64_t number, index;
    uint32_t arrived, done;
    uint64_t *arrive_ns; /* [cores]: a moment inside each core's first attempt; 0: not arrived */
} rendezvous;

struct trn_timeline {
    trn_sim *sim;
    FILE *out;
    char *path;
    bool write_failed, closed;
    int write_errno;
    uint32_t cores;
    core_track *track;
    rendezvous rv[MAX_RENDEZVOUS];
    uint64_t next_flow, events;
    trn_strbuf line;
    char *stdio_buf;
};

static void emit(trn_timeline *t, trn_strbuf *b) {
    if (b->failed) {
        t->write_failed = true;
        t->write_errno = ENOMEM;
    } else if (b->len && !t->write_failed && fwrite(b->text, 1, b->len, t->out) != b->len) {
        t->write_failed = true;
        t->write_errno = errno;
    }
    trn_sb_clear(b);
}

/* ts / dur in microseconds with ns resolution. */
static void event_head(trn_timeline *t, trn_strbuf *b, const char *ph, uint32_t core, uint64_t ts_ns) {
    trn_sb_printf(b, "%s{\"ph\":\"%s\",\"pid\":1,\"tid\":%u,\"ts\":%" PRIu64 ".%03u", t->events++ ? ",\n" : "\n", ph,
                  core, ts_ns / 1000, (unsigned)(ts_ns % 1000));
}

static void slice(trn_timeline *t, trn_strbuf *b, const trn_observation *ob, uint64_t ts, uint64_t dur) {
    event_head(t, b, "X", ob->core, ts);
    trn_sb_printf(b, ",\"dur\":%" PRIu64 ".%03u,\"name\":", dur / 1000, (unsigned)(dur % 1000));
    trn_sb_json_string(b, ob->opcode);
    trn_sb_printf(b, ",\"cat\":");
    trn_sb_json_string(b, ob->family);
    trn_sb_printf(b, ",\"args\":{\"index\":%" PRIu64 ",\"number\":%" PRIu64 ",\"it\":%u,\"depth\":%u,\"module\":",
                  ob->index, ob->number, ob->it, ob->depth);
    trn_sb_json_string(b, ob->module);
    trn_sb_printf(b, ",\"status\":\"%s\"", ob->status == TRN_OK ? "ok" : ob->status == TRN_WAIT ? "wait" : "error");
    if (ob->where) {
        trn_sb_printf(b, ",\"where\":");
        trn_sb_json_string(b, ob->where);
    }
    if (ob->error) {
        trn_sb_printf(b, ",\"error\":");
        trn_sb_json_string(b, ob->error);
    }
    trn_sb_printf(b, ",\"outputs\":[");
    for (uint32_t k = 0; k < ob->n_out; ++k) {
        if (k) trn_sb_putc(b, ',');
        trn_sb_json_string(b, ob->out[k].tensor ? ob->out[k].tensor : "(memory)");
    }
    trn_sb_printf(b, "]}}");
}

static void wait_slice(trn_timeline *t, const trn_observation *ob, const core_track *c) {
    uint64_t from = c->wait_from_ns, to = ob->start_ns > from ? ob->start_ns : from;
    event_head(t, &t->line, "X", ob->core, from);
    trn_sb_printf(&t->line, ",\"dur\":%" PRIu64 ".%03u,\"name\":\"wait\",\"cat\":\"wait\",\"args\":{\"opcode\":",
                  (to - from) / 1000, (unsigned)((to - from) % 1000));
    trn_sb_json_string(&t->line, ob->opcode);
    trn_sb_printf(&t->line, ",\"index\":%" PRIu64 ",\"attempts\":%u}}", ob->index, c->attempts);
}

static void flow(trn_timeline *t, const char *ph, uint32_t core, uint64_t ts, uint64_t id) {
    event_head(t, &t->line, ph, core, ts);
    trn_sb_printf(&t->line, ",\"id\":%" PRIu64 ",\"name\":\"rendezvous\",\"cat\":\"collective\"%s}", id,
                  ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
}

static rendezvous *find_rendezvous(trn_timeline *t, const trn_observation *ob) {
    rendezvous *free_slot = NULL;
    for (int i = 0; i < MAX_RENDEZVOUS; ++i) {
        rendezvous *r = &t->rv[i];
        if (r->used && r->number == ob->number && r->index == ob->index) return r;
        if (!r->used && !free_slot) free_slot = r;
    }
    rendezvous *r = free_slot ? free_slot : &t->rv[ob->index % MAX_RENDEZVOUS]; /* full: reuse one */
    uint64_t *arr = r->arrive_ns;
    memset(arr, 0, t->cores * sizeof *arr);
    *r = (rendezvous){.used = true, .number = ob->number, .index = ob->index, .arrive_ns = arr};
    return r;
}

/* A rendezvous instruction (TRN_OPF_MAY_WAIT): note each core's arrival;
 * the first completion releases it and gets an arrow from every core that
 * arrived before. */
static void rendezvous_step(trn_timeline *t, const trn_observation *ob, bool first_attempt) {
    rendezvous *r = find_rendezvous(t, ob);
    if (first_attempt && !r->arrive_ns[ob->core]) {
        r->arrive_ns[ob->core] = ob->start_ns + ob->duration_ns / 2 + 1;
        r->arrived++;
    }
    if (ob->status != TRN_OK) return;
    /* Only a full rendezvous gets arrows: every core arrived before the first
     * completion. Point-to-point pairs (CollectiveSend / Recv are different
     * instructions) and group subsets release earlier and get none, so an
     * arrow never links cores that did not meet. */
    if (!r->released && r->arrived == t->cores) {
        uint64_t at = ob->start_ns + ob->duration_ns / 2;
        for (uint32_t c = 0; c < t->cores; ++c) {
            if (c == ob->core || !r->arrive_ns[c]) continue;
            uint64_t id = ++t->next_flow;
            flow(t, "s", c, r->arrive_ns[c] - 1 < at ? r->arrive_ns[c] - 1 : at, id);
            flow(t, "f", ob->core, at, id);
        }
    }
    r->released = true;
    if (++r->done >= t->cores) r->used = false;
}

static bool may_wait(const trn_timeline *t, uint32_t it) {
    const trn_opcode_desc *op = t->sim->table[it].op;
    return op && (op->flags & TRN_OPF_MAY_WAIT);
}

static trn_status timeline_after(const trn_host_api *api, const trn_observation *ob, void *state) {
    trn_timeline *t = state;
    if (ob->core >= t->cores) return TRN_OK;
    core_track *c = &t->track[ob->core];
    if (ob->depth > 0) { /* nested in the parent's slice, written after it */
        uint64_t keep = t->events;
        slice(t, &c->subs, ob, ob->start_ns, ob->duration_ns);
        t->events = keep + 1;
        return TRN_OK;
    }
    bool first_attempt = !c->waiting;
    if (ob->status == TRN_WAIT) {
        if (!c->waiting) {
            slice(t, &t->line, ob, ob->start_ns, ob->duration_ns);
            c->waiting = true;
            c->wait_from_ns = ob->start_ns + ob->duration_ns;
            c->attempts = 1;
        } else {
            c->attempts++;
        }
    } else {
        if (c->waiting) wait_slice(t, ob, c);
        c->waiting = false;
        slice(t, &t->line, ob, ob->start_ns, ob->duration_ns);
        emit(t, &t->line);
        emit(t, &c->subs);
    }
    if (may_wait(t, ob->it)) rendezvous_step(t, ob, first_attempt);
    emit(t, &t->line);
    if (t->write_failed)
        return api->observer_stop(ob, "--timeline %s: writing failed: %s", t->path, strerror(t->write_errno));
    return TRN_OK;
}

static const trn_observer_desc timeline_observer = {.size = sizeof timeline_observer, .after = timeline_after};

static void metadata(trn_timeline *t, const trn_sim *s) {
    trn_strbuf *b = &t->line;
    trn_sb_printf(b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"trnsim\",\"program\":");
    trn_sb_json_string(b, s->prog.path);
    trn_sb_printf(b, "},\"traceEvents\":[");
    trn_sb_printf(b, "\n{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":");
    char name[600];
    snprintf(name, sizeof name, "trnsim %s", s->prog.path);
    trn_sb_json_string(b, name);
    trn_sb_printf(b, "}}");
    t->events = 1;
    for (uint32_t c = 0; c < t->cores; ++c)
        trn_sb_printf(b, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"core %u\"}},"
                      "\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
                      c, c, c, c);
    emit(t, b);
}

static void free_timeline(trn_timeline *t) {
    if (!t) return;
    for (uint32_t c = 0; t->track && c < t->cores; ++c) trn_sb_free(&t->track[c].subs);
    free(t->track);
    if (t->rv[0].arrive_ns) free(t->rv[0].arrive_ns);
    trn_sb_free(&t->line);
    free(t->path);
    free(t->stdio_buf);
    free(t);
}

int trn_timeline_begin(trn_sim *s, const char *path, trn_timeline **out, trn_error *e) {
    *out = NULL;
    trn_timeline *t = calloc(1, sizeof *t);
    uint32_t n = s->ncores ? s->ncores : 1;
    uint64_t *arrive = t ? calloc((size_t)n * MAX_RENDEZVOUS, sizeof *arrive) : NULL;
    if (t) t->cores = n, t->track = calloc(n, sizeof *t->track), t->path = strdup(path);
    if (t) t->stdio_buf = malloc(TIMELINE_BUFFER);
    if (!t || !arrive || !t->track || !t->path || !t->stdio_buf) {
        free(arrive);
        free_timeline(t);
        return trn_errorf(e, "out of memory for the timeline");
    }
    for (int i = 0; i < MAX_RENDEZVOUS; ++i) t->rv[i].arrive_ns = arrive + (size_t)i * n;
    t->sim = s;
    int fd = strcmp(path, "-") ? -1 : dup(2);
    t->out = fd >= 0 ? fdopen(fd, "w") : fopen(path, "w");
    if (!t->out) {
        trn_errorf(e, "--timeline %s: cannot create it: %s", path, strerror(errno));
        free_timeline(t);
        return -1;
    }
    setvbuf(t->out, t->stdio_buf, _IOFBF, TIMELINE_BUFFER);
    if (trn_sim_add_observer(s, &timeline_observer, t, e)) {
        fclose(t->out);
        free_timeline(t);
        return -1;
    }
    metadata(t, s);
    *out = t;
    return 0;
}

int trn_timeline_end(trn_sim *s, trn_timeline *t, trn_error *e) {
    if (!t) return 0;
    trn_sim_remove_observer(s, &timeline_observer, t);
    for (uint32_t c = 0; c < t->cores; ++c) emit(t, &t->track[c].subs); /* a parent that never completed */
    trn_sb_printf(&t->line, "\n]}\n");
    emit(t, &t->line);
    bool failed = t->write_failed;
    int err = t->write_errno;
    if (fclose(t->out) != 0 && !failed) failed = true, err = errno;
    int rc = failed ? trn_errorf(e, "--timeline %s: writing failed: %s", t->path, strerror(err)) : 0;
    free_timeline(t);
    return rc;
}
