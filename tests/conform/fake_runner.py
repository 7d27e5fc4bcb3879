"""A stand-in for trnsim.conform_runner (tests/conform): each case folder run
through the trnsim CLI, its tensors written to out/ as [cores, *shape]."""
import json, os, shutil, subprocess, sys, tempfile
import numpy as np

def record_inputs(prog, d, path):
    """Append each float32 / bfloat16 / int32 input's raw bits to path (FAKE_INPUTS)."""
    dtypes = {t["name"]: t["dtype"] for t in prog["tensors"]}
    with open(path, "a") as out:
        for f in sorted(os.listdir(os.path.join(d, "in"))):
            dt = dtypes[f[:-4]]
            if dt in ("float32", "bfloat16", "int32", "int8"):
                a = np.load(os.path.join(d, "in", f))
                if a.dtype == np.float32:
                    a = a.view(np.uint32)
                out.write("%s %s\n" % (dt, " ".join(str(int(x)) for x in a.reshape(-1))))


def main(argv):
    """argv: [--config FILE] [--set KEY=VALUE]... DIR..., as the real runner takes them;
    the config and settings go to the CLI's run."""
    if os.environ.get("FAKE_ARGS"):
        with open(os.environ["FAKE_ARGS"], "a") as f:
            f.write(json.dumps(argv) + "\n")
    conf, dirs = [], []
    it = iter(argv)
    for a in it:
        if a in ("--config", "--set"):
            conf += [a, next(it)]
        else:
            dirs.append(a)
    exe = os.environ["TRNSIM_CLI"]
    flip = os.environ.get("FAKE_FLIP")
    for d in dirs:
        prog = json.load(open(os.path.join(d, "program.json")))
        if os.environ.get("FAKE_INPUTS"):
            record_inputs(prog, d, os.environ["FAKE_INPUTS"])
        cores = prog.get("cores", 1)
        args = [exe, "run", os.path.join(d, "program.json"), "--raw-bits", "--output-unwritten=zeros",
                *conf]
        ind = os.path.join(d, "in")
        split = tempfile.mkdtemp()  # per-core slices; in/ stays as conform wrote it
        for f in sorted(os.listdir(ind)):
            a = np.load(os.path.join(ind, f))
            name = f[:-4]
            for c in range(cores):
                p = os.path.join(split, "%s.core%d.npy" % (name, c))
                np.save(p, a[c])
                args += ["--input", "%s@%d=%s" % (name, c, p)]
        os.makedirs(os.path.join(d, "out"), exist_ok=True)
        for t in prog["tensors"]:
            for c in range(cores):
                args += ["--output", "%s@%d=%s" % (t["name"], c, os.path.join(d, "out", "%s.core%d.npy" % (t["name"], c)))]
        r = subprocess.run(args, capture_output=True, text=True)
        shutil.rmtree(split)
        if r.returncode:
            open(os.path.join(d, "error.txt"), "w").write(r.stderr)
            continue
        for i, t in enumerate(prog["tensors"]):
            parts = [np.load(os.path.join(d, "out", "%s.core%d.npy" % (t["name"], c))) for c in range(cores)]
            a = np.stack(parts)
            if flip and i == 0:
                a.view(np.uint8).reshape(-1)[0] ^= 1
            np.save(os.path.join(d, "out", t["name"] + ".npy"), a)

if __name__ == "__main__":
    main(sys.argv[1:])
