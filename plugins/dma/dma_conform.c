/* Recipes for `trnsim conform` (docs/internals/conform.md): the programs it
 * generates to exercise each DMA opcode (docs/dma.md). Plain copies move any
 * dtype raw and cast between dtypes with an fp32 value; accumulate needs a
 * reducing destination dtype; gather / scatter index tables are literal data
 * (indices 0..7) so that every index lies in its table of R >= 8 rows. */
#include "dma_conform.h"

#define CF_FP32V                                                                                   \
    "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", "  \
    "\"float8_e3m4\", \"float8_e4m3\", \"float8_e4m3fn\", \"float8_e8m0fnu\", \"float8_e5m2\", "   \
    "\"bfloat16\", \"float16\", \"float32\", \"float32r\"]"
#define CF_ALL                                                                                     \
    "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", "  \
    "\"float8_e3m4\", \"float8_e4m3\", \"float8_e4m3fn\", \"float8_e8m0fnu\", \"float8_e5m2\", "   \
    "\"bfloat16\", \"float16\", \"float32\", \"float32r\", \"float8_e4m3_x4\", "                   \
    "\"float8_e5m2_x4\", \"float4_e2m1_x4\"]"
#define CF_REDUCING                                                                                \
    "[\"float8_e3m4\", \"float8_e4m3\", \"float8_e5m2\", \"bfloat16\", \"float16\", \"int32\", "   \
    "\"float32\", \"int64\"]"
#define CF_INTS                                                                                    \
    "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\"]"

/* Descriptor blocks that several recipes use. */
#define DMA_BLOCK_COPY_TRANSPOSE_CCE                                                               \
    "{\"opcode\": \"DMABlock\", \"descriptors\": [{\"opcode\": \"DMADescriptorCopy\", "            \
    "\"inputs\": [\"a\"], \"outputs\": [\"b\"]}, {\"opcode\": \"DMADescriptorTranspose\", "        \
    "\"inputs\": [\"a\"], \"outputs\": [\"t\"], \"perm\": [0, 1, 3, 2]}, {\"opcode\": "            \
    "\"DMADescriptorCCE\", \"inputs\": [\"a\", \"b\"], \"outputs\": [\"m\"], \"reduce_op\": "      \
    "\"max\"}]}"
#define DMA_BLOCK_COPY_BACK                                                                        \
    "{\"opcode\": \"DMABlock\", \"descriptors\": [{\"opcode\": \"DMADescriptorCopy\", "            \
    "\"inputs\": [\"b\"], \"outputs\": [\"a\"]}]}"
#define DMA_BLOCK_REPLICATE_CCE_GATHER_STRIDED                                                     \
    "{\"opcode\": \"DMABlock\", \"descriptors\": [{\"opcode\": \"DMADescriptorReplicate\", "       \
    "\"inputs\": [\"r\"], \"outputs\": [\"rep\"]}, {\"opcode\": \"DMADescriptor\", "               \
    "\"inputs\": [\"b\", \"a\"], \"outputs\": [\"m\"], \"mode\": 2, \"reduce_op\": 4}, "           \
    "{\"opcode\": \"DMADescriptorCopy\", \"inputs\": [\"a\", \"idx\"], \"outputs\": [\"g\"], "     \
    "\"indirect\": \"gather\", \"elems_per_index\": {\"=\": \"N\"}}, {\"opcode\": "                \
    "\"DMADescriptorCopy\", \"inputs\": [{\"tensor\": \"a\", \"partition\": 1, "                   \
    "\"partitions\": \"P-1\", \"ap\": [[2, \"N/2\"]]}], \"outputs\": [{\"tensor\": \"m\", "        \
    "\"partitions\": \"P-1\", \"offset\": 1, \"ap\": [[1, \"N/2\"]]}]}]}"
#define DMA_BLOCK_EVERY_DESCRIPTOR                                                                 \
    "{\"opcode\": \"DMABlock\", \"descriptors\": [{\"opcode\": \"DMADescriptorCopy\", "            \
    "\"inputs\": [\"a\"], \"outputs\": [\"b\"]}, {\"opcode\": \"DMADescriptorTranspose\", "        \
    "\"inputs\": [\"a\"], \"outputs\": [\"t\"], \"perm\": [0, 1, 3, 2]}, {\"opcode\": "            \
    "\"DMADescriptorCCE\", \"inputs\": [\"a\", \"b\"], \"outputs\": [\"m\"], \"reduce_op\": "      \
    "\"max\"}, {\"opcode\": \"DMADescriptorReplicate\", \"inputs\": [\"r\"], \"outputs\": "        \
    "[\"rep\"]}, {\"opcode\": \"DMADescriptor\", \"inputs\": [\"b\", \"a\"], \"outputs\": "        \
    "[\"m\"], \"mode\": 2, \"reduce_op\": 4}, {\"opcode\": \"DMADescriptorCopy\", "                \
    "\"inputs\": [\"a\", \"idx\"], \"outputs\": [\"g\"], \"indirect\": \"gather\", "               \
    "\"elems_per_index\": {\"=\": \"N\"}}, {\"opcode\": \"DMADescriptorCopy\", \"inputs\": "       \
    "[{\"tensor\": \"a\", \"partition\": 1, \"partitions\": \"P-1\", \"ap\": [[2, "                \
    "\"N/2\"]]}], \"outputs\": [{\"tensor\": \"m\", \"partitions\": \"P-1\", \"offset\": 1, "      \
    "\"ap\": [[1, \"N/2\"]]}]}]}"

/* Each recipe once; OP is the opcode a copy recipe exercises. A suffix _2, _3
 * marks a recipe of the same name written for another opcode (DMACopy's mode
 * attribute, the DMADescriptor forms), whose text differs. */
