/* The collective family module: IT 11, 48, 49, 50, 66, its settings, its
 * named quirks, and the state lifecycle (settings in init, the registry in
 * run_begin, everything freed in fini). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_conform.h"
#include "coll_group.h"
#include "coll_ops.h"
#include "coll_state.h"
#include "trnsim/plugin.h"
#ifdef COLL_WITH_MPI
#include "mpi/cmpi.h"
#endif

#define RANK_TABLE_MAX 65536

static const trn_enum_desc kinds[] = {
    {"SendRecv", 0, NULL},
    {"SendRecvCCE", 1, NULL},
    {"AllReduce", 2, NULL},
    {"ReduceScatter", 3, NULL},
    {"AllGather", 4, NULL},
    {"AllToAll", 5, NULL},
    {"AllToAllV", 6, NULL},
    {"Permute", 7, NULL},
    {"PermuteReduce", 8, NULL},
    {"PermuteImplicit", 9, NULL},
    {"PermuteReduceImplicit", 10, NULL},
};
/* bir::AluOpType numbers; the fold supports add, max and min. */
static const trn_enum_desc alu_ops[] = {
    {"bypass", 0, NULL},
    {"add", 4, NULL},
    {"max", 8, NULL},
    {"min", 9, NULL},
};

static const trn_attr_desc rank_attrs[] = {
    {.name = "register",
     .types = TRN_ATTR_INT,
     .help = "register that receives the rank (and/or one output)"},
};
static const trn_attr_desc cur_rank_attrs[] = {
    {.name = "iter_id",
     .types = TRN_ATTR_INT,
     .flags = TRN_ATTRF_REQUIRED,
     .help = "an integer >= 0: the ring iteration (0 = this core's own rank)"},
    {.name = "channel_id",
     .types = TRN_ATTR_INT,
     .def = "0",
     .help = "accepted, >= 0; one channel is modelled"},
    {.name = "arch_level",
     .types = TRN_ATTR_INT,
     .def = "0",
     .help = "accepted, >= 0; one level is modelled"},
    {.name = "replica_groups",
     .types = TRN_ATTR_NESTED_LIST,
     .elem = TRN_ATTR_INT,
     .help = "the groups of cores (default: one group of all cores)"},
    {.name = "register",
     .types = TRN_ATTR_INT,
     .help = "register that receives the rank (and/or one output)"},
};
static const trn_attr_desc compute_attrs[] = {
    {.name = "kind",
     .types = TRN_ATTR_ENUM | TRN_ATTR_INT,
     .flags = TRN_ATTRF_REQUIRED,
     TRN_ARRAY(enums, kinds),
     .help =
         "0..10 or a kind name; other numbers copy the input (collective.permute_reduce_identity)"},
    {.name = "reduce_op",
     .types = TRN_ATTR_ENUM | TRN_ATTR_INT,
     TRN_ARRAY(enums, alu_ops),
     .bir_name = "op",
     .help = "the fold of the reducing kinds (1, 2, 3, 10): an AluOpType number or name; add, max, "
             "min fold"},
    {.name = "scale",
     .types = TRN_ATTR_FLOAT,
     .help = "reducing kinds with add: multiplies the first rank's input"},
    {.name = "replica_groups",
     .types = TRN_ATTR_NESTED_LIST,
     .elem = TRN_ATTR_INT,
     .help = "the groups of cores (default: one group of all cores)"},
    {.name = "src_target_pairs",
     .types = TRN_ATTR_NESTED_LIST,
     .elem = TRN_ATTR_INT,
     .help = "Permute (7): [[source, target], ...]"},
    {.name = "send_counts",
     .types = TRN_ATTR_NESTED_LIST,
     .elem = TRN_ATTR_INT,
     .help = "AllToAllV (6): N x N, row i what member i sends to each member"},
    {.name = "cc_dim",
     .types = TRN_ATTR_INT,
     .def = "0",
     .help = "AllGather (4): accepted, the gather is flat"},
    {.name = "peer_offset",
     .types = TRN_ATTR_INT,
     .def = "1",
     .help = "SendRecv / SendRecvCCE (0, 1): the peer is the member at position j + peer_offset"},
};
static const trn_attr_desc p2p_attrs[] = {
    {.name = "peer_id",
     .types = TRN_ATTR_INT | TRN_ATTR_LIST,
     .elem = TRN_ATTR_INT,
     .flags = TRN_ATTRF_REQUIRED,
     .help = "a core, or a list with one per core; -1 = no transfer on that core"},
};

static const trn_operand_desc rank_operands[] = {
    {TRN_OUT, "rank", TRN_OPERANDF_OPTIONAL,
     "one element receiving the rank (or the attribute register)"},
};
static const trn_operand_desc compute_operands[] = {
    {TRN_IN, "src", 0, "this core's contribution"},
    {TRN_IN, "src1", TRN_OPERANDF_OPTIONAL, "PermuteReduceImplicit (10) only: the second source"},
    {TRN_OUT, "dst", 0, "this core's result"},
};
static const trn_operand_desc send_operands[] = {{TRN_IN, "src", 0, "what this core sends"}};
static const trn_operand_desc recv_operands[] = {{TRN_OUT, "dst", 0, "what this core receives"}};

