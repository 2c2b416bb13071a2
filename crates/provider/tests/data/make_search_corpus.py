#!/usr/bin/env python3
"""Regenerate search-corpus.json (the documents of the search-quality evaluation).

usage: make_search_corpus.py CORPORA_DIR REPO_ROOT > search-corpus.json

Copies only each skill's frontmatter `name` and `description` and its SKILL.md headings (outside
code fences) from the third-party corpora (CORPORA_DIR/<corpus>/skills/*/SKILL.md, with the
commit from CORPORA_DIR/<corpus>/SOURCE.txt) and from the repository's examples/skills. The
corpora's licence texts live in licenses/ beside this script.
"""
import json
import pathlib
import sys

import yaml

CORPORA = {
    "anthropics-skills": "licenses/anthropics-skills-LICENSE.txt",
    "obra-superpowers": "licenses/obra-superpowers-LICENSE.txt",
}


def read_skill(path):
    text = path.read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    meta = yaml.safe_load(front)
    headings, fenced = [], False
    for line in body.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            headings.append(line.lstrip("#").strip())
    return {"name": meta["name"], "description": meta["description"], "headings": headings}


corpora, repo = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
sources, skills = [], []
for corpus, licence in CORPORA.items():
    origin = (corpora / corpus / "SOURCE.txt").read_text(encoding="utf-8").strip()
    sources.append({"id": corpus, "origin": origin, "license_file": licence})
    for skill_md in sorted((corpora / corpus / "skills").glob("*/SKILL.md")):
        skills.append({"source": corpus, **read_skill(skill_md)})
sources.append({"id": "skillful-examples", "origin": "this repository's examples/skills",
                "license_file": None})
for skill_md in sorted((repo / "examples" / "skills").glob("*/SKILL.md")):
    skills.append({"source": "skillful-examples", **read_skill(skill_md)})
json.dump({"sources": sources, "skills": skills}, sys.stdout, indent=1, ensure_ascii=False)
print()
