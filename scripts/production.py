#!/usr/bin/env python3
"""Production-kernel corpus: code objects from AMD's kernel libraries, fetched from the package
registries (never committed), checked with wavejit.

  scripts/production.py fetch            download and unpack the corpus into the cache
  scripts/production.py check [--all | --sample N] [--jobs J]
                                         for every code object (or a deterministic sample):
                                         it loads, `wavejit disasm` equals llvm-objdump-22 line
                                         for line (labels, symbolised branches and target
                                         annotations included), and every instruction decodes
                                         and lifts; prints the coverage table per library,
                                         family and target; fails on any difference.
  scripts/production.py list             print the cached code objects

Libraries (pinned, checked by SHA-256):
  aiter  the `amd-aiter` wheel on PyPI: AMD's hand-written assembly kernels (`.co`) for gfx942
         and gfx950 under aiter_meta/hsa/<target>/<family>/.

The cache is $WAVEJIT_PRODUCTION_CACHE, else ~/.cache/wavejit/production. Only the `.co` files
are unpacked (and the `.csv` tables that describe some families' kernels).

Sampling (`check` without --all): every N-th object in sorted path order (default N = 10),
plus every object of a family with fewer than N objects, so every family is checked.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import shutil
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("WAVEJIT_PRODUCTION_CACHE", Path.home() / ".cache/wavejit/production"))

LIBRARIES = {
    "aiter": {
        "package": "amd-aiter",
        "version": "0.1.7.post2.dev18",
        "file": "amd_aiter-0.1.7.post2.dev18-py3-none-any.whl",
        "sha256": "fe139d74438217c35e87e3b961166bac8db2d381eadccb371da2e63615f05a31",
        "prefix": "aiter_meta/hsa/",
    },
}

OBJDUMP = os.environ.get("OBJDUMP", "llvm-objdump-22")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch():
    CACHE.mkdir(parents=True, exist_ok=True)
    for lib, spec in LIBRARIES.items():
        archive = CACHE / spec["file"]
        if not archive.exists() or sha256(archive) != spec["sha256"]:
            # pip, the registry's own client, fetches the pinned wheel (no dependencies).
            tmpdir = CACHE / "download"
            shutil.rmtree(tmpdir, ignore_errors=True)
            print(f"production: pip download {spec['package']}=={spec['version']}", flush=True)
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--only-binary=:all:", "--dest", str(tmpdir),
                 f"{spec['package']}=={spec['version']}"],
                check=True,
            )
            tmp = tmpdir / spec["file"]
            if not tmp.exists():
                sys.exit(f"production: pip did not download {spec['file']}")
            got = sha256(tmp)
            if got != spec["sha256"]:
                tmp.unlink()
                sys.exit(f"production: {spec['file']}: SHA-256 {got}, expected {spec['sha256']}")
            tmp.rename(archive)
            shutil.rmtree(tmpdir, ignore_errors=True)
        dest = CACHE / lib
        stamp = dest / ".complete"
        if stamp.exists() and stamp.read_text() == spec["sha256"]:
            continue
        n = 0
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                name = info.filename
                if not name.startswith(spec["prefix"]) or not name.endswith((".co", ".csv")):
                    continue
                rel = name[len(spec["prefix"]):]
                if ".." in Path(rel).parts:
                    continue
                out = dest / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(z.read(info))
                n += name.endswith(".co")
        stamp.write_text(spec["sha256"])
        print(f"production: {lib}: {n} code objects in {dest}")


# Families of the objects directly under a target folder, by file-name prefix.
TOP_LEVEL = ("all_reduce", "allreduce", "layer_norm", "gemm_a8w8", "f8_block_scale", "flatmm",
             "fmoe", "pa")


def top_level_family(name):
    return next((f for f in TOP_LEVEL if name.startswith(f + "_") or name == f + ".co"),
                name.split("_")[0])


def corpus():
    """(library, target, family, path) of every cached code object, sorted by path."""
    out = []
    for lib in LIBRARIES:
        base = CACHE / lib
        if not (base / ".complete").exists():
            continue
        for p in sorted(base.rglob("*.co")):
            rel = p.relative_to(base).parts
            target = rel[0]
            family = rel[1] if len(rel) > 2 else top_level_family(rel[1])
            out.append((lib, target, family, p))
    return out


def sample(objs, every):
    if every <= 1:
        return objs
    per_family = collections.Counter((o[0], o[1], o[2]) for o in objs)
    return [o for i, o in enumerate(objs) if i % every == 0 or per_family[(o[0], o[1], o[2])] < every]


def target_dir():
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    return Path(json.loads(meta.stdout)["target_directory"])


def listing(lines):
    """The lines that matter of a disassembly: labels and instructions, right-trimmed."""
    keep = []
    for line in lines.splitlines():
        line = line.rstrip()
        if not line or line.startswith("Disassembly of section") or "file format" in line:
            continue
        keep.append(line)
    return keep


def compare_disasm(wavejit, path):
    """None when `wavejit disasm` equals llvm-objdump-22 on `path`, else a short diff."""
    want = subprocess.run([OBJDUMP, "-d", str(path)], capture_output=True, text=True)
    got = subprocess.run([str(wavejit), "disasm", str(path)], capture_output=True, text=True)
    if want.returncode != 0:
        return f"llvm-objdump failed: {want.stderr.strip()[:200]}"
    if got.returncode != 0:
        return f"wavejit disasm failed: {got.stderr.strip()[:200]}"
    a, b = listing(want.stdout), listing(got.stdout)
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i}:\n    llvm:    {x}\n    wavejit: {y}"
    return f"{len(a)} lines from llvm-objdump, {len(b)} from wavejit"


def lift_counts(lifter, paths):
    r = subprocess.run([str(lifter)] + [str(p) for p in paths], capture_output=True, text=True, check=True)
    out = {}
    for line in r.stdout.splitlines():
        f = line.split("\t")
        out[f[0]] = {
            "status": f[1], "kernels": int(f[3]), "instructions": int(f[4]),
            "undecoded": int(f[5]), "unlifted": int(f[6]), "failures": f[7] if len(f) > 7 else "",
        }
    return out


def check(args):
    objs = corpus()
    if not objs:
        msg = f"production: no corpus in {CACHE}; run `scripts/production.py fetch` first"
        if os.environ.get("CI") == "true":
            sys.exit(msg)
        print(msg + " (skipped)")
        return 0
    chosen = objs if args.all else sample(objs, args.sample)
    how = "all" if args.all or args.sample <= 1 else f"every {args.sample}th, plus small families whole"
    print(f"production: checking {len(chosen)} of {len(objs)} code objects ({how})", flush=True)
    subprocess.run(
        ["cargo", "build", "--release", "-q", "--bin", "wavejit", "--example", "production_lift"],
        cwd=ROOT, check=True,
    )
    tdir = target_dir() / "release"
    wavejit, lifter = tdir / "wavejit", tdir / "examples" / "production_lift"

    paths = [o[3] for o in chosen]
    batches = [paths[i:i + 40] for i in range(0, len(paths), 40)]
    counts, diffs = {}, {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for c in pool.map(lambda b: lift_counts(lifter, b), batches):
            counts.update(c)
        for p, d in zip(paths, pool.map(lambda p: compare_disasm(wavejit, p), paths)):
            if d is not None:
                diffs[str(p)] = d

    rows = collections.OrderedDict()
    failures = collections.Counter()
    status = 0
    for lib, target, family, p in chosen:
        c = counts[str(p)]
        r = rows.setdefault((lib, target, family), collections.Counter())
        r["objects"] += 1
        r["kernels"] += c["kernels"]
        r["instructions"] += c["instructions"]
        r["loaded"] += c["status"] == "ok"
        r["disasm_ok"] += str(p) not in diffs
        r["decoded"] += c["instructions"] - c["undecoded"]
        r["lifted"] += c["instructions"] - c["undecoded"] - c["unlifted"]
        for item in filter(None, c["failures"].split(",")):
            m, n = item.rsplit("=", 1)
            failures[f"{target} {m}"] += int(n)
        if c["status"] != "ok":
            print(f"FAIL {p}: {c['status']}")
            status = 1
        if c["undecoded"] or c["unlifted"]:
            status = 1
    for p, d in sorted(diffs.items()):
        print(f"FAIL {p}: disassembly differs from {OBJDUMP}: {d}")
        status = 1

    hdr = ("library", "target", "family", "objects", "kernels", "loaded", "disasm=llvm",
           "instructions", "decoded", "lifted")
    print()
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    tot = collections.Counter()
    per_target = collections.OrderedDict()
    for (lib, target, family), r in rows.items():
        print(f"| {lib} | {target} | {family} | {r['objects']} | {r['kernels']} | {r['loaded']} | "
              f"{r['disasm_ok']} | {r['instructions']} | {r['decoded']} | {r['lifted']} |")
        per_target.setdefault((lib, target), collections.Counter()).update(r)
        tot.update(r)
    for (lib, target), r in per_target.items():
        print(f"| **{lib}** | **{target}** | all | {r['objects']} | {r['kernels']} | {r['loaded']} | "
              f"{r['disasm_ok']} | {r['instructions']} | {r['decoded']} | {r['lifted']} |")
    print(f"| **total** | | | {tot['objects']} | {tot['kernels']} | {tot['loaded']} | "
          f"{tot['disasm_ok']} | {tot['instructions']} | {tot['decoded']} | {tot['lifted']} |")
    if failures:
        print("\ninstructions that do not decode (.long) or lift, by target:")
        for m, n in failures.most_common():
            print(f"  {m}: {n}")
    print(f"\nproduction: {'OK' if status == 0 else 'FAILED'}")
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("fetch")
    c = sub.add_parser("check")
    c.add_argument("--all", action="store_true", help="every code object (no sampling)")
    c.add_argument("--sample", type=int, default=10, help="check every N-th object (default 10)")
    c.add_argument("--jobs", type=int, default=2, help="parallel processes (default 2)")
    sub.add_parser("list")
    args = ap.parse_args()
    if args.cmd == "fetch":
        fetch()
    elif args.cmd == "check":
        sys.exit(check(args))
    else:
        for lib, target, family, p in corpus():
            print(f"{lib}\t{target}\t{family}\t{p}")


if __name__ == "__main__":
    main()
