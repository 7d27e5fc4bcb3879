/* Recipes for `trnsim conform` (docs/internals/conform.md): the programs it
 * generates to exercise trnsim-experimental's opcodes (docs/experimental.md).
 * Rng writes int8 .. uint32 (no float, no 64-bit); NonzeroWithCount takes
 * [P][T] of any dtype with an fp32 value and writes [P][T + 1] int32 / uint32;
 * both only in SBUF or PSUM. The family needs config/experimental.cfg. */
#include "exp_conform.h"

#define CF_FP32V                                                                                   \
    "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", "  \
    "\"float8_e3m4\", \"float8_e4m3\", \"float8_e4m3fn\", \"float8_e8m0fnu\", \"float8_e5m2\", "   \
    "\"bfloat16\", \"float16\", \"float32\", \"float32r\"]"
#define CF_RNG_BITS "[\"int8\", \"uint8\", \"int16\", \"uint16\", \"int32\", \"uint32\"]"

/* Rng (100): every output dtype, strided and step-0 APs, beside Rand2. */
const char exp_conform_rng[] =
    "[{\"name\": \"rng_sbuf\", \"vars\": {\"P\": [1, 128], \"N\": [1, 2050]}, \"dtypes\": "
    "{\"B\": " CF_RNG_BITS
    "}, \"tensors\": [{\"name\": \"r\", \"memory\": \"sbuf\", \"dtype\": \"B\", \"shape\": [\"P\", "
    "\"N\"]}], \"instructions\": [{\"opcode\": \"Rng\", \"outputs\": [\"r\"]}, {\"opcode\": "
    "\"Rng\", \"outputs\": [\"r\"]}]}"
    ", {\"name\": \"rng_psum_strided\", \"vars\": {\"P\": [1, 64], \"Q\": [0, 64], \"N\": [1, "
    "500]}, \"dtypes\": {\"B\": " CF_RNG_BITS
    "}, \"tensors\": [{\"name\": \"r\", \"memory\": \"psum\", \"dtype\": \"B\", \"shape\": [128, "
    "\"2*N\"]}], \"instructions\": [{\"opcode\": \"Rng\", \"outputs\": [{\"tensor\": \"r\", "
    "\"partition\": \"Q\", \"partitions\": \"P\", \"offset\": 1, \"ap\": [[2, \"N\"]]}]}]}"
    ", {\"name\": \"rng_partition_step0\", \"vars\": {\"K\": [1, 16], \"N\": [1, 37]}, \"dtypes\": "
    "{\"B\": " CF_RNG_BITS
    "}, \"tensors\": [{\"name\": \"r\", \"memory\": \"sbuf\", \"dtype\": \"B\", \"shape\": [1, "
    "\"N\"]}], \"instructions\": [{\"opcode\": \"Rng\", \"outputs\": [{\"tensor\": \"r\", "
    "\"partitions\": \"K\", \"partition_step\": 0}]}]}"
    ", {\"name\": \"rng_beside_rand2\", \"vars\": {\"P\": [1, 128], \"N\": [1, 200]}, \"dtypes\": "
    "{\"B\": " CF_RNG_BITS
    "}, \"tensors\": [{\"name\": \"r\", \"memory\": \"sbuf\", \"dtype\": \"B\", \"shape\": [\"P\", "
    "\"N\"]}, {\"name\": \"f\", \"memory\": \"sbuf\", \"dtype\": \"float32\", \"shape\": [\"P\", "
    "\"N\"]}, {\"name\": \"s\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", \"shape\": [\"P\", "
    "24]}], \"instructions\": [{\"opcode\": \"Rng\", \"outputs\": [\"r\"]}, {\"opcode\": "
    "\"SetRandState2\", \"seed\": {\"@\": [0, 42, \"0x2a\"]}}, {\"opcode\": \"Rand2\", "
    "\"outputs\": [\"f\"]}, {\"opcode\": \"Rng\", \"outputs\": [\"r\"]}, {\"opcode\": "
    "\"GetRandState2\", \"outputs\": [\"s\"]}]}]";

/* NonzeroWithCount (104): every input dtype, both output dtypes, the
 * largest index_offset each output dtype takes, on Rng's bits. */
