#!/usr/bin/env python3
"""Builds the committed seed corpus fuzz/corpus/seed-<target>/ from the golden
vectors (tests/data/plan-vectors.jsonl) and tests/data/hostile/*.json.
Deterministic: the same vectors give the same files. Run from anywhere:
    python3 fuzz/make_seeds.py
"""
import hashlib, json, os, pathlib, shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"
vectors = [json.loads(l) for l in open(ROOT / "tests/data/plan-vectors.jsonl", encoding="utf-8") if l.strip()]

def mini(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True)

def pick():
    """Every named vector, one vector per distinct server error, every 6th generated one."""
    chosen, seen_err = [], set()
    for i, v in enumerate(vectors):
        err = v["expected"]["error"]
        key = None if err is None else err.split(" ")[0][:6]
        if not v["name"].startswith("gen-") or (err is not None and key not in seen_err) or i % 6 == 0:
            chosen.append(v)
            seen_err.add(key)
    return chosen

def node_configs(plan):
    """{services, chains} per node, as an agent holds them after the plan."""
    per = {}
    cmds = list(plan.get("local", []))
    for f in plan.get("federation", []):
        cmds.extend(f.get("commands", []))
    for c in cmds:
        cfg = per.setdefault(c["nodeId"], {"services": [], "chains": []})
        if c["command"] == "AddService":
            cfg["services"].extend(c["data"] if isinstance(c["data"], list) else [c["data"]])
        else:
            cfg["chains"].append(c["data"])
    return [per[k] for k in sorted(per)]

def write(target, name, text):
    d = OUT / f"seed-{target}"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text, encoding="utf-8")

def main():
    for t in ("plan", "check", "simulate", "lifecycle"):
        shutil.rmtree(OUT / f"seed-{t}", ignore_errors=True)
    chosen = pick()
    for v in chosen:
        n = v["name"]
        write("plan", n + ".json", mini(v["input"]))
    for i, v in enumerate(chosen[::2]):
        n = v["name"]
        kind = ["tunnel", "plan", "config", None][i % 4]
        write("check", n + "-input.json", mini({"doc": v["input"], "options": {"kind": "tunnel"} if kind == "tunnel" else {}}))
        write("check", n + "-plan.json", mini(v["expected"]))
        cfgs = node_configs(v["expected"])
        if cfgs:
            write("check", n + "-config.json", mini({"doc": cfgs[i % len(cfgs)], "options": {"kind": "config"}}))
    for i, v in enumerate(chosen[1::2]):
        n = v["name"]
        ids = sorted({c["nodeId"] for c in v["expected"].get("local", [])})
        dead = ids[1:2] if ids else []
        sc = {"dead": dead, "requests": 3 + i % 3, "gapMs": [1000, 0, 700000][i % 3], "seed": i}
        write("simulate", n + ".json", mini([v["expected"], sc]))
        if i % 4 == 0:
            write("simulate", n + "-input.json", mini([v["input"], {"dead": [str(d) for d in dead]}]))
    ok = [v for v in chosen if v["expected"]["error"] is None]
    for i in range(0, min(len(ok) - 1, 60), 2):
        a, b = ok[i], ok[i + 1]
        steps = [
            {"op": "apply", "input": a["input"]},
            {"op": "release", "unreachable": [f["nodeId"] for f in a["expected"]["federation"]][:1]},
            {"op": "apply", "plan": b["expected"]},
        ]
        if i % 4 == 0:
            steps.append({"op": "applyError", "failAt": 1, "input": a["input"]})
        write("lifecycle", a["name"] + ".json", mini(steps))
    # Hand-written hostile documents go to every target.
    hostile = ROOT / "tests/data/hostile"
    if hostile.is_dir():
        for f in sorted(hostile.iterdir()):
            if f.suffix == ".json" and f.stat().st_size <= 64 * 1024:
                for t in ("plan", "check", "simulate", "lifecycle"):
                    d = OUT / f"seed-{t}"
                    shutil.copyfile(f, d / ("hostile-" + f.name))
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file() and p.parent.name.startswith("seed-"))
    for t in ("plan", "check", "simulate", "lifecycle"):
        d = OUT / f"seed-{t}"
        print(f"seed-{t}: {len(list(d.iterdir()))} files")
    print(f"total {total} bytes")

main()
