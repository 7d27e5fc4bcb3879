/* Writing a dump: the run's whole state between two instructions.
 *
 *   manifest.json                  what, where, from which program and config
 *   tensors/coreC/NAME.npy         every tensor of every core, for people
 *   memory/coreC.MEM.written.npy   int64 [N][2]: written byte ranges (address, length)
 *   memory/coreC.MEM.bytes.npy     uint8: those bytes, range after range
 *   registers.npy                  int64 [cores][registers]
 *   modules/FAMILY/NAME.npy        each module's state (ABI 3 state_save)
 *
 * The memory images are what a restore reads; the tensor files are views of
 * the same bytes in each tensor's shape. */
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "npy/npy.h"
#include "memory/memory.h"
#include "modules/modules.h"
#include "dump/dump_int.h"

#ifndef TRNSIM_VERSION
#define TRNSIM_VERSION "unknown"
#endif

/* ---- memory images ---- */

typedef struct ranges {
    int64_t *v; /* [n][2] */
    size_t n, cap;
    uint64_t bytes;
} ranges;

static int ranges_add(ranges *r, uint64_t at, uint64_t len) {
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        int64_t *v = realloc(r->v, cap * 2 * sizeof *v);
        if (!v) return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[2 * r->n] = (int64_t)at;
    r->v[2 * r->n + 1] = (int64_t)len;
    r->n++;
    r->bytes += len;
    return 0;
}

/* The written map as maximal runs of written bytes. */
static int written_ranges(const trn_memory *m, ranges *r) {
    uint64_t total = (uint64_t)m->partitions * m->partition_bytes, words = (total + 63) / 64;
    uint64_t open = UINT64_MAX; /* start of the run being built */
    for (uint64_t w = 0; w < words; ++w) {
        uint64_t bits = m->written[w];
        if (bits == 0 || bits == ~0ull) {
            bool set = bits != 0;
            if (set && open == UINT64_MAX) open = w * 64;
            if (!set && open != UINT64_MAX) {
                if (ranges_add(r, open, w * 64 - open)) return -1;
                open = UINT64_MAX;
            }
            continue;
        }
        for (unsigned b = 0; b < 64; ++b) {
            bool set = (bits >> b) & 1;
            uint64_t at = w * 64 + b;
            if (set && open == UINT64_MAX) open = at;
            if (!set && open != UINT64_MAX) {
                if (ranges_add(r, open, at - open)) return -1;
                open = UINT64_MAX;
            }
        }
    }
    if (open != UINT64_MAX) {
        uint64_t end = words * 64 < total ? words * 64 : total;
        if (ranges_add(r, open, end - open)) return -1;
    }
    return 0;
}

static int write_memory(const trn_sim *s, const char *dir, uint32_t c, int mi, json_t *list,
                        trn_error *e) {
    const trn_memory *m = &s->cores[c].mem[mi];
    ranges r = {0};
    if (written_ranges(m, &r)) {
        free(r.v);
        return trn_errorf(e, "out of memory listing the written bytes of core %u %s", c,
                          trn_mem_names[mi]);
    }
    uint8_t *bytes = malloc(r.bytes ? r.bytes : 1);
    if (!bytes) {
        free(r.v);
        return trn_errorf(e, "out of memory for the %" PRIu64 " written bytes of core %u %s",
                          r.bytes, c, trn_mem_names[mi]);
    }
    uint64_t at = 0;
    for (size_t i = 0; i < r.n; ++i) {
        memcpy(bytes + at, m->bytes + r.v[2 * i], (size_t)r.v[2 * i + 1]);
        at += (uint64_t)r.v[2 * i + 1];
    }
    char wpath[PATH_MAX + 80], bpath[PATH_MAX + 80], wrel[64], brel[64];
    snprintf(wrel, sizeof wrel, "memory/core%u.%s.written.npy", c, trn_mem_names[mi]);
    snprintf(brel, sizeof brel, "memory/core%u.%s.bytes.npy", c, trn_mem_names[mi]);
    snprintf(wpath, sizeof wpath, "%s/%s", dir, wrel);
    snprintf(bpath, sizeof bpath, "%s/%s", dir, brel);
    int64_t wshape[2] = {(int64_t)r.n, 2}, bshape[1] = {(int64_t)r.bytes};
    int rc = trn_npy_write(wpath, "<i8", 2, wshape, r.v, e) ||
             trn_npy_write(bpath, "|u1", 1, bshape, bytes, e);
    free(r.v);
    free(bytes);
    if (rc) return -1;
    json_array_append_new(list, json_pack("{s:i, s:s, s:I, s:I, s:I, s:s, s:s}", "core", (int)c,
                                          "memory", trn_mem_names[mi], "partitions",
                                          (json_int_t)m->partitions, "partition_bytes",
                                          (json_int_t)m->partition_bytes, "written_bytes",
                                          (json_int_t)r.bytes, "written", wrel, "bytes", brel));
    return 0;
}

