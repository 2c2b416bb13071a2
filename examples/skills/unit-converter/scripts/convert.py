#!/usr/bin/env python3
"""Multiplies a value by a conversion factor and prints the result as JSON."""

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--value", type=float, required=True, help="the value to convert")
    parser.add_argument("--factor", type=float, required=True, help="the conversion factor")
    args = parser.parse_args()
    result = round(args.value * args.factor, 4)
    print(json.dumps({"value": args.value, "factor": args.factor, "result": result}))


if __name__ == "__main__":
    main()
