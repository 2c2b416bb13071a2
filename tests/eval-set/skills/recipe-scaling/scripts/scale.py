#!/usr/bin/env python3
"""Scales a recipe's ingredient amounts from one number of servings to another. One argument: a
JSON object {"from_servings": n, "to_servings": m, "ingredients": [{"name", "amount", "unit"}]}."""

import json
import sys

USAGE = ('usage: scale.py \'{"from_servings": 2, "to_servings": 3, '
         '"ingredients": [{"name": "rice", "amount": 150, "unit": "g"}]}\'')


def fail(message: str) -> None:
    print(f"error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def positive(value, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        fail(f"{what} must be a number, not {value!r}")
    if isinstance(value, bool) or number <= 0:
        fail(f"{what} must be a positive number")
    return number


def main() -> None:
    if len(sys.argv) != 2:
        fail(f"expected one JSON argument, got {len(sys.argv) - 1} arguments")
    try:
        recipe = json.loads(sys.argv[1])
    except json.JSONDecodeError as error:
        fail(f"the argument is not valid JSON: {error}")
    if not isinstance(recipe, dict):
        fail("the argument must be a JSON object")
    source = positive(recipe.get("from_servings"), "from_servings")
    target = positive(recipe.get("to_servings"), "to_servings")
    ingredients = recipe.get("ingredients")
    if not isinstance(ingredients, list) or not ingredients:
        fail("ingredients must be a non-empty list")
    factor = target / source
    scaled = []
    for index, item in enumerate(ingredients):
        if not isinstance(item, dict) or "amount" not in item:
            fail(f"ingredient {index} must be an object with \"name\", \"amount\" and \"unit\"")
        amount = positive(item["amount"], f"ingredient {index}'s amount")
        scaled.append({
            "name": str(item.get("name", f"ingredient {index + 1}")),
            "amount": round(amount * factor, 2),
            "unit": str(item.get("unit", "")),
        })
    print(json.dumps({"factor": round(factor, 4), "to_servings": recipe["to_servings"],
                      "ingredients": scaled}))


if __name__ == "__main__":
    main()
