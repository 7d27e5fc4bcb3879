/* Recipes for `trnsim conform` (docs/internals/conform.md): the programs it
 * generates to exercise each BN opcode. Shapes are those the handlers' checks
 * accept (docs/bn.md): stats [P][6], aggregate input [P][6K], mean / varfactor /
 * scale [P][1], coef [P][3], ab [P][2]; every dtype with an fp32 value on the
 * inputs. The chains run BNStats into BNStatsAggregate and its outputs into
 * BNGradients and both dx applies. */
#include "bn_conform.h"

#define CF_FP32V                                                                                   \
    "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", "  \
    "\"float8_e3m4\", \"float8_e4m3\", \"float8_e4m3fn\", \"float8_e8m0fnu\", \"float8_e5m2\", "   \
    "\"bfloat16\", \"float16\", \"float32\", \"float32r\"]"
#define CF_OUT                                                                                     \
    "[\"float32\", \"float32\", \"float32\", \"float32\", \"float32\", \"float32\", "              \
    "\"bfloat16\", \"float16\", \"bfloat16\", \"float16\", \"int8\", \"uint8\", \"int16\", "       \
    "\"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", \"float8_e3m4\", "                  \
    "\"float8_e4m3\", \"float8_e4m3fn\", \"float8_e8m0fnu\", \"float8_e5m2\", \"bfloat16\", "      \
    "\"float16\", \"float32\", \"float32r\"]"

/* The forward-backward chain (BNStats, BNStatsAggregate, BNGradients, both
 * dx applies), one recipe in each of the four recipe lists it exercises. */
#define BN_FORWARD_BACKWARD                                                                        \
    "{\"name\": \"forward_backward\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1024]}, "             \
    "\"dtypes\": {\"T\": " CF_FP32V ", \"U\": " CF_FP32V ", \"D\": " CF_OUT "}, \"tensors\": [{"   \
    "\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], "         \
    "\"input\": true}, {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"U\", "                \
    "\"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"sbuf\", "       \
    "\"dtype\": \"float32\", \"shape\": [\"P\", 6]}, {\"name\": \"mv\", \"memory\": \"sbuf\", "    \
    "\"dtype\": \"float32\", \"shape\": [\"P\", 2]}, {\"name\": \"g\", \"memory\": \"sbuf\", "     \
    "\"dtype\": \"float32\", \"shape\": [\"P\", 3]}, {\"name\": \"dx\", \"memory\": \"sbuf\", "    \
    "\"dtype\": \"D\", \"shape\": [\"P\", \"N\"]}, {\"name\": \"dx2\", \"memory\": \"psum\", "     \
    "\"dtype\": \"float32\", \"shape\": [\"P\", \"N\"]}], "                                        \
    "\"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], \"outputs\": [\"st\"]}, "   \
    "{\"opcode\": \"BNStatsAggregate\", \"inputs\": [\"st\"], \"outputs\": [\"mv\"]}, "            \
    "{\"opcode\": \"BNGradients\", \"inputs\": [\"x\", \"dy\", {\"tensor\": \"mv\", "              \
    "\"offset\": 0, \"ap\": [[1, 1]]}, {\"tensor\": \"mv\", \"offset\": 1, \"ap\": [[1, 1]]}], "   \
    "\"outputs\": [\"g\"]}, {\"opcode\": \"BNBackprop\", \"inputs\": [\"x\", \"dy\", "             \
    "{\"tensor\": \"mv\", \"offset\": 0, \"ap\": [[1, 1]]}, \"g\"], \"outputs\": [\"dx\"], "       \
    "\"total_elements\": \"@\"}, {\"opcode\": \"BNBackprop2\", \"inputs\": [\"x\", \"dy\", "       \
    "{\"tensor\": \"mv\", \"offset\": 0, \"ap\": [[1, 1]]}, {\"tensor\": \"g\", \"offset\": 0, "   \
    "\"ap\": [[1, 2]]}, {\"tensor\": \"g\", \"offset\": 2, \"ap\": [[1, 1]]}], "                   \
    "\"outputs\": [\"dx2\"], \"total_elements\": {\"@\": [1, 2, 7, 1024, 16777217, 0.5]}}]}"

/* BNStats: SBUF, PSUM and HBM operands, strided, partition-offset and
 * partition-step APs, multi-dim free APs, the 32x32 tile transpose. */
