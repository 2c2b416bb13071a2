#!/usr/bin/env python3
"""Entropy of a randomly generated password or passphrase: length x log2(pool size) bits, with a
strength rating."""

import argparse
import json
import math

RATINGS = [(28, "very weak"), (36, "weak"), (60, "fair"), (128, "strong")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", type=int, required=True, help="characters (or words, for a passphrase)")
    parser.add_argument("--pool", type=int, required=True, help="how many symbols each position is drawn from")
    args = parser.parse_args()
    if args.length < 1 or args.pool < 2:
        parser.error("length must be at least 1 and pool at least 2")
    bits = args.length * math.log2(args.pool)
    rating = next((name for limit, name in RATINGS if bits < limit), "very strong")
    print(json.dumps({
        "length": args.length,
        "pool": args.pool,
        "entropy_bits": round(bits, 1),
        "rating": rating,
    }))


if __name__ == "__main__":
    main()
