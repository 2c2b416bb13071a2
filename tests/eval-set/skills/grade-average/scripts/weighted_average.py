#!/usr/bin/env python3
"""Weighted average of scores. One argument: a JSON list of {"score": number, "weight": number}
(weights are percentages, credits or any positive numbers; they need not add up to 100)."""

import json
import sys

USAGE = 'usage: weighted_average.py \'[{"score": 70, "weight": 40}, {"score": 90, "weight": 60}]\''


def fail(message: str) -> None:
    print(f"error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def number(value, what: str) -> float:
    if isinstance(value, bool):
        fail(f"{what} must be a number")
    if isinstance(value, str):
        value = value.strip().rstrip("%")
    try:
        return float(value)
    except (TypeError, ValueError):
        fail(f"{what} must be a number, not {value!r}")


def main() -> None:
    if len(sys.argv) != 2:
        fail(f"expected one JSON argument, got {len(sys.argv) - 1} arguments")
    try:
        items = json.loads(sys.argv[1])
    except json.JSONDecodeError as error:
        fail(f"the argument is not valid JSON: {error}")
    if isinstance(items, dict) and isinstance(items.get("items"), list):
        items = items["items"]
    if not isinstance(items, list) or not items:
        fail("the argument must be a non-empty JSON list")
    total_weight = 0.0
    weighted = 0.0
    for index, item in enumerate(items):
        if not isinstance(item, dict) or "score" not in item or "weight" not in item:
            fail(f"item {index} must be an object with \"score\" and \"weight\"")
        score = number(item["score"], f"item {index}'s score")
        weight = number(item["weight"], f"item {index}'s weight")
        if weight < 0:
            fail(f"item {index}'s weight is negative")
        total_weight += weight
        weighted += score * weight
    if total_weight == 0:
        fail("the weights add up to zero")
    print(json.dumps({
        "items": len(items),
        "total_weight": round(total_weight, 4),
        "weighted_average": round(weighted / total_weight, 2),
    }))


if __name__ == "__main__":
    main()
