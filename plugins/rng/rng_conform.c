/* Recipes for `trnsim conform` (docs/internals/conform.md): the programs it
 * generates to exercise each RNG opcode (docs/rng.md). Rand writes uint32, Rand2
 * float32, state tensors are uint32 [P][6] (gen-1) or [P][24] (gen-2). The chains
 * seed or restore the states, draw, read the states back and restore them, with
 * both generations through both opcode numbers (the engine attribute). */
#include "rng_conform.h"

/* Each recipe once: several opcodes' lists share them. */
#define RNG_R_DEFAULT_STATES                                                                       \
    "{\"name\": \"default_states\", \"vars\": {\"P\": [1, 128]}, \"dtypes\": {}, \"tensors\": "    \
    "[{\"name\": \"s1\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": [\"P\", 6]}, "    \
    "{\"name\": \"s5\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": [\"P\", 24]}], "   \
    "\"instructions\": [{\"opcode\": \"GetRandState\", \"outputs\": [\"s1\"]}, {\"opcode\": "      \
    "\"GetRandState2\", \"outputs\": [\"s5\"]}]}"
#define RNG_R_GEN1_STATE_CHAIN                                                                     \
    "{\"name\": \"gen1_state_chain\", \"vars\": {\"P\": [1, 128], \"N\": [1, 515], \"M\": [1, "    \
    "9]}, \"dtypes\": {}, \"tensors\": [{\"name\": \"v1\", \"memory\": \"sbuf\", \"dtype\": "      \
    "\"uint32\", \"shape\": [\"P\", \"N\"]}, {\"name\": \"s\", \"memory\": \"sbuf\", "             \
    "\"dtype\": \"uint32\", \"shape\": [\"P\", 6]}, {\"name\": \"v2\", \"memory\": \"sbuf\", "     \
    "\"dtype\": \"uint32\", \"shape\": [\"P\", \"M\"]}, {\"name\": \"v3\", \"memory\": "           \
    "\"sbuf\", \"dtype\": \"uint32\", \"shape\": [\"P\", \"M\"]}, {\"name\": \"s2\", "             \
    "\"memory\": \"psum\", \"dtype\": \"uint32\", \"shape\": [\"P\", 6]}], \"instructions\": "     \
    "[{\"opcode\": \"SetRandState\", \"seed\": {\"@\": [[0, 0, 0, 0, 0, 0, 0, 0], [1, 2, 3, 4, "   \
    "5, 6, 7, 8], [4294967295, 4294967295, 4294967295, 4294967295, 4294967295, 4294967295, "       \
    "4294967295, 4294967295], [305419896, 0, 0, 0, 0, 0, 9, 9], [16777215, 1, 2147483648, 0, 0,"   \
    " 0, 0, 0]]}}, {\"opcode\": \"Rand\", \"outputs\": [\"v1\"], \"algorithm\": \"@\"}, "          \
    "{\"opcode\": \"GetRandState\", \"outputs\": [\"s\"]}, {\"opcode\": \"Rand\", \"outputs\": "   \
    "[\"v2\"], \"algorithm\": \"@\"}, {\"opcode\": \"SetRandState\", \"inputs\": [\"s\"]}, "       \
    "{\"opcode\": \"Rand\", \"outputs\": [\"v3\"], \"algorithm\": \"@\"}, {\"opcode\": "           \
    "\"GetRandState\", \"outputs\": [\"s2\"], \"engine\": 1}]}"
#define RNG_R_GEN1_RESTORE                                                                         \
    "{\"name\": \"gen1_restore\", \"vars\": {\"P\": [1, 128], \"Q\": [0, 127], \"N\": [1, "        \
    "300]}, \"dtypes\": {}, \"tensors\": [{\"name\": \"s0\", \"memory\": \"sbuf\", \"dtype\": "    \
    "\"uint32\", \"shape\": [128, 6], \"input\": true}, {\"name\": \"v\", \"memory\": \"sbuf\","   \
    " \"dtype\": \"uint32\", \"shape\": [\"P\", \"N\"]}, {\"name\": \"s\", \"memory\": "           \
    "\"psum\", \"dtype\": \"uint32\", \"shape\": [128, 6]}], \"instructions\": [{\"opcode\": "     \
    "\"SetRandState\", \"inputs\": [\"s0\"], \"engine\": {\"@\": [1, 1, 1]}}, {\"opcode\": "       \
    "\"Rand\", \"outputs\": [\"v\"], \"algorithm\": \"@\"}, {\"opcode\": \"Rand\", "               \
    "\"outputs\": [\"v\"], \"algorithm\": \"@\"}, {\"opcode\": \"GetRandState\", \"outputs\": "    \
    "[\"s\"]}]}"
#define RNG_R_ENGINES_CROSSED                                                                      \
    "{\"name\": \"engines_crossed\", \"vars\": {\"P\": [1, 128], \"N\": [1, 100]}, \"dtypes\": "   \
    "{}, \"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", "            \
    "\"shape\": [\"P\", \"N\"]}, {\"name\": \"f\", \"memory\": \"sbuf\", \"dtype\": "              \
    "\"float32\", \"shape\": [\"P\", \"N\"]}, {\"name\": \"s1\", \"memory\": \"sbuf\", "           \
    "\"dtype\": \"uint32\", \"shape\": [\"P\", 6]}, {\"name\": \"s5\", \"memory\": \"sbuf\", "     \
    "\"dtype\": \"uint32\", \"shape\": [\"P\", 24]}], \"instructions\": [{\"opcode\": "            \
    "\"SetRandState\", \"engine\": 5, \"seed\": {\"@\": [0, 1, 42, 9223372036854775807, "          \
    "\"18446744073709551615\", \"0x2a\", \"0xdeadbeefcafef00d\"]}}, {\"opcode\": "                 \
    "\"SetRandState2\", \"engine\": 1, \"seed\": {\"@\": [[0, 0, 0, 0, 0, 0, 0, 0], [1, 2, 3, "    \
    "4, 5, 6, 7, 8], [4294967295, 4294967295, 4294967295, 4294967295, 4294967295, 4294967295, "    \
    "4294967295, 4294967295], [305419896, 0, 0, 0, 0, 0, 9, 9], [16777215, 1, 2147483648, 0, 0,"   \
    " 0, 0, 0]]}}, {\"opcode\": \"Rand\", \"outputs\": [\"v\"], \"algorithm\": \"@\"}, "           \
    "{\"opcode\": \"Rand2\", \"outputs\": [\"f\"]}, {\"opcode\": \"GetRandState\", "               \
    "\"outputs\": [\"s5\"], \"engine\": 5}, {\"opcode\": \"GetRandState2\", \"outputs\": "         \
    "[\"s1\"], \"engine\": 1}, {\"opcode\": \"SetRandState\", \"inputs\": [\"s5\"], "              \
    "\"engine\": 5}, {\"opcode\": \"SetRandState2\", \"inputs\": [\"s1\"], \"engine\": 1}, "       \
    "{\"opcode\": \"Rand\", \"outputs\": [\"v\"], \"algorithm\": \"@\"}, {\"opcode\": "            \
    "\"Rand2\", \"outputs\": [\"f\"], \"is_2x2p\": \"@\"}]}"
#define RNG_R_GEN1_HBM_STATE                                                                       \
    "{\"name\": \"gen1_hbm_state\", \"vars\": {\"N\": [1, 64]}, \"dtypes\": {}, \"tensors\": "     \
    "[{\"name\": \"s0\", \"memory\": \"hbm\", \"dtype\": \"uint32\", \"shape\": [6], "             \
    "\"input\": true}, {\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", "            \
    "\"shape\": [4, \"N\"]}, {\"name\": \"s\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", "      \
    "\"shape\": [1, 6]}], \"instructions\": [{\"opcode\": \"SetRandState2\", \"inputs\": "         \
    "[\"s0\"], \"engine\": 1}, {\"opcode\": \"Rand\", \"outputs\": [\"v\"], \"algorithm\": "       \
    "\"@\"}, {\"opcode\": \"GetRandState2\", \"outputs\": [\"s\"], \"engine\": 1}]}"
#define RNG_R_RAND_SBUF                                                                            \
    "{\"name\": \"rand_sbuf\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": {}, "    \
    "\"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": "     \
    "[\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"Rand\", \"outputs\": [\"v\"], "           \
    "\"algorithm\": \"@\", \"distribution\": \"@\"}]}"
#define RNG_R_RAND_IGNORED_FIELDS                                                                  \
    "{\"name\": \"rand_ignored_fields\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "          \
    "\"dtypes\": {}, \"tensors\": [{\"name\": \"v\", \"memory\": \"psum\", \"dtype\": "            \
    "\"uint32\", \"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"Rand\", "          \
    "\"outputs\": [\"v\"], \"algorithm\": \"@\", \"params\": \"@\", \"rand_num_steps\": "          \
    "\"@\"}]}"
#define RNG_R_RAND_HBM                                                                             \
    "{\"name\": \"rand_hbm\", \"vars\": {\"A\": [1, 8], \"N\": [1, 4099]}, \"dtypes\": {}, "       \
    "\"tensors\": [{\"name\": \"v\", \"memory\": \"hbm\", \"dtype\": \"uint32\", \"shape\": "      \
    "[\"A\", \"N\"]}], \"instructions\": [{\"opcode\": \"Rand\", \"outputs\": [\"v\"], "           \
    "\"algorithm\": \"@\"}, {\"opcode\": \"Rand\", \"outputs\": [\"v\"], \"algorithm\": "          \
    "\"@\"}]}"
#define RNG_R_RAND_STRIDED                                                                         \
    "{\"name\": \"rand_strided\", \"vars\": {\"P\": [1, 64], \"Q\": [0, 64], \"A\": [1, 7], "      \
    "\"B\": [1, 67]}, \"dtypes\": {}, \"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", "      \
    "\"dtype\": \"uint32\", \"shape\": [128, \"A\", \"2*B\"]}], \"instructions\": "                \
    "[{\"opcode\": \"Rand\", \"outputs\": [{\"tensor\": \"v\", \"partition\": \"Q\", "             \
    "\"partitions\": \"P\", \"ap\": [[\"2*B\", \"A\"], [2, \"B\"]]}], \"algorithm\": \"@\"}, "     \
    "{\"opcode\": \"Rand\", \"outputs\": [{\"tensor\": \"v\", \"partition\": \"Q\", "              \
    "\"partitions\": \"P\", \"offset\": 1, \"ap\": [[\"2*B\", \"A\"], [2, \"B\"]]}], "             \
    "\"algorithm\": \"@\"}]}"
#define RNG_R_RAND_PARTITION_STEP0                                                                 \
    "{\"name\": \"rand_partition_step0\", \"vars\": {\"K\": [1, 16], \"N\": [1, 37]}, "            \
    "\"dtypes\": {}, \"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": "            \
    "\"uint32\", \"shape\": [1, \"N\"]}], \"instructions\": [{\"opcode\": \"Rand\", "              \
    "\"outputs\": [{\"tensor\": \"v\", \"partitions\": \"K\", \"partition_step\": 0}], "           \
    "\"algorithm\": \"@\"}]}"
#define RNG_R_RAND2_SBUF                                                                           \
    "{\"name\": \"rand2_sbuf\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": {}, "   \
    "\"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "    \
    "[\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"Rand2\", \"outputs\": [\"v\"], "          \
    "\"min\": \"@\", \"max\": \"@\"}]}"
#define RNG_R_RAND2_LANES                                                                          \
    "{\"name\": \"rand2_lanes\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": {},"   \
    " \"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "   \
    "[\"P\", \"N\"]}, {\"name\": \"w\", \"memory\": \"psum\", \"dtype\": \"float32\", "            \
    "\"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"Rand2\", \"outputs\": "        \
    "[\"v\"], \"is_2x1p\": \"@\"}, {\"opcode\": \"Rand2\", \"outputs\": [\"w\"], \"is_2x2p\": "    \
    "\"@\"}, {\"opcode\": \"Rand2\", \"outputs\": [\"v\"], \"is_4x2p\": \"@\", \"min\": \"@\", "   \
    "\"max\": \"@\"}]}"
#define RNG_R_RAND2_HBM_STRIDED                                                                    \
    "{\"name\": \"rand2_hbm_strided\", \"vars\": {\"N\": [1, 4097]}, \"dtypes\": {}, "             \
    "\"tensors\": [{\"name\": \"v\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": "     \
    "[\"2*N\"]}], \"instructions\": [{\"opcode\": \"Rand2\", \"outputs\": [{\"tensor\": \"v\", "   \
    "\"ap\": [[2, \"N\"]]}], \"min\": {\"@\": [-1, 0, 100000000.0, -3e+38]}, \"max\": {\"@\": "    \
    "[1, 16, 100000000.0, 3e+38]}, \"is_4x2p\": \"@\"}]}"
#define RNG_R_RAND2_PARTITION_STEP0                                                                \
    "{\"name\": \"rand2_partition_step0\", \"vars\": {\"K\": [1, 16], \"N\": [1, 37]}, "           \
    "\"dtypes\": {}, \"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": "            \
    "\"float32\", \"shape\": [1, \"N\"]}], \"instructions\": [{\"opcode\": \"Rand2\", "            \
    "\"outputs\": [{\"tensor\": \"v\", \"partitions\": \"K\", \"partition_step\": 0}], "           \
    "\"is_2x1p\": \"@\"}]}"
#define RNG_R_GEN2_STATE_CHAIN                                                                     \
    "{\"name\": \"gen2_state_chain\", \"vars\": {\"P\": [1, 128], \"N\": [1, 515], \"M\": [1, "    \
    "9]}, \"dtypes\": {}, \"tensors\": [{\"name\": \"v1\", \"memory\": \"sbuf\", \"dtype\": "      \
    "\"float32\", \"shape\": [\"P\", \"N\"]}, {\"name\": \"s\", \"memory\": \"sbuf\", "            \
    "\"dtype\": \"uint32\", \"shape\": [\"P\", 24]}, {\"name\": \"v2\", \"memory\": \"sbuf\", "    \
    "\"dtype\": \"float32\", \"shape\": [\"P\", \"M\"]}, {\"name\": \"v3\", \"memory\": "          \
    "\"sbuf\", \"dtype\": \"float32\", \"shape\": [\"P\", \"M\"]}, {\"name\": \"s2\", "            \
    "\"memory\": \"psum\", \"dtype\": \"uint32\", \"shape\": [\"P\", 24]}], \"instructions\": "    \
    "[{\"opcode\": \"SetRandState2\", \"seed\": {\"@\": [0, 1, 42, 9223372036854775807, "          \
    "\"18446744073709551615\", \"0x2a\", \"0xdeadbeefcafef00d\"]}}, {\"opcode\": \"Rand2\", "      \
    "\"outputs\": [\"v1\"], \"is_4x2p\": \"@\"}, {\"opcode\": \"GetRandState2\", \"outputs\": "    \
    "[\"s\"]}, {\"opcode\": \"Rand2\", \"outputs\": [\"v2\"], \"is_2x1p\": \"@\", \"min\": "       \
    "\"@\", \"max\": \"@\"}, {\"opcode\": \"SetRandState2\", \"inputs\": [\"s\"]}, "               \
    "{\"opcode\": \"Rand2\", \"outputs\": [\"v3\"], \"is_2x1p\": \"@\", \"min\": \"@\", "          \
    "\"max\": \"@\"}, {\"opcode\": \"GetRandState2\", \"outputs\": [\"s2\"], \"engine\": 5}]}"
#define RNG_R_GEN2_RESTORE                                                                         \
    "{\"name\": \"gen2_restore\", \"vars\": {\"P\": [1, 128], \"N\": [1, 300]}, \"dtypes\": {},"   \
    " \"tensors\": [{\"name\": \"s0\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": "   \
    "[128, 24], \"input\": true}, {\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": "             \
    "\"float32\", \"shape\": [\"P\", \"N\"]}, {\"name\": \"s\", \"memory\": \"sbuf\", "            \
    "\"dtype\": \"uint32\", \"shape\": [128, 24]}], \"instructions\": [{\"opcode\": "              \
    "\"SetRandState2\", \"inputs\": [\"s0\"]}, {\"opcode\": \"Rand2\", \"outputs\": [\"v\"], "     \
    "\"is_4x2p\": \"@\"}, {\"opcode\": \"GetRandState2\", \"outputs\": [\"s\"]}]}"

/* The opcodes' lists (the formatter cannot lay out these concatenations). */
// clang-format off
/* GetRandState (58): default and restored states. */
const char rng_conform_get_state[] =
    "[" RNG_R_DEFAULT_STATES ", " RNG_R_GEN1_STATE_CHAIN ", " RNG_R_GEN1_RESTORE
    ", " RNG_R_ENGINES_CROSSED "]";

/* SetRandState (59): wire seeds, state tensors (SBUF, HBM). */
const char rng_conform_set_state[] =
    "[" RNG_R_GEN1_STATE_CHAIN ", " RNG_R_GEN1_RESTORE ", " RNG_R_GEN1_HBM_STATE
    ", " RNG_R_ENGINES_CROSSED "]";

/* Rand (60): every algorithm; SBUF, PSUM, HBM, strided, step-0 APs. */
const char rng_conform_rand[] =
    "[" RNG_R_RAND_SBUF ", " RNG_R_RAND_IGNORED_FIELDS ", " RNG_R_RAND_HBM ", " RNG_R_RAND_STRIDED
    ", " RNG_R_RAND_PARTITION_STEP0 ", " RNG_R_GEN1_STATE_CHAIN ", " RNG_R_GEN1_RESTORE
    ", " RNG_R_ENGINES_CROSSED "]";

/* Rand2 (97): min / max draws, the lane flags. */
const char rng_conform_rand2[] =
    "[" RNG_R_RAND2_SBUF ", " RNG_R_RAND2_LANES ", " RNG_R_RAND2_HBM_STRIDED
    ", " RNG_R_RAND2_PARTITION_STEP0 ", " RNG_R_GEN2_STATE_CHAIN ", " RNG_R_GEN2_RESTORE
    ", " RNG_R_ENGINES_CROSSED "]";

/* GetRandState2 (98). */
const char rng_conform_get_state2[] =
    "[" RNG_R_DEFAULT_STATES ", " RNG_R_GEN2_STATE_CHAIN ", " RNG_R_GEN2_RESTORE
    ", " RNG_R_ENGINES_CROSSED "]";

/* SetRandState2 (99): scalar seeds, state tensors. */
const char rng_conform_set_state2[] =
    "[" RNG_R_GEN2_STATE_CHAIN ", " RNG_R_GEN2_RESTORE ", " RNG_R_GEN1_HBM_STATE
    ", " RNG_R_ENGINES_CROSSED "]";

// clang-format on
