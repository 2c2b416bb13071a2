#!/usr/bin/env python3
"""Litres of paint for an area and a number of coats, at a coverage in m2 per litre, and how many
2.5-litre tins that is."""

import argparse
import json
import math


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--area", type=float, required=True, help="the area to paint in m2 (from scripts/wall_area.py)")
    parser.add_argument("--coats", type=int, required=True, help="how many coats")
    parser.add_argument("--coverage", type=float, default=10.0, help="m2 one litre covers (default 10)")
    args = parser.parse_args()
    if args.area <= 0 or args.coats < 1 or args.coverage <= 0:
        parser.error("area and coverage must be positive, coats at least 1")
    litres = args.area * args.coats / args.coverage
    print(json.dumps({
        "area_m2": args.area,
        "coats": args.coats,
        "coverage_m2_per_litre": args.coverage,
        "litres": round(litres, 2),
        "tins_2_5_litre": math.ceil(round(litres / 2.5, 6)),
    }))


if __name__ == "__main__":
    main()
