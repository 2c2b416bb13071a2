#!/usr/bin/env python3
"""Adds a tip to a bill and splits it between people; prints the amounts as JSON."""

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--total", type=float, required=True, help="the bill before the tip")
    parser.add_argument("--tip-percent", type=float, required=True, help="the tip, in percent")
    parser.add_argument("--people", type=int, required=True, help="how many share the bill")
    args = parser.parse_args()
    with_tip = args.total * (1 + args.tip_percent / 100)
    print(json.dumps({"with_tip": round(with_tip, 2), "per_person": round(with_tip / args.people, 2)}))


if __name__ == "__main__":
    main()