static int write_memories(const trn_sim *s, const char *dir, json_t *man, trn_error *e) {
    char sub[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/memory", dir);
    if (trn_dump_mkdir(sub, e)) return -1;
    json_t *list = json_array();
    json_object_set_new(man, "memories", list);
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi; ++c)
        for (int mi = 0; mi < 3; ++mi)
            if (write_memory(s, dir, c, mi, list, e)) return -1;
    return 0;
}

static int write_registers(const trn_sim *s, const char *dir, json_t *man, trn_error *e) {
    uint32_t nregs = s->cfg.machine.registers;
    int64_t *regs = calloc((size_t)s->ncores * nregs + 1, sizeof *regs);
    if (!regs) return trn_errorf(e, "out of memory");
    for (uint32_t c = 0; c < s->ncores; ++c)
        memcpy(regs + (size_t)c * nregs, s->cores[c].regs, nregs * sizeof *regs);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/registers.npy", dir);
    int64_t shape[2] = {s->ncores, nregs};
    int rc = trn_npy_write(path, "<i8", 2, shape, regs, e);
    free(regs);
    json_object_set_new(man, "registers", json_string("registers.npy"));
    return rc;
}

/* ---- tensors, for people ---- */

/* A file name from a tensor name: [A-Za-z0-9_.-] kept, anything else '_',
 * no leading '.'; "~N" when an earlier tensor took the same name. */
static void file_name(const char *name, json_t *taken, char *out, size_t len) {
    char base[200];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof base; ++p) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || (ch == '.' && n > 0);
        base[n++] = ok ? ch : '_';
    }
    base[n] = 0;
    if (!n) snprintf(base, sizeof base, "_");
    snprintf(out, len, "%s", base);
    for (int k = 2; json_object_get(taken, out); ++k) snprintf(out, len, "%s~%d", base, k);
    json_object_set_new(taken, out, json_true());
}

static int write_tensor(const trn_sim *s, const char *dir, const trn_tensor *t, const char *fname,
                        json_t *entry, trn_error *e) {
    size_t bytes = (size_t)t->count * trn_dtype_width(t->dtype);
    void *raw = malloc(bytes ? bytes : 1);
    if (!raw) return trn_errorf(e, "tensor '%s': out of memory for %zu bytes", t->name, bytes);
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    trn_ap_env strict = env;
    strict.allow_uninit = false;
    json_t *files = json_array(), *written = json_array();
    json_object_set_new(entry, "files", files);
    json_object_set_new(entry, "fully_written", written);
    int rc = 0;
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi && rc == 0; ++c) {
        trn_ap ap = t->ap;
        ap.core = c;
        void *conv = NULL;
        const char *descr;
        char rel[300], path[PATH_MAX + 320];
        snprintf(rel, sizeof rel, "tensors/core%u/%s.npy", c, fname);
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        rc = trn_ap_read_raw(&env, &ap, raw, e) ||
             trn_npy_from_tensor(t->dtype, raw, (size_t)t->count, false, &conv, &descr, e) ||
             trn_npy_write(path, descr, t->ndim, t->shape, conv, e);
        free(conv);
        json_array_append_new(files, json_string(rel));
        json_array_append_new(written,
                              json_boolean(trn_ap_check_access(&strict, &ap, true, NULL) == 0));
    }
    free(raw);
    return rc ? trn_error_prefix(e, "tensor '%s'", t->name) : 0;
}

static int write_tensors(const trn_sim *s, const char *dir, json_t *man, trn_error *e) {
    char sub[PATH_MAX + 32];
    snprintf(sub, sizeof sub, "%s/tensors", dir);
    if (trn_dump_mkdir(sub, e)) return -1;
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi; ++c) {
        snprintf(sub, sizeof sub, "%s/tensors/core%u", dir, c);
        if (trn_dump_mkdir(sub, e)) return -1;
    }
    json_t *list = json_array(), *taken = json_object();
    json_object_set_new(man, "tensors", list);
    int rc = 0;
    for (int i = 0; i < s->prog.n_tensors && rc == 0; ++i) {
        const trn_tensor *t = &s->prog.tensors[i];
        char fname[220];
        file_name(t->name, taken, fname, sizeof fname);
        json_t *shape = json_array();
        for (int d = 0; d < t->ndim; ++d) json_array_append_new(shape, json_integer(t->shape[d]));
        json_t *entry =
            json_pack("{s:s, s:s, s:o, s:s}", "name", t->name, "dtype", trn_dtype_name(t->dtype),
                      "shape", shape, "memory", trn_mem_names[t->mem]);
        json_array_append_new(list, entry);
        rc = write_tensor(s, dir, t, fname, entry, e);
    }
    json_decref(taken);
    return rc;
}

/* ---- where the run stands ---- */

static const char *op_name_of(const trn_sim *s, uint32_t it) {
    if (s->reg.table[it].op) return s->reg.table[it].op->name;
    const trn_known_op *k = trn_known_op_by_it(it);
    return k ? k->name : "?";
}

