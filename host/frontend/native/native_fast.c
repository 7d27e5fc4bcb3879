/* Reading a native program from its text without a document for every
 * instruction (docs/internals/programs.md). The top level's members other
 * than `instructions` are parsed by jansson as before. Each entry of the
 * instruction list is scanned directly when it is a simple instruction
 * (`opcode` by name, `inputs` / `outputs` of tensor names or objects with
 * tensor, offset, partition, partitions, partition_step and ap, a
 * `comment`): it becomes a loaded instruction with no attribute document,
 * its operand lists interned (the program holds one copy of each distinct
 * list). Any other entry is parsed by jansson and read as before. Anything
 * unexpected, and any error, returns 1: the caller then reads the whole file
 * the document way, so every message is exactly that reader's. */
#include <stdlib.h>
#include <string.h>

#include "frontend/native/native_int.h"
#include "program/program.h"
#include "frontend/frontend_int.h"

#define MAX_FAST_OPERANDS 8
#define NAME_MAX_LEN      127

const unsigned char trn_scan_space[256] = {[' '] = 1, ['\n'] = 1, ['\t'] = 1, ['\r'] = 1};
const unsigned char trn_scan_stop[256] = {
    [0x00 ... 0x1f] = 1,
    ['"'] = 1,
    ['\\'] = 1,
    [0x80 ... 0xff] = 1,
};

/* ---- the fast state: interned names, tensors and operand lists ---- */

/* An operand list's text as read before, with what it resolved to: the
 * same bytes from '[' to its ']' are the same list (the tensors and cores
 * they resolve against do not change while the list of instructions is
 * read), so a repeat skips scanning, resolving and interning. */
typedef struct seen_list {
    const char *text; /* NULL: free */
    size_t len;
    const trn_operand *ops;
    uint32_t n;
} seen_list;

#define SEEN_SLOTS 256 /* direct-mapped by the first SEEN_KEY bytes */
#define SEEN_KEY   32

/* An opcode name the program used, resolved once: its IT and the
 * program's copy of the name. */
typedef struct name_entry {
    const char *name; /* NULL: free */
    size_t len;
    uint32_t it;
} name_entry;

#define NAME_SLOTS 1024 /* a power of two over twice the names a resolver knows */

typedef struct fast {
    list_state ls;
    const char *end; /* the text's end (its 0 byte) */
    json_t *empty;   /* the attributes of a simple instruction: none */
    trn_oplists lists;
    seen_list seen[SEEN_SLOTS];
    name_entry names[NAME_SLOTS];
    size_t n_names;
    const name_entry *last; /* the opcode name read last (programs repeat one), or NULL */
    int *tensor_slot;       /* open addressing over the tensor names: index, -1 free */
    size_t *tensor_len;
    size_t tensor_mask;
} fast;

static uint64_t bytes_hash(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* The tensor index of the first tensor so named (trn_program_find_tensor's
 * answer), or n_tensors. */
static int find_tensor(const fast *f, const char *name, size_t len) {
    const trn_program *p = f->ls.p;
    for (size_t j = bytes_hash(name, len) & f->tensor_mask; f->tensor_slot[j] >= 0;
         j = (j + 1) & f->tensor_mask) {
        int t = f->tensor_slot[j];
        if (f->tensor_len[t] == len && !memcmp(p->tensors[t].name, name, len)) return t;
    }
    return p->n_tensors;
}

static bool index_tensors(fast *f) {
    const trn_program *p = f->ls.p;
    size_t cap = 16;
    while (cap < 2 * (size_t)p->n_tensors) cap *= 2;
    f->tensor_slot = malloc(cap * sizeof *f->tensor_slot);
    f->tensor_len = malloc(((size_t)p->n_tensors + 1) * sizeof *f->tensor_len);
    if (!f->tensor_slot || !f->tensor_len) return false;
    memset(f->tensor_slot, 0xff, cap * sizeof *f->tensor_slot);
    f->tensor_mask = cap - 1;
    for (int t = 0; t < p->n_tensors; ++t) {
        if (!p->tensors[t].name) continue;
        size_t len = f->tensor_len[t] = strlen(p->tensors[t].name);
        if (find_tensor(f, p->tensors[t].name, len) < p->n_tensors)
            continue; /* the first of a name answers */
        size_t j = bytes_hash(p->tensors[t].name, len) & f->tensor_mask;
        while (f->tensor_slot[j] >= 0) j = (j + 1) & f->tensor_mask;
        f->tensor_slot[j] = t;
    }
    return true;
}

/* A name's hash from its first and last eight bytes and its length (the
 * loaded opcode names differ there), reading only its own bytes. */
static size_t name_hash(const char *s, size_t n) {
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        a = scan_word(s);
        b = scan_word(s + n - 8);
    } else {
        memcpy(&a, s, n);
    }
    uint64_t h = (a * 0x9e3779b97f4a7c15ull ^ b ^ n) * 0xff51afd7ed558ccdull;
    return (size_t)(h >> 40);
}

