#!/usr/bin/env python3
"""Litres of fuel a car uses over a distance, from its consumption in litres per 100 km."""

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--distance-km", type=float, required=True, help="the one-way distance in km")
    parser.add_argument("--consumption", type=float, required=True, help="the car's consumption, litres per 100 km")
    parser.add_argument("--round-trip", action="store_true", help="count the way back too")
    args = parser.parse_args()
    if args.distance_km <= 0 or args.consumption <= 0:
        parser.error("distance and consumption must be positive")
    distance = args.distance_km * (2 if args.round_trip else 1)
    print(json.dumps({
        "distance_km": distance,
        "consumption": args.consumption,
        "litres": round(distance * args.consumption / 100, 2),
    }))


if __name__ == "__main__":
    main()
