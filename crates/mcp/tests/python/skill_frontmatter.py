"""SKILL.md frontmatter as the Skills extension carries it: a JSON object holding every key the
author wrote, with the types YAML gives the values.

Shared by the final-form test server and client. PyYAML implements YAML 1.1, whose implicit
typing differs from YAML 1.2's core schema (`yes` is a boolean, `017` octal, `2024-01-01` a date,
`1_000` an integer); this loader resolves plain scalars by the 1.2 core schema only, so that
`version: 2.1` is the number 2.1, `2.1.0` and `yes` are strings, and nothing becomes a date.
Numbers without a JSON form (`.inf`, `.nan`) become null.
"""

import math
import re

import yaml


class CoreSchemaLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core-schema implicit typing."""


CoreSchemaLoader.yaml_implicit_resolvers = {}


def _resolve(tag, pattern, first):
    CoreSchemaLoader.add_implicit_resolver(tag, re.compile(pattern), list(first))


_resolve("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])
_resolve("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF")
_resolve("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789")
_resolve(
    "tag:yaml.org,2002:float",
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
    "-+0123456789.",
)


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _construct_float(loader, node):
    text = loader.construct_scalar(node).lower()
    if text.endswith(".inf") or text == ".nan":
        return None
    return float(text)


CoreSchemaLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
CoreSchemaLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


class FrontmatterError(ValueError):
    """A SKILL.md without a readable frontmatter mapping."""


def split(text):
    """The frontmatter text and the body of a SKILL.md: the frontmatter lies between a first
    line `---` and the next line that is exactly `---` (trailing spaces allowed)."""
    text = text[1:] if text.startswith("\ufeff") else text
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        raise FrontmatterError("it does not start with a --- line")
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    raise FrontmatterError("its frontmatter is not closed by a --- line")


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    return value


def load(text):
    """The frontmatter of a SKILL.md as a JSON-ready dict."""
    frontmatter, _ = split(text)
    try:
        value = yaml.load(frontmatter, Loader=CoreSchemaLoader)
    except yaml.YAMLError as error:
        raise FrontmatterError(f"its frontmatter is not YAML: {error}") from None
    if not isinstance(value, dict):
        raise FrontmatterError("its frontmatter is not a mapping")
    return _jsonable(value)


def first_difference(listed, fetched, path=""):
    """The path of the first field where two frontmatter values differ (keys in sorted order,
    numbers compared by value, booleans never equal to numbers), or None."""
    if isinstance(listed, dict) and isinstance(fetched, dict):
        for key in sorted(set(listed) | set(fetched)):
            inner = f"{path}.{key}" if path else key
            if key not in listed or key not in fetched:
                return inner
            found = first_difference(listed[key], fetched[key], inner)
            if found is not None:
                return found
        return None
    if isinstance(listed, list) and isinstance(fetched, list):
        if len(listed) != len(fetched):
            return path
        for index, (a, b) in enumerate(zip(listed, fetched)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if isinstance(listed, bool) or isinstance(fetched, bool):
        return None if listed is fetched else path
    numbers = (int, float)
    if isinstance(listed, numbers) and isinstance(fetched, numbers):
        return None if listed == fetched else path
    if type(listed) is not type(fetched) or listed != fetched:
        return path
    return None
