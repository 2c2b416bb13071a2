#!/usr/bin/env python3
"""Times `skills stale` over an audit log of 100,000 records (issue 35's bound: 1 s).

    python3 benches/stale_speed.py target/release/skills [--records 100000] [--runs 5]

The binary is given, never built here. In a temporary HOME: 100 skills under `skills/`, the
agent's audit log (`~/.local/state/skillful/audit/audit.jsonl`) holding `--records` records of
`load_skill` calls spread over the skills and the last 120 days (each a whole record as
`skills run` writes them, chained by `prev` and numbered), and a record of evaluations of half the
skills. Each run is `skills stale ROOT --json`, timed with `time.perf_counter` around the process
after one warm-up run; prints the median, minimum and maximum. Exit 1 when the median is above
the bound.
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

BOUND = 1.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        home = Path(home)
        root = home / "skills"
        for n in range(100):
            skill = root / f"skill-{n:03}"
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_text(
                f"---\nname: skill-{n:03}\ndescription: Skill number {n}.\n---\nBody.\n")
        state = home / ".local/state/skillful"
        audit = state / "audit"
        audit.mkdir(parents=True, mode=0o700)
        os.chmod(state, 0o700)
        start = datetime.now(timezone.utc) - timedelta(days=120)
        step = timedelta(days=120) / args.records
        prev = None
        with open(audit / "audit.jsonl", "w") as log:
            for seq in range(args.records):
                record = {
                    "seq": seq,
                    "time": (start + step * seq).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                    "prev": prev, "event": "tool_call", "user": "bench", "session": f"s{seq // 10}",
                    "host": "skills run", "actor": "model", "tool": "load_skill",
                    "call_id": f"call-{seq}",
                    "skill": {"name": f"skill-{(seq * 7) % 90:03}", "origin": "files",
                              "scope": "explicit", "location": None, "digest": None},
                    "args_digest": "0" * 64, "args": {"skillName": f"skill-{(seq * 7) % 90:03}"},
                    "decision": "approved", "decided_by": "rule: auto-approve read-only",
                    "is_error": False, "duration_us": 1200,
                }
                line = json.dumps(record, separators=(",", ":"))
                prev = hashlib.sha256(line.encode()).hexdigest()
                log.write(line + "\n")
        os.chmod(audit / "audit.jsonl", 0o600)
        with open(state / "eval-record.jsonl", "w") as record:
            for n in range(0, 100, 2):
                record.write(json.dumps({
                    "time": "2026-12-01T00:00:00Z", "skill": f"skill-{n:03}", "digest": None,
                    "model": None, "mode": "guided", "runs": 3, "pass_rate": 0.8,
                    "baseline": 0.2, "passed": True}) + "\n")
        os.chmod(state / "eval-record.jsonl", 0o600)
        env = dict(os.environ, HOME=str(home), XDG_STATE_HOME=str(home / ".local/state"),
                   XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
                   SKILLS_ADMIN_DIR=str(home / "none"))
        env.pop("RUST_LOG", None)
        command = [args.binary, "stale", "--json", str(root)]
        times = []
        for run in range(args.runs + 1):
            began = time.perf_counter()
            done = subprocess.run(command, env=env, cwd=home, capture_output=True)
            elapsed = time.perf_counter() - began
            if done.returncode not in (0, 1):
                sys.exit(f"skills stale failed ({done.returncode}): {done.stderr.decode()}")
            if run > 0:
                times.append(elapsed)
        stale = json.loads(done.stdout)
        median = statistics.median(times)
        print(f"skills stale over {args.records:,} audit records, 100 skills "
              f"({len(stale)} stale): median {median:.3f} s, min {min(times):.3f} s, "
              f"max {max(times):.3f} s, {args.runs} runs; bound {BOUND} s: "
              f"{'met' if median <= BOUND else 'MISSED'}")
        sys.exit(0 if median <= BOUND else 1)


if __name__ == "__main__":
    main()
