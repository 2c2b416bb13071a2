#!/usr/bin/env python3
"""Compounds a principal yearly at a rate for some years; prints the balance as JSON."""

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--principal", type=float, required=True, help="the amount put in")
    parser.add_argument("--rate", type=float, required=True, help="the yearly rate, in percent")
    parser.add_argument("--years", type=int, required=True, help="how many years")
    args = parser.parse_args()
    balance = args.principal * (1 + args.rate / 100) ** args.years
    print(json.dumps({"balance": round(balance, 2)}))


if __name__ == "__main__":
    main()
