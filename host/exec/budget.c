#include "exec/exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "arith/arith.h"

uint64_t trn_budget_default_max_bytes(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return 4ull << 30; /* unknown: a modest 4 GiB */
    return (uint64_t)pages * (uint64_t)size / 2;
}

uint64_t trn_budget_instruction_limit(const trn_machine *m) {
    return m->max_instruction_bytes ? m->max_instruction_bytes
                                    : TRN_BUDGET_DEFAULT_INSTRUCTION_BYTES;
}

static uint64_t ap_elements(const trn_ap *ap) {
    unsigned __int128 n = ap->part_count;
    for (uint32_t d = 0; d < ap->ndims && d < TRN_AP_MAX_DIMS; ++d)
        n *= (uint64_t)(ap->dims[d].num > 0 ? ap->dims[d].num : 1);
    return n > UINT64_MAX / 16 ? UINT64_MAX / 16 : (uint64_t)n;
}

/* An operand's whole working copy in bytes (*elems its elements); 0 for an
 * AP the AP check refuses with its own message. */
static uint64_t operand_need(const trn_operand *op, uint64_t *elems) {
    uint32_t w = trn_dtype_width(op->ap.dtype);
    *elems = ap_elements(&op->ap);
    return *elems > TRN_BUDGET_AP_MAX_ELEMS ? 0 : *elems * (w > 4 ? w : 4);
}

static uint64_t piece(uint64_t need) {
    return need < TRN_STREAM_PIECE_BYTES ? need : TRN_STREAM_PIECE_BYTES;
}

void trn_budget_list(const trn_operand *ops, int n, trn_budget_sum *sum) {
    *sum = (trn_budget_sum){0, 0, 0};
    for (int k = 0; k < n; ++k) {
        uint64_t elems, need = operand_need(&ops[k], &elems);
        sum->whole += need;
        sum->streamed += piece(need);
        if (need > sum->largest) sum->largest = need;
    }
}

/* The bytes of memory an operand can reach, as one linear range: what
 * memory/ap.c compares before a copy (first partition's start to last
 * partition's end), widened to the whole memory when the offset is
 * dynamic. Cores are not known at load: any two are taken to be the same. */
static void reach(const trn_machine *m, const trn_operand *op, unsigned __int128 *lo,
                  unsigned __int128 *hi) {
    const trn_ap *ap = &op->ap;
    uint64_t pbytes = ap->mem == TRN_MEM_SBUF   ? m->sbuf_partition_bytes
                      : ap->mem == TRN_MEM_PSUM ? m->psum_partition_bytes
                                                : m->hbm_bytes;
    if (op->offset_register >= 0) {
        *lo = 0;
        *hi = ~(unsigned __int128)0;
        return;
    }
    __int128 elo = ap->offset, ehi = ap->offset;
    for (uint32_t d = 0; d < ap->ndims && d < TRN_AP_MAX_DIMS; ++d) {
        __int128 span = (__int128)ap->dims[d].step * (ap->dims[d].num - 1);
        if (span < 0)
            elo += span;
        else
            ehi += span;
    }
    uint32_t w = trn_dtype_width(ap->dtype);
    uint64_t plast =
        ap->part_start + (uint64_t)(ap->part_count ? ap->part_count - 1 : 0) * ap->part_step;
    __int128 a = (__int128)ap->part_start * pbytes + elo * w,
             b = (__int128)plast * pbytes + (ehi + 1) * w;
    *lo = a < 0 ? 0 : (unsigned __int128)a;
    *hi = b < 0 ? 0 : (unsigned __int128)b;
}

static bool inputs_meet_outputs(const trn_machine *m, const trn_inst *in) {
    for (int i = 0; i < in->n_in; ++i)
        for (int o = 0; o < in->n_out; ++o) {
            if (in->in[i].ap.mem != in->out[o].ap.mem) continue;
            unsigned __int128 alo, ahi, blo, bhi;
            reach(m, &in->in[i], &alo, &ahi);
            reach(m, &in->out[o], &blo, &bhi);
            if (alo < bhi && blo < ahi) return true;
        }
    return false;
}

