#!/usr/bin/env python3
"""Concrete for a rectangular slab or base: length x width x depth plus a waste allowance, and
how many premix bags that takes at a bag's yield in m3."""

import argparse
import json
import math


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length-m", type=float, required=True, help="the slab's length in metres")
    parser.add_argument("--width-m", type=float, required=True, help="the slab's width in metres")
    parser.add_argument("--depth-cm", type=float, required=True, help="the slab's depth in centimetres")
    parser.add_argument("--bag-yield", type=float, required=True, help="m3 of concrete one bag makes (references/bag-yields.md)")
    parser.add_argument("--waste-percent", type=float, default=10.0, help="extra for spillage and uneven ground (default 10)")
    args = parser.parse_args()
    if min(args.length_m, args.width_m, args.depth_cm, args.bag_yield) <= 0 or args.waste_percent < 0:
        parser.error("sizes and the bag yield must be positive, waste not negative")
    volume = args.length_m * args.width_m * args.depth_cm / 100 * (1 + args.waste_percent / 100)
    print(json.dumps({
        "length_m": args.length_m,
        "width_m": args.width_m,
        "depth_cm": args.depth_cm,
        "waste_percent": args.waste_percent,
        "volume_m3": round(volume, 3),
        "bags": math.ceil(round(volume / args.bag_yield, 6)),
    }))


if __name__ == "__main__":
    main()