static const trn_opcode_desc coll_opcodes[] = {
    TRN_OP(11, "GetGlobalRankId", coll_h_global_rank, TRN_ARRAY(attrs, rank_attrs),
           TRN_ARRAY(operands, rank_operands), .conform = coll_conform_global_rank),
    {.it = 48,
     .name = "CollectiveCompute",
     .handler = coll_h_compute,
     .flags = TRN_OPF_MAY_WAIT,
     TRN_ARRAY(attrs, compute_attrs),
     TRN_ARRAY(operands, compute_operands),
     .check = coll_check_compute,
     .conform = coll_conform_compute},
    {.it = 49,
     .name = "CollectiveSend",
     .handler = coll_h_send,
     .flags = TRN_OPF_MAY_WAIT,
     TRN_ARRAY(attrs, p2p_attrs),
     TRN_ARRAY(operands, send_operands),
     .check = coll_check_send,
     .conform = coll_conform_send},
    {.it = 50,
     .name = "CollectiveRecv",
     .handler = coll_h_recv,
     .flags = TRN_OPF_MAY_WAIT,
     TRN_ARRAY(attrs, p2p_attrs),
     TRN_ARRAY(operands, recv_operands),
     .check = coll_check_recv,
     .conform = coll_conform_recv},
    TRN_OP(66, "GetCurProcessingRankID", coll_h_cur_rank, TRN_ARRAY(attrs, cur_rank_attrs),
           TRN_ARRAY(operands, rank_operands), .conform = coll_conform_cur_rank),
};

static const trn_setting_desc coll_settings_schema[] = {
    {"regime", TRN_SET_STRING, "exact", 1, 0, "exact|multiworker",
     "exact: every core's real input in one process (bit-exact); multiworker: the reference's "
     "multi-worker "
     "emulation (AllReduce = local input x replicas)"},
    {"cores_per_lnc", TRN_SET_INT, "1", 1, 1048576, NULL,
     "cores per logical NeuronCore: rank of core = core / cores_per_lnc (GetGlobalRankId, the LNC "
     "rule)"},
    {"multi_lnc", TRN_SET_STRING, "error", 1, 0, "error|allow",
     "ReduceScatter / SendRecv / SendRecvCCE over more than one LNC: error (the reference) or "
     "allow"},
    {"rank_table", TRN_SET_INT_ARRAY, "", 1, 0, NULL,
     "GetCurProcessingRankID: permutation of ring positions 0..N-1 (empty = identity)"},
#ifdef COLL_WITH_MPI
    {"mpi_reduce", TRN_SET_STRING, "exact", 1, 0, "exact|native",
     "AllReduce / ReduceScatter across MPI processes: exact (core order, bit-identical to one "
     "process) or native "
     "(MPI_Allreduce / MPI_Reduce_scatter_block: MPI's order, fp32 add not bit-exact)"},
    {"mpi_timeout", TRN_SET_FLOAT, "60", 0.001, 1e9, NULL,
     "seconds without progress before waiting cores of an MPI run are reported as a deadlock"},
    {"multiworker_allreduce", TRN_SET_STRING, "exact", 1, 0, "exact|reference",
     "reference: the reference's multi-worker AllReduce, local input x replicas (the same as "
     "regime = "
     "\"multiworker\")"},
#endif
};

static const trn_quirk_desc coll_quirks[] = {
    {"collective.permute_reduce_identity", NULL, "always",
     "CollectiveCompute kind 8 (PermuteReduce) and unknown kinds copy the core's input to its "
     "output, no exchange"},
    {"collective.multiworker_allreduce_scale", "regime", "exact",
     "regime = multiworker: AllReduce(add) is the local input x replicas, each core alone (max / "
     "min: a copy)"},
    {"collective.sse_minmax", NULL, "always",
     "max / min fold as maxss(x, acc) / minss(x, acc): a NaN input or a tie keeps the running "
     "result"},
    {"collective.scale_first_input_only", NULL, "always",
     "reduce_op add with a scale multiplies only the first rank's input by it; the other ranks are "
     "read, not added"},
    {"collective.unsupported_op_lazy", NULL, "always",
     "an unsupported reduce_op fails only when the fold runs (two or more inputs, at least one "
     "element)"},
    {"collective.multi_lnc_unsupported", "multi_lnc", "error",
     "ReduceScatter, SendRecv, SendRecvCCE need one group of exactly the cores of one LNC"},
    {"collective.fp32_reduction", NULL, "always",
     "reducing kinds widen every input to fp32 and narrow the result (integers above 2^24 round)"},
#ifdef COLL_WITH_MPI
    {"collective.mpi_native_reduce_order", "mpi_reduce", "exact",
     "mpi_reduce = native: AllReduce / ReduceScatter across processes fold in MPI's order (fp32 "
     "add not bit-exact; "
     "max / min differ only on NaN and on ties of +0 / -0)"},
#endif
};

