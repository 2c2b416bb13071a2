#!/usr/bin/env python3
"""Months needed to clear a credit-card balance with a fixed monthly payment, interest charged
monthly at APR / 12. Positional arguments: BALANCE APR_PERCENT MONTHLY_PAYMENT."""

import json
import sys

USAGE = "usage: payoff.py BALANCE APR_PERCENT MONTHLY_PAYMENT (e.g. payoff.py 1000 20 50)"


def fail(message: str) -> None:
    print(f"error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    if len(sys.argv) != 4:
        fail(f"expected 3 arguments, got {len(sys.argv) - 1}")
    try:
        balance, apr, payment = (float(a.replace(",", "").lstrip("$£€")) for a in sys.argv[1:])
    except ValueError:
        fail("every argument must be a number")
    if balance <= 0 or apr < 0 or payment <= 0:
        fail("balance and payment must be positive and the APR not negative")
    monthly_rate = apr / 100 / 12
    if payment <= balance * monthly_rate:
        fail("the payment does not even cover the first month's interest; the balance never falls")
    owed = balance
    months = 0
    interest_total = 0.0
    paid_total = 0.0
    while owed > 1e-9:
        interest = round(owed * monthly_rate, 2)
        interest_total += interest
        owed += interest
        pay = min(payment, owed)
        owed = round(owed - pay, 2)
        paid_total += pay
        months += 1
        if months > 1200:
            fail("the balance is not paid off within 100 years")
    print(json.dumps({
        "balance": balance,
        "apr": apr,
        "monthly_payment": payment,
        "months": months,
        "years": round(months / 12, 1),
        "total_interest": round(interest_total, 2),
        "total_paid": round(paid_total, 2),
    }))


if __name__ == "__main__":
    main()
