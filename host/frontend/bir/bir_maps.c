/* What the BIR reader knows that the modules' schemas cannot say: fields
 * no instruction models, which attribute each immediate argument fills,
 * BIR-only fields of an opcode that are not modelled, the fields whose
 * value changes form (block names, transpose letters, the RNG engine),
 * and two BIR defaults; and the one place that says what a field is
 * (bir_field_class). Every other field is renamed through the opcode's schema
 * (trn_attr_desc.bir_name, enum aliases): bir_fields.c. docs/bir.md's field
 * tables are generated from both (test bir_doc_tables). */
#include <string.h>

#include "frontend/bir/bir_int.h"

/* Fields of an instruction the simulator does not model: scheduling,
 * queues and synchronisation, as the reference ignores them. */
const char *const bir_ignored_fields[] = {"engine",
                                          "queue",
                                          "dge_type",
                                          "duplicate",
                                          "stream_id",
                                          "pipe_id",
                                          "semaphores",
                                          "wait_semaphores",
                                          "signal_semaphores",
                                          "dependencies",
                                          "unroll_dependencies",
                                          "loop_carried_dependencies",
                                          "sync_type",
                                          "debug_info",
                                          "comment",
                                          NULL};

/* The BIR name of the host's allow_uninit_read, on any instruction. */
const char bir_uninit_field[] = "can_read_uninit";

/* Every AluOp name of the public types, for a clearer message on the ones
 * the modules give no number. */
const char *const bir_alu_op_names[] = {"abs",
                                        "add",
                                        "arith_shift_left",
                                        "arith_shift_right",
                                        "average",
                                        "bitwise_and",
                                        "bitwise_not",
                                        "bitwise_or",
                                        "bitwise_xor",
                                        "bypass",
                                        "divide",
                                        "is_equal",
                                        "is_ge",
                                        "is_gt",
                                        "is_le",
                                        "is_lt",
                                        "logical_and",
                                        "logical_or",
                                        "logical_shift_left",
                                        "logical_shift_right",
                                        "logical_xor",
                                        "max",
                                        "min",
                                        "mod",
                                        "mult",
                                        "not_equal",
                                        "pow",
                                        "rsqrt",
                                        "subtract",
                                        NULL};

/* transpose_op letters name the source axes W, Z, Y, X (0..3) in
 * destination order; the native `perm` lists the same indices. */
static const bir_enum transpose_ops[] = {
    {"None", "0123"}, {"WXZY", "0312"}, {"WYXZ", "0231"}, {"WZXY", "0132"}, {"XWZY", "3012"},
    {"XYWZ", "3201"}, {"XZYW", "3120"}, {"YWZX", "2013"}, {"YXWZ", "2301"}, {"YXZW", "2310"},
    {"ZWYX", "1023"}, {"ZYWX", "1203"}, {"ZYXW", "1230"}, {NULL, NULL}};

static const bir_special transpose[] = {{"transpose_op", "perm", BIR_PERM, transpose_ops,
                                         "the letters name the source axes W Z Y X (0 1 2 3) in "
                                         "destination order: `WXZY` is `[0, 3, 1, 2]`; `None` is "
                                         "`[0, 1, 2, 3]`"},
                                        {NULL, NULL, BIR_PERM, NULL, NULL}};
static const bir_special trigger[] = {{"dma_blocks", "blocks", BIR_BLOCKS, NULL,
                                       "block names: each named block becomes a native `DMABlock` "
                                       "whose `descriptors` are that block's instructions"},
                                      {NULL, NULL, BIR_BLOCKS, NULL, NULL}};

/* On the RNG state opcodes `engine` is the generator's (the rng schema's
 * `engine`: 1 gen-1, 5 gen-2 ...), given as an integer; the compiler's
 * issuing engine, a name on every instruction, is not modelled. */
static const bir_enum engine_names[] = {{"unassigned", NULL}, {"act", NULL}, {"dma", NULL},
                                        {"dve", NULL},        {"pe", NULL},  {"pool", NULL},
                                        {"sp", NULL},         {NULL, NULL}};
static const bir_special rng_engine_field[] = {
    {"engine", "engine", BIR_ENGINE, engine_names,
     "an integer: the generator (the module's `engine`); an issuing engine's name is accepted and "
     "not modelled"},
    {NULL, NULL, BIR_ENGINE, NULL, NULL}};

static const char *const imm_replace[] = {"imm_value", NULL};
static const char *const imm_total[] = {"total_elements", NULL};
static const char *const imm_rand2[] = {"min", "max", NULL};
static const char *const imm_seed[] = {"seed", NULL};

/* Which engine's generator copy is meant does not change a value: one
 * state per core and generation. */
