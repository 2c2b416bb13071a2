#!/usr/bin/env python3
"""Checks the evaluation set in this directory: every skill's frontmatter, the paths its body
names, its scripts (run with each eval's arguments, the output matched by the eval's regex), its
example (run and compared with the output the body shows; its values unlike the evals'), its
triggers, and unrelated.json. Prints one line per skill and exits 1 on any failure.

Usage: python3 tests/eval-set/check.py [SKILL ...]
"""

import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKILLS = HERE / "skills"

NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
PATH_RE = re.compile(r"(?<![\w/])((?:scripts|references|assets)/[A-Za-z0-9_.\-/]*[A-Za-z0-9_])")
NUMBER_RE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d])")
WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
         "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "half": 0.5}
WORD_RE = re.compile(r"\b(" + "|".join(WORDS) + r")\b", re.IGNORECASE)
# Constructs Rust's `regex` crate does not support.
RUST_UNSUPPORTED = [r"(?=", r"(?!", r"(?<=", r"(?<!", r"(?P=", r"\1", r"\2", r"(?>", r"\Z"]
FIELDS = {"name", "description", "license", "compatibility", "metadata"}
METADATA = {"author": "skillful-eval", "version": "1.0", "risk": "read"}
BODY_LIMIT = 1500
REFERENCE_LIMIT = 2000


# ---------------------------------------------------------------- frontmatter

def split_frontmatter(text):
    if not text.startswith("---\n"):
        raise ValueError("SKILL.md does not start with a '---' line")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise ValueError("the frontmatter has no closing '---' line")
    return text[4:end + 1], text[end + 5:]


def scalar(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_yaml_subset(source):
    """Top-level `key: value` pairs and one level of indented mappings; all values strings."""
    data, current = {}, None
    for line in source.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith((" ", "\t")):
            if current is None:
                raise ValueError(f"indented line outside a mapping: {line!r}")
            key, _, value = line.strip().partition(":")
            data[current][key.strip()] = scalar(value)
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise ValueError(f"not a 'key: value' line: {line!r}")
        key = key.strip()
        if value.strip():
            data[key], current = scalar(value), None
        else:
            data[key], current = {}, key
    return data


def parse_frontmatter(source):
    try:
        import yaml  # noqa: PLC0415
    except ImportError:
        return parse_yaml_subset(source)
    data = yaml.safe_load(source)
    if not isinstance(data, dict):
        raise ValueError("the frontmatter is not a mapping")
    return data


# ---------------------------------------------------------------- helpers

def numbers_in(text):
    """Every number in a text (digits, thousands separators, a few number words), as floats."""
    found = {float(m.group(1).replace(",", "")) for m in NUMBER_RE.finditer(text)}
    found |= {float(WORDS[m.group(1).lower()]) for m in WORD_RE.finditer(text)}
    return found


def argument_numbers(arguments):
    """The numbers among a JSON arguments value's values (numbers, and numbers inside strings)."""
    values = arguments.values() if isinstance(arguments, dict) else arguments if isinstance(arguments, list) else [arguments]
    found = set()
    for value in values:
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            found.add(float(value))
        elif isinstance(value, str):
            try:
                found |= argument_numbers(json.loads(value)) if value[:1] in "[{" else numbers_in(value)
            except json.JSONDecodeError:
                found |= numbers_in(value)
        elif isinstance(value, (list, dict)):
            found |= argument_numbers(value)
    return found


def command_line(arguments):
    """The runtime's mapping of JSON arguments to a command line."""
    def text(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return json.dumps(value)
        if isinstance(value, str):
            return value
        raise ValueError(f"argument {value!r} is not a string, number or boolean")

    if arguments is None:
        return []
    if isinstance(arguments, list):
        return [text(item) for item in arguments]
    if isinstance(arguments, dict):
        line = []
        for key, value in arguments.items():
            option = key if key.startswith("-") else f"--{key}"
            if value is True:
                line.append(option)
            elif value is False or value is None:
                continue
            else:
                line += [option, text(value)]
        return line
    raise ValueError("arguments must be a JSON object, array or null")


def run_script(skill_dir, script, argv):
    path = skill_dir / script
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(path), *argv], capture_output=True, text=True,
                          timeout=10, cwd=str(skill_dir))
    elapsed = time.monotonic() - started
    return proc, elapsed


