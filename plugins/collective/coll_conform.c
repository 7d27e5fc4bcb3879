/* Recipes for `trnsim conform` (docs/internals/conform.md): the programs it
 * generates to exercise each collective opcode (docs/collective.md) on 1-8 cores.
 * A recipe's core count is fixed where the shapes or the replica_groups depend on
 * it (AllGather's output is the group size times the input, AllToAll splits into
 * group-size chunks). Under the default config (cores_per_lnc = 1, the
 * reference's multi-LNC rule) ReduceScatter, SendRecv and SendRecvCCE run only on
 * one core. */
#include "coll_conform.h"

#define CF_FP32V                                                                                   \
    "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", "  \
    "\"float8_e3m4\", \"float8_e4m3\", \"float8_e4m3fn\", \"float8_e8m0fnu\", \"float8_e5m2\", "   \
    "\"bfloat16\", \"float16\", \"float32\", \"float32r\"]"
#define CF_ALL                                                                                     \
    "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", "  \
    "\"float8_e3m4\", \"float8_e4m3\", \"float8_e4m3fn\", \"float8_e8m0fnu\", \"float8_e5m2\", "   \
    "\"bfloat16\", \"float16\", \"float32\", \"float32r\", \"float8_e4m3_x4\", "                   \
    "\"float8_e5m2_x4\", \"float4_e2m1_x4\"]"

/* The recipes are JSON text in macros, wrapped by hand. */
// clang-format off
#define CF_REDUCE_OPS "{\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}"
#define CF_PN_VARS    "\"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}"
/* One tensor of a recipe; SHAPE is JSON text, MORE is further keys (or ""). */
#define CF_TENSOR(NAME, MEMORY, DTYPE, SHAPE, MORE)                                                \
    "{\"name\": \"" NAME "\", \"memory\": \"" MEMORY "\", \"dtype\": \"" DTYPE "\", \"shape\": "   \
    SHAPE MORE "}"
#define CF_INPUT ", \"input\": true"
#define CF_PN    "[\"P\", \"N\"]"
/* The head of a recipe on CORES cores (a JSON number as text). */
#define CF_HEAD(NAME, CORES) "{\"name\": \"" NAME "\", \"cores\": [" CORES ", " CORES "], "

/* AllReduce under replica groups of one shape (GROUPS: the drawn lists). */
#define CF_ALLREDUCE_GROUPS(SUFFIX, CORES, GROUPS)                                                 \
    CF_HEAD("allreduce_groups_" SUFFIX, CORES) CF_PN_VARS ", \"dtypes\": {\"T\": " CF_FP32V        \
    ", \"D\": " CF_FP32V "}, \"tensors\": [" CF_TENSOR("a", "sbuf", "T", CF_PN, CF_INPUT)          \
    ", " CF_TENSOR("d", "sbuf", "D", CF_PN, "") "], \"instructions\": [{\"opcode\": "              \
    "\"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": \"AllReduce\", "  \
    "\"reduce_op\": " CF_REDUCE_OPS ", \"replica_groups\": {\"@\": " GROUPS "}}]}"

/* The four group-shaped kinds on CORES cores, groups of G members (G is
 * text, so "G*N" is the expression the generator evaluates). */
#define CF_ALLGATHER(SUFFIX, CORES, G, GROUPS)                                                     \
    CF_HEAD("allgather_" SUFFIX, CORES) "\"vars\": {\"P\": [1, 128], \"N\": [1, 300]}, "           \
    "\"dtypes\": {\"T\": " CF_ALL "}, \"tensors\": ["                                              \
    CF_TENSOR("a", "sbuf", "T", CF_PN, CF_INPUT) ", "                                              \
    CF_TENSOR("d", "sbuf", "T", "[\"P\", \"" G "*N\"]", "") ", "                                   \
    CF_TENSOR("h", "hbm", "T", "[" G ", \"P\", \"N\"]", "") "], \"instructions\": "                \
    "[{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": "   \
    "\"AllGather\", \"cc_dim\": 1, \"replica_groups\": {\"@\": " GROUPS "}}, {\"opcode\": "        \
    "\"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"h\"], \"kind\": {\"@\": "         \
    "[\"AllGather\", 4]}, \"cc_dim\": {\"@\": [0, 2]}, \"replica_groups\": {\"@\": " GROUPS "}}]}"
