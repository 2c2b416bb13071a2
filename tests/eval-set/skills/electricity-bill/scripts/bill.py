#!/usr/bin/env python3
"""An electricity bill for a billing period: the tariff's unit rate x kWh used plus its daily
standing charge x days, plus VAT. Rates come from assets/tariffs.json."""

import argparse
import json
import sys
from pathlib import Path

TARIFFS = Path(__file__).resolve().parent.parent / "assets" / "tariffs.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tariff", required=True, help="the tariff's name, e.g. flex")
    parser.add_argument("--kwh", type=float, required=True, help="the electricity used, in kWh")
    parser.add_argument("--days", type=int, required=True, help="the days in the billing period")
    args = parser.parse_args()
    data = json.loads(TARIFFS.read_text(encoding="utf-8"))
    name = args.tariff.strip().lower().replace(" ", "-")
    tariff = data["tariffs"].get(name)
    if tariff is None:
        print(f"error: no tariff {args.tariff!r}; tariffs: {', '.join(data['tariffs'])}", file=sys.stderr)
        sys.exit(2)
    if args.kwh < 0 or args.days < 1:
        parser.error("kWh must not be negative and days must be at least 1")
    energy = args.kwh * tariff["unit_rate_per_kwh"]
    standing = args.days * tariff["standing_charge_per_day"]
    before_vat = energy + standing
    vat = before_vat * data["vat_percent"] / 100
    print(json.dumps({
        "tariff": name,
        "kwh": args.kwh,
        "days": args.days,
        "energy_cost": round(energy, 2),
        "standing_cost": round(standing, 2),
        "vat": round(vat, 2),
        "total_gbp": round(before_vat + vat, 2),
    }))


if __name__ == "__main__":
    main()
