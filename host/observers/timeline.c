/* The timeline: Chrome trace-event JSON in its object form
 * ({"traceEvents": [...], "displayTimeUnit": "ns"}), the format Perfetto and
 * chrome://tracing load. pid 1 is the run; tid c is core c. Each executed
 * instruction is a complete event ('X'); the attempts of an instruction
 * that waited fold into one "wait" slice between its first attempt and the
 * one that completed. Flow arrows ('s' -> 'f', bound to the enclosing
 * slices) show who met, as the module reports it (rendezvous_met): from
 * each group member that waited into the slice that completed the group,
 * and from a send into its receive. The host never guesses: which cores
 * took part is the module's rule (a core with peer_id -1 runs the same
 * instruction and meets no one), so a module that does not report gets no
 * arrows. Sub-instructions are
 * slices nested in their parent's (held back until the parent's slice is
 * written, so each track's events come in time order). */
#include "observers/observers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/exec.h"

#define TIMELINE_BUFFER (1u << 16)

/* An arrow into a core's completing slice, held until that slice exists:
 * a send that completed a transfer the receiving core was waiting for. */
typedef struct pending_flow {
    bool on;
    uint64_t id, index; /* the flow; the instruction whose completion it ends in */
    uint32_t from_core;
    uint64_t from_ns; /* inside the sending core's slice */
} pending_flow;

typedef struct core_track {
    bool waiting;          /* its current instruction returned TRN_WAIT */
    uint64_t wait_from_ns; /* the end of its first attempt */
    uint64_t wait_index;   /* the instruction it waits at */
    uint64_t arrive_ns;    /* a moment inside that first attempt */
    uint32_t attempts;
    pending_flow pending;
    trn_strbuf subs; /* sub-instruction slices waiting for their parent's */
} core_track;

struct trn_timeline {
    trn_sim *sim;
    trn_obs_file out;
    uint32_t cores;
    core_track *track;
    uint64_t next_flow, events;
    trn_strbuf line;
};

static void emit(trn_timeline *t, trn_strbuf *b) {
    if (b->failed)
        trn_obs_file_fail(&t->out, ENOMEM);
    else
        trn_obs_file_write(&t->out, b->text, b->len);
    trn_sb_clear(b);
}

/* ts / dur in microseconds with ns resolution. */
static void event_head(trn_timeline *t, trn_strbuf *b, const char *ph, uint32_t core,
                       uint64_t ts_ns) {
    trn_sb_printf(b, "%s{\"ph\":\"%s\",\"pid\":1,\"tid\":%u,\"ts\":%" PRIu64 ".%03u",
                  t->events++ ? ",\n" : "\n", ph, core, ts_ns / 1000, (unsigned)(ts_ns % 1000));
}

static void slice(trn_timeline *t, trn_strbuf *b, const trn_observation *ob, uint64_t ts,
                  uint64_t dur) {
    event_head(t, b, "X", ob->core, ts);
    trn_sb_printf(b, ",\"dur\":%" PRIu64 ".%03u,\"name\":", dur / 1000, (unsigned)(dur % 1000));
    trn_sb_json_string(b, ob->opcode);
    trn_sb_printf(b, ",\"cat\":");
    trn_sb_json_string(b, ob->family);
    trn_sb_printf(b,
                  ",\"args\":{\"index\":%" PRIu64 ",\"number\":%" PRIu64
                  ",\"it\":%u,\"depth\":%u,\"module\":",
                  ob->index, ob->number, ob->it, ob->depth);
    trn_sb_json_string(b, ob->module);
    trn_sb_printf(b, ",\"status\":\"%s\"",
                  ob->status == TRN_OK     ? "ok"
                  : ob->status == TRN_WAIT ? "wait"
                                           : "error");
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
    trn_sb_printf(&t->line,
                  ",\"dur\":%" PRIu64
                  ".%03u,\"name\":\"wait\",\"cat\":\"wait\",\"args\":{\"opcode\":",
                  (to - from) / 1000, (unsigned)((to - from) % 1000));
    trn_sb_json_string(&t->line, ob->opcode);
    trn_sb_printf(&t->line, ",\"index\":%" PRIu64 ",\"attempts\":%u}}", ob->index, c->attempts);
}

