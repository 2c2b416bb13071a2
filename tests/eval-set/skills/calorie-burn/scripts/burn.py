#!/usr/bin/env python3
"""Calories burned by an activity: MET x 3.5 x weight_kg / 200 per minute.
Positional arguments: MET WEIGHT_KG MINUTES."""

import json
import sys

USAGE = "usage: burn.py MET WEIGHT_KG MINUTES (e.g. burn.py 4.0 70 30)"


def fail(message: str) -> None:
    print(f"error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    if len(sys.argv) != 4:
        fail(f"expected 3 arguments, got {len(sys.argv) - 1}")
    try:
        met, weight, minutes = (float(a) for a in sys.argv[1:])
    except ValueError:
        fail("every argument must be a number")
    if met <= 0 or weight <= 0 or minutes <= 0:
        fail("MET, weight and minutes must be positive")
    per_minute = met * 3.5 * weight / 200
    print(json.dumps({
        "met": met,
        "weight_kg": weight,
        "minutes": minutes,
        "kcal_per_minute": round(per_minute, 2),
        "calories": round(per_minute * minutes),
    }))


if __name__ == "__main__":
    main()