const char exp_conform_nonzero[] =
    "[{\"name\": \"nonzero_sbuf\", \"vars\": {\"P\": [1, 128], \"T\": [1, 2047]}, \"dtypes\": "
    "{\"D\": " CF_FP32V
    ", \"O\": [\"int32\", \"uint32\"]}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", "
    "\"dtype\": \"D\", \"shape\": [\"P\", \"T\"], \"input\": true}, {\"name\": \"y\", \"memory\": "
    "\"sbuf\", \"dtype\": \"O\", \"shape\": [\"P\", \"T+1\"]}], \"instructions\": [{\"opcode\": "
    "\"NonzeroWithCount\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"index_offset\": \"@\", "
    "\"padding_val\": \"@\"}]}"
    ", {\"name\": \"nonzero_psum\", \"vars\": {\"P\": [1, 128], \"T\": [1, 2047]}, \"dtypes\": "
    "{\"D\": " CF_FP32V
    ", \"O\": [\"int32\", \"uint32\"]}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", "
    "\"dtype\": \"D\", \"shape\": [\"P\", \"T\"], \"input\": true}, {\"name\": \"y\", \"memory\": "
    "\"psum\", \"dtype\": \"O\", \"shape\": [\"P\", \"T+1\"]}], \"instructions\": [{\"opcode\": "
    "\"NonzeroWithCount\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}"
    ", {\"name\": \"nonzero_strided\", \"vars\": {\"P\": [1, 64], \"Q\": [0, 64], \"T\": [1, 700], "
    "\"A\": [1, 3]}, \"dtypes\": {\"D\": " CF_FP32V
    ", \"O\": [\"int32\", \"uint32\"]}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", "
    "\"dtype\": \"D\", \"shape\": [128, \"A\", \"2*T\"], \"input\": true}, {\"name\": \"y\", "
    "\"memory\": \"sbuf\", \"dtype\": \"O\", \"shape\": [128, \"A*T+3\"]}], \"instructions\": "
    "[{\"opcode\": \"NonzeroWithCount\", \"inputs\": [{\"tensor\": \"x\", \"partition\": \"Q\", "
    "\"partitions\": \"P\", \"ap\": [[\"2*T\", \"A\"], [2, \"T\"]]}], \"outputs\": [{\"tensor\": "
    "\"y\", \"partition\": \"Q\", \"partitions\": \"P\", \"offset\": 2, \"ap\": [[1, "
    "\"A*T+1\"]]}], \"padding_val\": \"@\"}]}"
    ", {\"name\": \"nonzero_index_extremes\", \"vars\": {\"P\": [1, 128], \"T\": [1, 300]}, "
    "\"dtypes\": {\"D\": " CF_FP32V
    "}, \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"D\", \"shape\": [\"P\", "
    "\"T\"], \"input\": true}, {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"int32\", "
    "\"shape\": [\"P\", \"T+1\"]}, {\"name\": \"u\", \"memory\": \"sbuf\", \"dtype\": \"uint32\", "
    "\"shape\": [\"P\", \"T+1\"]}], \"instructions\": [{\"opcode\": \"NonzeroWithCount\", "
    "\"inputs\": [\"x\"], \"outputs\": [\"y\"], \"index_offset\": {\"=\": \"2147483648-T\"}, "
    "\"padding_val\": {\"@\": [-2147483648, 2147483647, 0]}}, {\"opcode\": \"NonzeroWithCount\", "
    "\"inputs\": [\"x\"], \"outputs\": [\"u\"], \"index_offset\": {\"=\": \"4294967296-T\"}, "
    "\"padding_val\": {\"@\": [-2147483648, 4294967295, 0]}}]}"
    ", {\"name\": \"nonzero_of_rng\", \"vars\": {\"P\": [1, 128], \"T\": [1, 64]}, \"dtypes\": "
    "{\"B\": " CF_RNG_BITS
    ", \"O\": [\"int32\", \"uint32\"]}, \"tensors\": [{\"name\": \"r\", \"memory\": \"sbuf\", "
    "\"dtype\": \"B\", \"shape\": [\"P\", \"T\"]}, {\"name\": \"y\", \"memory\": \"sbuf\", "
    "\"dtype\": \"O\", \"shape\": [\"P\", \"T+1\"]}], \"instructions\": [{\"opcode\": \"Rng\", "
    "\"outputs\": [\"r\"]}, {\"opcode\": \"NonzeroWithCount\", \"inputs\": [\"r\"], \"outputs\": "
    "[\"y\"], \"index_offset\": \"@\"}]}]";