static void write_position(const trn_sim *s, json_t *man) {
    const trn_run *r = s->run;
    json_object_set_new(man, "schedule",
                        json_pack("{s:i, s:b, s:I, s:I}", "core", (int)r->cursor, "progress",
                                  r->progress != 0, "attempts", (json_int_t)r->attempts, "executed",
                                  (json_int_t)s->executed));
    json_t *cores = json_array();
    json_object_set_new(man, "cores", cores);
    for (uint32_t c = 0; c < s->ncores; ++c) {
        json_t *trips = json_array();
        for (uint32_t l = 0; l < s->prog.n_loops; ++l)
            json_array_append_new(trips, json_integer(r->cp[c].trip[l]));
        json_t *o = json_pack("{s:i, s:I, s:I, s:b, s:b, s:o}", "core", (int)c, "index",
                              (json_int_t)r->cp[c].executed, "entry", (json_int_t)r->cp[c].pc,
                              "waiting", r->waiting[c], "done", r->done[c], "trips", trips);
        /* the next instruction it runs, as messages name it (a loop entry: the loop's first) */
        size_t pc = r->cp[c].pc;
        while (pc < s->prog.n_insts && s->prog.insts[pc].kind != TRN_INST_OP) ++pc;
        if (!r->done[c] && pc < s->prog.n_insts) {
            const trn_inst *in = &s->prog.insts[pc];
            json_object_set_new(o, "next_instruction", json_integer((json_int_t)in->number));
            json_object_set_new(o, "next_opcode", json_string(op_name_of(s, in->it)));
            if (in->where) json_object_set_new(o, "next_where", json_string(in->where));
        }
        json_array_append_new(cores, o);
    }
}

json_t *trn_dump_machine_json(const trn_sim *s) {
    const trn_machine *m = &s->cfg.machine;
    return json_pack("{s:i, s:i, s:I, s:I, s:I, s:i}", "cores", (int)s->ncores, "partitions",
                     (int)m->partitions, "sbuf_partition_bytes",
                     (json_int_t)m->sbuf_partition_bytes, "psum_partition_bytes",
                     (json_int_t)m->psum_partition_bytes, "hbm_bytes", (json_int_t)m->hbm_bytes,
                     "registers", (int)m->registers);
}

static json_t *config_json(const trn_sim *s) {
    json_t *sets = json_array();
    for (size_t i = 0; i < s->opts.n_sets; ++i)
        json_array_append_new(sets, json_string(s->opts.sets[i]));
    json_t *o = json_pack("{s:s, s:s, s:o}", "file", trn_sim_config_file(s), "digest",
                          DUMP(s)->cfg_digest, "sets", sets);
    if (DUMP(s)->cfg_text) json_object_set_new(o, "text", json_string(DUMP(s)->cfg_text));
    return o;
}

static void manifest_header(trn_sim *s, trn_dump_kind kind, const char *why, json_t *man) {
    static const char *const kinds[] = {"dump-at", "dump-on-error", "run start (private)"};
    char pd[17];
    trn_dump_program_digest(s, pd);
    json_object_set_new(man, "format", json_string("trnsim-dump"));
    json_object_set_new(man, "format_version", json_integer(1));
    json_object_set_new(man, "trnsim_version", json_string(TRNSIM_VERSION));
    json_object_set_new(man, "reason", json_string(kinds[kind]));
    if (why)
        json_object_set_new(man, kind == TRN_DUMP_ON_ERROR ? "error" : "note", json_string(why));
    json_object_set_new(man, "program",
                        json_pack("{s:s, s:s}", "path", s->prog.path, "digest", pd));
    json_object_set_new(man, "config", config_json(s));
    json_object_set_new(man, "machine", trn_dump_machine_json(s));
    write_position(s, man);
}

static int write_manifest(const char *dir, json_t *man, trn_error *e) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (json_dump_file(man, path, JSON_INDENT(2) | JSON_ENSURE_ASCII) != 0)
        return trn_errorf(e, "cannot write %s", path);
    return 0;
}

static int write_into(trn_sim *s, const char *dir, trn_dump_kind kind, const char *why,
                      trn_error *e) {
    trn_sim_settle_bindings(s); /* the dump reads memory bytes directly */
    json_t *man = json_object(), *mods = json_array();
    manifest_header(s, kind, why, man);
    json_object_set_new(man, "modules", mods);
    int rc = write_memories(s, dir, man, e) || write_registers(s, dir, man, e) ||
             (kind != TRN_DUMP_PRIVATE && write_tensors(s, dir, man, e)) ||
             trn_dump_modules_save(s, dir, mods, e) || write_manifest(dir, man, e);
    json_decref(man);
    return rc ? -1 : 0;
}

int trn_dump_write(trn_sim *s, const char *dir, trn_dump_kind kind, const char *why, trn_error *e) {
    if (kind == TRN_DUMP_PRIVATE) return write_into(s, dir, kind, why, e);
    char tmp[PATH_MAX + 64];
    if (trn_dump_dir_temp(dir, tmp, sizeof tmp, e)) return trn_error_prefix(e, "dump %s", dir);
    if (write_into(s, tmp, kind, why, e) || trn_dump_dir_commit(tmp, dir, e)) {
        trn_dump_dir_remove(tmp);
        return trn_error_prefix(e, "dump %s", dir);
    }
    return 0;
}
