#!/usr/bin/env python3
"""Times `skills add --list` of a 900-skill git repository and `skills list` over 1,000
installed skills (issue 33's bounds: 2 s and 0.5 s, warm).

    python3 benches/supply_speed.py /tmp/skills-perf [--runs 10] [--warmup 2]

The binary is given (argument, or SKILLS_BIN), never built here: build it with
`cargo build --release -p skillful-cli` first. Everything else happens in a temporary
directory, removed at the end (--keep keeps it):

- `repo900`: `make_corpus.py --skills 900` (3 references and a script per skill) committed to a
  fresh `git init` repository as `skills/<name>/...` beside a README; timed:
  `skills add --list file://<repo>` (a clone, discovery, and the scan of every candidate).
- `home`: a HOME (and XDG directories) of its own, into which a second repository of 1,000
  skills is installed with `skills add file://<repo1000> --all --yes --allow-findings` (the
  real install and its lock; not timed); timed: `skills list` there, from an empty working
  directory.

Each command runs --warmup times first (not counted), then --runs times; the wall-clock time of
each run is taken with `time.perf_counter` around the process. The median, minimum and maximum
are printed, with the load average before and after. Exit 1 when a median is above its bound
(so it can serve as a check; it is not part of CI's tests), 2 when a command fails.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKE_CORPUS = ROOT.parent / "shared" / "bench" / "make_corpus.py"

ADD_LIST_BOUND = 2.0
LIST_BOUND = 0.5


def run(cmd, env, cwd, quiet=True):
    """Runs cmd; exits 2 with its output if it fails."""
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        sys.exit(f"failed ({done.returncode}): {' '.join(map(str, cmd))}")
    if not quiet:
        sys.stdout.write(done.stdout)
    return done.stdout


def git_repo(corpus, skills, where, env):
    """A git repository at `where` holding `skills` generated skills under skills/."""
    where.mkdir(parents=True)
    run([sys.executable, str(corpus), str(where / "skills"), "--skills", str(skills)], env, where)
    (where / "README.md").write_text(f"# {skills} generated skills\n")
    run(["git", "init", "-q", "-b", "main"], env, where)
    run(["git", "add", "-A"], env, where)
    run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
         "commit", "-q", "-m", "skills"], env, where)
    return where


def timed(cmd, env, cwd, warmup, runs):
    """Wall-clock seconds of each of `runs` runs of cmd, after `warmup` uncounted ones."""
    for _ in range(warmup):
        run(cmd, env, cwd)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run(cmd, env, cwd)
        times.append(time.perf_counter() - start)
    return times


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(what, times, bound):
    median = statistics.median(times)
    met = median <= bound
    print(f"{what}: median {median:.3f} s, min {min(times):.3f} s, max {max(times):.3f} s, "
          f"{len(times)} runs; bound {bound} s: {'met' if met else 'MISSED'}")
    return met


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("skills_bin", nargs="?", default=os.environ.get("SKILLS_BIN"),
                        help="a release `skills` binary (default: $SKILLS_BIN)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--corpus", default=str(MAKE_CORPUS), help="make_corpus.py")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    if not args.skills_bin:
        sys.exit("usage: supply_speed.py SKILLS_BIN (or set SKILLS_BIN)")
    binary = str(Path(args.skills_bin).resolve())

    tmp = Path(tempfile.mkdtemp(prefix="supply-speed-"))
    try:
        home = tmp / "home"
        work = tmp / "work"
        for d in (home, work):
            d.mkdir()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("XDG_", "SKILLS_", "SKILLFUL_", "GIT_"))}
        env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                   XDG_DATA_HOME=str(home / ".local" / "share"),
                   XDG_STATE_HOME=str(home / ".local" / "state"),
                   XDG_CACHE_HOME=str(home / ".cache"), NO_COLOR="1")

        repo900 = git_repo(args.corpus, 900, tmp / "repo900", env)
        repo1000 = git_repo(args.corpus, 1000, tmp / "repo1000", env)

        print(f"binary {binary}; load average before: {load()}")
        add_list = [binary, "add", "--list", f"file://{repo900}"]
        offered = run(add_list, env, work).strip().splitlines()[-1]
        print(f"add --list: {offered}")
        add_times = timed(add_list, env, work, args.warmup, args.runs)

        start = time.perf_counter()
        run([binary, "add", f"file://{repo1000}", "--all", "--yes", "--allow-findings"],
            env, work)
        print(f"setup: installed 1,000 skills with `skills add --all --yes` in "
              f"{time.perf_counter() - start:.1f} s")
        listing = [binary, "list"]
        count = len(run(listing, env, work).strip().splitlines())
        print(f"list: {count} lines")
        list_times = timed(listing, env, work, args.warmup, args.runs)
        print(f"load average after: {load()}")

        ok = report("skills add --list file://<900-skill repo>", add_times, ADD_LIST_BOUND)
        ok &= report("skills list (1,000 installed)", list_times, LIST_BOUND)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