static const char *const rng_engine[] = {"rng_engine", NULL};
static const char *const cc_unmodelled[] = {"is_local",   "recv_from_rank",      "send_to_rank",
                                            "cc_channel", "initial_corebarrier", "cc_type_hint",
                                            NULL};
static const char *const dma_unmodelled[] = {
    "oob_is_err", "constants", "replica_groups", "remote_notification", "num_tiling_dimensions",
    NULL};
static const char *const desc_unmodelled[] = {"num_tiling_dimensions", NULL};
static const char *const cce_unmodelled[] = {"constants", "num_tiling_dimensions", NULL};

const bir_opcode_extra bir_opcode_extras[] = {
    {"MatchReplace", imm_replace, NULL, NULL, NULL, NULL},
    {"MaxIndexAndMatchReplace", imm_replace, NULL, NULL, NULL, NULL},
    {"BNBackprop", imm_total, NULL, NULL, NULL, NULL},
    {"BNBackprop2", imm_total, NULL, NULL, NULL, NULL},
    {"Rand2", imm_rand2, NULL, NULL, NULL, NULL},
    {"SetRandState", imm_seed, rng_engine, rng_engine_field, NULL, NULL},
    {"SetRandState2", imm_seed, rng_engine, rng_engine_field, NULL, NULL},
    {"GetRandState", NULL, rng_engine, rng_engine_field, NULL, NULL},
    {"GetRandState2", NULL, rng_engine, rng_engine_field, NULL, NULL},
    {"CollectiveCompute", NULL, cc_unmodelled, NULL, "kind", "AllReduce"},
    {"DMACopy", NULL, dma_unmodelled, transpose, NULL, NULL},
    {"DMADescriptor", NULL, dma_unmodelled, transpose, NULL, NULL},
    {"DMADescriptorCopy", NULL, desc_unmodelled, NULL, NULL, NULL},
    {"DMADescriptorCCE", NULL, cce_unmodelled, NULL, NULL, NULL},
    {"DMADescriptorTranspose", NULL, desc_unmodelled, transpose, NULL, NULL},
    {"DMADescriptorReplicate", NULL, desc_unmodelled, NULL, NULL, NULL},
    {"DMATrigger", NULL, NULL, trigger, "trigger", bir_default_number},
    {NULL, NULL, NULL, NULL, NULL, NULL}};

/* A trigger inside a loop is one trigger however many trips fire it, so
 * its round robin goes on across trips (natively the id defaults to the
 * execution index). */
const char bir_default_number[] = "the instruction's number";

const bir_opcode_extra *bir_opcode_extra_lookup(const char *opcode) {
    for (const bir_opcode_extra *x = bir_opcode_extras; x->opcode; ++x)
        if (strcmp(x->opcode, opcode) == 0) return x;
    return NULL;
}

bool bir_attr_readable(const trn_attr_desc *a) { return !(a->types & TRN_ATTR_INSTRUCTIONS); }

const trn_attr_desc *bir_schema_field(const trn_opcode_desc *op, const char *field) {
    for (uint32_t i = 0; op && i < op->n_attrs; ++i) {
        const trn_attr_desc *a = &op->attrs[i];
        if (bir_attr_readable(a) && strcmp(a->bir_name ? a->bir_name : a->name, field) == 0)
            return a;
    }
    return NULL;
}

static bool named(const char *const *names, const char *key) {
    for (; names && *names; ++names)
        if (!strcmp(*names, key)) return true;
    return false;
}

static const char *const base_fields[] = {"opcode", "name", "ins", "outs", NULL};

bir_field_use bir_field_class(const trn_opcode_desc *schema, const bir_opcode_extra *x,
                              const char *field) {
    if (named(base_fields, field)) return BIR_FIELD_BASE;
    if (!strcmp(field, bir_uninit_field)) return BIR_FIELD_UNINIT;
    for (const bir_special *f = x ? x->special : NULL; f && f->bir_name; ++f)
        if (!strcmp(f->bir_name, field)) return BIR_FIELD_SPECIAL;
    if (bir_schema_field(schema, field)) return BIR_FIELD_SCHEMA;
    if (named(x ? x->ignored : NULL, field)) return BIR_FIELD_OPCODE_IGNORED;
    if (named(bir_ignored_fields, field)) return BIR_FIELD_IGNORED;
    return BIR_FIELD_UNKNOWN;
}

void bir_enum_spellings(const trn_enum_desc *x, char *buf, size_t len) {
    const char *s = x->aliases && *x->aliases ? x->aliases : x->name;
    size_t n = 0;
    for (; *s && n + 3 < len; ++s) {
        if (*s == '|') {
            buf[n++] = ',';
            buf[n++] = ' ';
        } else {
            buf[n++] = *s;
        }
    }
    buf[n] = 0;
}
