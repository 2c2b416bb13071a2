#!/usr/bin/env python3
"""Daily food portion for a dog or cat: resting energy 70 x kg^0.75 kcal, times the life-stage
factor, divided by the food's energy density."""

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--weight-kg", type=float, required=True, help="the animal's weight in kg")
    parser.add_argument("--factor", type=float, required=True, help="the life-stage factor from references/energy-factors.md")
    parser.add_argument("--kcal-per-100g", type=float, required=True, help="the food's energy, kcal per 100 g (from the label)")
    parser.add_argument("--meals", type=int, default=1, help="meals a day to split the portion into (default 1)")
    args = parser.parse_args()
    if args.weight_kg <= 0 or args.factor <= 0 or args.kcal_per_100g <= 0 or args.meals < 1:
        parser.error("weight, factor and kcal per 100 g must be positive, meals at least 1")
    resting = 70 * args.weight_kg ** 0.75
    daily_kcal = resting * args.factor
    grams = daily_kcal / args.kcal_per_100g * 100
    print(json.dumps({
        "weight_kg": args.weight_kg,
        "factor": args.factor,
        "resting_kcal": round(resting, 1),
        "daily_kcal": round(daily_kcal),
        "daily_grams": round(grams),
        "meals": args.meals,
        "grams_per_meal": round(grams / args.meals),
    }))


if __name__ == "__main__":
    main()
