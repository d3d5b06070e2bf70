"""How long `studio import` takes on a feature-length script, and whether scripts come back as they went.

A 120-page screenplay runs to about 6,000 lines. This bench builds one from the public-domain scenes under
tests/data/scripts/ (each scene repeated under a heading of its own, in Fountain, and the same script as
Final Draft), imports each into a fresh folder and database (reading, checking, writing the play and the
sheets, and committing every line through the engine), and reports the median of a few imports; the goal
is 2 s. Then it counts the round trip: the imported run exported and imported again, in both formats, and
the blocks (headings, speeches with their business, directions with their shape) that differ.

    .venv/bin/python bench/bench_import.py [--lines 6000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DATA = ROOT / "tests" / "data" / "scripts"


def feature_script(lines: int) -> str:
    """Hamlet's and the Cherry Orchard's scenes, in turn, each under a numbered heading, to `lines` lines."""
    from studio.export.fountain import read, render_speech, shaped

    scenes = []
    for name in ("hamlet.fountain", "cherry_orchard.fountain"):
        written = read((DATA / name).read_text(encoding="utf-8"))
        body = []
        for block in written.blocks:
            kind = type(block).__name__
            if kind == "Speech":
                body.append("\n".join(render_speech(block.character, block.parts, block.parenthetical,
                                                    block.extension, block.dual)))
            elif kind == "Direction":
                body.append(shaped(block.text, block.shape) if block.shape != "action" else "!" + block.text)
        scenes.append(body)
    out = ["Title: A Long Evening", "Author: The studio's bench", "", ""]
    n = 0
    while len("\n".join(out).splitlines()) < lines:
        body = scenes[n % len(scenes)]
        n += 1
        out.append(f".INT. THE HOUSE, ROOM {n} - NIGHT\n")
        out.extend(paragraph + "\n" for paragraph in body)
    return "\n".join(out) + "\n"


def import_once(source: Path) -> tuple[float, int, object]:
    from studio.export.importing import import_script
    from studio.store import Store

    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    store = Store(work / "studio.db")
    start = time.perf_counter()
    done = import_script(source, work, store, model="scripted")
    return time.perf_counter() - start, done.run_id, store


def blocks(store, run_id: int) -> list[tuple]:
    from studio.export.script import Direction, Heading, Speech, build_script

    out = []
    for block in build_script(store, run_id).blocks:
        if isinstance(block, Heading):
            out.append(("heading", block.title.upper(), " ".join(block.brief.split())))
        elif isinstance(block, Speech):
            parts = ([("business", block.parenthetical)] if block.parenthetical else []) + [
                (k, " ".join(t.split())) for k, t in block.parts]
            out.append(("speech", block.character.upper(), tuple(parts), block.extension, block.dual))
        elif isinstance(block, Direction):
            out.append(("direction", " ".join(block.text.split()), block.shape))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=6000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from studio.export import render
    from studio.export.script import build_script

    folder = Path(tempfile.mkdtemp(prefix="bench-import-src-"))
    fountain = folder / "long.fountain"
    fountain.write_text(feature_script(args.lines), encoding="utf-8")
    loadavg = os.getloadavg()[0]
    print(f"script: {len(fountain.read_text().splitlines()):,} lines of Fountain; load {loadavg:.1f}")
    times = []
    for _ in range(args.repeats):
        seconds, run_id, store = import_once(fountain)
        times.append(seconds)
    fdx = folder / "long.fdx"
    fdx.write_text(render(build_script(store, run_id), "fdx"), encoding="utf-8")
    fdx_times = [import_once(fdx)[0] for _ in range(args.repeats)]
    events = len(store.take(run_id))
    print("| script | events | median | slowest | goal |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| Fountain, {args.lines:,} lines | {events:,} | {statistics.median(times):.2f} s | {max(times):.2f} s | 2 s |")
    print(f"| the same as Final Draft | {events:,} | {statistics.median(fdx_times):.2f} s | {max(fdx_times):.2f} s "
          "| 2 s |")
    print()
    print("| round trip | blocks | differing |")
    print("| --- | --- | --- |")
    original = blocks(store, run_id)
    for fmt in ("fountain", "fdx"):
        again = folder / f"again.{fmt}"
        again.write_text(render(build_script(store, run_id), fmt), encoding="utf-8")
        _, second, store2 = import_once(again)
        back = blocks(store2, second)
        differing = sum(1 for a, b in zip(original, back) if a != b) + abs(len(original) - len(back))
        print(f"| import, export as {fmt}, import again | {len(original):,} | {differing} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
