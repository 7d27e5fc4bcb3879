/* The front end: the one door through which a program file becomes the
 * loaded-program model (program/program.h). load.c reads the JSON, tells the
 * format from its content (or takes --format) and hands it to one reader:
 * native/ (docs/programs.md) or bir/ (docs/bir.md). The readers share this
 * header and the JSON helpers beside it, and never call each other.
 * Opcode names are resolved through callbacks, so the front end does not
 * depend on the modules that define them. */
#ifndef TRNSIM_HOST_FRONTEND_H
#define TRNSIM_HOST_FRONTEND_H

#include <jansson.h>
#include <stdbool.h>

#include "common/common.h"
#include "program/program.h"
#include "trnsim/plugin/schema.h"

/* Resolves an opcode name to an IT; -1 with a message if unknown. A NULL e
 * asks for no message: a caller that only tests a name skips the spelling
 * suggestion, which costs an edit distance against every name. */
typedef int (*trn_opname_resolver)(void *arg, const char *name, uint32_t *it, trn_error *e);
/* Whether a loaded module handles the IT. */
typedef bool (*trn_opcode_handled)(void *arg, uint32_t it);
/* The descriptor (with its ABI 2 schema) of the module handling the IT, or NULL. */
typedef const trn_opcode_desc *(*trn_opcode_schema)(void *arg, uint32_t it);

typedef struct trn_load_opts {
    const trn_machine *machine;
    uint32_t default_cores;
    uint64_t max_executions; /* 0: TRN_DEFAULT_MAX_EXECUTIONS */
    trn_format format;       /* AUTO: from the content */
    bool unknown_skip;       /* unknown_opcode = "skip" */
    const char *families;    /* loaded families, for messages */
    trn_opname_resolver resolve;
    trn_opcode_handled handled; /* may be NULL: every resolved IT counts as handled */
    trn_opcode_schema schema; /* may be NULL: no schemas (the BIR reader keeps fields as written) */
    const char
        *function; /* BIR: the function to run when the file has several (NULL: the only one) */
    bool document_only; /* read the file as one jansson document (no text fast path; tests compare
                           the two) */
    void *arg;          /* for resolve and handled */
    /* The BIR writer: parses a native instruction object (a DMATrigger's
     * descriptors as stored), handed in so bir/ does not call native/. */
    int (*parse_inst)(const trn_program *p, json_t *obj, trn_inst *out, trn_opname_resolver resolve,
                      void *arg, trn_error *e);
} trn_load_opts;

/* Read a program (path, or text when non-NULL, then path names it in
 * messages), whichever format it is. On failure *p is freed. */
int trn_program_load(trn_program *p, const char *path, const char *text, const trn_load_opts *o,
                     trn_error *e);
/* Read a native program from a document built in memory (the embedding
 * API's builder) exactly as the document of a native file is read; path
 * names it in messages. Takes root (freed with *p, also on failure). */
int trn_program_load_document(trn_program *p, const char *path, json_t *root,
                              const trn_load_opts *o, trn_error *e);

/* The format a parsed document is in (trn_format), or -1 with a message. */
int trn_program_detect(json_t *root, trn_format *out, trn_error *e);

/* Parse one native instruction object (descriptor lists, sub-instructions). */
int trn_inst_parse(const trn_program *p, json_t *obj, trn_inst *out, trn_opname_resolver resolve,
                   void *arg, trn_error *e);

/* The loaded program as the compiler's BIR JSON (bir/bir_write.c, `trnsim
 * convert --to bir`): what reading it gives is the same program, entry for
 * entry. o gives the machine (its registers), the config's core count and
 * the opcode schemas (BIR field names, enum spellings). A program with a
 * part BIR cannot say is refused, naming it. */
int trn_bir_write(const trn_program *p, const trn_load_opts *o, json_t **out, trn_error *e);

#endif