/* The opcode name's IT and the program's copy of the name: 1; 0 when the
 * resolver refuses it (the document reader words that); -1 out of memory.
 * A resolver's answer for a name does not change while a program loads. */
static int opcode_name(fast *f, const char *name, size_t len, uint32_t *it, const char **copy) {
    size_t j = name_hash(name, len) & (NAME_SLOTS - 1);
    for (; f->names[j].name; j = (j + 1) & (NAME_SLOTS - 1))
        if (f->names[j].len == len && !memcmp(f->names[j].name, name, len)) {
            *it = f->names[j].it;
            *copy = f->names[j].name;
            f->last = &f->names[j];
            return 1;
        }
    char buf[NAME_MAX_LEN + 1];
    memcpy(buf, name, len);
    buf[len] = 0;
    if (f->ls.o->resolve(f->ls.o->arg, buf, it, NULL)) return 0;
    if (!(*copy = trn_program_strdup(f->ls.p, name, len))) return -1;
    if (2 * (f->n_names + 1) > NAME_SLOTS)
        return 1; /* more names than any resolver knows: not kept */
    f->names[j] = (name_entry){*copy, len, *it};
    f->n_names++;
    f->last = &f->names[j];
    return 1;
}

/* ---- one simple instruction ---- */

enum {
    K_OTHER,
    K_OPCODE,
    K_INPUTS,
    K_OUTPUTS,
    K_COMMENT,
    K_TENSOR,
    K_OFFSET,
    K_PARTITION,
    K_PARTITIONS,
    K_PARTITION_STEP,
    K_AP
};

/* The key at *pc and its ':': which one it is, K_OTHER for any other, -1
 * for no key. Most keys are told by a word compare; near the end of the
 * text, and for the rest, by their bytes. */
SCAN_INLINE int key(const char **pc, const char *end, bool operand) {
    const char *c = scan_ws(*pc), *k;
    size_t kl;
    int id = -1;
    if (end - c >= 16) {
        if (!operand) {
            if (SCAN_KEY(c, "\"opcode\""))
                id = K_OPCODE, c += 8;
            else if (SCAN_KEY(c, "\"inputs\""))
                id = K_INPUTS, c += 8;
            else if (SCAN_KEY(c, "\"outputs\""))
                id = K_OUTPUTS, c += 9;
        } else {
            if (SCAN_KEY(c, "\"tensor\""))
                id = K_TENSOR, c += 8;
            else if (SCAN_KEY(c, "\"offset\""))
                id = K_OFFSET, c += 8;
            else if (!memcmp(c, "\"ap\"", 4))
                id = K_AP, c += 4;
            else if (SCAN_KEY(c, "\"partition\""))
                id = K_PARTITION, c += 11;
            else if (SCAN_KEY(c, "\"partitions\""))
                id = K_PARTITIONS, c += 12;
            else if (SCAN_KEY(c, "\"partition_step\""))
                id = K_PARTITION_STEP, c += 16;
        }
    }
    if (id < 0) {
        if (!scan_str(&c, &k, &kl)) return -1;
#define IS(word) (kl == sizeof(word) - 1 && !memcmp(k, word, kl))
        id = operand         ? IS("tensor")           ? K_TENSOR
                               : IS("offset")         ? K_OFFSET
                               : IS("partition")      ? K_PARTITION
                               : IS("partitions")     ? K_PARTITIONS
                               : IS("partition_step") ? K_PARTITION_STEP
                               : IS("ap")             ? K_AP
                                                      : K_OTHER
             : IS("opcode")  ? K_OPCODE
             : IS("inputs")  ? K_INPUTS
             : IS("outputs") ? K_OUTPUTS
             : IS("comment") ? K_COMMENT
                             : K_OTHER;
#undef IS
    }
    *pc = c;
    return scan_lit(pc, ':') ? id : -1;
}

