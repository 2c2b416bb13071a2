#!/usr/bin/env python3
"""Monthly payment of a fixed-rate loan repaid in equal monthly instalments (amortisation)."""

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--principal", type=float, required=True, help="the amount borrowed")
    parser.add_argument("--annual-rate", type=float, required=True, help="the yearly interest rate, in percent")
    parser.add_argument("--years", type=float, required=True, help="the term of the loan, in years")
    args = parser.parse_args()
    if args.principal <= 0 or args.annual_rate < 0 or args.years <= 0:
        parser.error("principal and years must be positive and the rate not negative")
    months = round(args.years * 12)
    if months < 1:
        parser.error("the term is shorter than one month")
    monthly_rate = args.annual_rate / 100 / 12
    if monthly_rate == 0:
        payment = args.principal / months
    else:
        payment = args.principal * monthly_rate / (1 - (1 + monthly_rate) ** -months)
    total = payment * months
    print(json.dumps({
        "principal": args.principal,
        "annual_rate": args.annual_rate,
        "months": months,
        "monthly_payment": round(payment, 2),
        "total_paid": round(total, 2),
        "total_interest": round(total - args.principal, 2),
    }))


if __name__ == "__main__":
    main()
