/* Reading a dump back (dump_write.c has the layout): checked against
 * the loaded program and config first, then memories, registers, the
 * schedule position and each module's state replace the run's. Every value
 * read is checked, so a damaged or edited dump is one clear error. */
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy/npy.h"
#include "memory/memory.h"
#include "dump/dump_int.h"

static json_t *load_manifest(const char *dir, trn_error *e) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    int ok = trn_dump_dump_file(dir, path, e);
    if (ok < 0) return trn_error_prefix(e, "--restore %s", dir), NULL;
    json_error_t je;
    json_t *man = json_load_file(path, 0, &je);
    if (!man)
        return trn_errorf(
                   e,
                   "--restore %s: cannot read %s (%s); name a directory written by --dump-at or "
                   "--dump-on-error",
                   dir, path, je.text),
               NULL;
    const char *fmt = json_string_value(json_object_get(man, "format"));
    if (!fmt || strcmp(fmt, "trnsim-dump") ||
        json_integer_value(json_object_get(man, "format_version")) != 1) {
        json_decref(man);
        return trn_errorf(e, "--restore %s: %s is not a trnsim dump manifest of format version 1",
                          dir, path),
               NULL;
    }
    return man;
}

static const char *str_at(const json_t *o, const char *k1, const char *k2) {
    const json_t *v = json_object_get(o, k1);
    return json_string_value(k2 ? json_object_get(v, k2) : v);
}

static int64_t int_at(const json_t *o, const char *key, int64_t def) {
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

static void sets_text(const json_t *sets, char *buf, size_t len) {
    size_t n = 0, i;
    const json_t *v;
    buf[0] = 0;
    json_array_foreach(sets, i, v) n +=
        (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s--set %s", i ? " " : "",
                         json_string_value(v) ? json_string_value(v) : "?");
    if (!buf[0]) snprintf(buf, len, "no --set");
}

static int check_digests(const trn_sim *s, const char *dir, const json_t *man, trn_error *e) {
    char pd[17];
    trn_dump_program_digest(s, pd);
    const char *dpd = str_at(man, "program", "digest"), *dpath = str_at(man, "program", "path");
    if (!dpd || strcmp(dpd, pd))
        return trn_errorf(
            e,
            "--restore %s: the dump is of program %s (digest %s), this run loads %s (digest %s); "
            "restore with the program the dump was made from",
            dir, dpath ? dpath : "?", dpd ? dpd : "?", s->prog.path, pd);
    const char *dcd = str_at(man, "config", "digest");
    if (!dcd || strcmp(dcd, DUMP(s)->cfg_digest)) {
        char had[400], now[400];
        sets_text(json_object_get(json_object_get(man, "config"), "sets"), had, sizeof had);
        json_t *cur = json_array();
        for (size_t i = 0; i < s->opts.n_sets; ++i)
            json_array_append_new(cur, json_string(s->opts.sets[i]));
        sets_text(cur, now, sizeof now);
        json_decref(cur);
        const char *dfile = str_at(man, "config", "file");
        if (dfile && !strcmp(dfile, trn_sim_config_file(s)) && !strcmp(had, now))
            return trn_errorf(
                e,
                "--restore %s: the dump was made with config %s and %s too, but the settings in "
                "effect differ (digest %s, now %s): the file or one it @includes changed since the "
                "dump; restore with the config the dump was made with (its manifest.json holds the "
                "file's text)",
                dir, dfile, had, dcd ? dcd : "?", DUMP(s)->cfg_digest);
        return trn_errorf(
            e,
            "--restore %s: the dump was made with config %s and %s (digest %s), this run has "
            "config %s and %s (digest %s); run with the --config and --set options the dump was "
            "made "
            "with (its manifest.json lists them)",
            dir, dfile ? dfile : "?", had, dcd ? dcd : "?", trn_sim_config_file(s), now,
            DUMP(s)->cfg_digest);
    }
    return 0;
}

/* Each module that saved state is loaded again, the same module and version. */
static int check_modules(const trn_sim *s, const char *dir, const json_t *man, trn_error *e) {
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(man, "modules"), i, m) {
        const char *fam = str_at(m, "family", NULL), *name = str_at(m, "module", NULL),
                   *ver = str_at(m, "version", NULL), *state = str_at(m, "state", NULL);
        if (!fam || !name || !ver || !state)
            return trn_errorf(e,
                              "--restore %s: manifest.json: modules[%zu] is "
                              "incomplete",
                              dir, i);
        if (strcmp(state, "saved")) continue;
        const trn_module *found = NULL;
        for (size_t k = 0; k < s->reg.n_mods && !found; ++k)
            if (s->reg.mods[k].live && !strcmp(s->reg.mods[k].desc->family, fam))
                found = &s->reg.mods[k];
        if (!found || strcmp(found->desc->name, name) ||
            strcmp(found->desc->version ? found->desc->version : "", ver))
            return trn_errorf(
                e,
                "--restore %s: the dump holds the state of module %s %s (family %s); this run "
                "loads %s%s%s for that family; restore with the module the dump was made with",
                dir, name, ver, fam, found ? found->desc->name : "none", found ? " " : "",
                found && found->desc->version ? found->desc->version : "");
    }
    return 0;
}

