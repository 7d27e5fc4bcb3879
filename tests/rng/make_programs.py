#!/usr/bin/python3
"""Write tests/rng/programs/*.json (the checked-in programs are this
script's output; rerun it after changing a case). Data comes from a fixed
splitmix64 stream, so the files are reproducible."""
import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
_state = [0x0123456789ABCDEF]


def u32():
    _state[0] = (_state[0] + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = _state[0]
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return ((z ^ (z >> 31)) >> 16) & 0xFFFFFFFF


def words(n):
    return [u32() for _ in range(n)]


def t(name, dtype, shape, memory="sbuf", **kw):
    return dict(name=name, memory=memory, dtype=dtype, shape=shape, **kw)


def write(name, prog):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(prog, f, indent=1)
        f.write("\n")


def gen1_rows(n):
    rows = words(6 * n)
    rows[0:6] = [0, 0, 0, 0, 0, 0x55]                      # zero guard: word 4 becomes 1
    rows[6:10] = [0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF]  # Philox counter wraps
    rows[12] = 0                                          # LFSR fixed point (word 0 = 0)
    return rows


def main():
    # Every gen-1 algorithm from a restored state, twice (the streams go on),
    # 37 elements (not a multiple of 4: Philox drops a block's rest).
    write("rand_algorithms.json", {
        "tensors": [t("st", "uint32", [16, 6], data=gen1_rows(16)),
                    t("lfsr", "uint32", [16, 37]), t("pcg", "uint32", [16, 37]), t("philox", "uint32", [16, 37]),
                    t("lfsr2", "uint32", [16, 37]), t("pcg2", "uint32", [16, 37]), t("philox2", "uint32", [16, 37]),
                    t("after", "uint32", [16, 6])],
        "instructions": [
            {"opcode": "SetRandState", "inputs": ["st"]},
            {"opcode": "Rand", "algorithm": 0, "outputs": ["lfsr"]},
            {"opcode": "Rand", "algorithm": 0, "outputs": ["lfsr2"]},
            {"opcode": "GetRandState", "outputs": ["after"]},
            {"opcode": "SetRandState", "inputs": ["st"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["pcg"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["pcg2"]},
            {"opcode": "SetRandState", "inputs": ["st"]},
            {"opcode": "Rand", "algorithm": 2, "outputs": ["philox"]},
            {"opcode": "Rand", "algorithm": 2, "outputs": ["philox2"]},
        ]})

    # Defaults (no seed): every state {1,1,1,1,1,1}; all 128 partitions.
    write("defaults.json", {
        "tensors": [t("r", "uint32", [128, 16]), t("f", "float32", [128, 16]),
                    t("s1", "uint32", [128, 6]), t("s2", "uint32", [128, 24])],
        "instructions": [
            {"opcode": "GetRandState", "outputs": ["s1"]},
            {"opcode": "GetRandState2", "outputs": ["s2"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["r"]},
            {"opcode": "Rand2", "outputs": ["f"]},
        ]})

    # The scalar seed (MT19937-64) and Rand2 with each lane flag and ranges.
    write("rand2_seeded.json", {
        "tensors": [t("u", "float32", [128, 33]), t("a", "float32", [128, 33]), t("b", "float32", [128, 33]),
                    t("c", "float32", [128, 33]), t("neg", "float32", [128, 9]), t("st", "uint32", [128, 24]),
                    t("big", "float32", [8, 5])],
        "instructions": [
            {"opcode": "SetRandState2", "seed": 12345},
            {"opcode": "Rand2", "outputs": ["u"]},
            {"opcode": "Rand2", "min": -2, "max": 3, "is_2x1p": True, "outputs": ["a"]},
            {"opcode": "Rand2", "min": 0.1, "max": 0.2, "is_2x2p": True, "outputs": ["b"]},
            {"opcode": "Rand2", "min": -1e30, "max": 1e30, "is_4x2p": True, "outputs": ["c"]},
            {"opcode": "Rand2", "min": 5, "max": -5, "outputs": ["neg"]},
            {"opcode": "GetRandState2", "outputs": ["st"]},
            {"opcode": "SetRandState", "engine": 5, "seed": "0xFFFFFFFFFFFFFFFF"},
            {"opcode": "Rand2", "is_4x2p": 1, "outputs": ["big"]},
        ]})

    # get(set(s)) == s for both generations, including zero-guarded rows,
    # the engine attribute on 58/59 and on 98/99.
    s2 = words(8 * 24)
    s2[0:24] = [0] * 24                       # all four lanes guarded
    for w in range(5):
        s2[24 + w * 4 + 2] = 0                # partition 1, lane 2 guarded
    write("state_roundtrip.json", {
        "tensors": [t("g1", "uint32", [8, 6], data=gen1_rows(8)), t("g2", "uint32", [8, 24], data=s2),
                    t("o1", "uint32", [8, 6]), t("o2", "uint32", [8, 24]),
                    t("p1", "uint32", [8, 6]), t("p2", "uint32", [8, 24])],
        "instructions": [
            {"opcode": "SetRandState", "inputs": ["g1"]},
            {"opcode": "SetRandState2", "inputs": ["g2"]},
            {"opcode": "GetRandState", "outputs": ["o1"]},
            {"opcode": "GetRandState2", "outputs": ["o2"]},
            {"opcode": "SetRandState2", "engine": 1, "inputs": ["o1"]},
            {"opcode": "SetRandState", "engine": 5, "inputs": ["o2"]},
            {"opcode": 98, "engine": 1, "outputs": ["p1"]},
            {"opcode": 58, "engine": 5, "outputs": ["p2"]},
        ]})

    # The gen-1 wire seed on all 128 partitions, then every algorithm.
    write("wire_seed.json", {
        "tensors": [t("st", "uint32", [128, 6]), t("r0", "uint32", [128, 12]), t("r1", "uint32", [128, 12]),
                    t("r2", "uint32", [128, 12])],
        "instructions": [
            {"opcode": "SetRandState", "seed": [0xABCDEF12, 2, 3, 4, 5, 6, 7, 8]},
            {"opcode": "GetRandState", "outputs": ["st"]},
            {"opcode": "Rand", "algorithm": 0, "outputs": ["r0"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["r1"]},
            {"opcode": "Rand", "algorithm": 2, "outputs": ["r2"]},
        ]})

    # Run with --cores 4: the same seed gives the same stream on every core.
    write("same_seed_cores.json", {
        "tensors": [t("f", "float32", [128, 20]), t("r", "uint32", [128, 20]), t("q", "uint32", [128, 20]),
                    t("s", "uint32", [128, 24])],
        "instructions": [
            {"opcode": "SetRandState2", "seed": 987654321},
            {"opcode": "SetRandState", "seed": [1, 2, 3, 4, 5, 6, 7, 8]},
            {"opcode": "Rand2", "min": -1, "max": 1, "is_4x2p": True, "outputs": ["f"]},
            {"opcode": "Rand", "algorithm": 2, "outputs": ["r"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["q"]},
            {"opcode": "GetRandState2", "outputs": ["s"]},
        ]})

    # Per-core state: each core restores its own rows (cores 1 and 3 the same
    # ones), so each core's streams follow its own state only.
    per_core = [gen1_rows(4) for _ in range(4)]
    per_core[3] = list(per_core[1])
    write("per_core_state.json", {
        "cores": 4,
        "tensors": [t("st", "uint32", [4, 6], data_per_core=per_core),
                    t("st2", "uint32", [4, 24], data_per_core=[words(96) for _ in range(4)]),
                    t("r", "uint32", [4, 10]), t("f", "float32", [4, 10]), t("after", "uint32", [4, 6])],
        "instructions": [
            {"opcode": "SetRandState", "inputs": ["st"]},
            {"opcode": "SetRandState2", "inputs": ["st2"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["r"]},
            {"opcode": "Rand2", "outputs": ["f"]},
            {"opcode": "GetRandState", "outputs": ["after"]},
        ]})

    # Operand views: a partition subset with a step, partition_step 0 (one
    # partition visited three times: its stream continues), a tensor placed
    # at partition 40, a multi-dimensional free shape, and HBM (partition 0).
    write("partition_views.json", {
        "tensors": [t("st", "uint32", [128, 6], data=words(768)),
                    t("a", "uint32", [16, 7]), t("b", "uint32", [3, 5]),
                    t("c", "uint32", [4, 6], partition=40), t("d", "uint32", [2, 3, 5]),
                    t("h", "uint32", [2, 9], memory="hbm"), t("f", "float32", [16, 7]),
                    t("tail", "uint32", [128, 3])],
        "instructions": [
            {"opcode": "SetRandState", "inputs": ["st"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": [{"tensor": "a", "partition": 3, "partitions": 5,
                                                            "partition_step": 2}]},
            {"opcode": "Rand", "algorithm": 0, "outputs": [{"tensor": "b", "partition": 1, "partitions": 3,
                                                            "partition_step": 0}]},
            {"opcode": "Rand", "algorithm": 2, "outputs": ["c"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["d"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["h"]},
            {"opcode": "Rand2", "is_2x1p": True, "outputs": [{"tensor": "f", "partition": 8, "partitions": 8}]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["tail"]},
        ]})

    # Large rows: the plugin writes through sub-APs of whole partitions
    # (256 KiB staging: 7 rows of 9000, or 8 for the kernels that run 8
    # partitions side by side), so these runs cross many chunks, with
    # partition steps. PCG32 runs twice, so its jump-ahead chains go on from
    # where the first call left each state, then the states are read back.
    write("big_chunks.json", {
        "tensors": [t("st", "uint32", [128, 6], data=words(768)), t("a", "uint32", [128, 9000]),
                    t("b", "uint32", [128, 9000]), t("f", "float32", [128, 9000]),
                    t("c", "uint32", [128, 4501]), t("g", "uint32", [128, 6])],
        "instructions": [
            {"opcode": "SetRandState", "inputs": ["st"]},
            {"opcode": "SetRandState2", "seed": 2024},
            {"opcode": "Rand", "algorithm": 0, "outputs": ["a"]},
            {"opcode": "Rand", "algorithm": 2, "outputs": [{"tensor": "b", "partition": 1, "partitions": 20,
                                                            "partition_step": 5}]},
            {"opcode": "Rand2", "is_2x1p": True, "outputs": [{"tensor": "f", "partitions": 43,
                                                              "partition_step": 3}]},
            {"opcode": "Rand", "algorithm": 1, "outputs": [{"tensor": "c", "partition": 2, "partitions": 41,
                                                            "partition_step": 3}]},
            {"opcode": "Rand", "algorithm": 1, "outputs": [{"tensor": "c", "partition": 0, "partitions": 64,
                                                            "partition_step": 2}]},
            {"opcode": "GetRandState", "outputs": ["g"]},
        ]})

    # Quirk rng.rand2_half_open: a lane whose first draw has all 23 mantissa
    # bits set (words [0, 1, 0, 0, 0, 0x7FFFFF - 362437]) gives the largest u,
    # 1 - 2^-23; over [1e8, 1e8 + 16] fp32 rounding lands exactly on max.
    lane = [0, 1, 0, 0, 0, 0x7FFFFF - 362437]
    row = [lane[w] for w in range(6) for _ in range(4)]
    write("half_open_max.json", {
        "tensors": [t("st", "uint32", [2, 24], data=row * 2), t("f", "float32", [2, 1]),
                    t("g", "float32", [2, 1])],
        "instructions": [
            {"opcode": "SetRandState2", "inputs": ["st"]},
            {"opcode": "Rand2", "min": 100000000, "max": 100000016, "outputs": [{"tensor": "f", "partitions": 1}]},
            {"opcode": "Rand2", "outputs": [{"tensor": "f", "partition": 1, "partitions": 1}]},
            {"opcode": "SetRandState2", "inputs": ["st"]},
            {"opcode": "Rand2", "min": 5, "max": -5, "outputs": ["g"]},
        ]})

    # Rng (IT 100) is skipped (unknown_opcode = "skip"): its output keeps its
    # fill and the streams do not move.
    write("rng_skipped.json", {
        "tensors": [t("x", "uint32", [4, 8], fill=7), t("r", "uint32", [4, 8])],
        "instructions": [
            {"opcode": 100, "outputs": ["x"]},
            {"opcode": "Rand", "algorithm": 1, "outputs": ["r"]},
        ]})

    # ---- errors (run with progtest.py --expect-error) ----
    def err(name, tensors, ins):
        # every error program has a tensor r, the output the test asks for
        # (so progtest.py can check that a failed run leaves no file)
        if not any(x["name"] == "r" for x in tensors):
            tensors = tensors + [t("r", "uint32", [4, 8], fill=3)]
        write(name, {"tensors": tensors, "instructions": ins})

    u8x6 = t("s", "uint32", [4, 6], fill=1)
    err("err_algorithm.json", [t("r", "uint32", [4, 8])], [{"opcode": "Rand", "algorithm": 7, "outputs": ["r"]}])
    err("err_algorithm_missing.json", [t("r", "uint32", [4, 8])], [{"opcode": "Rand", "outputs": ["r"]}])
    err("err_rand_dtype.json", [t("r", "float32", [4, 8])], [{"opcode": "Rand", "algorithm": 0, "outputs": ["r"]}])
    err("err_rand2_dtype.json", [t("r", "uint32", [4, 8])], [{"opcode": "Rand2", "outputs": ["r"]}])
    err("err_state_size.json", [t("s", "uint32", [4, 5], fill=1)], [{"opcode": "SetRandState", "inputs": ["s"]}])
    err("err_state_engine_size.json", [t("s", "uint32", [4, 24], fill=1)],
        [{"opcode": "SetRandState", "inputs": ["s"]}])
    err("err_get_size.json", [t("s", "uint32", [4, 7])], [{"opcode": "GetRandState2", "outputs": ["s"]}])
    err("err_state_dtype.json", [t("s", "int32", [4, 6], fill=1)], [{"opcode": "SetRandState", "inputs": ["s"]}])
    err("err_engine.json", [u8x6], [{"opcode": "SetRandState", "engine": 3, "inputs": ["s"]}])
    err("err_min_gt_max.json", [t("f", "float32", [4, 8])],
        [{"opcode": "Rand2", "min": 5, "max": -5, "outputs": ["f"]}])
    err("err_wire_seed_len.json", [], [{"opcode": "SetRandState", "seed": [1, 2, 3, 4, 5, 6, 7]}])
    err("err_wire_seed_range.json", [], [{"opcode": "SetRandState", "seed": [1, 2, 3, 4294967296, 5, 6, 7, 8]}])
    err("err_scalar_engine1.json", [], [{"opcode": "SetRandState", "seed": 5}])
    err("err_list_engine5.json", [], [{"opcode": "SetRandState2", "seed": [1, 2, 3, 4, 5, 6, 7, 8]}])
    err("err_seed_string.json", [], [{"opcode": "SetRandState2", "seed": "12abc"}])
    err("err_seed_negative.json", [], [{"opcode": "SetRandState2", "seed": -1}])
    # 2^54 + 1: as a double it would read 18014398509481984; the message shows the file's text
    err("err_steps_range.json", [], [{"opcode": "Rand", "algorithm": 1, "rand_num_steps": 18014398509481985,
                                      "outputs": ["r"]}])
    err("err_both.json", [u8x6], [{"opcode": "SetRandState", "seed": [1, 2, 3, 4, 5, 6, 7, 8], "inputs": ["s"]}])
    err("err_no_seed.json", [], [{"opcode": "SetRandState"}])
    err("err_get_operands.json", [u8x6], [{"opcode": "GetRandState", "inputs": ["s"], "outputs": ["s"]}])
    err("err_lane_flags.json", [t("f", "float32", [4, 8])],
        [{"opcode": "Rand2", "is_2x1p": True, "is_4x2p": True, "outputs": ["f"]}])
    err("err_uninit_state.json", [t("s", "uint32", [4, 6])], [{"opcode": "SetRandState", "inputs": ["s"]}])
    # A failing instruction after successful ones: no output file is left.
    err("err_after_rand.json", [t("r", "uint32", [4, 8]), t("f", "uint32", [4, 8])],
        [{"opcode": "Rand", "algorithm": 1, "outputs": ["r"]}, {"opcode": "Rand2", "outputs": ["f"]}])


if __name__ == "__main__":
    main()