#define DMA_R_COPY_RAW(OP)                                                                         \
    "{\"name\": \"copy_raw\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": "         \
    "{\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": "       \
    "\"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": "           \
    "\"hbm\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": "     \
    "\"" OP "\", \"inputs\": [\"a\"], \"outputs\": [\"d\"]}]}"
#define DMA_R_COPY_CAST_STRIDED(OP)                                                                \
    "{\"name\": \"copy_cast_strided\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "            \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_FP32V "}, \"tensors\": [{\"name\": \"a\", "     \
    "\"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": true}, "        \
    "{\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", "                \
    "\"2*N+1\"]}], \"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": [\"a\"], "              \
    "\"outputs\": [{\"tensor\": \"d\", \"offset\": 1, \"ap\": [[2, \"N\"]]}]}]}"
#define DMA_R_COPY_ACCUMULATE(OP)                                                                  \
    "{\"name\": \"copy_accumulate\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "              \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_REDUCING "}, \"tensors\": [{\"name\": "         \
    "\"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": "        \
    "true}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", "         \
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"psum\", \"dtype\": \"D\", "         \
    "\"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": "        \
    "[\"a\"], \"outputs\": [\"d\"]}, {\"opcode\": \"" OP "\", \"inputs\": [\"b\"], "               \
    "\"outputs\": [\"d\"], \"accumulate\": true}, {\"opcode\": \"" OP "\", \"inputs\": "           \
    "[\"a\"], \"outputs\": [\"d\"], \"accumulate\": \"@\"}]}"
#define DMA_R_COPY_OVERLAP(OP)                                                                     \
    "{\"name\": \"copy_overlap\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030], \"K\": [1, "       \
    "9]}, \"dtypes\": {\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"x\", \"memory\": "           \
    "\"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N+K\"], \"input\": true}], "                 \
    "\"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": [{\"tensor\": \"x\", \"ap\": "        \
    "[[1, \"N\"]]}], \"outputs\": [{\"tensor\": \"x\", \"offset\": \"K\", \"ap\": [[1, "           \
    "\"N\"]]}]}, {\"opcode\": \"" OP "\", \"inputs\": [{\"tensor\": \"x\", \"offset\": \"K\","     \
    " \"ap\": [[1, \"N\"]]}], \"outputs\": [{\"tensor\": \"x\", \"ap\": [[1, \"N\"]]}]}]}"
#define DMA_R_COPY_RESHAPE_REVERSE(OP)                                                             \
    "{\"name\": \"copy_reshape_reverse\", \"vars\": {\"P\": [1, 128], \"N\": [1, 128], "           \
    "\"H\": [1, 64]}, \"dtypes\": {\"T\": " CF_ALL ", \"S\": " CF_FP32V "}, \"tensors\": "         \
    "[{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], "       \
    "\"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": "      \
    "[\"N\", \"P\"]}, {\"name\": \"c\", \"memory\": \"psum\", \"dtype\": \"S\", \"shape\": "       \
    "[128, \"N\"], \"input\": true}, {\"name\": \"e\", \"memory\": \"hbm\", \"dtype\": \"S\","     \
    " \"shape\": [\"N\", \"H\"]}], \"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": "       \
    "[{\"tensor\": \"a\", \"offset\": \"N-1\", \"ap\": [[-1, \"N\"]]}], \"outputs\": "             \
    "[\"d\"]}, {\"opcode\": \"" OP "\", \"inputs\": [{\"tensor\": \"c\", \"partitions\": "         \
    "\"H\", \"partition_step\": 2}], \"outputs\": [\"e\"]}]}"
#define DMA_R_COPY_MULTIDIM(OP)                                                                    \
    "{\"name\": \"copy_multidim\", \"vars\": {\"P\": [1, 32], \"A\": [1, 5], \"B\": [1, 7], "      \
    "\"C\": [1, 9]}, \"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_REDUCING "}, \"tensors\": "     \
    "[{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"A\", "        \
    "\"B\", \"C\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", \"dtype\": "          \
    "\"D\", \"shape\": [\"P\", \"C\", \"B\", \"A\"]}], \"instructions\": [{\"opcode\": \"" OP      \
    "\", \"inputs\": [{\"tensor\": \"a\", \"ap\": [[1, \"C\"], [\"C\", \"B\"], [\"B*C\", "         \
    "\"A\"]]}], \"outputs\": [\"d\"], \"accumulate\": \"@\"}]}"
#define DMA_R_COPY_LARGE_CAST(OP)                                                                  \
    "{\"name\": \"copy_large_cast\", \"vars\": {\"N\": [4096, 12288, 1024]}, \"dtypes\": "         \
    "{\"S\": [\"bfloat16\", \"float16\", \"float32\", \"int32\"], \"D\": [\"float32\", "           \
    "\"bfloat16\"]}, \"tensors\": [{\"name\": \"a\", \"memory\": \"hbm\", \"dtype\": \"S\", "      \
    "\"shape\": [128, \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", "           \
    "\"dtype\": \"D\", \"shape\": [128, \"N\"]}], \"instructions\": [{\"opcode\": \"" OP           \
    "\", \"inputs\": [\"a\"], \"outputs\": [\"d\"]}, {\"opcode\": \"" OP "\", \"inputs\": "        \
    "[\"a\"], \"outputs\": [\"d\"], \"accumulate\": \"@\"}]}"
#define DMA_R_COPY_REMOTE(OP)                                                                      \
    "{\"name\": \"copy_remote\", \"cores\": [2, 4], \"vars\": {\"P\": [1, 128], \"N\": [1, "       \
    "300]}, \"dtypes\": {\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": "         \
    "\"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": "         \
    "\"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"]}], "                 \
    "\"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": [{\"tensor\": \"a\", "                \
    "\"core_offset\": 1}], \"outputs\": [\"d\"]}, {\"opcode\": \"" OP "\", \"inputs\": "           \
    "[\"a\"], \"outputs\": [{\"tensor\": \"d\", \"core_offset\": -1}]}]}"
#define DMA_R_COPY_RAW_2(OP)                                                                       \
    "{\"name\": \"copy_raw\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": "         \
    "{\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": "       \
    "\"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": "           \
    "\"hbm\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": "     \
    "\"" OP "\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"mode\": {\"@\": [\"copy\", "         \
    "0]}}]}"
#define DMA_R_COPY_CAST_STRIDED_2(OP)                                                              \
    "{\"name\": \"copy_cast_strided\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "            \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_FP32V "}, \"tensors\": [{\"name\": \"a\", "     \
    "\"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": true}, "        \
    "{\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", "                \
    "\"2*N+1\"]}], \"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": [\"a\"], "              \
    "\"outputs\": [{\"tensor\": \"d\", \"offset\": 1, \"ap\": [[2, \"N\"]]}], \"mode\": "          \
    "{\"@\": [\"copy\", 0]}}]}"
#define DMA_R_COPY_ACCUMULATE_2(OP)                                                                \
    "{\"name\": \"copy_accumulate\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, "              \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_REDUCING "}, \"tensors\": [{\"name\": "         \
    "\"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": "        \
    "true}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", "         \
    "\"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"psum\", \"dtype\": \"D\", "         \
    "\"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": "        \
    "[\"a\"], \"outputs\": [\"d\"], \"mode\": {\"@\": [\"copy\", 0]}}, {\"opcode\": \"" OP         \
    "\", \"inputs\": [\"b\"], \"outputs\": [\"d\"], \"accumulate\": true, \"mode\": {\"@\": "      \
    "[\"copy\", 0]}}, {\"opcode\": \"" OP "\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], "        \
    "\"accumulate\": \"@\", \"mode\": {\"@\": [\"copy\", 0]}}]}"
#define DMA_R_COPY_OVERLAP_2                                                                       \
    "{\"name\": \"copy_overlap\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030], \"K\": [1, "       \
    "9]}, \"dtypes\": {\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"x\", \"memory\": "           \
    "\"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N+K\"], \"input\": true}], "                 \
    "\"instructions\": [{\"opcode\": \"DMACopy\", \"inputs\": [{\"tensor\": \"x\", \"ap\": "       \
    "[[1, \"N\"]]}], \"outputs\": [{\"tensor\": \"x\", \"offset\": \"K\", \"ap\": [[1, "           \
    "\"N\"]]}], \"mode\": {\"@\": [\"copy\", 0]}}, {\"opcode\": \"DMACopy\", \"inputs\": "         \
    "[{\"tensor\": \"x\", \"offset\": \"K\", \"ap\": [[1, \"N\"]]}], \"outputs\": "                \
    "[{\"tensor\": \"x\", \"ap\": [[1, \"N\"]]}], \"mode\": {\"@\": [\"copy\", 0]}}]}"
#define DMA_R_GATHER(OP)                                                                           \
    "{\"name\": \"gather\", \"vars\": {\"R\": [8, 300], \"K\": [1, 33], \"O\": [0, 24]}, "         \
    "\"dtypes\": {\"T\": " CF_ALL ", \"I\": " CF_INTS "}, \"tensors\": [{\"name\": \"tab\", "      \
    "\"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [\"R\", \"K\"], \"input\": true}, "         \
    "{\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": \"I\", \"shape\": [1, 32], "             \
    "\"data\": [3, 0, 5, 5, 1, 7, 2, 0, 6, 6, 6, 4, 1, 3, 7, 2, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7,"     \
    " 1, 5, 2, 4, 3, 6]}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", "              \
    "\"shape\": [8, \"K\"]}], \"instructions\": [{\"opcode\": \"" OP "\", \"inputs\": "            \
    "[\"tab\", {\"tensor\": \"idx\", \"offset\": \"O\", \"ap\": [[1, 8]]}], \"outputs\": "         \
    "[\"d\"], \"indirect\": \"gather\", \"elems_per_index\": {\"=\": \"K\"}, \"reduce_op\": "      \
    "{\"@\": [\"bypass\", 0]}}]}"
#define DMA_R_GATHER_ADD(OP)                                                                       \
    "{\"name\": \"gather_add\", \"vars\": {\"R\": [8, 300], \"K\": [1, 33], \"O\": [0, 24]}, "     \
    "\"dtypes\": {\"T\": " CF_REDUCING ", \"I\": " CF_INTS "}, \"tensors\": [{\"name\": "          \
    "\"tab\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [1, \"R*K\"], \"input\": "        \
    "true}, {\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": \"I\", \"shape\": [1, 32], "      \
    "\"data\": [3, 0, 5, 5, 1, 7, 2, 0, 6, 6, 6, 4, 1, 3, 7, 2, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7,"     \
    " 1, 5, 2, 4, 3, 6]}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", "              \
    "\"shape\": [8, \"K\"], \"input\": true}], \"instructions\": [{\"opcode\": \"" OP              \
    "\", \"inputs\": [\"tab\", {\"tensor\": \"idx\", \"offset\": \"O\", \"ap\": [[1, 8]]}], "      \
    "\"outputs\": [\"d\"], \"indirect\": \"gather\", \"elems_per_index\": {\"=\": \"K\"}, "        \
    "\"reduce_op\": {\"@\": [\"add\", 4, \"bypass\"]}}]}"
#define DMA_R_SCATTER(OP)                                                                          \
    "{\"name\": \"scatter\", \"vars\": {\"R\": [8, 300], \"K\": [1, 33], \"O\": [0, 24]}, "        \
    "\"dtypes\": {\"T\": " CF_ALL ", \"I\": " CF_INTS "}, \"tensors\": [{\"name\": \"s\", "        \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [8, \"K\"], \"input\": true}, "            \
    "{\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": \"I\", \"shape\": [1, 32], "             \
    "\"data\": [3, 0, 5, 5, 1, 7, 2, 0, 6, 6, 6, 4, 1, 3, 7, 2, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7,"     \
    " 1, 5, 2, 4, 3, 6]}, {\"name\": \"tab\", \"memory\": \"hbm\", \"dtype\": \"T\", "             \
    "\"shape\": [\"R\", \"K\"], \"input\": true}], \"instructions\": [{\"opcode\": \"" OP          \
    "\", \"inputs\": [\"s\", {\"tensor\": \"idx\", \"offset\": \"O\", \"ap\": [[1, 8]]}], "        \
    "\"outputs\": [\"tab\"], \"indirect\": \"scatter\", \"elems_per_index\": {\"=\": \"K\"}}]}"
#define DMA_R_SCATTER_ADD(OP)                                                                      \
    "{\"name\": \"scatter_add\", \"vars\": {\"R\": [8, 300], \"K\": [1, 33], \"O\": [0, 24]},"     \
    " \"dtypes\": {\"T\": " CF_REDUCING ", \"I\": " CF_INTS "}, \"tensors\": [{\"name\": "         \
    "\"s\", \"memory\": \"psum\", \"dtype\": \"T\", \"shape\": [8, \"K\"], \"input\": true}, "     \
    "{\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": \"I\", \"shape\": [1, 32], "             \
    "\"data\": [3, 0, 5, 5, 1, 7, 2, 0, 6, 6, 6, 4, 1, 3, 7, 2, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7,"     \
    " 1, 5, 2, 4, 3, 6]}, {\"name\": \"tab\", \"memory\": \"sbuf\", \"dtype\": \"T\", "            \
    "\"shape\": [1, \"R*K\"], \"input\": true}], \"instructions\": [{\"opcode\": \"" OP            \
    "\", \"inputs\": [\"s\", {\"tensor\": \"idx\", \"offset\": \"O\", \"ap\": [[1, 8]]}], "        \
    "\"outputs\": [\"tab\"], \"indirect\": \"scatter\", \"elems_per_index\": {\"=\": \"K\"}, "     \
    "\"reduce_op\": {\"@\": [\"add\", 4, \"bypass\", 0]}}]}"
#define DMA_R_TRANSPOSE                                                                            \
    "{\"name\": \"transpose\", \"vars\": {\"P\": [1, 128], \"N\": [1, 300]}, \"dtypes\": "         \
    "{\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": "       \
    "\"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": "           \
    "\"hbm\", \"dtype\": \"T\", \"shape\": [\"N\", \"P\"]}], \"instructions\": [{\"opcode\": "     \
    "\"DMACopy\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"perm\": {\"@\": [[0, 1, 3, 2],"     \
    " [0, 1, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1], [0, 3, 1, 2], [1, 0, 3, 2]]}, \"mode\": "          \
    "{\"@\": [\"transpose\", 1]}}]}"
#define DMA_R_TRANSPOSE_CAST                                                                       \
    "{\"name\": \"transpose_cast\", \"vars\": {\"P\": [1, 128], \"N\": [1, 128]}, "                \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_REDUCING "}, \"tensors\": [{\"name\": "         \
    "\"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": "        \
    "true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"N\", "         \
    "\"P\"], \"input\": true}], \"instructions\": [{\"opcode\": \"DMACopy\", \"inputs\": "         \
    "[\"a\"], \"outputs\": [\"d\"], \"perm\": [0, 1, 3, 2], \"accumulate\": \"@\", \"mode\": "     \
    "{\"@\": [\"transpose\", 1]}}]}"
#define DMA_R_TRANSPOSE_SHAPE                                                                      \
    "{\"name\": \"transpose_shape\", \"vars\": {}, \"dtypes\": {\"T\": " CF_ALL                    \
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": "       \
    "[8, 12], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", "        \
    "\"shape\": [4, 24]}], \"instructions\": [{\"opcode\": \"DMACopy\", \"inputs\": [\"a\"], "     \
    "\"outputs\": [\"d\"], \"perm\": {\"@\": [[0, 1, 3, 2], [0, 1, 2, 3], [3, 2, 1, 0], [2, "      \
    "3, 0, 1], [0, 3, 1, 2], [1, 0, 3, 2]]}, \"shape\": {\"@\": [[96], [8, 12], [12, 8], [2, "     \
    "4, 12], [2, 4, 3, 4], [3, 2, 4, 4], [1, 1, 96, 1]]}, \"mode\": {\"@\": [\"transpose\", "      \
    "1]}}]}"
#define DMA_R_CCE_TWO                                                                              \
    "{\"name\": \"cce_two\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": "          \
    "{\"S\": " CF_FP32V ", \"U\": " CF_FP32V ", \"D\": " CF_FP32V "}, \"tensors\": "               \
    "[{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], "       \
    "\"input\": true}, {\"name\": \"b\", \"memory\": \"hbm\", \"dtype\": \"U\", \"shape\": "       \
    "[\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": "        \
    "\"D\", \"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"DMACopy\", "            \
    "\"inputs\": [\"a\", \"b\"], \"outputs\": [\"d\"], \"reduce_op\": {\"@\": [\"add\", "          \
    "\"max\", \"min\", 4, 8, 9]}, \"mode\": {\"@\": [\"CCE\", 2]}}]}"
#define DMA_R_CCE_MANY_ACCUMULATE                                                                  \
    "{\"name\": \"cce_many_accumulate\", \"vars\": {\"P\": [1, 64], \"N\": [1, 500]}, "            \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"U\": " CF_FP32V ", \"D\": " CF_REDUCING                   \
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": "       \
    "[\"P\", \"N\"], \"input\": true}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": "        \
    "\"U\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"c\", \"memory\": "           \
    "\"hbm\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": "          \
    "\"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", \"N\"], \"input\": "        \
    "true}], \"instructions\": [{\"opcode\": \"DMACopy\", \"inputs\": [\"a\", \"b\", \"c\", "      \
    "\"a\"], \"outputs\": [\"d\"], \"reduce_op\": {\"@\": [\"add\", \"max\", \"min\", 4, 8, "      \
    "9]}, \"accumulate\": \"@\", \"mode\": {\"@\": [\"CCE\", 2]}}, {\"opcode\": \"DMACopy\", "     \
    "\"inputs\": [\"d\", \"b\", \"c\"], \"outputs\": [{\"tensor\": \"c\"}], \"reduce_op\": "       \
    "{\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}, \"mode\": {\"@\": [\"CCE\", 2]}}]}"
#define DMA_R_REPLICATE                                                                            \
    "{\"name\": \"replicate\", \"vars\": {\"P\": [1, 128], \"Q\": [1, 4], \"N\": [1, 300]}, "      \
    "\"dtypes\": {\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", "      \
    "\"dtype\": \"T\", \"shape\": [\"Q\", \"N\"], \"input\": true}, {\"name\": \"d\", "            \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"Q*N\"]}], "                      \
    "\"instructions\": [{\"opcode\": \"DMACopy\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], "     \
    "\"mode\": {\"@\": [\"replicate\", 3]}}]}"
#define DMA_R_REPLICATE_CAST                                                                       \
    "{\"name\": \"replicate_cast\", \"vars\": {\"P\": [1, 128], \"N\": [1, 700]}, "                \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_REDUCING "}, \"tensors\": [{\"name\": "         \
    "\"a\", \"memory\": \"hbm\", \"dtype\": \"S\", \"shape\": [\"N\"], \"input\": true}, "         \
    "{\"name\": \"d\", \"memory\": \"psum\", \"dtype\": \"D\", \"shape\": [\"P\", \"N\"], "        \
    "\"input\": true}], \"instructions\": [{\"opcode\": \"DMACopy\", \"inputs\": [\"a\"], "        \
    "\"outputs\": [\"d\"], \"accumulate\": \"@\", \"mode\": {\"@\": [\"replicate\", 3]}}]}"
#define DMA_R_TRIGGER_ROUND_ROBIN                                                                  \
    "{\"name\": \"trigger_round_robin\", \"vars\": {\"P\": [8, 128], \"N\": [2, 200]}, "           \
    "\"dtypes\": {\"T\": " CF_FP32V "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\","     \
    " \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"b\", "           \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, "        \
    "{\"name\": \"t\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [\"N\", \"P\"]}, "        \
    "{\"name\": \"m\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [\"P\", "          \
    "\"N\"]}, {\"name\": \"r\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [1, "           \
    "\"N\"], \"input\": true}, {\"name\": \"rep\", \"memory\": \"psum\", \"dtype\": \"T\", "       \
    "\"shape\": [\"P\", \"N\"]}, {\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": "            \
    "\"int32\", \"shape\": [1, 8], \"data\": [3, 0, 5, 5, 1, 7, 2, 0]}, {\"name\": \"g\", "        \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [8, \"N\"]}], \"instructions\": "          \
    "[{\"opcode\": \"DMATrigger\", \"trigger\": {\"=\": \"1000+N*200+P\"}, \"blocks\": "           \
    "[" DMA_BLOCK_COPY_TRANSPOSE_CCE ", " DMA_BLOCK_REPLICATE_CCE_GATHER_STRIDED                   \
    ", " DMA_BLOCK_COPY_BACK "]}, {\"opcode\": \"DMATrigger\", "                                   \
    "\"trigger\": {\"=\": \"1000+N*200+P\"}, \"blocks\": [" DMA_BLOCK_COPY_TRANSPOSE_CCE           \
    ", " DMA_BLOCK_REPLICATE_CCE_GATHER_STRIDED ", " DMA_BLOCK_COPY_BACK                           \
    "]}, {\"opcode\": \"DMATrigger\", \"blocks\": [" DMA_BLOCK_COPY_BACK                           \
    ", " DMA_BLOCK_COPY_TRANSPOSE_CCE                                                              \
    "], \"round_robin\": \"@\"}, {\"opcode\": \"DMATrigger\", \"trigger\": {\"=\": "               \
    "\"1000+N*200+P\"}, \"blocks\": [" DMA_BLOCK_COPY_TRANSPOSE_CCE                                \
    ", " DMA_BLOCK_REPLICATE_CCE_GATHER_STRIDED ", " DMA_BLOCK_COPY_BACK                           \
    "]}, {\"opcode\": \"DMATrigger\", \"trigger\": {\"=\": \"1000+N*200+P\"}, \"blocks\": "        \
    "[" DMA_BLOCK_COPY_TRANSPOSE_CCE ", " DMA_BLOCK_REPLICATE_CCE_GATHER_STRIDED                   \
    ", " DMA_BLOCK_COPY_BACK "], \"round_robin\": true}, {\"opcode\": "                            \
    "\"DMATrigger\", \"trigger\": {\"=\": \"1000+N*200+P+129\"}, \"blocks\": "                     \
    "[" DMA_BLOCK_COPY_BACK ", " DMA_BLOCK_COPY_TRANSPOSE_CCE "]}]}"
#define DMA_R_BLOCK_EVERY_DESCRIPTOR                                                               \
    "{\"name\": \"block_every_descriptor\", \"vars\": {\"P\": [8, 128], \"N\": [2, 200]}, "        \
    "\"dtypes\": {\"T\": " CF_FP32V "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\","     \
    " \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"b\", "           \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, "        \
    "{\"name\": \"t\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [\"N\", \"P\"]}, "        \
    "{\"name\": \"m\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [\"P\", "          \
    "\"N\"]}, {\"name\": \"r\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [1, "           \
    "\"N\"], \"input\": true}, {\"name\": \"rep\", \"memory\": \"psum\", \"dtype\": \"T\", "       \
    "\"shape\": [\"P\", \"N\"]}, {\"name\": \"idx\", \"memory\": \"sbuf\", \"dtype\": "            \
    "\"int32\", \"shape\": [1, 8], \"data\": [3, 0, 5, 5, 1, 7, 2, 0]}, {\"name\": \"g\", "        \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [8, \"N\"]}], \"instructions\": "          \
    "[" DMA_BLOCK_EVERY_DESCRIPTOR "]}"
#define DMA_R_TRANSPOSE_2                                                                          \
    "{\"name\": \"transpose\", \"vars\": {\"P\": [1, 128], \"N\": [1, 300]}, \"dtypes\": "         \
    "{\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": "       \
    "\"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": "           \
    "\"hbm\", \"dtype\": \"T\", \"shape\": [\"N\", \"P\"]}], \"instructions\": [{\"opcode\": "     \
    "\"DMADescriptor\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"perm\": {\"@\": [[0, 1, "     \
    "3, 2], [0, 1, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1], [0, 3, 1, 2], [1, 0, 3, 2]]}, "              \
    "\"mode\": 1}]}"
#define DMA_R_CCE_TWO_2                                                                            \
    "{\"name\": \"cce_two\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": "          \
    "{\"S\": " CF_FP32V ", \"U\": " CF_FP32V ", \"D\": " CF_FP32V "}, \"tensors\": "               \
    "[{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], "       \
    "\"input\": true}, {\"name\": \"b\", \"memory\": \"hbm\", \"dtype\": \"U\", \"shape\": "       \
    "[\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": "        \
    "\"D\", \"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": \"DMADescriptor\", "      \
    "\"inputs\": [\"a\", \"b\"], \"outputs\": [\"d\"], \"reduce_op\": {\"@\": [\"add\", "          \
    "\"max\", \"min\", 4, 8, 9]}, \"mode\": 2}]}"
#define DMA_R_REPLICATE_2                                                                          \
    "{\"name\": \"replicate\", \"vars\": {\"P\": [1, 128], \"Q\": [1, 4], \"N\": [1, 300]}, "      \
    "\"dtypes\": {\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", "      \
    "\"dtype\": \"T\", \"shape\": [\"Q\", \"N\"], \"input\": true}, {\"name\": \"d\", "            \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"Q*N\"]}], "                      \
    "\"instructions\": [{\"opcode\": \"DMADescriptor\", \"inputs\": [\"a\"], \"outputs\": "        \
    "[\"d\"], \"mode\": 3}]}"
#define DMA_R_CCE_TWO_3                                                                            \
    "{\"name\": \"cce_two\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1030]}, \"dtypes\": "          \
    "{\"S\": " CF_FP32V ", \"U\": " CF_FP32V ", \"D\": " CF_FP32V "}, \"tensors\": "               \
    "[{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], "       \
    "\"input\": true}, {\"name\": \"b\", \"memory\": \"hbm\", \"dtype\": \"U\", \"shape\": "       \
    "[\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": "        \
    "\"D\", \"shape\": [\"P\", \"N\"]}], \"instructions\": [{\"opcode\": "                         \
    "\"DMADescriptorCCE\", \"inputs\": [\"a\", \"b\"], \"outputs\": [\"d\"], \"reduce_op\": "      \
    "{\"@\": [\"add\", \"max\", \"min\", 4, 8, 9]}}]}"
#define DMA_R_CCE_MANY_ACCUMULATE_2                                                                \
    "{\"name\": \"cce_many_accumulate\", \"vars\": {\"P\": [1, 64], \"N\": [1, 500]}, "            \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"U\": " CF_FP32V ", \"D\": " CF_REDUCING                   \
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": "       \
    "[\"P\", \"N\"], \"input\": true}, {\"name\": \"b\", \"memory\": \"sbuf\", \"dtype\": "        \
    "\"U\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"c\", \"memory\": "           \
    "\"hbm\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": "          \
    "\"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", \"N\"], \"input\": "        \
    "true}], \"instructions\": [{\"opcode\": \"DMADescriptorCCE\", \"inputs\": [\"a\", \"b\","     \
    " \"c\", \"a\"], \"outputs\": [\"d\"], \"reduce_op\": {\"@\": [\"add\", \"max\", \"min\","     \
    " 4, 8, 9]}, \"accumulate\": \"@\"}, {\"opcode\": \"DMADescriptorCCE\", \"inputs\": "          \
    "[\"d\", \"b\", \"c\"], \"outputs\": [{\"tensor\": \"c\"}], \"reduce_op\": {\"@\": "           \
    "[\"add\", \"max\", \"min\", 4, 8, 9]}}]}"
#define DMA_R_TRANSPOSE_3                                                                          \
    "{\"name\": \"transpose\", \"vars\": {\"P\": [1, 128], \"N\": [1, 300]}, \"dtypes\": "         \
    "{\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": "       \
    "\"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"d\", \"memory\": "           \
    "\"hbm\", \"dtype\": \"T\", \"shape\": [\"N\", \"P\"]}], \"instructions\": [{\"opcode\": "     \
    "\"DMADescriptorTranspose\", \"inputs\": [\"a\"], \"outputs\": [\"d\"], \"perm\": "            \
    "{\"@\": [[0, 1, 3, 2], [0, 1, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1], [0, 3, 1, 2], [1, 0, 3,"     \
    " 2]]}}]}"
#define DMA_R_TRANSPOSE_CAST_2                                                                     \
    "{\"name\": \"transpose_cast\", \"vars\": {\"P\": [1, 128], \"N\": [1, 128]}, "                \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_REDUCING "}, \"tensors\": [{\"name\": "         \
    "\"a\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", \"N\"], \"input\": "        \
    "true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"N\", "         \
    "\"P\"], \"input\": true}], \"instructions\": [{\"opcode\": \"DMADescriptorTranspose\", "      \
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"perm\": [0, 1, 3, 2], \"accumulate\": "          \
    "\"@\"}]}"
#define DMA_R_TRANSPOSE_SHAPE_2                                                                    \
    "{\"name\": \"transpose_shape\", \"vars\": {}, \"dtypes\": {\"T\": " CF_ALL                    \
    "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": "       \
    "[8, 12], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", \"dtype\": \"T\", "        \
    "\"shape\": [4, 24]}], \"instructions\": [{\"opcode\": \"DMADescriptorTranspose\", "           \
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"perm\": {\"@\": [[0, 1, 3, 2], [0, 1, 2, "       \
    "3], [3, 2, 1, 0], [2, 3, 0, 1], [0, 3, 1, 2], [1, 0, 3, 2]]}, \"shape\": {\"@\": [[96], "     \
    "[8, 12], [12, 8], [2, 4, 12], [2, 4, 3, 4], [3, 2, 4, 4], [1, 1, 96, 1]]}}]}"
#define DMA_R_REPLICATE_3                                                                          \
    "{\"name\": \"replicate\", \"vars\": {\"P\": [1, 128], \"Q\": [1, 4], \"N\": [1, 300]}, "      \
    "\"dtypes\": {\"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"a\", \"memory\": \"sbuf\", "      \
    "\"dtype\": \"T\", \"shape\": [\"Q\", \"N\"], \"input\": true}, {\"name\": \"d\", "            \
    "\"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"Q*N\"]}], "                      \
    "\"instructions\": [{\"opcode\": \"DMADescriptorReplicate\", \"inputs\": [\"a\"], "            \
    "\"outputs\": [\"d\"]}]}"
#define DMA_R_REPLICATE_CAST_2                                                                     \
    "{\"name\": \"replicate_cast\", \"vars\": {\"P\": [1, 128], \"N\": [1, 700]}, "                \
    "\"dtypes\": {\"S\": " CF_FP32V ", \"D\": " CF_REDUCING "}, \"tensors\": [{\"name\": "         \
    "\"a\", \"memory\": \"hbm\", \"dtype\": \"S\", \"shape\": [\"N\"], \"input\": true}, "         \
    "{\"name\": \"d\", \"memory\": \"psum\", \"dtype\": \"D\", \"shape\": [\"P\", \"N\"], "        \
    "\"input\": true}], \"instructions\": [{\"opcode\": \"DMADescriptorReplicate\", "              \
    "\"inputs\": [\"a\"], \"outputs\": [\"d\"], \"accumulate\": \"@\"}]}"
#define DMA_R_LOAD_INTEGER                                                                         \
    "{\"name\": \"load_integer\", \"vars\": {}, \"dtypes\": {\"I\": " CF_INTS                      \
    "}, \"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": \"I\", \"shape\": "       \
    "[1, 1], \"input\": true}], \"instructions\": [{\"opcode\": \"TensorLoad\", \"inputs\": "      \
    "[\"v\"], \"register\": {\"@\": [0, 5, 63]}}]}"
#define DMA_R_LOAD_OFFSET_COPY                                                                     \
    "{\"name\": \"load_offset_copy\", \"vars\": {\"N\": [1, 500]}, \"dtypes\": {\"I\": " CF_INTS   \
    ", \"T\": " CF_ALL "}, \"tensors\": [{\"name\": \"k\", \"memory\": \"hbm\", "                  \
    "\"dtype\": \"I\", \"shape\": [1], \"data\": [3]}, {\"name\": \"x\", \"memory\": "             \
    "\"sbuf\", \"dtype\": \"T\", \"shape\": [4, \"N+3\"], \"input\": true}, {\"name\": \"d\","     \
    " \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [4, \"N\"]}], \"instructions\": "         \
    "[{\"opcode\": \"TensorLoad\", \"inputs\": [\"k\"], \"register\": 5}, {\"opcode\": "           \
    "\"TensorCopy\", \"inputs\": [{\"tensor\": \"x\", \"ap\": [[1, \"N\"]], "                      \
    "\"offset_register\": 5}], \"outputs\": [\"d\"]}]}"
#define DMA_R_LOAD_FLOAT                                                                           \
    "{\"name\": \"load_float\", \"vars\": {}, \"dtypes\": {\"F\": " CF_FP32V                       \
    "}, \"tensors\": [{\"name\": \"k\", \"memory\": \"sbuf\", \"dtype\": \"F\", \"shape\": "       \
    "[1, 1], \"data\": [2]}], \"instructions\": [{\"opcode\": \"TensorLoad\", \"inputs\": "        \
    "[\"k\"], \"register\": {\"@\": [1, 62]}}]}"
#define DMA_R_SAVE_SIGNED                                                                          \
    "{\"name\": \"save_signed\", \"vars\": {}, \"dtypes\": {\"D\": [\"int8\", \"int16\", "         \
    "\"int32\", \"int64\", \"float8_e3m4\", \"float8_e4m3\", \"float8_e4m3fn\", "                  \
    "\"float8_e8m0fnu\", \"float8_e5m2\", \"bfloat16\", \"float16\", \"float32\", "                \
    "\"float32r\"]}, \"tensors\": [{\"name\": \"v\", \"memory\": \"sbuf\", \"dtype\": "            \
    "\"int8\", \"shape\": [1, 1], \"input\": true}, {\"name\": \"d\", \"memory\": \"sbuf\", "      \
    "\"dtype\": \"D\", \"shape\": [2, 3]}], \"instructions\": [{\"opcode\": \"TensorLoad\", "      \
    "\"inputs\": [\"v\"], \"register\": 7}, {\"opcode\": \"TensorSave\", \"outputs\": "            \
    "[{\"tensor\": \"d\", \"partition\": 1, \"partitions\": 1, \"ap\": [[1, 1]], \"offset\": "     \
    "2}], \"register\": 7}]}"
#define DMA_R_SAVE_UNSIGNED                                                                        \
    "{\"name\": \"save_unsigned\", \"vars\": {}, \"dtypes\": {\"D\": [\"uint8\", \"uint16\", "     \
    "\"uint32\", \"uint64\", \"int16\", \"int32\", \"int64\", \"bfloat16\", \"float16\", "         \
    "\"float32\"]}, \"tensors\": [{\"name\": \"v\", \"memory\": \"hbm\", \"dtype\": "              \
    "\"uint8\", \"shape\": [1], \"input\": true}, {\"name\": \"d\", \"memory\": \"hbm\", "         \
    "\"dtype\": \"D\", \"shape\": [1]}], \"instructions\": [{\"opcode\": \"TensorLoad\", "         \
    "\"inputs\": [\"v\"], \"register\": 0}, {\"opcode\": \"TensorSave\", \"outputs\": "            \
    "[\"d\"], \"register\": 0}]}"
#define DMA_R_SAVE_UNWRITTEN_REGISTER                                                              \
    "{\"name\": \"save_unwritten_register\", \"vars\": {}, \"dtypes\": {\"D\": " CF_FP32V          \
    "}, \"tensors\": [{\"name\": \"d\", \"memory\": \"psum\", \"dtype\": \"D\", \"shape\": "       \
    "[1, 1]}], \"instructions\": [{\"opcode\": \"TensorSave\", \"outputs\": [\"d\"], "             \
    "\"register\": {\"@\": [0, 13, 63]}}]}"

/* The opcodes' lists, one recipe macro after another (the formatter cannot
 * lay out string concatenations of macro calls). */
// clang-format off
/* The plain copy (raw, cast, accumulate, overlap, reshape, streamed, remote)
 * as opcode OP: AbstractCopy, Load, Save, TensorCopy and GenericCopy alike. */
#define DMA_PLAIN_COPY_RECIPES(OP)                                                                 \
    "[" DMA_R_COPY_RAW(OP) ", " DMA_R_COPY_CAST_STRIDED(OP)                                        \
    ", " DMA_R_COPY_ACCUMULATE(OP) ", " DMA_R_COPY_OVERLAP(OP)                                     \
    ", " DMA_R_COPY_RESHAPE_REVERSE(OP) ", " DMA_R_COPY_MULTIDIM(OP)                               \
    ", " DMA_R_COPY_LARGE_CAST(OP) ", " DMA_R_COPY_REMOTE(OP) "]"

const char dma_conform_abstractcopy[] = DMA_PLAIN_COPY_RECIPES("AbstractCopy");
const char dma_conform_load[] = DMA_PLAIN_COPY_RECIPES("Load");
const char dma_conform_save[] = DMA_PLAIN_COPY_RECIPES("Save");
const char dma_conform_tensorcopy[] = DMA_PLAIN_COPY_RECIPES("TensorCopy");
const char dma_conform_genericcopy[] = DMA_PLAIN_COPY_RECIPES("GenericCopy");

/* DMACopy: every mode, gather and scatter. */
const char dma_conform_dmacopy[] =
    "[" DMA_R_COPY_RAW_2("DMACopy") ", " DMA_R_COPY_CAST_STRIDED_2("DMACopy")
    ", " DMA_R_COPY_ACCUMULATE_2("DMACopy") ", " DMA_R_COPY_OVERLAP_2 ", " DMA_R_GATHER("DMACopy")
    ", " DMA_R_GATHER_ADD("DMACopy") ", " DMA_R_SCATTER("DMACopy")
    ", " DMA_R_SCATTER_ADD("DMACopy") ", " DMA_R_TRANSPOSE ", " DMA_R_TRANSPOSE_CAST
    ", " DMA_R_TRANSPOSE_SHAPE ", " DMA_R_CCE_TWO ", " DMA_R_CCE_MANY_ACCUMULATE
    ", " DMA_R_REPLICATE ", " DMA_R_REPLICATE_CAST "]";

/* DMATrigger: round robin over blocks of every descriptor. */
const char dma_conform_trigger[] =
    "[" DMA_R_TRIGGER_ROUND_ROBIN ", " DMA_R_BLOCK_EVERY_DESCRIPTOR "]";

/* DMADescriptor: DMACopy's modes as a descriptor. */
const char dma_conform_descriptor[] =
    "[" DMA_R_COPY_RAW_2("DMADescriptor") ", " DMA_R_COPY_CAST_STRIDED_2("DMADescriptor")
    ", " DMA_R_COPY_ACCUMULATE_2("DMADescriptor") ", " DMA_R_GATHER("DMADescriptor")
    ", " DMA_R_GATHER_ADD("DMADescriptor") ", " DMA_R_SCATTER("DMADescriptor")
    ", " DMA_R_SCATTER_ADD("DMADescriptor") ", " DMA_R_TRANSPOSE_2 ", " DMA_R_CCE_TWO_2
    ", " DMA_R_REPLICATE_2 ", " DMA_R_BLOCK_EVERY_DESCRIPTOR "]";

/* DMADescriptorCopy (mode 0). */
const char dma_conform_desc_copy[] =
    "[" DMA_R_COPY_RAW("DMADescriptorCopy") ", " DMA_R_COPY_CAST_STRIDED("DMADescriptorCopy")
    ", " DMA_R_COPY_ACCUMULATE("DMADescriptorCopy") ", " DMA_R_COPY_OVERLAP("DMADescriptorCopy")
    ", " DMA_R_GATHER("DMADescriptorCopy") ", " DMA_R_GATHER_ADD("DMADescriptorCopy")
    ", " DMA_R_SCATTER("DMADescriptorCopy") ", " DMA_R_SCATTER_ADD("DMADescriptorCopy")
    ", " DMA_R_BLOCK_EVERY_DESCRIPTOR "]";

/* DMADescriptorCCE (mode 2). */
const char dma_conform_desc_cce[] =
    "[" DMA_R_CCE_TWO_3 ", " DMA_R_CCE_MANY_ACCUMULATE_2 ", " DMA_R_BLOCK_EVERY_DESCRIPTOR "]";

/* DMADescriptorTranspose (mode 1). */
const char dma_conform_desc_transpose[] =
    "[" DMA_R_TRANSPOSE_3 ", " DMA_R_TRANSPOSE_CAST_2 ", " DMA_R_TRANSPOSE_SHAPE_2
    ", " DMA_R_BLOCK_EVERY_DESCRIPTOR "]";

/* DMADescriptorReplicate (mode 3). */
const char dma_conform_desc_replicate[] =
    "[" DMA_R_REPLICATE_3 ", " DMA_R_REPLICATE_CAST_2 ", " DMA_R_BLOCK_EVERY_DESCRIPTOR "]";

/* DMABlock: every descriptor kind in one list. */
const char dma_conform_block[] =
    "[" DMA_R_BLOCK_EVERY_DESCRIPTOR ", " DMA_R_TRIGGER_ROUND_ROBIN "]";

/* TensorLoad: integer and float scalars, a dynamic offset. */
const char dma_conform_tensor_load[] =
    "[" DMA_R_LOAD_INTEGER ", " DMA_R_LOAD_OFFSET_COPY ", " DMA_R_LOAD_FLOAT
    ", " DMA_R_SAVE_SIGNED ", " DMA_R_SAVE_UNSIGNED "]";

/* TensorSave: a register into every dtype that holds it. */
const char dma_conform_tensor_save[] =
    "[" DMA_R_SAVE_SIGNED ", " DMA_R_SAVE_UNSIGNED ", " DMA_R_SAVE_UNWRITTEN_REGISTER
    ", " DMA_R_LOAD_OFFSET_COPY "]";
// clang-format on