int trn_budget_charge(const trn_machine *m, const trn_inst *in, bool streams,
                      const trn_budget_sum sum[2], uint64_t *bytes, trn_error *e) {
    uint64_t limit = trn_budget_instruction_limit(m);
    /* Streaming changes a charge only for an operand over one piece; only
     * then does the overlap test run. */
    bool big = sum[0].largest > TRN_STREAM_PIECE_BYTES || sum[1].largest > TRN_STREAM_PIECE_BYTES;
    bool streamed = streams && (!big || !inputs_meet_outputs(m, in));
    for (int d = 0; d < 2; ++d) {
        uint64_t largest = streamed ? piece(sum[d].largest) : sum[d].largest;
        if (largest <= limit) continue;
        const trn_operand *ops = d ? in->out : in->in;
        for (int k = 0; k < (d ? in->n_out : in->n_in); ++k) {
            uint64_t elems, need = operand_need(&ops[k], &elems);
            if ((streamed ? piece(need) : need) <= limit) continue;
            return trn_errorf(
                e,
                "%s[%d]: %" PRIu64 " elements need %" PRIu64 " bytes of working memory, over the "
                "per-instruction budget of %" PRIu64 " bytes (machine.max_instruction_bytes)%s",
                d ? "outputs" : "inputs", k, elems, need, limit,
                streams && !streamed
                    ? "; the opcode streams its operands, but an input may share bytes "
                      "with an output, so the whole input is read first"
                    : "");
        }
    }
    *bytes = streamed ? sum[0].streamed + sum[1].streamed : sum[0].whole + sum[1].whole;
    return 0;
}

int trn_budget_instruction(const trn_machine *m, const trn_inst *in, bool streams, uint64_t *bytes,
                           trn_error *e) {
    trn_budget_sum sum[2];
    trn_budget_list(in->in, in->n_in, &sum[0]);
    trn_budget_list(in->out, in->n_out, &sum[1]);
    return trn_budget_charge(m, in, streams, sum, bytes, e);
}

static uint64_t core_bytes(const trn_machine *m) {
    uint64_t mem[3] = {(uint64_t)m->partitions * m->sbuf_partition_bytes,
                       (uint64_t)m->partitions * m->psum_partition_bytes, m->hbm_bytes};
    uint64_t total = (uint64_t)m->registers * 8;
    for (int i = 0; i < 3; ++i)
        total += mem[i] + (mem[i] / 64 + 1) * 8; /* bytes + written-byte map */
    return total;
}

static double mib(uint64_t b) { return (double)b / (1 << 20); }

int trn_budget_run(const trn_machine *m, uint32_t cores, uint64_t largest_tensor_bytes,
                   uint64_t scratch_bytes, uint64_t *need_out, trn_error *e) {
    uint64_t limit = m->max_bytes ? m->max_bytes : trn_budget_default_max_bytes();
    uint64_t per_core = core_bytes(m);
    unsigned __int128 need = (unsigned __int128)cores * per_core +
                             2 * (unsigned __int128)largest_tensor_bytes + scratch_bytes;
    if (need_out) *need_out = need > UINT64_MAX ? UINT64_MAX : (uint64_t)need;
    if (need <= limit) return 0;
    return trn_errorf(
        e,
        "the run needs %.1f MiB (%u core%s x %.1f MiB of SBUF, PSUM, HBM and their written-byte "
        "maps, %.1f MiB to stage the largest tensor, %.1f MiB of instruction working memory), over "
        "machine.max_bytes = %" PRIu64 "%s; use fewer cores or smaller memories, or raise "
        "machine.max_bytes",
        mib((uint64_t)need), cores, cores == 1 ? "" : "s", mib(per_core),
        mib(2 * largest_tensor_bytes), mib(scratch_bytes), limit,
        m->max_bytes ? "" : " (the default: half of physical memory)");
}

int trn_budget_keep(const trn_machine *m, uint64_t need, uint64_t *kept, int64_t delta,
                    const char *module, trn_error *e) {
    if (delta <= 0) {
        uint64_t less = delta == INT64_MIN ? (uint64_t)INT64_MAX + 1 : (uint64_t)-delta;
        *kept = less > *kept ? 0 : *kept - less;
        return 0;
    }
    uint64_t limit = m->max_bytes ? m->max_bytes : trn_budget_default_max_bytes();
    uint64_t now = *kept + (uint64_t)delta;
    if (now >= *kept && need <= limit && now <= limit - need) {
        *kept = now;
        return 0;
    }
    return trn_errorf(
        e,
        "the run needs %.1f MiB for its memories and module %s keeps %.1f MiB between "
        "instructions, %" PRId64 " bytes more would pass machine.max_bytes = %" PRIu64 "%s; raise "
        "machine.max_bytes, or let the cores complete what they started (a core that runs ahead of "
        "the others keeps each collective until they arrive)",
        mib(need), module, mib(*kept), delta, limit,
        m->max_bytes ? "" : " (the default: half of physical memory)");
}