/* The opcode's string value. When it is the name read last (the text holds
 * `"NAME"` there), *hit is that name's entry and nothing is scanned or
 * hashed; otherwise its bytes as scan_str reads them. */
SCAN_INLINE bool opcode_value(const char **pc, const fast *f, const char **name, size_t *len,
                              const name_entry **hit) {
    const char *c = scan_ws(*pc);
    const name_entry *l = f->last;
    if (l && *c == '"' && (size_t)(f->end - c) > l->len + 1 && c[l->len + 1] == '"' &&
        !memcmp(c + 1, l->name, l->len)) {
        *hit = l;
        *name = c + 1;
        *len = l->len;
        *pc = c + l->len + 2;
        return true;
    }
    *pc = c;
    return scan_str(pc, name, len) && *len <= NAME_MAX_LEN;
}

/* [[step, num], ...] */
SCAN_INLINE bool ap_pairs(const char **c, trn_operand_spec *sp) {
    if (!scan_lit(c, '[')) return false;
    do {
        if (sp->ndims >= TRN_AP_MAX_DIMS || !scan_lit(c, '[') ||
            !scan_int(c, &sp->step[sp->ndims]) || !scan_lit(c, ',') ||
            !scan_int(c, &sp->num[sp->ndims]) || !scan_lit(c, ']') || sp->num[sp->ndims] < 1)
            return false;
        sp->ndims++;
    } while (scan_lit(c, ','));
    return scan_lit(c, ']');
}

SCAN_INLINE bool tensor_name(const char **c, const fast *f, trn_operand_spec *sp) {
    const char *v;
    size_t vl;
    if (!scan_str(c, &v, &vl) || vl > NAME_MAX_LEN) return false;
    sp->tensor = find_tensor(f, v, vl);
    return sp->tensor < f->ls.p->n_tensors;
}

SCAN_INLINE bool operand_object(const char **c, const fast *f, trn_operand_spec *sp) {
    unsigned seen = 0;
    if (scan_peek(c, '}')) return false;
    do {
        int k = key(c, f->end, true);
        bool ok;
        switch (k) {
            case K_TENSOR: ok = tensor_name(c, f, sp); break;
            case K_OFFSET: ok = scan_int(c, &sp->offset); break;
            case K_PARTITION: ok = scan_int(c, &sp->partition); break;
            case K_PARTITIONS: ok = sp->has_partitions = scan_int(c, &sp->partitions); break;
            case K_PARTITION_STEP: ok = scan_int(c, &sp->partition_step); break;
            case K_AP: ok = ap_pairs(c, sp); break;
            default: return false;
        }
        if (!ok || (seen & 1u << k)) return false;
        seen |= 1u << k;
    } while (scan_lit(c, ','));
    return scan_lit(c, '}') && (seen & 1u << K_TENSOR);
}

/* '[' operands ']' resolved into ops. */
SCAN_INLINE bool operand_list(const char **c, const fast *f, trn_operand *ops, uint32_t *n,
                              const char *where) {
    if (!scan_lit(c, '[')) return false;
    *n = 0;
    if (scan_lit(c, ']')) return true;
    do {
        if (*n >= MAX_FAST_OPERANDS) return false;
        trn_operand_spec sp;
        trn_operand_spec_init(&sp);
        if (scan_peek(c, '"')) {
            if (!tensor_name(c, f, &sp)) return false;
        } else if (!scan_lit(c, '{') || !operand_object(c, f, &sp)) {
            return false;
        }
        trn_error e; /* a refusal is read again as a document, which words the message */
        if (trn_operand_resolve(f->ls.p, &sp, &ops[*n], where, &e)) return false;
        ++*n;
    } while (scan_lit(c, ','));
    return scan_lit(c, ']');
}

static size_t seen_slot(const char *c) {
    uint64_t h = 0;
    for (int w = 0; w < SEEN_KEY / 8; ++w) h = (h ^ scan_word(c + 8 * w)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 56) & (SEEN_SLOTS - 1);
}