/* The machine block, field by field (the config digest covers it too; this
 * names the field). */
static int check_machine(const trn_sim *s, const char *dir, const json_t *man, trn_error *e) {
    json_t *now = trn_dump_machine_json(s);
    const json_t *had = json_object_get(man, "machine");
    const char *key;
    json_t *v;
    int rc = json_is_object(had)
                 ? 0
                 : trn_errorf(e, "--restore %s: manifest.json: 'machine' is missing", dir);
    json_object_foreach(now, key, v) {
        const json_t *d = json_object_get(had, key);
        if (rc || json_equal(d, v)) continue;
        rc = trn_errorf(e,
                        "--restore %s: manifest.json: machine.%s is %s%" JSON_INTEGER_FORMAT
                        ", this run's is %" JSON_INTEGER_FORMAT
                        "; restore with the config the dump was made with",
                        dir, key, json_is_integer(d) ? "" : "not an integer, ",
                        json_integer_value(d), json_integer_value(v));
    }
    json_decref(now);
    return rc;
}

int trn_dump_check(trn_sim *s, const char *dir, trn_error *e) {
    if (!s->have_prog) return trn_errorf(e, "--restore %s: no program is loaded", dir);
    json_t *man = load_manifest(dir, e);
    if (!man) return -1;
    int rc = check_machine(s, dir, man, e) || check_digests(s, dir, man, e) ||
             check_modules(s, dir, man, e);
    const json_t *cores = json_object_get(man, "cores");
    if (rc == 0 && json_array_size(cores) != s->ncores)
        rc = trn_errorf(e, "--restore %s: manifest.json lists %zu cores, the run has %u", dir,
                        json_array_size(cores), s->ncores);
    json_decref(man);
    return rc;
}

/* ---- applying ---- */

/* Forget what memory holds: zero every written byte and clear its bit. */
static void clear_memory(trn_memory *m) {
    trn_mem_free_bindings(m); /* the dump replaces what they lent */
    uint64_t total = (uint64_t)m->partitions * m->partition_bytes, words = (total + 63) / 64;
    for (uint64_t w = 0; w < words; ++w) {
        if (!m->written[w]) continue;
        uint64_t lo = w * 64, hi = lo + 64 < total ? lo + 64 : total;
        memset(m->bytes + lo, 0, hi - lo);
        trn_mem_clear_written(m, lo, hi - lo);
    }
}

static int read_npy(const char *dir, const char *rel, const char *descr, int ndim, trn_npy *out,
                    trn_error *e) {
    char path[PATH_MAX + 300];
    if (!rel || strstr(rel, ".."))
        return trn_errorf(e, "manifest.json: a file name is missing or leaves the dump");
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    int ok = trn_dump_dump_file(dir, path, e);
    if (ok) return ok < 0 ? -1 : trn_errorf(e, "%s: missing from the dump", path);
    if (trn_npy_read(path, out, e)) return -1;
    if (strcmp(out->descr, descr) || out->ndim != ndim) {
        trn_errorf(e, "%s: expected %s with %d dims, found %s with %d", path, descr, ndim,
                   out->descr, out->ndim);
        trn_npy_free(out);
        return -1;
    }
    return 0;
}