const char bn_conform_stats[] =
    "[{\"name\": \"stats_sbuf\", \"vars\": {\"P\": [1, 128], \"N\": [1, 2048]}, \"dtypes\": "
    "{\"T\": " CF_FP32V ", \"S\": " CF_OUT
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"S\", "
    "\"shape\": [\"P\", 6]}], \"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], "
    "\"outputs\": [\"st\"]}]}"
    ", {\"name\": \"stats_psum\", \"vars\": {\"P\": [1, 128], \"N\": [1, 4096]}, \"dtypes\": "
    "{\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"psum\", \"dtype\": \"float32\", "
    "\"shape\": [\"P\", 6]}], \"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], "
    "\"outputs\": [\"st\"], \"apply_transpose\": false}]}"
    ", {\"name\": \"stats_strided\", \"vars\": {\"P\": [1, 64], \"Q\": [0, 64], \"N\": [1, 1027]}, "
    "\"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [128, "
    "\"2*N+3\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": "
    "\"float32\", \"shape\": [\"P\", 6]}], \"instructions\": [{\"opcode\": \"BNStats\", "
    "\"inputs\": [{\"tensor\": \"x\", \"partition\": \"Q\", \"partitions\": \"P\", \"offset\": 1, "
    "\"ap\": [[2, \"N\"]]}], \"outputs\": [\"st\"]}]}"
    ", {\"name\": \"stats_partition_step\", \"vars\": {\"P\": [1, 64], \"N\": [1, 600]}, "
    "\"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [128, "
    "\"N\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
    "\"shape\": [\"P\", 6]}], \"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": "
    "[{\"tensor\": \"x\", \"partitions\": \"P\", \"partition_step\": 2}], \"outputs\": [\"st\"]}]}"
    ", {\"name\": \"stats_multidim\", \"vars\": {\"P\": [1, 128], \"A\": [1, 16], \"B\": [1, "
    "130]}, \"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"A\", \"B\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": "
    "\"float32\", \"shape\": [\"P\", 6]}], \"instructions\": [{\"opcode\": \"BNStats\", "
    "\"inputs\": [{\"tensor\": \"x\", \"ap\": [[\"B\", \"A\"], [1, \"B\"]]}], \"outputs\": "
    "[\"st\"]}]}"
    ", {\"name\": \"stats_hbm\", \"vars\": {\"A\": [1, 8], \"N\": [1, 8192]}, \"dtypes\": "
    "{\"T\": " CF_FP32V ", \"S\": " CF_OUT
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [\"A\", "
    "\"N\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"hbm\", \"dtype\": \"S\", "
    "\"shape\": [6]}], \"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], "
    "\"outputs\": [\"st\"]}]}"
    ", {\"name\": \"stats_transpose\", \"vars\": {\"PB\": [1, 4], \"NB\": [1, 8]}, \"dtypes\": "
    "{\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": "
    "[\"PB*32\", \"NB*32\"], \"input\": true}, {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": "
    "\"float32\", \"shape\": [\"PB*32\", 6]}], \"instructions\": [{\"opcode\": \"BNStats\", "
    "\"inputs\": [\"x\"], \"outputs\": [\"st\"], \"apply_transpose\": {\"@\": [true, false, 1, "
    "0]}}]}"
    ", {\"name\": \"stats_n1\", \"vars\": {\"P\": [1, 128]}, \"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "1], \"input\": true}, {\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
    "\"shape\": [\"P\", 6]}], \"instructions\": [{\"opcode\": \"BNStats\", \"inputs\": [\"x\"], "
    "\"outputs\": [\"st\"], \"apply_transpose\": \"@\"}]}]";

/* BNStatsAggregate: raw records, K BNStats records side by side, the
 * forward-backward chain. */
