/* Budgets that bound what any program or config can cost, each checked
 * before the memory or time is spent (docs/config.md, "Budgets"):
 *   machine.max_bytes              the whole run's memory
 *   machine.max_instruction_bytes  one instruction's operand working memory
 *   --max-instructions, --timeout  the run's execution. */
#ifndef TRNSIM_HOST_BUDGET_H
#define TRNSIM_HOST_BUDGET_H

#include <stdint.h>

#include "program/program.h"
#include "memory/memory.h"

/* Defaults when the config leaves a budget 0. */
uint64_t trn_budget_default_max_bytes(void); /* half of physical memory */
#define TRN_BUDGET_DEFAULT_INSTRUCTION_BYTES (1ull << 30)
/* machine.max_instruction_bytes, or its default. */
uint64_t trn_budget_instruction_limit(const trn_machine *m);
/* One AP's element limit (memory/ap.c): an operand above it is refused there. */
#define TRN_BUDGET_AP_MAX_ELEMS (1ull << 30)

/* Working memory an instruction's operands can need: each operand's
 * elements at max(4, width) bytes (an fp32 working copy, or the raw value);
 * for an opcode that streams (TRN_OPF_STREAMS) whose inputs cannot share
 * bytes with its outputs, at most TRN_STREAM_PIECE_BYTES an operand.
 * Refuses an operand over the per-instruction budget, naming it, its element
 * count and the budget. *bytes gets the instruction's total. */
int trn_budget_instruction(const trn_machine *m, const trn_inst *in, bool streams, uint64_t *bytes, trn_error *e);

/* The same in two steps, for a caller that keeps each operand list's sums
 * (they depend only on the list): the sums of one list, then the charge of
 * an instruction from its inputs' and outputs' sums. */
typedef struct trn_budget_sum {
    uint64_t whole;    /* every operand's whole working copy */
    uint64_t streamed; /* every operand's, at most TRN_STREAM_PIECE_BYTES each */
    uint64_t largest;  /* the largest whole working copy */
} trn_budget_sum;
void trn_budget_list(const trn_operand *ops, int n, trn_budget_sum *sum);
int trn_budget_charge(const trn_machine *m, const trn_inst *in, bool streams, const trn_budget_sum sum[2],
                      uint64_t *bytes, trn_error *e);

/* The run's memory: cores x (SBUF + PSUM + HBM + their written-byte maps +
 * registers), the staging of the largest tensor, and the largest
 * instruction's working memory; refused over machine.max_bytes. */
int trn_budget_run(const trn_machine *m, uint32_t cores, uint64_t largest_tensor_bytes,
                   uint64_t scratch_bytes, uint64_t *need, trn_error *e);

/* What modules keep between instructions (host API keep_bytes): *kept
 * changes by delta unless the run's need plus it would pass
 * machine.max_bytes, which is refused, naming both. */
int trn_budget_keep(const trn_machine *m, uint64_t need, uint64_t *kept, int64_t delta,
                    const char *module, trn_error *e);

#endif