static int apply_memory(trn_sim *s, const char *dir, const json_t *o, trn_error *e) {
    int64_t c = int_at(o, "core", -1);
    const char *mem = str_at(o, "memory", NULL);
    int mi = -1;
    for (int k = 0; k < 3 && mem; ++k)
        if (!strcmp(mem, trn_mem_names[k])) mi = k;
    if (c < 0 || c >= (int64_t)s->ncores || mi < 0)
        return trn_errorf(e, "manifest.json: a memory entry names no "
                             "core or memory of this run");
    trn_memory *m = &s->cores[c].mem[mi];
    trn_npy w = {0}, b = {0};
    if (read_npy(dir, str_at(o, "written", NULL), "<i8", 2, &w, e)) return -1;
    if (read_npy(dir, str_at(o, "bytes", NULL), "|u1", 1, &b, e)) {
        trn_npy_free(&w);
        return -1;
    }
    uint64_t total = (uint64_t)m->partitions * m->partition_bytes, at = 0;
    const int64_t *r = w.data;
    int rc = w.shape[1] == 2 ? 0 : trn_errorf(e, "%s: the written ranges are not [N][2]", w.name);
    for (size_t i = 0; rc == 0 && i < (size_t)w.shape[0]; ++i) {
        int64_t start = r[2 * i], len = r[2 * i + 1];
        if (start < 0 || len < 0 || (uint64_t)start > total ||
            (uint64_t)len > total - (uint64_t)start || (uint64_t)len > b.count - at)
            rc = trn_errorf(e,
                            "%s: range %zu (%" PRId64 ", %" PRId64 ") lies outside core %" PRId64
                            " %s or its "
                            "bytes",
                            w.name, i, start, len, c, mem);
        else {
            memcpy(m->bytes + start, (const uint8_t *)b.data + at, (size_t)len);
            trn_mem_mark_written(m, (uint64_t)start, (uint64_t)len);
            at += (uint64_t)len;
        }
    }
    if (rc == 0 && at != b.count)
        rc = trn_errorf(e, "%s: %zu bytes, its ranges cover %" PRIu64, b.name, b.count, at);
    trn_npy_free(&w);
    trn_npy_free(&b);
    return rc;
}

static int apply_registers(trn_sim *s, const char *dir, trn_error *e) {
    trn_npy r = {0};
    if (read_npy(dir, "registers.npy", "<i8", 2, &r, e)) return -1;
    uint32_t nregs = s->cfg.machine.registers;
    int rc = 0;
    if (r.shape[0] != s->ncores || r.shape[1] != nregs)
        rc = trn_errorf(
            e, "%s: shape (%" PRId64 ", %" PRId64 "), the run has %u cores of %u registers", r.name,
            r.shape[0], r.shape[1], s->ncores, nregs);
    for (uint32_t c = 0; c < s->ncores && rc == 0; ++c)
        memcpy(s->cores[c].regs, (const int64_t *)r.data + (size_t)c * nregs,
               nregs * sizeof(int64_t));
    trn_npy_free(&r);
    return rc;
}

/* Instructions one trip of the loop at header h executes (saturating). */
static uint64_t body_executions(const trn_program *p, size_t h) {
    uint64_t n = 0, m;
    for (size_t i = h + 1; i < p->insts[h].jump;) {
        const trn_inst *in = &p->insts[i];
        if (in->kind == TRN_INST_LOOP) {
            if (__builtin_mul_overflow((uint64_t)in->loop.trips, body_executions(p, i), &m))
                m = UINT64_MAX;
            i = in->jump + 1;
        } else {
            m = 1;
            ++i;
        }
        n = n + m < n ? UINT64_MAX : n + m;
    }
    return n;
}

/* Whether a core's saved position is one the program reaches: each loop
 * around entry pc at a trip 0 .. trips-1, every other loop at 0 .. trips
 * (its last value), `index` the instructions those trips imply, `waiting`
 * only at an instruction and `done` only at the end. */
