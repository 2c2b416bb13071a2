#!/usr/bin/env python3
"""The evaluation set (tests/eval-set) against a model server, through `skills run --json`.

Every skill of the set is offered at once, as in a user's library. Each eval's question and each
unrelated question is asked once per seed; the figures are printed per skill and in total, and
written as JSON (--out).

A run of an eval is *correct* when its answer matches the eval's expectation (a regex). Besides:
*loaded* (the eval's skill was loaded, and no other), *values* (a successful call of the eval's
script carried every value the eval names, e.g. the question's numbers). An unrelated question
is *correct* when no skill was loaded.

    python3 benches/eval_set.py --endpoint http://127.0.0.1:8091/v1 --mode guided \\
        --seeds 1 2 3 --out /tmp/eval-set-15b-guided.json

Needs a built `skills` (--skills-bin, default target/release/skills, else target/debug/skills).
It runs one question at a time; its seconds are wall-clock per question, model warm (a warm-up
question is asked first and not counted).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "tests" / "eval-set"


def skills_binary(given):
    if given:
        return given
    for build in ("release", "debug"):
        candidate = ROOT / "target" / build / "skills"
        if candidate.exists():
            return str(candidate)
    sys.exit("no skills binary: cargo build -p skillful-cli (or pass --skills-bin)")


def questions(only):
    """(skill or None, eval or unrelated entry) for every question of the set."""
    found = []
    for skill_dir in sorted((SET / "skills").iterdir()):
        if only and skill_dir.name not in only:
            continue
        evals = json.loads((skill_dir / "evals" / "evals.json").read_text())
        for case in evals["evals"]:
            found.append((skill_dir.name, case))
    if not only or "unrelated" in only:
        for entry in json.loads((SET / "unrelated.json").read_text()):
            found.append((None, entry))
    return found


def ask(args, prompt, seed):
    command = [
        args.skills_bin, "run", prompt, "--skills", str(SET / "skills"),
        "--endpoint", args.endpoint, "--approve", "all", "--json",
        "--seed", str(seed), "--mode", args.mode,
    ]
    if args.temperature is not None:
        command += ["--temperature", str(args.temperature)]
    if args.no_aids:
        command += ["--no-aids"]
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout,
                              stdin=subprocess.DEVNULL, env=dict(os.environ, NO_COLOR="1"))
    except subprocess.TimeoutExpired:
        # A run past the limit counts as wrong (no answer), with the limit as its seconds.
        return ({"answer": "", "steps": [], "stages": [],
                 "error": f"no answer within --timeout {args.timeout} s"}, float(args.timeout))
    seconds = time.monotonic() - started
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        report = {"answer": "", "steps": [], "stages": [], "error": done.stderr[-2000:]}
    return report, seconds


def same_value(wanted, given):
    if str(wanted).strip().lower() == str(given).strip().lower():
        return True
    try:
        return abs(float(wanted) - float(given)) < 1e-9
    except (TypeError, ValueError):
        return False


def carries(arguments, value):
    """Whether the script call's arguments carry `value` (a value of an object, an item of an
    array, or inside a JSON document passed as one argument)."""
    if isinstance(arguments, dict):
        return any(carries(item, value) for item in arguments.values())
    if isinstance(arguments, list):
        return any(carries(item, value) for item in arguments)
    if isinstance(arguments, str):
        text = arguments.strip()
        if text[:1] in "[{":
            try:
                return carries(json.loads(text), value)
            except json.JSONDecodeError:
                pass
        if same_value(value, text):
            return True
        return str(value).lower() in text.lower() and not str(value).replace(".", "").isdigit()
    return same_value(value, arguments)


def judge(skill, case, report):
    steps = report.get("steps", [])
    loads = [s for s in steps if s["tool"] == "load_skill" and not s["is_error"]]
    loaded = {s["arguments"].get("skillName") for s in loads}
    if skill is None:
        return {"correct": not loads, "loaded": sorted(loaded)}
    answer = report.get("answer", "")
    patterns = [e["regex"] for e in case.get("expectations", []) if "regex" in e]
    correct = all(re.search(p, answer) for p in patterns) and bool(patterns)
    values = True
    if case.get("expect_script"):
        calls = [s for s in steps if s["tool"] == "run_skill_script" and not s["is_error"]
                 and s["arguments"].get("scriptName") == case["expect_script"]]
        values = any(all(carries(c["arguments"].get("arguments"), v)
                         for v in case.get("expect_script_values", [])) for c in calls)
    return {"correct": correct, "loaded": sorted(loaded), "right_skill": loaded == {skill},
            "values": values}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--mode", default="guided", choices=["guided", "tools", "auto"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--temperature", type=float)
    parser.add_argument("--no-aids", action="store_true", help="tools mode without the aids")
    parser.add_argument("--only", nargs="*", help="skills (and `unrelated`) to ask about")
    parser.add_argument("--skills-bin")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--out", help="write every run as JSON here")
    args = parser.parse_args()
    args.skills_bin = skills_binary(args.skills_bin)

    asked = questions(set(args.only or []))
    # Warm-up: the engine's prompt cache and the binary's first start.
    ask(args, "What is 2 + 2?", args.seeds[0])
    runs = []
    for seed in args.seeds:
        for skill, case in asked:
            prompt = case["prompt"] if skill else case["query"]
            answered, seconds = ask(args, prompt, seed)
            verdict = judge(skill, case, answered)
            run = {"skill": skill or "unrelated", "near": None if skill else case.get("near"),
                   "prompt": prompt, "seed": seed, "seconds": round(seconds, 2),
                   "answer": answered.get("answer", "")[:400], **verdict,
                   "steps": answered.get("steps", []), "stages": answered.get("stages", []),
                   "error": answered.get("error")}
            runs.append(run)
            mark = "ok " if verdict["correct"] else "BAD"
            print(f"{mark} seed {seed} {seconds:5.1f}s {run['skill']:<20} {prompt[:60]!r} -> "
                  f"{run['answer'][:70]!r} loaded={verdict['loaded']}", flush=True)
    summarise(runs, args)
    if args.out:
        Path(args.out).write_text(json.dumps({"mode": args.mode, "no_aids": args.no_aids,
                                              "endpoint": args.endpoint,
                                              "seeds": args.seeds, "runs": runs}, indent=1))


def summarise(runs, args):
    print(f"\nmode {args.mode}, seeds {args.seeds}, {args.endpoint}")
    print(f"{'skill':<22} {'correct':>9} {'right skill':>12} {'values':>8} {'median s':>9}")
    by_skill = {}
    for run in runs:
        by_skill.setdefault(run["skill"], []).append(run)
    for skill, group in sorted(by_skill.items(), key=lambda item: item[0] == "unrelated"):
        correct = sum(r["correct"] for r in group)
        right = sum(r.get("right_skill", r["correct"]) for r in group)
        values = sum(r.get("values", True) for r in group)
        median = statistics.median(r["seconds"] for r in group)
        print(f"{skill:<22} {correct:>4}/{len(group):<4} {right:>6}/{len(group):<5} "
              f"{values:>3}/{len(group):<4} {median:>9.1f}")
    evals = [r for r in runs if r["skill"] != "unrelated"]
    unrelated = [r for r in runs if r["skill"] == "unrelated"]
    if evals:
        share = sum(r["correct"] for r in evals) / len(evals)
        print(f"evals: {sum(r['correct'] for r in evals)}/{len(evals)} correct ({share:.1%})")
    if unrelated:
        loading = [r for r in unrelated if not r["correct"]]
        near = [r for r in loading if r["near"]]
        print(f"unrelated: {len(loading)}/{len(unrelated)} loaded a skill "
              f"({len(near)} of them worded near a skill)")
    everything = [r["seconds"] for r in runs]
    print(f"seconds per question: median {statistics.median(everything):.1f}, "
          f"max {max(everything):.1f}")


if __name__ == "__main__":
    main()