const char bn_conform_aggregate[] =
    "[{\"name\": \"aggregate_raw\", \"vars\": {\"P\": [1, 128], \"K\": [1, 40]}, \"dtypes\": "
    "{\"S\": [\"float32\", \"float32\", \"bfloat16\", \"float16\", \"float32r\"], \"M\": " CF_OUT
    "}, \"tensors\": [{\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": "
    "[\"P\", \"6*K\"], \"input\": true}, {\"name\": \"mv\", \"memory\": \"sbuf\", \"dtype\": "
    "\"M\", \"shape\": [\"P\", 2]}], \"instructions\": [{\"opcode\": \"BNStatsAggregate\", "
    "\"inputs\": [\"st\"], \"outputs\": [\"mv\"]}]}"
    ", {\"name\": \"aggregate_strided\", \"vars\": {\"P\": [1, 128], \"K\": [1, 20]}, \"dtypes\": "
    "{}, \"tensors\": [{\"name\": \"st\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": "
    "[\"P\", \"K\", 8], \"input\": true}, {\"name\": \"mv\", \"memory\": \"psum\", \"dtype\": "
    "\"float32\", \"shape\": [\"P\", 2]}], \"instructions\": [{\"opcode\": \"BNStatsAggregate\", "
    "\"inputs\": [{\"tensor\": \"st\", \"ap\": [[8, \"K\"], [1, 6]]}], \"outputs\": [\"mv\"]}]}"
    ", {\"name\": \"aggregate_hbm\", \"vars\": {\"K\": [1, 64]}, \"dtypes\": {}, \"tensors\": "
    "[{\"name\": \"st\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": [\"K\", 6], "
    "\"input\": true}, {\"name\": \"mv\", \"memory\": \"hbm\", \"dtype\": \"float32\", \"shape\": "
    "[2]}], \"instructions\": [{\"opcode\": \"BNStatsAggregate\", \"inputs\": [\"st\"], "
    "\"outputs\": [\"mv\"]}]}"
    ", {\"name\": \"stats_then_aggregate\", \"vars\": {\"P\": [1, 128], \"N0\": [1, 700], \"N1\": "
    "[1, 64], \"N2\": [1, 1500]}, \"dtypes\": {\"T\": " CF_FP32V
    ", \"S\": [\"float32\", \"float32\", \"float32\", \"bfloat16\", \"float16\"], \"M\": " CF_OUT
    "}, \"tensors\": [{\"name\": \"x0\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": "
    "[\"P\", \"N0\"], \"input\": true}, {\"name\": \"x1\", \"memory\": \"sbuf\", \"dtype\": \"T\", "
    "\"shape\": [\"P\", \"N1\"], \"input\": true}, {\"name\": \"x2\", \"memory\": \"sbuf\", "
    "\"dtype\": \"T\", \"shape\": [\"P\", \"N2\"], \"input\": true}, {\"name\": \"st\", "
    "\"memory\": \"sbuf\", \"dtype\": \"S\", \"shape\": [\"P\", 18]}, {\"name\": \"mv\", "
    "\"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 2]}], \"instructions\": "
    "[{\"opcode\": \"BNStats\", \"inputs\": [\"x0\"], \"outputs\": [{\"tensor\": \"st\", "
    "\"offset\": 0, \"ap\": [[1, 6]]}]}, {\"opcode\": \"BNStats\", \"inputs\": [\"x1\"], "
    "\"outputs\": [{\"tensor\": \"st\", \"offset\": 6, \"ap\": [[1, 6]]}]}, {\"opcode\": "
    "\"BNStats\", \"inputs\": [\"x2\"], \"outputs\": [{\"tensor\": \"st\", \"offset\": 12, \"ap\": "
    "[[1, 6]]}]}, {\"opcode\": \"BNStatsAggregate\", \"inputs\": [\"st\"], \"outputs\": [\"mv\"]}]}"
    ", " BN_FORWARD_BACKWARD "]";

/* BNGradients: every input dtype, strided and offset APs, HBM. */
const char bn_conform_gradients[] =
    "[{\"name\": \"gradients\", \"vars\": {\"P\": [1, 128], \"N\": [1, 2048]}, \"dtypes\": "
    "{\"T\": " CF_FP32V ", \"U\": " CF_FP32V ", \"M\": " CF_FP32V ", \"D\": " CF_OUT
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"U\", "
    "\"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", "
    "\"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": \"vf\", \"memory\": "
    "\"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": \"g\", "
    "\"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", 3]}], \"instructions\": "
    "[{\"opcode\": \"BNGradients\", \"inputs\": [\"x\", \"dy\", \"m\", \"vf\"], \"outputs\": "
    "[\"g\"]}]}"
    ", {\"name\": \"gradients_strided\", \"vars\": {\"P\": [1, 64], \"Q\": [0, 64], \"N\": [1, "
    "515]}, \"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [128, "
    "\"2*N\"], \"input\": true}, {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"T\", "
    "\"shape\": [128, \"N\"], \"input\": true}, {\"name\": \"mv\", \"memory\": \"sbuf\", "
    "\"dtype\": \"float32\", \"shape\": [128, 2], \"input\": true}, {\"name\": \"g\", \"memory\": "
    "\"psum\", \"dtype\": \"float32\", \"shape\": [\"P\", 3]}], \"instructions\": [{\"opcode\": "
    "\"BNGradients\", \"inputs\": [{\"tensor\": \"x\", \"partition\": \"Q\", \"partitions\": "
    "\"P\", \"ap\": [[2, \"N\"]]}, {\"tensor\": \"dy\", \"partition\": \"Q\", \"partitions\": "
    "\"P\"}, {\"tensor\": \"mv\", \"partition\": \"Q\", \"partitions\": \"P\", \"ap\": [[1, 1]]}, "
    "{\"tensor\": \"mv\", \"partition\": \"Q\", \"partitions\": \"P\", \"offset\": 1, \"ap\": [[1, "
    "1]]}], \"outputs\": [\"g\"]}]}"
    ", {\"name\": \"gradients_hbm\", \"vars\": {\"N\": [1, 8192]}, \"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [\"N\"], "
    "\"input\": true}, {\"name\": \"dy\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": "
    "[\"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
    "\"shape\": [1, 1], \"input\": true}, {\"name\": \"vf\", \"memory\": \"sbuf\", \"dtype\": "
    "\"float32\", \"shape\": [1, 1], \"input\": true}, {\"name\": \"g\", \"memory\": \"hbm\", "
    "\"dtype\": \"float32\", \"shape\": [3]}], \"instructions\": [{\"opcode\": \"BNGradients\", "
    "\"inputs\": [\"x\", \"dy\", \"m\", \"vf\"], \"outputs\": [\"g\"]}]}"
    ", " BN_FORWARD_BACKWARD "]";

