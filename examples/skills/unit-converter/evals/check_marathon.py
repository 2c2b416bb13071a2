#!/usr/bin/env python3
"""Passes when the answer in OUTPUT_DIR/answer.md gives a marathon as 42.16 km (26.2 x 1.609344
= 42.1648), within rounding: a number from 42.15 to 42.17."""

import pathlib
import re
import sys


def main() -> int:
    answer = (pathlib.Path(sys.argv[1]) / "answer.md").read_text(encoding="utf-8", errors="replace")
    numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", answer.replace(",", ""))]
    close = [n for n in numbers if 42.15 <= n <= 42.17]
    if close:
        print(f"the answer gives {close[0]}")
        return 0
    print(f"no number from 42.15 to 42.17 in the answer; its numbers: {numbers[:10]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
