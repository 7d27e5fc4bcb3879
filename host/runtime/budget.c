#include "runtime/budget.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "arith/arith.h"

uint64_t trn_budget_default_max_bytes(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return 4ull << 30; /* unknown: a modest 4 GiB */
    return (uint64_t)pages * (uint64_t)size / 2;
}

static uint64_t instruction_limit(const trn_machine *m) {
    return m->max_instruction_bytes ? m->max_instruction_bytes : TRN_BUDGET_DEFAULT_INSTRUCTION_BYTES;
}

static uint64_t ap_elements(const trn_ap *ap) {
    unsigned __int128 n = ap->part_count;
    for (uint32_t d = 0; d < ap->ndims && d < TRN_AP_MAX_DIMS; ++d) n *= (uint64_t)(ap->dims[d].num > 0 ? ap->dims[d].num : 1);
    return n > UINT64_MAX / 16 ? UINT64_MAX / 16 : (uint64_t)n;
}

int trn_budget_operands(const trn_machine *m, const trn_operand *ops, int n, trn_dir dir, uint64_t *bytes,
                        trn_error *e) {
    uint64_t limit = instruction_limit(m), total = 0;
    for (int k = 0; k < n; ++k) {
        uint32_t w = trn_dtype_width(ops[k].ap.dtype);
        uint64_t elems = ap_elements(&ops[k].ap), need = elems * (w > 4 ? w : 4);
        if (elems > TRN_BUDGET_AP_MAX_ELEMS) continue; /* the AP check refuses it, with its own message */
        if (need > limit)
            return trn_errorf(e, "%s[%d]: %" PRIu64 " elements need %" PRIu64 " bytes of working memory, over the "
                              "per-instruction budget of %" PRIu64 " bytes (machine.max_instruction_bytes)",
                              dir == TRN_OUT ? "outputs" : "inputs", k, elems, need, limit);
        total += need;
    }
    *bytes = total;
    return 0;
}

int trn_budget_instruction(const trn_machine *m, const trn_inst *in, uint64_t *bytes, trn_error *e) {
    uint64_t b_in, b_out;
    if (trn_budget_operands(m, in->in, in->n_in, TRN_IN, &b_in, e) ||
        trn_budget_operands(m, in->out, in->n_out, TRN_OUT, &b_out, e))
        return -1;
    *bytes = b_in + b_out;
    return 0;
}

static uint64_t core_bytes(const trn_machine *m) {
    uint64_t mem[3] = {(uint64_t)m->partitions * m->sbuf_partition_bytes,
                       (uint64_t)m->partitions * m->psum_partition_bytes, m->hbm_bytes};
    uint64_t total = (uint64_t)m->registers * 8;
    for (int i = 0; i < 3; ++i) total += mem[i] + (mem[i] / 64 + 1) * 8; /* bytes + written-byte map */
    return total;
}

static double mib(uint64_t b) { return (double)b / (1 << 20); }

int trn_budget_run(const trn_machine *m, uint32_t cores, uint64_t largest_tensor_bytes, uint64_t scratch_bytes,
                   trn_error *e) {
    uint64_t limit = m->max_bytes ? m->max_bytes : trn_budget_default_max_bytes();
    uint64_t per_core = core_bytes(m);
    unsigned __int128 need = (unsigned __int128)cores * per_core + 2 * (unsigned __int128)largest_tensor_bytes +
                             scratch_bytes;
    if (need <= limit) return 0;
    return trn_errorf(e, "the run needs %.1f MiB (%u core%s x %.1f MiB of SBUF, PSUM, HBM and their written-byte "
                      "maps, %.1f MiB to stage the largest tensor, %.1f MiB of instruction working memory), over "
                      "machine.max_bytes = %" PRIu64 "%s; use fewer cores or smaller memories, or raise "
                      "machine.max_bytes", mib((uint64_t)need), cores, cores == 1 ? "" : "s", mib(per_core),
                      mib(2 * largest_tensor_bytes), mib(scratch_bytes), limit,
                      m->max_bytes ? "" : " (the default: half of physical memory)");
}
