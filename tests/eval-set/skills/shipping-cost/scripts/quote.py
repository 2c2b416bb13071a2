#!/usr/bin/env python3
"""Price of sending a parcel from the Netherlands with the ParcelPoint courier: looks up the
destination's zone in assets/zones.csv and the zone's tariff in assets/prices.csv, then charges
base + per-kg rate x the weight rounded up to the next half kilogram."""

import argparse
import csv
import json
import math
import sys
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def load(name: str) -> list:
    with open(ASSETS / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--country", required=True, help="the destination country, e.g. Spain")
    parser.add_argument("--weight-kg", type=float, required=True, help="the parcel's weight in kg")
    args = parser.parse_args()
    zones = {row["country"].strip().lower(): int(row["zone"]) for row in load("zones.csv")}
    zone = zones.get(args.country.strip().lower())
    if zone is None:
        known = sorted({row["country"] for row in load("zones.csv")})
        print(f"error: no zone for {args.country!r}; known countries: {', '.join(known)}", file=sys.stderr)
        sys.exit(2)
    tariff = next(row for row in load("prices.csv") if int(row["zone"]) == zone)
    if args.weight_kg <= 0:
        parser.error("the weight must be positive")
    if args.weight_kg > float(tariff["max_kg"]):
        print(f"error: zone {zone} takes parcels up to {tariff['max_kg']} kg", file=sys.stderr)
        sys.exit(2)
    billable = max(0.5, math.ceil(round(args.weight_kg * 2, 6)) / 2)
    price = float(tariff["base_eur"]) + float(tariff["per_kg_eur"]) * billable
    print(json.dumps({
        "country": args.country,
        "zone": zone,
        "weight_kg": args.weight_kg,
        "billable_kg": billable,
        "price_eur": round(price, 2),
    }))


if __name__ == "__main__":
    main()
