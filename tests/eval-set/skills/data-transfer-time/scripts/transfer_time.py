#!/usr/bin/env python3
"""Time to transfer a file at a connection speed. Positional arguments:
SIZE UNIT SPEED [SPEED_UNIT]; UNIT is KB, MB, GB or TB (powers of 1000) or KiB, MiB, GiB or TiB
(powers of 1024); SPEED_UNIT is kbps, Mbps (the default), Gbps or MB/s."""

import json
import sys

USAGE = "usage: transfer_time.py SIZE UNIT SPEED [SPEED_UNIT] (e.g. transfer_time.py 2 GB 40 Mbps)"
SIZES = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
         "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}
SPEEDS = {"kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "mb/s": 8e6}


def fail(message: str) -> None:
    print(f"error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def human(seconds: float) -> str:
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    if hours or minutes:
        parts.append(f"{minutes} min")
    parts.append(f"{secs} s")
    return " ".join(parts)


def main() -> None:
    if len(sys.argv) not in (4, 5):
        fail(f"expected 3 or 4 arguments, got {len(sys.argv) - 1}")
    unit = sys.argv[2].strip().lower()
    speed_unit = (sys.argv[4] if len(sys.argv) == 5 else "Mbps").strip().lower()
    if unit not in SIZES:
        fail(f"unknown size unit {sys.argv[2]!r}")
    if speed_unit not in SPEEDS:
        fail(f"unknown speed unit {sys.argv[4]!r}")
    try:
        size, speed = float(sys.argv[1]), float(sys.argv[3])
    except ValueError:
        fail("size and speed must be numbers")
    if size <= 0 or speed <= 0:
        fail("size and speed must be positive")
    seconds = size * SIZES[unit] * 8 / (speed * SPEEDS[speed_unit])
    print(json.dumps({
        "size": size,
        "unit": sys.argv[2],
        "speed": speed,
        "speed_unit": sys.argv[4] if len(sys.argv) == 5 else "Mbps",
        "seconds": round(seconds, 1),
        "minutes": round(seconds / 60, 2),
        "hours": round(seconds / 3600, 2),
        "duration": human(seconds),
    }))


if __name__ == "__main__":
    main()