def run_json(skill_dir, script, arguments, problems, what):
    argv = command_line(arguments)
    proc, elapsed = run_script(skill_dir, script, argv)
    if proc.returncode != 0:
        problems.append(f"{what}: {script} {argv} exited {proc.returncode}: {proc.stderr.strip()[:200]}")
        return None
    if elapsed > 1.0:
        problems.append(f"{what}: {script} took {elapsed:.2f}s")
    lines = proc.stdout.strip().splitlines()
    if len(lines) != 1:
        problems.append(f"{what}: {script} printed {len(lines)} lines, not one")
        return None
    try:
        return json.loads(lines[0])
    except json.JSONDecodeError:
        problems.append(f"{what}: {script} printed no JSON: {lines[0][:200]}")
        return None


def field(output, dotted):
    value = output
    for part in dotted.split("."):
        if isinstance(value, list):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(dotted)
    return value


def renderings(value):
    """How a model may write a result: as printed, with 2 decimals, with thousands separators."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return [str(value)]
    forms = [json.dumps(value), f"{value:.2f}", f"{value:,.2f}"]
    if float(value).is_integer():
        forms += [str(int(value)), f"{int(value):,}"]
    return list(dict.fromkeys(forms))


def value_in_arguments(value, argv):
    """A value of the question appears in the command line: numerically, or as text."""
    try:
        wanted = float(value.replace(",", ""))
    except ValueError:
        return any(value.lower() in arg.lower() for arg in argv)
    for arg in argv:
        for number in NUMBER_RE.finditer(arg):
            if math.isclose(float(number.group(1).replace(",", "")), wanted, rel_tol=1e-9):
                return True
    return False


def compile_regex(pattern, problems, what):
    for construct in RUST_UNSUPPORTED:
        if construct in pattern:
            problems.append(f"{what}: regex {pattern!r} uses {construct}, which Rust's regex lacks")
    try:
        return re.compile(pattern)
    except re.error as error:
        problems.append(f"{what}: regex {pattern!r} does not compile: {error}")
        return None


def example_section(body):
    match = re.search(r"^## Example\s*$(.*?)(?=^## |\Z)", body, re.MULTILINE | re.DOTALL)
    return match.group(1) if match else None


def example_runs(section):
    """(script, arguments, shown output) for each `Run scripts/x with ARGS` + fenced block."""
    runs = []
    pattern = re.compile(r"`(scripts/[^`]+)`\s+with\s+`([^`]+)`.*?```[a-z]*\n(.*?)\n```", re.DOTALL)
    for match in pattern.finditer(section):
        runs.append((match.group(1), match.group(2), match.group(3).strip()))
    return runs


# ---------------------------------------------------------------- one skill

def check_skill(skill_dir, skill_names):
    problems = []
    name = skill_dir.name
    skill_md = skill_dir / "SKILL.md"
    if not skill_md.is_file():
        return [f"no SKILL.md"], 0
    text = skill_md.read_text(encoding="utf-8")
    try:
        source, body = split_frontmatter(text)
        meta = parse_frontmatter(source)
    except ValueError as error:
        return [str(error)], 0

    # Frontmatter.
    scripts = sorted(p.relative_to(skill_dir).as_posix() for p in (skill_dir / "scripts").glob("*")
                     if p.is_file()) if (skill_dir / "scripts").is_dir() else []
    expected_fields = FIELDS if scripts else FIELDS - {"compatibility"}
    if set(meta) != expected_fields:
        problems.append(f"frontmatter fields {sorted(meta)}, expected {sorted(expected_fields)}")
    if meta.get("name") != name:
        problems.append(f"name {meta.get('name')!r} is not the directory name {name!r}")
    if not NAME_RE.match(name) or len(name) > 64:
        problems.append(f"name {name!r} is not lowercase letters, digits and hyphens within 64 chars")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip() or len(description) > 1024:
        problems.append("description is missing or longer than 1024 characters")
    elif "Use when" not in description:
        problems.append("description does not say 'Use when ...'")
    elif len(re.findall(r"[.!?](?:\s|$)", description)) > 2:
        problems.append("description has more than two sentences")
    if meta.get("license") != "MIT":
        problems.append(f"license is {meta.get('license')!r}, not MIT")
    if scripts:
        compatibility = meta.get("compatibility", "")
        if not (isinstance(compatibility, str) and compatibility.startswith("Needs python3 to run ")
                and compatibility.endswith(".")):
            problems.append(f"compatibility {compatibility!r} is not 'Needs python3 to run scripts/x.py.'")
        for script in scripts:
            if script not in str(compatibility):
                problems.append(f"compatibility does not name {script}")
    metadata = meta.get("metadata")
    if not isinstance(metadata, dict) or {k: str(v) for k, v in metadata.items()} != METADATA:
        problems.append(f"metadata is {metadata!r}, expected {METADATA}")
    elif not isinstance(metadata.get("version"), str):
        problems.append("metadata.version is not a string (quote it)")

    # Body and files.
    if len(body) > BODY_LIMIT:
        problems.append(f"the body has {len(body)} characters, more than {BODY_LIMIT}")
    named = set(PATH_RE.findall(body))
    for path in sorted(named):
        if not (skill_dir / path).exists():
            problems.append(f"the body names {path}, which does not exist")
    for script in scripts:
        if script not in named:
            problems.append(f"the body never names {script}")
    for reference in sorted((skill_dir / "references").glob("*")) if (skill_dir / "references").is_dir() else []:
        rel = reference.relative_to(skill_dir).as_posix()
        if rel not in named:
            problems.append(f"the body never names {rel}")
        if reference.suffix == ".md" and len(reference.read_text(encoding="utf-8")) > REFERENCE_LIMIT:
            problems.append(f"{rel} is longer than {REFERENCE_LIMIT} characters")
    for script in scripts:
        path = skill_dir / script
        if not os.access(path, os.X_OK):
            problems.append(f"{script} is not executable")
        source_text = path.read_text(encoding="utf-8")
        if not source_text.startswith("#!/usr/bin/env python3\n"):
            problems.append(f"{script} does not start with '#!/usr/bin/env python3'")
        for module in re.findall(r"^\s*(?:import|from)\s+([A-Za-z_][\w]*)", source_text, re.MULTILINE):
            if hasattr(sys, "stdlib_module_names") and module not in sys.stdlib_module_names:
                problems.append(f"{script} imports {module}, not in the standard library")
        proc, _ = run_script(skill_dir, script, [])
        if proc.returncode != 2 or proc.stdout.strip() or not proc.stderr.strip():
            problems.append(f"{script} without arguments exits {proc.returncode}, not 2 with a message on stderr")

    # The example.
    section = example_section(body)
    example_numbers = set()
    if section is None:
        problems.append("the body has no '## Example' section")
        section = ""
    else:
        runs = example_runs(section)
        prose = re.sub(r"```.*?```", " ", section, flags=re.DOTALL)
        for _, raw_args, _ in runs:
            # The arguments' values count, not the option names (`kcal-per-100g`).
            prose = prose.replace(f"`{raw_args}`", " ")
            try:
                example_numbers |= argument_numbers(json.loads(raw_args))
            except json.JSONDecodeError:
                pass
        example_numbers |= numbers_in(prose)
        if scripts and not runs:
            problems.append("the example shows no `scripts/x.py` with `ARGS` and its output")
        for script, raw_args, shown in runs:
            try:
                arguments = json.loads(raw_args)
                shown_json = json.loads(shown)
            except json.JSONDecodeError as error:
                problems.append(f"the example of {script} is not JSON: {error}")
                continue
            output = run_json(skill_dir, script, arguments, problems, "example")
            if output is not None and output != shown_json:
                problems.append(f"the example of {script} shows {shown}, the script prints {json.dumps(output)}")
        if scripts and sorted({run[0] for run in runs}) != scripts:
            problems.append(f"the example runs {sorted({run[0] for run in runs})}, not every script {scripts}")

    # evals.json.
    evals_path = skill_dir / "evals" / "evals.json"
    count = 0
    try:
        spec = json.loads(evals_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        problems.append(f"evals/evals.json: {error}")
        spec = {"evals": []}
    if spec.get("skill_name") != name:
        problems.append(f"evals.json skill_name is {spec.get('skill_name')!r}")
    cases = spec.get("evals", [])
    count = len(cases)
    if count < 3:
        problems.append(f"only {count} evals")
    ids = [case.get("id") for case in cases]
    if len(set(map(str, ids))) != len(ids):
        problems.append("eval ids are not unique")
    for case in cases:
        what = f"eval {case.get('id')}"
        prompt = case.get("prompt", "")
        if not prompt or not case.get("expected_output"):
            problems.append(f"{what}: no prompt or expected_output")
        regexes = [e["regex"] for e in case.get("expectations", []) if isinstance(e, dict) and "regex" in e]
        if not regexes:
            problems.append(f"{what}: no regex expectation")
        compiled = [r for r in (compile_regex(p, problems, what) for p in regexes) if r is not None]
        shared = numbers_in(prompt) & example_numbers
        if shared:
            problems.append(f"{what}: the prompt shares the example's values {sorted(shared)}")
        for regex in compiled:
            if regex.search(prompt):
                problems.append(f"{what}: regex {regex.pattern!r} already matches the prompt")
            if section and regex.search(section):
                problems.append(f"{what}: regex {regex.pattern!r} matches the body's example")
            if not regex.search(case.get("expected_output", "")):
                problems.append(f"{what}: regex {regex.pattern!r} does not match expected_output")
        script = case.get("expect_script")
        if not scripts:
            if any(k.startswith("expect_") for k in case):
                problems.append(f"{what}: an instruction-only skill's eval has expect_* fields")
            continue
        if script not in scripts:
            problems.append(f"{what}: expect_script {script!r} is not one of {scripts}")
            continue
        if "expect_arguments" not in case or not case.get("expect_script_values"):
            problems.append(f"{what}: no expect_arguments or expect_script_values")
            continue
        arguments = case["expect_arguments"]
        first = case.get("expect_first_script")
        if len(scripts) > 1 and not first:
            problems.append(f"{what}: a two-script skill's eval has no expect_first_script")
        if first:
            if first not in scripts or first == script:
                problems.append(f"{what}: expect_first_script {first!r} is wrong")
                continue
            first_output = run_json(skill_dir, first, case.get("expect_first_arguments"), problems, what)
            if first_output is None:
                continue
            try:
                handed = field(first_output, case["expect_first_result_field"])
            except (KeyError, IndexError, ValueError):
                problems.append(f"{what}: {first} prints no {case.get('expect_first_result_field')!r}")
                continue
            if not value_in_arguments(json.dumps(handed), command_line(arguments)):
                problems.append(f"{what}: {first}'s {handed} is not passed on to {script}")
        argv = command_line(arguments)
        for value in case["expect_script_values"]:
            if not isinstance(value, str):
                problems.append(f"{what}: expect_script_values item {value!r} is not a string")
            elif not value_in_arguments(value, argv):
                problems.append(f"{what}: {value!r} is not in the arguments {argv}")
        output = run_json(skill_dir, script, arguments, problems, what)
        if output is None:
            continue
        try:
            result = field(output, case.get("expect_result_field", ""))
        except (KeyError, IndexError, ValueError):
            problems.append(f"{what}: the output has no field {case.get('expect_result_field')!r}")
            continue
        for regex in compiled:
            for form in renderings(result):
                if not regex.search(form):
                    problems.append(f"{what}: regex {regex.pattern!r} does not match the result {form!r}")
            if not regex.search(json.dumps(output)) and not isinstance(result, str):
                problems.append(f"{what}: regex {regex.pattern!r} does not match the script's output")

    # triggers.json.
    try:
        triggers = json.loads((skill_dir / "evals" / "triggers.json").read_text(encoding="utf-8"))
        yes = [t for t in triggers if t.get("should_trigger") is True and isinstance(t.get("query"), str)]
        no = [t for t in triggers if t.get("should_trigger") is False and isinstance(t.get("query"), str)]
        if len(yes) < 2 or len(no) < 2 or len(yes) + len(no) != len(triggers):
            problems.append(f"triggers.json: {len(yes)} true and {len(no)} false queries, want 2 and 2")
    except (OSError, json.JSONDecodeError, AttributeError) as error:
        problems.append(f"evals/triggers.json: {error}")
    return problems, count


# ---------------------------------------------------------------- the set

def check_unrelated(skill_names):
    problems = []
    try:
        items = json.loads((HERE / "unrelated.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        return [str(error)], 0, 0
    near = [i for i in items if i.get("near") is not None]
    general = [i for i in items if i.get("near") is None]
    if len(items) < 14 or len(near) < 7 or len(general) < 7:
        problems.append(f"{len(items)} questions, {len(near)} near and {len(general)} general; want 14, 7 and 7")
    for item in items:
        if not isinstance(item.get("query"), str) or not item["query"].strip():
            problems.append(f"an item has no query: {item}")
        if item.get("near") is not None and item["near"] not in skill_names:
            problems.append(f"near {item['near']!r} is not a skill of the set")
    return problems, len(near), len(general)


def main():
    only = set(sys.argv[1:])
    skill_dirs = sorted(p for p in SKILLS.iterdir() if p.is_dir())
    names = {p.name for p in skill_dirs}
    failed = False
    total = 0
    for skill_dir in skill_dirs:
        if only and skill_dir.name not in only:
            continue
        problems, count = check_skill(skill_dir, names)
        total += count
        if problems:
            failed = True
            print(f"FAIL {skill_dir.name}: " + "; ".join(problems))
        else:
            print(f"ok   {skill_dir.name}: {count} evals")
    if not only:
        if len(skill_dirs) < 13:
            failed = True
            print(f"FAIL the set has {len(skill_dirs)} skills, fewer than 13")
        problems, near, general = check_unrelated(names)
        if problems:
            failed = True
            print("FAIL unrelated.json: " + "; ".join(problems))
        else:
            print(f"ok   unrelated.json: {near} near, {general} general")
        print(f"{len(skill_dirs)} skills, {total} evals: {'FAILED' if failed else 'all checks pass'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
