#!/usr/bin/env python3
"""Paintable wall area of a rectangular room: the perimeter x the height, less 1.9 m2 for each
door and 1.5 m2 for each window."""

import argparse
import json

DOOR_M2 = 1.9
WINDOW_M2 = 1.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", type=float, required=True, help="the room's length in metres")
    parser.add_argument("--width", type=float, required=True, help="the room's width in metres")
    parser.add_argument("--height", type=float, required=True, help="the wall height in metres")
    parser.add_argument("--doors", type=int, default=0, help="how many doors (default 0)")
    parser.add_argument("--windows", type=int, default=0, help="how many windows (default 0)")
    args = parser.parse_args()
    if min(args.length, args.width, args.height) <= 0 or args.doors < 0 or args.windows < 0:
        parser.error("sizes must be positive and counts not negative")
    gross = 2 * (args.length + args.width) * args.height
    area = gross - args.doors * DOOR_M2 - args.windows * WINDOW_M2
    if area <= 0:
        parser.error("the doors and windows take up more than the walls")
    print(json.dumps({
        "length": args.length,
        "width": args.width,
        "height": args.height,
        "doors": args.doors,
        "windows": args.windows,
        "wall_area_m2": round(area, 2),
    }))


if __name__ == "__main__":
    main()
