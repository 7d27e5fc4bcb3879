/* The one way in to a program: read the JSON, tell the format from its
 * content (or take --format), hand it to that front end, then check the
 * execution count against the limit before anything runs. */
#include "frontend/frontend.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/bir/bir.h"
#include "frontend/native/native.h"

int trn_program_detect(json_t *root, trn_format *out, trn_error *e) {
    if (!json_is_object(root)) return trn_errorf(e, "the program must be a JSON object");
    bool bir = json_object_get(root, "functions") && json_object_get(root, "version");
    bool native = json_object_get(root, "instructions") != NULL;
    if (bir && !native)
        *out = TRN_FORMAT_BIR;
    else if (native && !bir)
        *out = TRN_FORMAT_NATIVE;
    else if (bir)
        return trn_errorf(
            e, "the file has both BIR keys (functions, version) and native keys (instructions); "
               "give --format bir or --format native");
    else
        return trn_errorf(
            e, "neither a native program ('tensors', 'instructions') nor BIR JSON ('functions', "
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
        return trn_errorf(e,
                          "the program executes %s%" PRIu64
                          " instructions per core (loops multiplied out), more than "
                          "the limit of %" PRIu64
                          "; raise max_executions in the config if that is meant",
                          s->executions == UINT64_MAX ? "at least " : "", s->executions, limit);
    return 0;
}

static int finish(trn_program *p, const trn_load_opts *o, trn_error *e);

/* The file's bytes (NULL when it cannot be read: the document reader says
 * why). Only a regular file: opening a FIFO again would wait for a writer
 * that may never come, and its bytes are the document reader's once. */
static char *slurp(const char *path, size_t *len) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = 0;
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

/* jansson names a too big positive integer ("near '...'") but not a
 * negative one: the number as the file wrote it, which ends where the
 * reader stopped. */
static void name_big_integer(const char *text, const json_error_t *je, char *buf, size_t len) {
    buf[0] = 0;
    if (!text || strncmp(je->text, "too big", 7) || strstr(je->text, " near ") ||
        je->position <= 0 || (size_t)je->position > strlen(text))
        return;
    size_t end = (size_t)je->position, start = end;
    while (start > 0 && text[start - 1] >= '0' && text[start - 1] <= '9') --start;
    if (start > 0 && text[start - 1] == '-') --start;
    if (start < end && end - start < 64)
        snprintf(buf, len, " near '%.*s'", (int)(end - start), text + start);
}

static int read_json(trn_program *p, const char *path, const char *text, trn_error *e) {
    json_error_t je;
    p->root = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je)
                   : json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (p->root) return 0;
    char near[96];
    size_t len;
    char *file = text || strncmp(je.text, "too big", 7) ? NULL : slurp(path, &len);
    name_big_integer(text ? text : file, &je, near, sizeof near);
    free(file);
    if (je.line < 0) return trn_errorf(e, "%s: %s%s", path, je.text, near);
    return trn_errorf(e, "%s:%d:%d: %s%s", path, je.line, je.column, je.text, near);
}

/* An empty program named path (again, after a fast path gave up on it). */
static int start(trn_program *p, const char *path, const trn_load_opts *o, trn_error *e) {
    trn_program_free(p);
    p->cores = o->default_cores ? o->default_cores : 1;
    if (!(p->path = strdup(path))) return trn_errorf(e, "out of memory");
    return 0;
}

/* The text readers (native_fast.c, bir_fast.c), each where the format
 * allows it; 1 when neither read the program (p is then empty again). */
static int load_text(trn_program *p, const char *path, const char *text, const trn_load_opts *o,
                     trn_error *e) {
    size_t len = 0;
    char *own = text ? NULL : slurp(path, &len);
    if (!text && !own) return 1;
    const char *s = text ? text : own;
    if (text) len = strlen(text);
    int rc = 1;
    if (o->format != TRN_FORMAT_BIR && (rc = trn_native_read_text(p, s, len, o)) == 0)
        p->format = TRN_FORMAT_NATIVE;
    if (rc && o->format != TRN_FORMAT_NATIVE) {
        if (start(p, path, o, e))
            rc = -1;
        else if ((rc = trn_bir_read_text(p, s, len, o)) == 0)
            p->format = TRN_FORMAT_BIR;
    }
    free(own);
    return rc;
}

/* p->root, parsed or built, read by the front end of its format. */
static int read_document(trn_program *p, const char *path, trn_format format,
                         const trn_load_opts *o, trn_error *e) {
    p->format = format;
    if (p->format == TRN_FORMAT_AUTO && trn_program_detect(p->root, &p->format, e))
        return trn_error_prefix(e, "%s", path);
    if (p->format == TRN_FORMAT_BIR) {
        if (trn_bir_read(p, o, e)) return -1; /* its messages name the file themselves */
    } else if (trn_native_read(p, o, e)) {
        return trn_error_prefix(e, "%s", path);
    }
    return finish(p, o, e);
}

static int load(trn_program *p, const char *path, const char *text, const trn_load_opts *o,
                trn_error *e) {
    if (start(p, path, o, e)) return -1;
    if (!o->document_only) {
        int rc = load_text(p, path, text, o, e);
        if (rc == 0) return finish(p, o, e);
        /* read again as a document: its messages are the ones to give */
        if (rc < 0 || start(p, path, o, e)) return -1;
    }
    if (read_json(p, path, text, e)) return -1;
    return read_document(p, path, o->format, o, e);
}

static int finish(trn_program *p, const trn_load_opts *o, trn_error *e) {
    if (p->format == TRN_FORMAT_NATIVE) p->summary.allocations = p->n_tensors;
    uint64_t limit = o->max_executions ? o->max_executions : TRN_DEFAULT_MAX_EXECUTIONS;
    if (summarize(p, limit, e)) return trn_error_prefix(e, "%s", p->path);
    trn_program_find_tensor(p, ""); /* completes the name index: later lookups only read it */
    return 0;
}

int trn_program_load(trn_program *p, const char *path, const char *text, const trn_load_opts *o,
                     trn_error *e) {
    memset(p, 0, sizeof *p);
    if (load(p, path, text, o, e) == 0) return 0;
    trn_program_free(p);
    return -1;
}

int trn_program_load_document(trn_program *p, const char *path, json_t *root,
                              const trn_load_opts *o, trn_error *e) {
    memset(p, 0, sizeof *p);
    p->root = root;
    p->cores = o->default_cores ? o->default_cores : 1;
    int rc = !(p->path = strdup(path)) ? trn_errorf(e, "out of memory")
                                       : read_document(p, path, TRN_FORMAT_NATIVE, o, e);
    if (rc) trn_program_free(p);
    return rc;
}