/* An operand list, interned: *ops the program's copy (NULL for none).
 * false: not fast; *oom set when out of memory. */
SCAN_INLINE bool interned_list(const char **pc, fast *f, const trn_operand **ops, uint32_t *n,
                               const char *where, bool *oom) {
    const char *c = scan_ws(*pc);
    seen_list *sl = NULL;
    if (f->end - c >= SEEN_KEY) {
        sl = &f->seen[seen_slot(c)];
        if (sl->text && (size_t)(f->end - c) >= sl->len && !memcmp(c, sl->text, sl->len)) {
            *ops = sl->ops;
            *n = sl->n;
            *pc = c + sl->len;
            return true;
        }
    }
    trn_operand buf[MAX_FAST_OPERANDS];
    const char *start = c;
    if (!operand_list(&c, f, buf, n, where)) return false;
    *ops = trn_oplist_intern(&f->lists, buf, *n, oom);
    if (*oom) return false;
    if (sl) *sl = (seen_list){start, (size_t)(c - start), *ops, *n};
    *pc = c;
    return true;
}

/* 1: read, *pc past it; 0: not a simple instruction (the caller parses it
 * as a document); -1: out of memory. */
SCAN_INLINE int simple_instruction(fast *f, const char **pc) {
    trn_program *p = f->ls.p;
    const trn_operand *ins = NULL, *outs = NULL;
    uint32_t n_in = 0, n_out = 0;
    bool out_of_memory = false;
    const char *opname = NULL, *comment = NULL, *c = *pc;
    const name_entry *known = NULL;
    size_t op_len = 0, comment_len = 0;
    unsigned seen = 0;
    if (!scan_lit(&c, '{') || scan_peek(&c, '}')) return 0;
    do {
        int k = key(&c, f->end, false);
        bool ok;
        switch (k) {
            case K_OPCODE: ok = opcode_value(&c, f, &opname, &op_len, &known); break;
            case K_INPUTS: ok = interned_list(&c, f, &ins, &n_in, "inputs", &out_of_memory); break;
            case K_OUTPUTS:
                ok = interned_list(&c, f, &outs, &n_out, "outputs", &out_of_memory);
                break;
            case K_COMMENT: ok = scan_str(&c, &comment, &comment_len); break;
            default: return 0;
        }
        if (out_of_memory) return -1;
        if (!ok || (seen & 1u << k)) return 0;
        seen |= 1u << k;
    } while (scan_lit(&c, ','));
    if (!scan_lit(&c, '}') || !opname) return 0;
    uint32_t it;
    const char *name;
    if (known) {
        it = known->it;
        name = known->name;
    } else {
        int named = opcode_name(f, opname, op_len, &it, &name);
        if (named <= 0) return named;
    }
    const char *note = NULL;
    if (comment && !(note = trn_program_strdup(p, comment, comment_len))) return -1;
    trn_error oom;
    trn_inst *in = trn_native_slot(&f->ls, &oom);
    if (!in) return -1;
    *in = (trn_inst){.kind = TRN_INST_OP,
                     .it = it,
                     .opname = name,
                     .obj = f->empty,
                     .n_in = (int)n_in,
                     .n_out = (int)n_out,
                     .in = (trn_operand *)ins,
                     .out = (trn_operand *)outs,
                     .shared_operands = true,
                     .number = f->ls.number++,
                     .comment = note};
    p->n_insts++;
    *pc = c;
    return 1;
}

/* ---- the file ---- */

static int own(trn_program *p, json_t *v) {
    if (!v) return -1;
    if (!p->owned && !(p->owned = json_array())) {
        json_decref(v);
        return -1;
    }
    return json_array_append_new(p->owned, v);
}

/* The result of one way of reading the file: 0 read, 1 not fast (the
 * document reader reads it), or AGAIN: read it the two-pass way. */
#define AGAIN 2

static int entries(fast *f, trn_scan *sc);

/* The instruction list, once the members before it are known: the program's
 * top level from them, then every entry. */
static int list_here(fast *f, trn_scan *sc) {
    trn_error e;
    trn_program *p = f->ls.p;
    if (trn_native_parse_top(p, f->ls.o->machine, &e) || !index_tensors(f)) return 1;
    if (own(p, f->empty = json_object())) return 1;
    return entries(f, sc);
}