static void free_run(coll_state *st) {
    coll_registry_free(st->reg);
    free(st->core);
    free(st->held);
    st->held = NULL;
    st->held_cap = 0;
    st->reg = NULL;
    st->core = NULL;
    st->cores = 0;
}

/* Everything init and the runs made (fini: TRN_FINI_FREEING). */
static void coll_release(coll_state *st) {
    free_run(st);
#ifdef COLL_WITH_MPI
    cmpi_fini(st);
#endif
    free(st->set.rank_table);
    free(st->scratch);
}
TRN_FINI_FREEING(coll, coll_release)

static trn_status read_settings(const trn_host_api *api, const trn_settings *s, coll_settings *set,
                                char *err, size_t errlen) {
    const char *regime = "exact", *multi = "error";
    int64_t per_lnc = 1;
    api->setting_string(s, "regime", &regime);
    api->setting_string(s, "multi_lnc", &multi);
    api->setting_int(s, "cores_per_lnc", &per_lnc);
    set->multiworker = strcmp(regime, "multiworker") == 0;
#ifdef COLL_WITH_MPI
    const char *mw = "exact";
    api->setting_string(s, "multiworker_allreduce", &mw);
    set->multiworker = set->multiworker || strcmp(mw, "reference") == 0;
#endif
    set->multi_lnc_allow = strcmp(multi, "allow") == 0;
    set->cores_per_lnc = (uint32_t)per_lnc;
    if (set->multiworker && set->cores_per_lnc != 1) {
        snprintf(err, errlen,
                 "regime = \"multiworker\" needs cores_per_lnc = 1 (the reference's "
                 "isMultiWorkerSimTest: one core "
                 "per worker), found %u",
                 set->cores_per_lnc);
        return TRN_ERR;
    }
    int64_t *table = malloc(RANK_TABLE_MAX * sizeof *table);
    size_t n = 0;
    if (!table ||
        api->setting_int_array(s, "rank_table", table, RANK_TABLE_MAX, &n) == TRN_BADTYPE) {
        free(table);
        return trn_fail(err, errlen, "rank_table: out of memory or more than %d entries",
                        RANK_TABLE_MAX);
    }
    if (n && !coll_is_permutation(table, n)) {
        free(table);
        return trn_fail(err, errlen,
                        "rank_table must be a permutation of 0..%zu (each position once)", n - 1);
    }
    set->rank_table = n ? table : NULL;
    set->rank_table_len = n;
    if (!n) free(table);
    return TRN_OK;
}

static trn_status coll_init(const trn_host_api *api, const trn_settings *settings, void **state,
                            char *err, size_t errlen) {
    coll_state *st = calloc(1, sizeof *st);
    if (!st) return trn_fail(err, errlen, "out of memory");
    if (read_settings(api, settings, &st->set, err, errlen) != TRN_OK) {
        coll_fini(st);
        return TRN_ERR;
    }
#ifdef COLL_WITH_MPI
    if (cmpi_init(st, api, settings, err, errlen) != TRN_OK) {
        coll_fini(st);
        return TRN_ERR;
    }
#endif
    *state = st;
    return TRN_OK;
}

/* A fresh registry for every run (the benchmark reruns the same program). */
static trn_status coll_run_begin(void *state, const trn_run_info *info, char *err, size_t errlen) {
    coll_state *st = state;
    free_run(st);
    st->cores = info->cores;
    st->reg = coll_registry_new(info->cores);
    st->core = calloc(info->cores ? info->cores : 1, sizeof *st->core);
    if (!st->reg || !st->core) {
        free_run(st);
        return trn_fail(err, errlen, "out of memory for the collective registry of %u cores",
                        info->cores);
    }
#ifdef COLL_WITH_MPI
    cmpi_run_begin(st, info->cores);
#endif
    return TRN_OK;
}

#ifdef COLL_WITH_MPI
TRN_MODULE_AS(collective_mpi, "collective", "trnsim-collective-mpi", "1.0.0",
              .transport = &cmpi_transport, TRN_OPS(coll_opcodes),
              TRN_SETTINGS(coll_settings_schema), TRN_QUIRKS(coll_quirks), TRN_LIFECYCLE(coll),
              .state_save = coll_state_save, .state_restore = coll_state_restore);
#else
#ifdef TRNSIM_REF_MODULE
#define COLL_MODULE_NAME "trnsim-collective-ref" /* plugins/collective/ref/: the oracle kernels */
#else
#define COLL_MODULE_NAME "trnsim-collective"
#endif
TRN_MODULE(collective, COLL_MODULE_NAME, "1.0.0", TRN_OPS(coll_opcodes),
           TRN_SETTINGS(coll_settings_schema), TRN_QUIRKS(coll_quirks), TRN_LIFECYCLE(coll),
           .state_save = coll_state_save, .state_restore = coll_state_restore);
#endif
