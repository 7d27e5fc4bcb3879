/* BIR field and enum names -> the native attributes the modules read, one
 * table per family (docs/bir.md lists them; a test checks the doc against
 * these tables). An opcode absent from every table keeps its fields as
 * attributes unchanged (a module of its own reads them). */
#include <string.h>

#include "frontend/bir/bir_internal.h"

/* Fields of an instruction the simulator does not model: scheduling,
 * queues and synchronisation, as the reference ignores them. */
const char *const bir_ignored_fields[] = {
    "engine", "queue", "dge_type", "duplicate", "stream_id", "pipe_id", "semaphores", "wait_semaphores",
    "signal_semaphores", "dependencies", "unroll_dependencies", "loop_carried_dependencies", "sync_type",
    "debug_info", "comment", NULL};

/* The AluOp names with the reference's numbers (bypass 0, add 4, max 8,
 * min 9); the other AluOp names have no number the reference shows, so
 * they are not accepted. */
static const bir_enum alu_ops[] = {{"bypass", 0, NULL}, {"add", 4, NULL}, {"max", 8, NULL}, {"min", 9, NULL},
                                   {NULL, 0, NULL}};

/* Every AluOp name of the public types, for a clearer message on the ones
 * without a number. */
const char *const bir_alu_op_names[] = {
    "abs", "add", "arith_shift_left", "arith_shift_right", "average", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "bypass", "divide", "is_equal", "is_ge", "is_gt", "is_le", "is_lt", "logical_and", "logical_or",
    "logical_shift_left", "logical_shift_right", "logical_xor", "max", "min", "mod", "mult", "not_equal", "pow",
    "rsqrt", "subtract", NULL};