/* BNBackprop: coef [P][3]; in place over x or dy. */
const char bn_conform_backprop[] =
    "[{\"name\": \"apply\", \"vars\": {\"P\": [1, 128], \"N\": [1, 2048]}, \"dtypes\": "
    "{\"T\": " CF_FP32V ", \"U\": " CF_FP32V ", \"M\": " CF_FP32V ", \"D\": " CF_OUT
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"U\", "
    "\"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", "
    "\"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": \"coef\", \"memory\": "
    "\"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 3], \"input\": true}, {\"name\": \"dx\", "
    "\"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", \"N\"]}], \"instructions\": "
    "[{\"opcode\": \"BNBackprop\", \"inputs\": [\"x\", \"dy\", \"m\", \"coef\"], \"outputs\": "
    "[\"dx\"], \"total_elements\": \"@\"}]}"
    ", {\"name\": \"apply_in_place\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1024]}, \"dtypes\": "
    "{\"T\": " CF_FP32V
    ", \"M\": [\"float32\", \"bfloat16\"]}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", "
    "\"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"dy\", \"memory\": "
    "\"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"m\", "
    "\"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": "
    "\"coef\", \"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 3], \"input\": true}], "
    "\"instructions\": [{\"opcode\": \"BNBackprop\", \"inputs\": [\"x\", \"dy\", \"m\", \"coef\"], "
    "\"outputs\": [\"x\"], \"total_elements\": \"@\"}, {\"opcode\": \"BNBackprop\", \"inputs\": "
    "[\"x\", \"dy\", \"m\", \"coef\"], \"outputs\": [\"dy\"], \"total_elements\": \"@\"}]}"
    ", {\"name\": \"apply_psum_strided\", \"vars\": {\"P\": [1, 128], \"N\": [1, 2000]}, "
    "\"dtypes\": {\"T\": " CF_FP32V ", \"M\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"2*N+1\"], \"input\": true}, {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"T\", "
    "\"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", "
    "\"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": \"coef\", \"memory\": "
    "\"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 3], \"input\": true}, {\"name\": \"dx\", "
    "\"memory\": \"psum\", \"dtype\": \"float32\", \"shape\": [\"P\", \"N\"]}], \"instructions\": "
    "[{\"opcode\": \"BNBackprop\", \"inputs\": [{\"tensor\": \"x\", \"offset\": 1, \"ap\": [[2, "
    "\"N\"]]}, \"dy\", \"m\", \"coef\"], \"outputs\": [\"dx\"], \"total_elements\": \"@\"}]}"
    ", {\"name\": \"apply_hbm\", \"vars\": {\"N\": [1, 8192]}, \"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [\"N\"], "
    "\"input\": true}, {\"name\": \"dy\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": "
    "[\"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
    "\"shape\": [1, 1], \"input\": true}, {\"name\": \"coef\", \"memory\": \"sbuf\", \"dtype\": "
    "\"float32\", \"shape\": [1, 3], \"input\": true}, {\"name\": \"dx\", \"memory\": \"hbm\", "
    "\"dtype\": \"T\", \"shape\": [\"N\"]}], \"instructions\": [{\"opcode\": \"BNBackprop\", "
    "\"inputs\": [\"x\", \"dy\", \"m\", \"coef\"], \"outputs\": [\"dx\"], \"total_elements\": "
    "\"@\"}]}"
    ", " BN_FORWARD_BACKWARD "]";