static void flow(trn_timeline *t, const char *ph, uint32_t core, uint64_t ts, uint64_t id) {
    event_head(t, &t->line, ph, core, ts);
    trn_sb_printf(&t->line, ",\"id\":%" PRIu64 ",\"name\":\"rendezvous\",\"cat\":\"collective\"%s}",
                  id, ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
}

static uint64_t mid(const trn_observation *ob) { return ob->start_ns + ob->duration_ns / 2; }

/* An arrow from core `from` at from_ns to core `to` at to_ns. */
static void arrow(trn_timeline *t, uint32_t from, uint64_t from_ns, uint32_t to, uint64_t to_ns) {
    uint64_t id = ++t->next_flow;
    flow(t, "s", from, from_ns < to_ns ? from_ns : to_ns, id);
    flow(t, "f", to, to_ns, id);
}

/* Is core m (a core this timeline tracks) waiting at the party's
 * instruction, so its first attempt is the slice an arrow leaves from? */
static const core_track *waiting_at(const trn_timeline *t, const trn_party *m) {
    const core_track *c = m->core < t->cores ? &t->track[m->core] : NULL;
    return c && c->waiting && c->wait_index == m->index ? c : NULL;
}

/* The module said who met (rendezvous_met). A group: an arrow from each
 * member that waited into the slice that completed it. A transfer: an
 * arrow from the send's slice into the receive's: when the receiver waited,
 * the arrow ends in its completing attempt, which comes later (pending).
 * Cores that are not waiting here (another process's) get none. */
static void party_arrows(trn_timeline *t, const trn_observation *ob) {
    const trn_party *sender = NULL, *receiver = NULL;
    for (uint32_t i = 0; i < ob->n_party; ++i) {
        const trn_party *m = &ob->party[i];
        if (m->role == TRN_PARTY_SENDER)
            sender = m;
        else if (m->role == TRN_PARTY_RECEIVER)
            receiver = m;
        else if (m->core != ob->core && waiting_at(t, m))
            arrow(t, m->core, t->track[m->core].arrive_ns, ob->core, mid(ob));
    }
    if (!sender || !receiver) return;
    if (receiver->core == ob->core && waiting_at(t, sender)) {
        arrow(t, sender->core, t->track[sender->core].arrive_ns, ob->core, mid(ob));
    } else if (sender->core == ob->core && waiting_at(t, receiver)) {
        t->track[receiver->core].pending = (pending_flow){.on = true,
                                                          .id = ++t->next_flow,
                                                          .index = receiver->index,
                                                          .from_core = sender->core,
                                                          .from_ns = mid(ob)};
    }
}

/* The completing slice of a core that a pending arrow ends in. */
static void pending_arrow(trn_timeline *t, const trn_observation *ob, core_track *c) {
    if (!c->pending.on || c->pending.index != ob->index) return;
    flow(t, "s", c->pending.from_core, c->pending.from_ns, c->pending.id);
    flow(t, "f", ob->core, mid(ob), c->pending.id);
    c->pending.on = false;
}

static trn_status timeline_after(const trn_host_api *api, const trn_observation *ob, void *state) {
    trn_timeline *t = state;
    if (ob->core >= t->cores) return TRN_OK;
    core_track *c = &t->track[ob->core];
    if (ob->depth > 0) { /* nested in the parent's slice, written after it */
        uint64_t keep = t->events;
        slice(t, &c->subs, ob, ob->start_ns, ob->duration_ns);
        t->events = keep + 1;
        if (ob->party) party_arrows(t, ob);
        emit(t, &t->line);
        return TRN_OK;
    }
    if (ob->status == TRN_WAIT) {
        if (!c->waiting) {
            slice(t, &t->line, ob, ob->start_ns, ob->duration_ns);
            c->waiting = true;
            c->wait_from_ns = ob->start_ns + ob->duration_ns;
            c->wait_index = ob->index;
            c->arrive_ns = mid(ob);
            c->attempts = 1;
        } else {
            c->attempts++;
        }
    } else {
        if (c->waiting) wait_slice(t, ob, c);
        /* before this core stops waiting: the arrows leave from the waiting cores */
        if (ob->party) party_arrows(t, ob);
        pending_arrow(t, ob, c);
        c->waiting = false;
        slice(t, &t->line, ob, ob->start_ns, ob->duration_ns);
        emit(t, &t->line);
        emit(t, &c->subs);
    }
    emit(t, &t->line);
    if (t->out.failed)
        return api->observer_stop(ob, "--timeline %s: writing failed: %s", t->out.path,
                                  strerror(t->out.err));
    return TRN_OK;
}

static const trn_observer_desc timeline_observer = {.size = sizeof timeline_observer,
                                                    .after = timeline_after};

static void metadata(trn_timeline *t, const trn_sim *s) {
    trn_strbuf *b = &t->line;
    trn_sb_printf(
        b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"trnsim\",\"program\":");
    trn_sb_json_string(b, trn_sim_program_path(s));
    trn_sb_printf(b, "},\"traceEvents\":[");
    trn_sb_printf(
        b, "\n{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":");
    char name[600];
    snprintf(name, sizeof name, "trnsim %s", trn_sim_program_path(s));
    trn_sb_json_string(b, name);
    trn_sb_printf(b, "}}");
    t->events = 1;
    for (uint32_t c = 0; c < t->cores; ++c)
        trn_sb_printf(b,
                      ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\",\"args\":{"
                      "\"name\":\"core %u\"}},"
                      "\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_sort_index\","
                      "\"args\":{\"sort_index\":%u}}",
                      c, c, c, c);
    emit(t, b);
}

static void free_timeline(trn_timeline *t) {
    if (!t) return;
    for (uint32_t c = 0; t->track && c < t->cores; ++c) trn_sb_free(&t->track[c].subs);
    free(t->track);
    trn_sb_free(&t->line);
    free(t);
}

static int begin(trn_sim *s, const char *path, bool part, trn_timeline **out, trn_error *e) {
    *out = NULL;
    trn_timeline *t = calloc(1, sizeof *t);
    uint32_t n = trn_sim_cores(s) ? trn_sim_cores(s) : 1;
    if (t) t->cores = n, t->track = calloc(n, sizeof *t->track);
    if (!t || !t->track) {
        free_timeline(t);
        return trn_errorf(e, "out of memory for the timeline");
    }
    t->sim = s;
    if (trn_obs_file_open(&t->out, "--timeline", path, part, TIMELINE_BUFFER, e)) {
        free_timeline(t);
        return -1;
    }
    if (trn_sim_add_observer(s, &timeline_observer, t, e)) {
        trn_error ignored;
        trn_obs_file_close(&t->out, &ignored);
        free_timeline(t);
        return -1;
    }
    metadata(t, s);
    *out = t;
    return 0;
}

int trn_timeline_begin(trn_sim *s, const char *path, trn_timeline **out, trn_error *e) {
    return begin(s, path, false, out, e);
}

int trn_timeline_begin_part(trn_sim *s, const char *path, trn_timeline **out, trn_error *e) {
    return begin(s, path, true, out, e);
}

int trn_timeline_end(trn_sim *s, trn_timeline *t, trn_error *e) {
    if (!t) return 0;
    trn_sim_remove_observer(s, &timeline_observer, t);
    for (uint32_t c = 0; c < t->cores; ++c)
        emit(t, &t->track[c].subs); /* a parent that never completed */
    trn_sb_printf(&t->line, "\n]}\n");
    emit(t, &t->line);
    int rc = trn_obs_file_close(&t->out, e);
    free_timeline(t);
    return rc;
}
