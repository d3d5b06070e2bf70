"""What does keeping a whole Character Card on the sheet cost?

For each card in tests/data/cards: import (read, check, TOML text), reading the sheet back (the card's
JSON parsed and its lorebook checked on every read, the prompt built from [card]) side by side with the
same sheet without `[card] original` (what a sheet cost before cards were kept whole), and export as
JSON and as a PNG card. Median of --reps runs each, in milliseconds.

    .venv/bin/python bench/bench_cards.py [--reps 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tomlkit  # noqa: E402

from studio.model import load_character  # noqa: E402
from studio.model.cards import card_from_sheet, card_json, card_png, card_to_toml, read_card  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "cards"


def median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    from studio.export.portrait import portrait_png

    image = portrait_png("Bench")
    print(f"{'card':<24} {'KB':>6} {'import':>8} {'read':>8} {'read w/o':>9} {'JSON out':>9} {'PNG out':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(DATA.iterdir()):
            if path.suffix not in (".json", ".png") or path.name in ("Eldoria.json", "Toaru.json"):
                continue
            card = read_card(path)
            text, sheet, _ = card_to_toml(path, card)
            whole = Path(tmp) / "whole.toml"
            whole.write_text(text)
            doc = tomlkit.parse(text)
            del doc["card"]["original"]
            bare = Path(tmp) / "bare.toml"
            bare.write_text(tomlkit.dumps(doc))
            row = [
                median_ms(lambda p=path: card_to_toml(p, read_card(p)), args.reps),
                median_ms(lambda w=whole: load_character(w), args.reps),
                median_ms(lambda b=bare: load_character(b), args.reps),
                median_ms(lambda s=sheet: card_json(card_from_sheet(s)), args.reps),
                median_ms(lambda s=sheet: card_png(card_from_sheet(s), image), args.reps),
            ]
            size = path.stat().st_size / 1024
            print(f"{path.name:<24} {size:>6.0f} " + " ".join(f"{v:>8.2f}" for v in row[:2])
                  + f" {row[2]:>9.2f} {row[3]:>9.2f} {row[4]:>8.2f}")


if __name__ == "__main__":
    main()
