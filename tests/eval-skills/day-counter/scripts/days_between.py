#!/usr/bin/env python3
"""Counts the days from one date to another; prints the count as JSON."""

import argparse
import datetime
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--start", required=True, help="the first date, YYYY-MM-DD")
    parser.add_argument("--end", required=True, help="the second date, YYYY-MM-DD")
    args = parser.parse_args()
    start = datetime.date.fromisoformat(args.start)
    end = datetime.date.fromisoformat(args.end)
    print(json.dumps({"start": args.start, "end": args.end, "days": (end - start).days}))


if __name__ == "__main__":
    main()