/* BNBackprop2: ab [P][2] and scale [P][1]. */
const char bn_conform_backprop2[] =
    "[{\"name\": \"apply\", \"vars\": {\"P\": [1, 128], \"N\": [1, 2048]}, \"dtypes\": "
    "{\"T\": " CF_FP32V ", \"U\": " CF_FP32V ", \"M\": " CF_FP32V ", \"D\": " CF_OUT
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"], \"input\": true}, {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"U\", "
    "\"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", "
    "\"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": \"ab\", \"memory\": "
    "\"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 2], \"input\": true}, {\"name\": \"sc\", "
    "\"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": "
    "\"dx\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", \"N\"]}], "
    "\"instructions\": [{\"opcode\": \"BNBackprop2\", \"inputs\": [\"x\", \"dy\", \"m\", \"ab\", "
    "\"sc\"], \"outputs\": [\"dx\"], \"total_elements\": \"@\"}]}"
    ", {\"name\": \"apply_in_place\", \"vars\": {\"P\": [1, 128], \"N\": [1, 1024]}, \"dtypes\": "
    "{\"T\": " CF_FP32V
    ", \"M\": [\"float32\", \"bfloat16\"]}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", "
    "\"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"dy\", \"memory\": "
    "\"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"m\", "
    "\"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": "
    "\"ab\", \"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 2], \"input\": true}, "
    "{\"name\": \"sc\", \"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": "
    "true}], \"instructions\": [{\"opcode\": \"BNBackprop2\", \"inputs\": [\"x\", \"dy\", \"m\", "
    "\"ab\", \"sc\"], \"outputs\": [\"x\"], \"total_elements\": \"@\"}, {\"opcode\": "
    "\"BNBackprop2\", \"inputs\": [\"x\", \"dy\", \"m\", \"ab\", \"sc\"], \"outputs\": [\"dy\"], "
    "\"total_elements\": \"@\"}]}"
    ", {\"name\": \"apply_psum_strided\", \"vars\": {\"P\": [1, 128], \"N\": [1, 2000]}, "
    "\"dtypes\": {\"T\": " CF_FP32V ", \"M\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"2*N+1\"], \"input\": true}, {\"name\": \"dy\", \"memory\": \"sbuf\", \"dtype\": \"T\", "
    "\"shape\": [\"P\", \"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", "
    "\"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": \"ab\", \"memory\": "
    "\"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 2], \"input\": true}, {\"name\": \"sc\", "
    "\"memory\": \"sbuf\", \"dtype\": \"M\", \"shape\": [\"P\", 1], \"input\": true}, {\"name\": "
    "\"dx\", \"memory\": \"psum\", \"dtype\": \"float32\", \"shape\": [\"P\", \"N\"]}], "
    "\"instructions\": [{\"opcode\": \"BNBackprop2\", \"inputs\": [{\"tensor\": \"x\", \"offset\": "
    "1, \"ap\": [[2, \"N\"]]}, \"dy\", \"m\", \"ab\", \"sc\"], \"outputs\": [\"dx\"], "
    "\"total_elements\": \"@\"}]}"
    ", {\"name\": \"apply_hbm\", \"vars\": {\"N\": [1, 8192]}, \"dtypes\": {\"T\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": [\"N\"], "
    "\"input\": true}, {\"name\": \"dy\", \"memory\": \"hbm\", \"dtype\": \"T\", \"shape\": "
    "[\"N\"], \"input\": true}, {\"name\": \"m\", \"memory\": \"sbuf\", \"dtype\": \"float32\", "
    "\"shape\": [1, 1], \"input\": true}, {\"name\": \"ab\", \"memory\": \"sbuf\", \"dtype\": "
    "\"float32\", \"shape\": [1, 2], \"input\": true}, {\"name\": \"sc\", \"memory\": \"sbuf\", "
    "\"dtype\": \"float32\", \"shape\": [1, 1], \"input\": true}, {\"name\": \"dx\", \"memory\": "
    "\"hbm\", \"dtype\": \"T\", \"shape\": [\"N\"]}], \"instructions\": [{\"opcode\": "
    "\"BNBackprop2\", \"inputs\": [\"x\", \"dy\", \"m\", \"ab\", \"sc\"], \"outputs\": [\"dx\"], "
    "\"total_elements\": \"@\"}]}"
    ", " BN_FORWARD_BACKWARD "]";
