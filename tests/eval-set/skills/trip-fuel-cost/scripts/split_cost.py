#!/usr/bin/env python3
"""Cost of an amount of fuel and each traveller's share. Positional arguments:
LITRES PRICE_PER_LITRE [PEOPLE] (people defaults to 1)."""

import json
import sys

USAGE = "usage: split_cost.py LITRES PRICE_PER_LITRE [PEOPLE] (e.g. split_cost.py 40 1.5 2)"


def fail(message: str) -> None:
    print(f"error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    if len(sys.argv) not in (3, 4):
        fail(f"expected 2 or 3 arguments, got {len(sys.argv) - 1}")
    try:
        litres = float(sys.argv[1])
        price = float(sys.argv[2].lstrip("$£€"))
        people = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    except ValueError:
        fail("litres and price must be numbers and people a whole number")
    if litres <= 0 or price <= 0 or people < 1:
        fail("litres and price must be positive and people at least 1")
    total = litres * price
    print(json.dumps({
        "litres": litres,
        "price_per_litre": price,
        "people": people,
        "total_cost": round(total, 2),
        "per_person": round(total / people, 2),
    }))


if __name__ == "__main__":
    main()