#define CF_ALLTOALL(SUFFIX, CORES, G, GROUPS)                                                      \
    CF_HEAD("alltoall_" SUFFIX, CORES) "\"vars\": {\"P\": [1, 128], \"K\": [1, 100]}, "            \
    "\"dtypes\": {\"T\": " CF_ALL ", \"S\": " CF_FP32V ", \"D\": " CF_FP32V "}, \"tensors\": ["    \
    CF_TENSOR("a", "sbuf", "T", "[\"P\", \"" G "*K\"]", CF_INPUT) ", "                             \
    CF_TENSOR("d", "sbuf", "T", "[\"P\", \"" G "*K\"]", "") ", "                                   \
    CF_TENSOR("b", "sbuf", "S", "[\"P\", \"" G "*K\"]", CF_INPUT) ", "                             \
    CF_TENSOR("e", "psum", "D", "[\"P\", \"" G "*K\"]", ", \"fill\": 0") "], \"instructions\": "   \
    "[{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": "   \
    "{\"@\": [\"AllToAll\", 5]}, \"replica_groups\": {\"@\": " GROUPS "}}, "                       \
    CF_GROUPED_STEP("b", "e", "AllToAll", "", GROUPS) ", "                                         \
    CF_GROUPED_STEP("e", "b", "AllToAll", "", GROUPS) "]}"
#define CF_PERMUTE_IMPLICIT(SUFFIX, CORES, GROUPS)                                                 \
    CF_HEAD("permute_implicit_" SUFFIX, CORES) CF_PN_VARS ", \"dtypes\": {\"T\": " CF_ALL          \
    "}, \"tensors\": [" CF_TENSOR("a", "sbuf", "T", CF_PN, CF_INPUT) ", "                          \
    CF_TENSOR("d", "sbuf", "T", CF_PN, CF_INPUT) "], \"instructions\": [{\"opcode\": "             \
    "\"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": {\"@\": "         \
    "[\"PermuteImplicit\", 9]}, \"replica_groups\": {\"@\": " GROUPS "}}, "                        \
    CF_GROUPED_STEP("d", "a", "PermuteImplicit", "", GROUPS) "]}"
#define CF_PERMUTE_REDUCE_IMPLICIT(SUFFIX, CORES, GROUPS)                                          \
    CF_HEAD("permute_reduce_implicit_" SUFFIX, CORES) CF_PN_VARS ", \"dtypes\": {\"T\": "          \
    CF_FP32V ", \"U\": " CF_FP32V ", \"D\": " CF_FP32V "}, \"tensors\": ["                         \
    CF_TENSOR("a", "sbuf", "T", CF_PN, CF_INPUT) ", "                                              \
    CF_TENSOR("b", "hbm", "U", CF_PN, CF_INPUT) ", "                                               \
    CF_TENSOR("d", "sbuf", "D", CF_PN, ", \"fill\": 0") "], \"instructions\": [{\"opcode\": "      \
    "\"CollectiveCompute\", \"inputs\": [\"a\", \"b\"], \"outputs\": [\"d\"], \"kind\": {\"@\": "  \
    "[\"PermuteReduceImplicit\", 10]}, \"reduce_op\": " CF_REDUCE_OPS ", \"replica_groups\": "     \
    "{\"@\": " GROUPS "}}, {\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\", \"d\"], "       \
    "\"outputs\": [\"d\"], \"kind\": \"PermuteReduceImplicit\", \"reduce_op\": \"add\", "          \
    "\"scale\": \"@\", \"replica_groups\": {\"@\": " GROUPS "}}]}"
/* One CollectiveCompute of KIND from IN to OUT; MORE is further keys. */
#define CF_GROUPED_STEP(IN, OUT, KIND, MORE, GROUPS)                                               \
    "{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"" IN "\"], \"outputs\": [\"" OUT "\"], "   \
    "\"kind\": \"" KIND "\"" MORE ", \"replica_groups\": {\"@\": " GROUPS "}}"
#define CF_GROUP_SET(SUFFIX, CORES, G, GROUPS)                                                     \
    ", " CF_ALLGATHER(SUFFIX, CORES, G, GROUPS) ", " CF_ALLTOALL(SUFFIX, CORES, G, GROUPS)         \
    ", " CF_PERMUTE_IMPLICIT(SUFFIX, CORES, GROUPS)                                                \
    ", " CF_PERMUTE_REDUCE_IMPLICIT(SUFFIX, CORES, GROUPS)

/* A CollectiveSend / CollectiveRecv program: each core sends a, receives d, twice;
 * TO1, FROM1, TO2, FROM2 are the per-core peer_id lists (-1: no peer). */
#define CF_SEND_RECV(NAME, CORES, DTYPES, A_MEMORY, D_MEMORY, D_DTYPE, TO1, FROM1, TO2, FROM2)    \
    CF_HEAD(NAME, CORES) CF_PN_VARS ", \"dtypes\": " DTYPES ", \"tensors\": ["                     \
    CF_TENSOR("a", A_MEMORY, "T", CF_PN, CF_INPUT) ", "                                            \
    CF_TENSOR("d", D_MEMORY, D_DTYPE, CF_PN, "") "], \"instructions\": [" CF_SEND(TO1) ", "        \
    CF_RECV(FROM1) ", " CF_SEND(TO2) ", " CF_RECV(FROM2) "]}"
#define CF_SEND(PEERS)                                                                             \
    "{\"opcode\": \"CollectiveSend\", \"inputs\": [\"a\"], \"peer_id\": " PEERS "}"
#define CF_RECV(PEERS)                                                                             \
    "{\"opcode\": \"CollectiveRecv\", \"outputs\": [\"d\"], \"peer_id\": " PEERS "}"
/* CollectiveSend and CollectiveRecv are given the same programs: pairs, and
 * two pairs of pairs exchanging in phases. */
#define CF_SEND_RECV_RECIPES                                                                       \
    "[" CF_SEND_RECV("send_recv_2", "2", "{\"T\": " CF_ALL "}", "sbuf", "sbuf", "T",               \
                     "[1, -1]", "[-1, 0]", "[-1, 0]", "[1, -1]")                                   \
    ", " CF_SEND_RECV("send_recv_4", "4", "{\"T\": " CF_ALL "}", "sbuf", "sbuf", "T",              \
                      "[1, -1, 3, -1]", "[-1, 0, -1, 2]", "[-1, 2, -1, 0]", "[3, -1, 1, -1]")      \
    ", " CF_SEND_RECV("send_recv_cast", "2", "{\"T\": " CF_FP32V ", \"D\": " CF_FP32V "}",         \
                      "hbm", "psum", "D", "[1, -1]", "[-1, 0]", "[-1, 0]", "[1, -1]") "]"

/* Permute between two dtypes on N cores over the drawn PAIRS. */
#define CF_PERMUTE(N, PAIRS)                                                                       \
    CF_HEAD("permute_" N, N) CF_PN_VARS ", \"dtypes\": {\"T\": " CF_ALL ", \"S\": " CF_FP32V       \
    ", \"D\": " CF_FP32V "}, \"tensors\": [" CF_TENSOR("a", "sbuf", "T", CF_PN, CF_INPUT)          \
    ", " CF_TENSOR("d", "sbuf", "T", CF_PN, "") ", " CF_TENSOR("b", "hbm", "S", CF_PN, CF_INPUT)   \
    ", " CF_TENSOR("e", "sbuf", "D", CF_PN, "") "], \"instructions\": [{\"opcode\": "              \
    "\"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": {\"@\": "         \
    "[\"Permute\", 7]}, \"src_target_pairs\": {\"@\": " PAIRS "}}, {\"opcode\": "                  \
    "\"CollectiveCompute\", \"inputs\": [\"b\"], \"outputs\": [\"e\"], \"kind\": \"Permute\", "    \
    "\"src_target_pairs\": {\"@\": " PAIRS "}}]}"

/* GetCurProcessingRankID over every ring iteration ITERS of the drawn GROUPS. */
#define CF_CUR_RANK(SUFFIX, CORES, ITERS, GROUPS)                                                  \
    CF_HEAD("cur_processing_rank_" SUFFIX, CORES) "\"vars\": {}, \"dtypes\": {\"D\": " CF_FP32V    \
    "}, \"tensors\": [" CF_TENSOR("r", "sbuf", "D", "[1, 1]", "") ", "                             \
    CF_TENSOR("h", "hbm", "int32", "[2]", "") "], \"instructions\": [{\"opcode\": "                \
    "\"GetCurProcessingRankID\", \"outputs\": [\"r\"], \"iter_id\": {\"@\": " ITERS "}, "          \
    "\"replica_groups\": {\"@\": " GROUPS "}, \"channel_id\": {\"@\": [0, 1, 3]}, "                \
    "\"arch_level\": {\"@\": [0, 2]}}, {\"opcode\": \"GetCurProcessingRankID\", \"outputs\": "     \
    "[{\"tensor\": \"h\", \"offset\": 1, \"ap\": [[1, 1]]}], \"iter_id\": {\"@\": " ITERS "}, "    \
    "\"register\": " CF_REGISTERS ", \"replica_groups\": {\"@\": " GROUPS "}}, {\"opcode\": "      \
    "\"GetCurProcessingRankID\", \"iter_id\": 0, \"register\": " CF_REGISTERS "}, {\"opcode\": "   \
    "\"GetCurProcessingRankID\", \"iter_id\": {\"=\": \"CORES-1\"}, \"register\": " CF_REGISTERS   \
    "}]}"
#define CF_REGISTERS "{\"@\": [0, 5, 63]}"

/* Replica groups drawn for each shape, CORESxSIZE; [] is the default, one
 * group of every core. */
#define CF_GROUPS_2X2 "[[[0, 1]], [[1, 0]], []]"
#define CF_GROUPS_3X3 "[[[0, 1, 2]], [[2, 0, 1]], []]"
#define CF_GROUPS_4X4 "[[[0, 1, 2, 3]], [[3, 1, 0, 2]], []]"
#define CF_GROUPS_4X2 "[[[0, 1], [2, 3]], [[3, 0], [1, 2]], [[0, 2], [3, 1]], [[1, 3]]]"
#define CF_GROUPS_8X4 "[[[0, 1, 2, 3], [4, 5, 6, 7]], [[6, 0, 4, 2], [1, 3, 5, 7]], [[7, 1, 2, 4]]]"
#define CF_GROUPS_8X8 "[[[0, 1, 2, 3, 4, 5, 6, 7]], [[7, 6, 5, 4, 3, 2, 1, 0]], []]"
#define CF_GROUPS_8X2 "[[[7, 0], [1, 6], [2, 5], [3, 4]], [[0, 1], [2, 3], [4, 5], [6, 7]]]"
/* The same shapes without their last draw. */
#define CF_GROUPS_4X2_PAIRED "[[[0, 1], [2, 3]], [[3, 0], [1, 2]], [[0, 2], [3, 1]]]"
#define CF_GROUPS_8X4_PAIRED "[[[0, 1, 2, 3], [4, 5, 6, 7]], [[6, 0, 4, 2], [1, 3, 5, 7]]]"
/* Source-target pairs drawn for Permute: rings, swaps, a partial cycle. */
#define CF_PAIRS_2 "[[[0, 1], [1, 0]], [[1, 0], [0, 1]], [[0, 0]]]"
#define CF_PAIRS_4 "[[[0, 1], [1, 2], [2, 3], [3, 0]], [[0, 2], [2, 0]], [[3, 2], [2, 1], [1, 3]]]"
#define CF_PAIRS_8                                                                                 \
    "[[[0, 3], [1, 4], [2, 5], [3, 6], [4, 7], [5, 0], [6, 1], [7, 2]], [[7, 0], [0, 7], [1, 6], " \
    "[6, 1]]]"

/* CollectiveCompute: every kind, reduce ops add / max / min, several
 * replica_groups shapes, every dtype (raw routing and fp32 folds). */
const char coll_conform_compute[] =
    "[{\"name\": \"allreduce\", \"cores\": [1, 8], \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "
    "\"dtypes\": {\"T\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", "
    "\"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", "
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": {\"@\": [\"AllReduce\", 2]}, "
    "\"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}}]}"
    ", {\"name\": \"allreduce_scale_in_place\", \"cores\": [2, 8], \"vars\": {\"P\": [1, 128], "
    "\"N\": [1, 1030]}, \"dtypes\": {\"T\": [\"float32\", \"bfloat16\", \"float16\", \"int32\"]}, "
    "\"tensors\": [{\"name\": \"a\", \"memory\": \"psum\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": "
    "[\"a\"], \"outputs\": [\"a\"], \"kind\": \"AllReduce\", \"reduce_op\": \"add\", \"scale\": "
    "\"@\"}, {\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"a\"], "
    "\"kind\": \"AllReduce\", \"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}, "
    "\"scale\": \"@\"}]}"
    ", {\"name\": \"allreduce_hbm_strided\", \"cores\": [2, 8], \"vars\": {\"N\": [1, 4099]}, "
    "\"dtypes\": {\"T\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": "
    "[\"2*N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": \"D\", "
    "\"shape\": [\"N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": "
    "[{\"tensor\": \"a\", \"offset\": 1, \"ap\": [[2, \"N\"]]}], \"outputs\": [\"d\"], \"kind\": "
    "\"AllReduce\", \"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}}]}"
    ", " CF_ALLREDUCE_GROUPS("4x2", "4", CF_GROUPS_4X2)
    ", " CF_ALLREDUCE_GROUPS("8x4", "8", CF_GROUPS_8X4)
    ", " CF_ALLREDUCE_GROUPS("8x2", "8", CF_GROUPS_8X2)
    ", " CF_ALLREDUCE_GROUPS("3x3", "3", CF_GROUPS_3X3)
    ", {\"name\": \"reduce_scatter_one_core\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "
    "\"dtypes\": {\"T\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", "
    "\"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", "
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": {\"@\": [\"ReduceScatter\", 3]}, "
    "\"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}, \"replica_groups\": {\"@\": "
    "[[[0]], []]}}]}"
    ", {\"name\": \"send_recv_one_core\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "
    "\"dtypes\": {\"T\": " CF_ALL
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": "
    "[\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], "
    "\"outputs\": [\"d\"], \"kind\": {\"@\": [\"SendRecv\", 0]}, \"peer_offset\": {\"@\": [0, 1, "
    "5]}}]}"
    ", {\"name\": \"send_recv_cce_one_core\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "
    "\"dtypes\": {\"T\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", "
    "\"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", "
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": {\"@\": [\"SendRecvCCE\", 1]}, "
    "\"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}, \"peer_offset\": {\"@\": [0, 1, "
    "5]}}]}"
    CF_GROUP_SET("2x2", "2", "2", CF_GROUPS_2X2)
    CF_GROUP_SET("3x3", "3", "3", CF_GROUPS_3X3)
    CF_GROUP_SET("4x4", "4", "4", CF_GROUPS_4X4)
    CF_GROUP_SET("4x2", "4", "2", CF_GROUPS_4X2)
    CF_GROUP_SET("8x4", "8", "4", CF_GROUPS_8X4)
    CF_GROUP_SET("8x8", "8", "8", CF_GROUPS_8X8)
    CF_GROUP_SET("8x2", "8", "2", CF_GROUPS_8X2)
    ", {\"name\": \"alltoallv_2\", \"cores\": [2, 2], \"vars\": {}, \"dtypes\": {\"T\": " CF_ALL
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [1, 3], "
    "\"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [3]}], "
    "\"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": "
    "[\"d\"], \"kind\": {\"@\": [\"AllToAllV\", 6]}, \"send_counts\": {\"@\": [[[1, 2], [2, 1]], "
    "[[0, 3], [3, 0]], [[3, 0], [0, 3]]]}}]}"
    ", {\"name\": \"alltoallv_3\", \"cores\": [3, 3], \"vars\": {}, \"dtypes\": {\"T\": " CF_ALL
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [2, 3], "
    "\"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [6]}], "
    "\"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": "
    "[\"d\"], \"kind\": {\"@\": [\"AllToAllV\", 6]}, \"send_counts\": {\"@\": [[[1, 2, 3], [2, 3, "
    "1], [3, 1, 2]], [[6, 0, 0], [0, 0, 6], [0, 6, 0]], [[2, 2, 2], [2, 2, 2], [2, 2, 2]]]}}]}"
    ", {\"name\": \"alltoallv_4\", \"cores\": [4, 4], \"vars\": {}, \"dtypes\": {\"T\": " CF_ALL
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [4, 3], "
    "\"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [12]}], "
    "\"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": "
    "[\"d\"], \"kind\": {\"@\": [\"AllToAllV\", 6]}, \"send_counts\": {\"@\": [[[0, 1, 5, 6], [1, "
    "5, 6, 0], [5, 6, 0, 1], [6, 0, 1, 5]], [[3, 3, 3, 3], [3, 3, 3, 3], [3, 3, 3, 3], [3, 3, 3, "
    "3]], [[0, 0, 0, 12], [0, 0, 12, 0], [0, 12, 0, 0], [12, 0, 0, 0]]]}}]}"
    ", {\"name\": \"alltoallv_4_cast\", \"cores\": [4, 4], \"vars\": {}, \"dtypes\": "
    "{\"T\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [4, 3], "
    "\"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [2, "
    "6]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], "
    "\"outputs\": [\"d\"], \"kind\": \"AllToAllV\", \"send_counts\": {\"@\": [[[0, 1, 5, 6], [1, "
    "5, 6, 0], [5, 6, 0, 1], [6, 0, 1, 5]], [[3, 3, 3, 3], [3, 3, 3, 3], [3, 3, 3, 3], [3, 3, 3, "
    "3]], [[0, 0, 0, 12], [0, 0, 12, 0], [0, 12, 0, 0], [12, 0, 0, 0]]]}, \"replica_groups\": "
    "{\"@\": [[[0, 1, 2, 3]], [[2, 3, 1, 0]]]}}]}"
    ", " CF_PERMUTE("2", CF_PAIRS_2) ", " CF_PERMUTE("4", CF_PAIRS_4)
    ", " CF_PERMUTE("8", CF_PAIRS_8)
    ", {\"name\": \"permute_reduce_identity\", \"cores\": [1, 8], \"vars\": {\"P\": [1, 128], "
    "\"N\": [1, 1030]}, \"dtypes\": {\"T\": " CF_ALL
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": "
    "[\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], "
    "\"outputs\": [\"d\"], \"kind\": {\"@\": [\"PermuteReduce\", 8, 11, 200]}}]}"
    ", {\"name\": \"permute_reduce_identity_cast\", \"cores\": [1, 8], \"vars\": {\"P\": [1, 128], "
    "\"N\": [1, 1030]}, \"dtypes\": {\"T\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", "
    "\"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", "
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": {\"@\": [\"PermuteReduce\", 8, 12]}, "
    "\"reduce_op\": \"@\"}]}"
    ", {\"name\": \"allgather_all_cores\", \"cores\": [2, 8], \"vars\": {\"P\": [1, 128], \"N\": "
    "[1, 200]}, \"dtypes\": {\"T\": " CF_ALL
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", "
    "\"shape\": [\"P\", \"CORES*N\"]}, {\"name\": \"h\", \"memory\": \"hbm\", \"dtype\": \"T\", "
    "\"shape\": [\"CORES\", \"P\", \"N\"]}, {\"name\": \"q\", \"memory\": \"sbuf\", \"dtype\": "
    "\"T\", \"shape\": [\"P\", \"2*N\"]}], \"instructions\": [{\"opcode\": \"CollectiveCompute\", "
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": \"AllGather\", \"cc_dim\": 1}, "
    "{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"h\"], \"kind\": "
    "\"AllGather\", \"cc_dim\": {\"@\": [0, 3]}}, {\"opcode\": \"CollectiveCompute\", \"inputs\": "
    "[\"a\"], \"outputs\": [\"q\"], \"kind\": \"AllGather\", \"cc_dim\": 1, \"replica_groups\": "
    "[[{\"=\": \"CORES-1\"}, 0]]}]}"
    ", {\"name\": \"alltoall_all_cores\", \"cores\": [2, 8], \"vars\": {\"P\": [1, 128], \"K\": "
    "[1, 100]}, \"dtypes\": {\"T\": " CF_ALL ", \"S\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"CORES*K\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": \"T\", "
    "\"shape\": [\"P\", \"CORES*K\"]}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": \"S\", "
    "\"shape\": [\"P\", \"CORES*K\"], \"input\": true}, {\"name\": \"e\", \"memory\": \"sbuf\", "
    "\"dtype\": \"D\", \"shape\": [\"P\", \"CORES*K\"]}], \"instructions\": [{\"opcode\": "
    "\"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": \"AllToAll\"}, "
    "{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"b\"], \"outputs\": [\"e\"], \"kind\": "
    "\"AllToAll\"}]}"
    ", {\"name\": \"rings_all_cores\", \"cores\": [2, 8], \"vars\": {\"P\": [1, 128], \"N\": [1, "
    "1030]}, \"dtypes\": {\"T\": " CF_ALL ", \"S\": " CF_FP32V ", \"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", "
    "\"shape\": [\"P\", \"N\"]}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": \"S\", "
    "\"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"e\", \"memory\": \"psum\", "
    "\"dtype\": \"D\", \"shape\": [\"P\", \"N\"], \"input\": true}], \"instructions\": "
    "[{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"kind\": "
    "\"PermuteImplicit\"}, {\"opcode\": \"CollectiveCompute\", \"inputs\": [\"d\"], \"outputs\": "
    "[\"a\"], \"kind\": \"PermuteImplicit\", \"replica_groups\": [[{\"=\": \"CORES-1\"}, 0]]}, "
    "{\"opcode\": \"CollectiveCompute\", \"inputs\": [\"b\", \"e\"], \"outputs\": [\"e\"], "
    "\"kind\": \"PermuteReduceImplicit\", \"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, "
    "9]}}, {\"opcode\": \"CollectiveCompute\", \"inputs\": [\"b\"], \"outputs\": [\"e\"], "
    "\"kind\": \"AllReduce\", \"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}, "
    "\"replica_groups\": [[0, {\"=\": \"CORES-1\"}]]}]}]";

/* CollectiveSend and CollectiveRecv. */
const char coll_conform_send[] = CF_SEND_RECV_RECIPES;
const char coll_conform_recv[] = CF_SEND_RECV_RECIPES;

/* GetGlobalRankId: into a register, an output, both; the register
 * as a dynamic offset. */
const char coll_conform_global_rank[] =
    "[{\"name\": \"global_rank\", \"cores\": [1, 8], \"vars\": {}, \"dtypes\": {\"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"r\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [1, "
    "1]}, {\"name\": \"tab\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [1, 8], "
    "\"input\": true}, {\"name\": \"o\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
    "[1, 1]}], \"instructions\": [{\"opcode\": \"GetGlobalRankId\", \"outputs\": [\"r\"], "
    "\"register\": {\"@\": [5]}}, {\"opcode\": \"GetGlobalRankId\", \"outputs\": [\"r\"]}, "
    "{\"opcode\": \"GetGlobalRankId\", \"register\": {\"@\": [0, 5, 63]}}, {\"opcode\": "
    "\"GetGlobalRankId\", \"register\": 5}, {\"opcode\": \"TensorCopy\", \"inputs\": [{\"tensor\": "
    "\"tab\", \"ap\": [[1, 1]], \"offset_register\": 5}], \"outputs\": [\"o\"]}]}]";

/* GetCurProcessingRankID: every ring iteration of several groups. */
const char coll_conform_cur_rank[] =
    "[" CF_CUR_RANK("2x2", "2", "[0, 1]", CF_GROUPS_2X2)
    ", " CF_CUR_RANK("3x3", "3", "[0, 1, 2]", CF_GROUPS_3X3)
    ", " CF_CUR_RANK("4x2", "4", "[0, 1]", CF_GROUPS_4X2_PAIRED)
    ", " CF_CUR_RANK("8x4", "8", "[0, 1, 2, 3]", CF_GROUPS_8X4_PAIRED)
    ", " CF_CUR_RANK("8x8", "8", "[0, 1, 2, 3, 4, 5, 6, 7]", CF_GROUPS_8X8) "]";
// clang-format on