/* The top level. In one pass (the usual file: `instructions` last, as
 * trnsim convert writes it) the list is read where it stands, from the
 * members before it; if anything follows the list, or anything in it
 * fails, that pass gives AGAIN, since members after the list could change
 * how it reads. In two passes the list is skipped, the other members read,
 * then the list read from *list_at. */
static int top_level(trn_scan *sc, fast *f, bool one_pass, size_t *list_at) {
    trn_program *p = f->ls.p;
    bool have_list = false;
    if (!trn_scan_lit(sc, '{') || !(p->root = json_object())) return 1;
    if (trn_scan_lit(sc, '}')) return 1;
    do {
        const char *k;
        size_t kl;
        if (have_list && one_pass) return AGAIN; /* a member after the list */
        if (!trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':') || kl > NAME_MAX_LEN) return 1;
        char key[NAME_MAX_LEN + 1];
        memcpy(key, k, kl);
        key[kl] = 0;
        if (!strcmp(key, "functions") || !strcmp(key, "version"))
            return 1; /* BIR (or both): the document reader */
        if (!strcmp(key, "instructions")) {
            if (have_list || !trn_scan_peek(sc, '[')) return 1;
            have_list = true;
            *list_at = sc->i;
            if (one_pass) {
                if (list_here(f, sc)) return AGAIN;
            } else if (!trn_scan_skip(sc)) {
                return 1;
            }
            continue;
        }
        json_t *v = trn_scan_value(sc);
        if (!v) return 1;
        if (json_object_get(p->root, key)) { /* a repeated key: the document reader says so */
            json_decref(v);
            return 1;
        }
        if (json_object_set_new(p->root, key, v)) return 1;
    } while (trn_scan_lit(sc, ','));
    if (!trn_scan_lit(sc, '}')) return 1;
    trn_scan_ws(sc);
    return sc->i == sc->n && have_list ? 0 : 1;
}

static int entries(fast *f, trn_scan *sc) {
    if (!trn_scan_lit(sc, '[')) return 1;
    if (trn_scan_lit(sc, ']')) return 0;
    do {
        trn_scan_ws(sc);
        size_t at = sc->i;
        const char *c = sc->s + sc->i; /* a local cursor the scanners keep in a register */
        int r = simple_instruction(f, &c);
        if (r < 0) return 1;
        if (r == 1) {
            sc->i = (size_t)(c - sc->s);
            continue;
        }
        sc->i = at;
        json_t *v = trn_scan_value(sc);
        if (!v) return 1;
        if (!json_is_object(v)) { /* not an instruction: the document reader names it */
            json_decref(v);
            return 1;
        }
        trn_error e;
        if (own(f->ls.p, v) || trn_native_parse_entry(&f->ls, v, 0, &e)) return 1;
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, ']') ? 0 : 1;
}

static void fast_free(fast *f) {
    trn_oplists_free(&f->lists);
    free(f->tensor_slot);
    free(f->tensor_len);
    free(f);
}

static int read_pass(trn_program *p, const char *text, size_t len, const trn_load_opts *o,
                     bool one_pass) {
    trn_scan sc = {text, len, 0};
    size_t list_at = 0;
    fast *f = calloc(1, sizeof *f);
    if (!f) return 1;
    f->ls = (list_state){p, o, 0, 0};
    f->lists.p = p;
    f->end = text + len;
    int rc = top_level(&sc, f, one_pass, &list_at);
    if (rc == 0 && !one_pass) {
        sc.i = list_at;
        rc = list_here(f, &sc);
    }
    fast_free(f);
    return rc;
}

int trn_native_read_text(trn_program *p, const char *text, size_t len, const trn_load_opts *o) {
    if (text[len] != 0) return 1; /* the scanners' end mark (see scan) */
    int rc = read_pass(p, text, len, o, true);
    if (rc != AGAIN) return rc;
    char *path = p->path; /* the one pass's partial program goes; the load's setup stays */
    p->path = NULL;
    trn_program_free(p);
    p->path = path;
    p->cores = o->default_cores ? o->default_cores : 1;
    return read_pass(p, text, len, o, false);
}