/* ---- search (Max-8) ---- */
static const bir_field search_none[] = {{NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field search_replace[] = {{"imm_value", "imm_value", BIR_COPY, NULL, NULL},
                                           {NULL, NULL, BIR_COPY, NULL, NULL}};
static const char *const imm_replace[] = {"imm_value", NULL};
static const bir_opcode_map search_table[] = {
    {"Max", "search", search_none, NULL},
    {"MaxIndex", "search", search_none, NULL},
    {"MatchReplace", "search", search_replace, imm_replace},
    {"MaxIndexAndMatchReplace", "search", search_replace, imm_replace},
    {NULL, NULL, NULL, NULL}};

/* ---- bn ---- */
static const bir_field bn_stats[] = {{"apply_transpose", "apply_transpose", BIR_COPY, NULL, NULL},
                                     {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field bn_backprop[] = {{"total_elements", "total_elements", BIR_COPY, NULL, NULL},
                                        {NULL, NULL, BIR_COPY, NULL, NULL}};
static const char *const imm_total[] = {"total_elements", NULL};
static const bir_opcode_map bn_table[] = {
    {"BNStats", "bn", bn_stats, NULL},
    {"BNStatsAggregate", "bn", search_none, NULL},
    {"BNGradients", "bn", search_none, NULL},
    {"BNBackprop", "bn", bn_backprop, imm_total},
    {"BNBackprop2", "bn", bn_backprop, imm_total},
    {NULL, NULL, NULL, NULL}};

/* ---- rng ---- */
static const bir_enum rng_algorithms[] = {{"LFSR", 0, NULL}, {"PCG32", 1, NULL}, {"PHILOX_1", 2, NULL},
                                          {NULL, 0, NULL}};
/* Rand writes raw bits (the quirk rng.rand_raw_bits): distribution and
 * params have no effect in the reference either. */
static const bir_field rng_rand[] = {{"random_algorithm", "algorithm", BIR_ENUM, rng_algorithms, NULL},
                                     {"rand_num_steps", NULL, BIR_IGNORE, NULL, NULL},
                                     {"distribution", NULL, BIR_IGNORE, NULL, NULL},
                                     {"params", NULL, BIR_IGNORE, NULL, NULL},
                                     {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field rng_rand2[] = {{"min", "min", BIR_COPY, NULL, NULL},
                                      {"max", "max", BIR_COPY, NULL, NULL},
                                      {"is_2x1p", "is_2x1p", BIR_COPY, NULL, NULL},
                                      {"is_2x2p", "is_2x2p", BIR_COPY, NULL, NULL},
                                      {"is_4x2p", "is_4x2p", BIR_COPY, NULL, NULL},
                                      {NULL, NULL, BIR_COPY, NULL, NULL}};
/* One RNG state per core and generation: which engine's copy is meant does
 * not change a value, so rng_engine is accepted and not modelled. */
static const bir_field rng_state[] = {{"rng_engine", NULL, BIR_IGNORE, NULL, NULL},
                                      {"seed", "seed", BIR_COPY, NULL, NULL},
                                      {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field rng_get[] = {{"rng_engine", NULL, BIR_IGNORE, NULL, NULL}, {NULL, NULL, BIR_COPY, NULL, NULL}};
static const char *const imm_rand2[] = {"min", "max", NULL};
static const char *const imm_seed[] = {"seed", NULL};
static const bir_opcode_map rng_table[] = {
    {"Rand", "rng", rng_rand, NULL},
    {"Rand2", "rng", rng_rand2, imm_rand2},
    {"SetRandState", "rng", rng_state, imm_seed},
    {"SetRandState2", "rng", rng_state, imm_seed},
    {"GetRandState", "rng", rng_get, NULL},
    {"GetRandState2", "rng", rng_get, NULL},
    {NULL, NULL, NULL, NULL}};

/* ---- collective ---- */
static const bir_enum cc_kinds[] = {
    {"AllGather", 0, "AllGather"}, {"AllReduce", 0, "AllReduce"}, {"AllToAll", 0, "AllToAll"},
    {"Permute", 0, "Permute"}, {"PermuteImplicit", 0, "PermuteImplicit"}, {"PermuteReduce", 0, "PermuteReduce"},
    {"PermuteReduceImplicit", 0, "PermuteReduceImplicit"}, {"ReduceScatter", 0, "ReduceScatter"},
    {"SendRecv", 0, "SendRecv"}, {"SendRecvCCE", 0, "SendRecvCCE"}, {NULL, 0, NULL}};
static const bir_field cc_compute[] = {{"kind", "kind", BIR_ENUM, cc_kinds, "AllReduce"},
                                       {"op", "reduce_op", BIR_ENUM, alu_ops, NULL},
                                       {"replica_groups", "replica_groups", BIR_COPY, NULL, NULL},
                                       {"src_target_pairs", "src_target_pairs", BIR_COPY, NULL, NULL},
                                       {"can_read_uninit", "allow_uninit_read", BIR_COPY, NULL, NULL},
                                       {"is_local", NULL, BIR_IGNORE, NULL, NULL},
                                       {"recv_from_rank", NULL, BIR_IGNORE, NULL, NULL},
                                       {"send_to_rank", NULL, BIR_IGNORE, NULL, NULL},
                                       {"cc_channel", NULL, BIR_IGNORE, NULL, NULL},
                                       {"initial_corebarrier", NULL, BIR_IGNORE, NULL, NULL},
                                       {"cc_type_hint", NULL, BIR_IGNORE, NULL, NULL},
                                       {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field cc_p2p[] = {{"peer_id", "peer_id", BIR_COPY, NULL, NULL}, {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field cc_rank[] = {{"iter_id", "iter_id", BIR_COPY, NULL, NULL},
                                    {"channel_id", NULL, BIR_IGNORE, NULL, NULL},
                                    {"replica_groups", "replica_groups", BIR_COPY, NULL, NULL},
                                    {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_opcode_map collective_table[] = {
    {"CollectiveCompute", "collective", cc_compute, NULL},
    {"CollectiveSend", "collective", cc_p2p, NULL},
    {"CollectiveRecv", "collective", cc_p2p, NULL},
    {"GetGlobalRankId", "collective", search_none, NULL},
    {"GetCurProcessingRankID", "collective", cc_rank, NULL},
    {NULL, NULL, NULL, NULL}};

/* ---- dma ---- */
static const bir_enum dma_modes[] = {{"Copy", 0, NULL}, {"Transpose", 1, NULL}, {"CCE", 2, NULL},
                                     {"Replicate", 3, NULL}, {NULL, 0, NULL}};
/* transpose_op letters name the source axes W, Z, Y, X (0..3) in
 * destination order; the native `perm` lists the same indices. */
static const bir_enum transpose_ops[] = {
    {"None", 0, "0123"}, {"WXZY", 0, "0312"}, {"WYXZ", 0, "0231"}, {"WZXY", 0, "0132"}, {"XWZY", 0, "3012"},
    {"XYWZ", 0, "3201"}, {"XZYW", 0, "3120"}, {"YWZX", 0, "2013"}, {"YXWZ", 0, "2301"}, {"YXZW", 0, "2310"},
    {"ZWYX", 0, "1023"}, {"ZYWX", 0, "1203"}, {"ZYXW", 0, "1230"}, {NULL, 0, NULL}};
static const bir_field dma_plain[] = {{"can_read_uninit", "allow_uninit_read", BIR_COPY, NULL, NULL},
                                      {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field dma_copy[] = {{"mode", "mode", BIR_ENUM, dma_modes, NULL},
                                     {"transpose_op", "perm", BIR_PERM, transpose_ops, NULL},
                                     {"cce_op", "reduce_op", BIR_ENUM, alu_ops, NULL},
                                     {"can_read_uninit", "allow_uninit_read", BIR_COPY, NULL, NULL},
                                     {"oob_is_err", NULL, BIR_IGNORE, NULL, NULL},
                                     {"constants", NULL, BIR_IGNORE, NULL, NULL},
                                     {"replica_groups", NULL, BIR_IGNORE, NULL, NULL},
                                     {"remote_notification", NULL, BIR_IGNORE, NULL, NULL},
                                     {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field dma_trigger[] = {{"dma_blocks", "blocks", BIR_BLOCKS, NULL, NULL},
                                        {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field dma_desc[] = {{"num_tiling_dimensions", NULL, BIR_IGNORE, NULL, NULL},
                                     {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field dma_desc_cce[] = {{"op", "reduce_op", BIR_ENUM, alu_ops, NULL},
                                         {"constants", NULL, BIR_IGNORE, NULL, NULL},
                                         {"num_tiling_dimensions", NULL, BIR_IGNORE, NULL, NULL},
                                         {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_field dma_desc_transpose[] = {{"transpose_op", "perm", BIR_PERM, transpose_ops, NULL},
                                               {"num_tiling_dimensions", NULL, BIR_IGNORE, NULL, NULL},
                                               {NULL, NULL, BIR_COPY, NULL, NULL}};
static const bir_opcode_map dma_table[] = {
    {"Load", "dma", dma_plain, NULL},
    {"Save", "dma", dma_plain, NULL},
    {"TensorCopy", "dma", dma_plain, NULL},
    {"GenericCopy", "dma", dma_plain, NULL},
    {"AbstractCopy", "dma", dma_plain, NULL},
    {"DMACopy", "dma", dma_copy, NULL},
    {"DMATrigger", "dma", dma_trigger, NULL},
    {"DMADescriptor", "dma", dma_copy, NULL},
    {"DMADescriptorCopy", "dma", dma_desc, NULL},
    {"DMADescriptorCCE", "dma", dma_desc_cce, NULL},
    {"DMADescriptorTranspose", "dma", dma_desc_transpose, NULL},
    {"DMADescriptorReplicate", "dma", dma_desc, NULL},
    {NULL, NULL, NULL, NULL}};

const bir_opcode_map *const bir_family_tables[] = {search_table, bn_table, rng_table, collective_table, dma_table,
                                                   NULL};

const bir_opcode_map *bir_opcode_lookup(const char *opcode) {
    for (const bir_opcode_map *const *t = bir_family_tables; *t; ++t)
        for (const bir_opcode_map *m = *t; m->opcode; ++m)
            if (strcmp(m->opcode, opcode) == 0) return m;
    return NULL;
}
