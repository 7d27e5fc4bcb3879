/* The host's reports (report.c, describe.c): the program written back,
 * what `check` prints, --stats, skip notes, and the opcode, attribute and
 * quirk listings, each read through the façade (exec/sim.h). */
#ifndef TRNSIM_HOST_REPORT_H
#define TRNSIM_HOST_REPORT_H

#include <stdio.h>

#include "exec/sim.h"

/* The loaded program as a native program (a BIR file's translation, a
 * native file as read), indented JSON; -1 if nothing is loaded or the
 * stream fails. */
int trn_sim_write_native(const trn_sim *s, FILE *out, trn_error *e);
/* The loaded program as BIR JSON (frontend/bir/bir_write.c); a program BIR
 * cannot say is refused, naming what. */
int trn_sim_write_bir(const trn_sim *s, FILE *out, trn_error *e);
/* What `check` prints: allocations, instructions, loops and their trips,
 * executions per core, and the opcode histogram. */
void trn_sim_print_summary(const trn_sim *s, FILE *out);
int trn_sim_program_is_bir(const trn_sim *s);

/* Reports for the CLI. */
void trn_sim_print_stats(const trn_sim *s, FILE *out, int json);
void trn_sim_print_skip_notes(const trn_sim *s, FILE *out);
void trn_sim_print_opcodes(const trn_sim *s, FILE *out);
/* describe.c: operands and attributes from the modules' schemas. */
int trn_sim_describe(const trn_sim *s, const char *name, FILE *out, trn_error *e);
void trn_sim_print_opcode_attrs(const trn_sim *s, FILE *out);
void trn_sim_print_quirks(const trn_sim *s, FILE *out);

#endif