static int check_position(const trn_sim *s, uint32_t c, size_t pc, const int64_t *trips,
                          uint64_t index, bool waiting, bool done, trn_error *e) {
    const trn_program *p = &s->prog;
    for (size_t i = 0; i < p->n_insts; ++i) {
        const trn_inst *in = &p->insts[i];
        if (in->kind != TRN_INST_LOOP) continue;
        int64_t t = trips[in->loop.id],
                hi = i < pc && in->jump >= pc ? in->loop.trips - 1 : in->loop.trips;
        if (t < 0 || t > hi)
            return trn_errorf(e,
                              "manifest.json: cores[%u].trips[%u] is %" PRId64
                              "; the loop at instruction %" PRIu64 " has %" PRId64
                              " trips, so a core %s it is at trip 0 .. %" PRId64,
                              c, in->loop.id, t, in->number, in->loop.trips,
                              hi < in->loop.trips ? "inside" : "outside", hi);
    }
    uint64_t at = 0, m;
    for (size_t i = 0; i < pc;) {
        const trn_inst *in = &p->insts[i];
        if (in->kind == TRN_INST_LOOP) {
            bool around = in->jump >= pc;
            uint64_t n = around ? (uint64_t)trips[in->loop.id] : (uint64_t)in->loop.trips;
            if (__builtin_mul_overflow(n, body_executions(p, i), &m)) m = UINT64_MAX;
            i = around ? i + 1 : in->jump + 1;
        } else {
            m = in->kind == TRN_INST_OP;
            ++i;
        }
        at = at + m < at ? UINT64_MAX : at + m;
    }
    if (at != index)
        return trn_errorf(e,
                          "manifest.json: cores[%u].index is %" PRIu64
                          ", but its entry %zu and trips put it "
                          "at instruction index %" PRIu64,
                          c, index, pc, at);
    if (done && pc != p->n_insts)
        return trn_errorf(
            e,
            "manifest.json: cores[%u].done is true, but its entry %zu is not the program's end "
            "(%zu)",
            c, pc, p->n_insts);
    if (waiting && (pc == p->n_insts || p->insts[pc].kind != TRN_INST_OP))
        return trn_errorf(
            e, "manifest.json: cores[%u].waiting is true, but its entry %zu is not an instruction",
            c, pc);
    return 0;
}

static int apply_core(trn_sim *s, const json_t *o, uint32_t c, trn_error *e) {
    trn_run *r = s->run;
    int64_t index = int_at(o, "index", -1), pc = int_at(o, "entry", -1);
    const json_t *trips = json_object_get(o, "trips");
    if (int_at(o, "core", -1) != c || index < 0 || pc < 0 || (uint64_t)pc > s->prog.n_insts ||
        json_array_size(trips) != s->prog.n_loops ||
        !json_is_boolean(json_object_get(o, "waiting")) ||
        !json_is_boolean(json_object_get(o, "done")))
        return trn_errorf(
            e, "manifest.json: cores[%u] does not describe a position in this program", c);
    for (uint32_t l = 0; l < s->prog.n_loops; ++l) {
        if (!json_is_integer(json_array_get(trips, l)))
            return trn_errorf(e, "manifest.json: cores[%u].trips[%u] is not an integer", c, l);
        r->cp[c].trip[l] = (int64_t)json_integer_value(json_array_get(trips, l));
    }
    bool waiting = json_is_true(json_object_get(o, "waiting")),
         done = json_is_true(json_object_get(o, "done"));
    if (check_position(s, c, (size_t)pc, r->cp[c].trip, (uint64_t)index, waiting, done, e))
        return -1;
    r->cp[c].pc = (size_t)pc;
    r->cp[c].executed = (uint64_t)index;
    r->waiting[c] = waiting;
    r->done[c] = done;
    return 0;
}

static int apply_schedule(trn_sim *s, const json_t *man, trn_error *e) {
    const json_t *sch = json_object_get(man, "schedule");
    int64_t core = int_at(sch, "core", -1), attempts = int_at(sch, "attempts", -1),
            executed = int_at(sch, "executed", -1);
    if (core < s->dist.local_lo || core > s->dist.local_hi || attempts < 0 || executed < 0 ||
        !json_is_boolean(json_object_get(sch, "progress")))
        return trn_errorf(e, "manifest.json: 'schedule' does not describe a position of this run");
    trn_run *r = s->run;
    r->cursor = (uint32_t)core;
    r->progress = json_is_true(json_object_get(sch, "progress"));
    r->attempts = (uint64_t)attempts;
    s->executed = (uint64_t)executed;
    for (uint32_t c = 0; c < s->ncores; ++c)
        if (apply_core(s, json_array_get(json_object_get(man, "cores"), c), c, e)) return -1;
    r->left = 0;
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi; ++c) r->left += !r->done[c];
    return 0;
}

int trn_dump_apply(trn_sim *s, const char *dir, trn_error *e) {
    json_t *man = load_manifest(dir, e);
    if (!man) return -1;
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi; ++c)
        for (int mi = 0; mi < 3; ++mi) clear_memory(&s->cores[c].mem[mi]);
    size_t i;
    const json_t *m;
    int rc = 0;
    json_array_foreach(json_object_get(man, "memories"), i, m) if (rc == 0) rc =
        apply_memory(s, dir, m, e);
    if (rc == 0) rc = apply_registers(s, dir, e);
    if (rc == 0) rc = apply_schedule(s, man, e);
    if (rc == 0) rc = trn_dump_modules_restore(s, dir, e);
    json_decref(man);
    return rc ? trn_error_prefix(e, "--restore %s", dir) : 0;
}
