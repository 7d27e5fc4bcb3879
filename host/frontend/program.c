/* The one way in to a program: read the JSON, tell the format from its
 * content (or take --format), hand it to that front end, then check the
 * execution count against the limit before anything runs. */
#include "frontend/program.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir.h"
#include "frontend/native/native.h"

int trn_program_detect(json_t *root, trn_format *out, trn_error *e) {
    if (!json_is_object(root)) return trn_errorf(e, "the program must be a JSON object");
    bool bir = json_object_get(root, "functions") && json_object_get(root, "version");
    bool native = json_object_get(root, "instructions") != NULL;
    if (bir && !native) *out = TRN_FORMAT_BIR;
    else if (native && !bir) *out = TRN_FORMAT_NATIVE;
    else if (bir) return trn_errorf(e, "the file has both BIR keys (functions, version) and native keys (instructions); "
                                     "give --format bir or --format native");
    else return trn_errorf(e, "neither a native program ('tensors', 'instructions') nor BIR JSON ('functions', "
                           "'version'); give --format bir or --format native to be told what is missing");
    return 0;
}

/* Instructions one core executes: each entry times the trips of the loops
 * around it, saturating at UINT64_MAX. */
static uint64_t sat_mul(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static int summarize(trn_program *p, uint64_t limit, trn_error *e) {
    trn_program_summary *s = &p->summary;
    uint64_t stack[64], mult = 1;
    int depth = 0;
    s->executions = 0;
    for (size_t i = 0; i < p->n_insts; ++i) {
        const trn_inst *in = &p->insts[i];
        if (in->kind == TRN_INST_LOOP) {
            if (depth < 64) stack[depth] = mult;
            ++depth;
            s->loops++;
            s->loop_trips = s->loop_trips + (uint64_t)in->loop.trips;
            mult = sat_mul(mult, (uint64_t)in->loop.trips);
        } else if (in->kind == TRN_INST_END) {
            --depth;
            mult = depth < 64 ? stack[depth] : mult;
        } else {
            s->instructions++;
            uint64_t n = s->executions + mult;
            s->executions = n < mult ? UINT64_MAX : n;
        }
    }
    if (s->executions > limit)
        return trn_errorf(e, "the program executes %s%" PRIu64 " instructions per core (loops multiplied out), more than "
                          "the limit of %" PRIu64 "; raise max_executions in the config if that is meant",
                          s->executions == UINT64_MAX ? "at least " : "", s->executions, limit);
    return 0;
}

static int read_json(trn_program *p, const char *path, const char *text, trn_error *e) {
    json_error_t je;
    p->root = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je) : json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (p->root) return 0;
    if (je.line < 0) return trn_errorf(e, "%s: %s", path, je.text);
    return trn_errorf(e, "%s:%d:%d: %s", path, je.line, je.column, je.text);
}

static int load(trn_program *p, const char *path, const char *text, const trn_load_opts *o, trn_error *e) {
    p->cores = o->default_cores ? o->default_cores : 1;
    p->path = strdup(path);
    if (!p->path) return trn_errorf(e, "out of memory");
    if (read_json(p, path, text, e)) return -1;
    p->format = o->format;
    if (p->format == TRN_FORMAT_AUTO && trn_program_detect(p->root, &p->format, e))
        return trn_error_prefix(e, "%s", path);
    if (p->format == TRN_FORMAT_BIR) {
        if (trn_bir_read(p, o, e)) return -1; /* its messages name the file themselves */
    } else if (trn_native_read(p, o, e)) {
        return trn_error_prefix(e, "%s", path);
    }
    if (p->format == TRN_FORMAT_NATIVE) p->summary.allocations = p->n_tensors;
    uint64_t limit = o->max_executions ? o->max_executions : TRN_DEFAULT_MAX_EXECUTIONS;
    if (summarize(p, limit, e)) return trn_error_prefix(e, "%s", path);
    return 0;
}

int trn_program_load(trn_program *p, const char *path, const char *text, const trn_load_opts *o, trn_error *e) {
    memset(p, 0, sizeof *p);
    if (load(p, path, text, o, e) == 0) return 0;
    trn_program_free(p);
    return -1;
}

int trn_program_find_tensor(const trn_program *p, const char *name) {
    for (int i = 0; i < p->n_tensors; ++i)
        if (p->tensors[i].name && strcmp(p->tensors[i].name, name) == 0) return i;
    return p->n_tensors;
}

void trn_program_free(trn_program *p) {
    for (size_t i = 0; i < p->n_insts; ++i) trn_inst_free(&p->insts[i]);
    free(p->insts);
    free(p->tensors);
    for (size_t i = 0; i < p->n_strings; ++i) free(p->strings[i]);
    free(p->strings);
    free(p->skip_note);
    if (p->root) json_decref(p->root);
    if (p->owned) json_decref(p->owned);
    free(p->path);
    memset(p, 0, sizeof *p);
}
