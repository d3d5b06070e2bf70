"""A key in a run two windows play, beside the same key alone: what asking first costs.

The app runs in-process (Textual's pilot, 100x30) on The Interview with the scripted model, a few turns
in. Alone, `r` rewinds at once: the clock stops when the stage has drawn the shorter take. Shared (another
window holds a lease on the run), `r` first asks: the clock stops when the ask's line is drawn; then Esc
leaves it. Each is pressed N times; the median and the worst are printed side by side. Goal: the ask
within the app's keypress budget, 20 ms median on 2 quiet cores.

    .venv/bin/python bench/bench_shared.py [--keys N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("STUDIO_TUI_NO_WARMUP", "1")


async def measure(db: Path, keys: int, shared: bool) -> list[float]:
    from studio.engine.forms import load_play, resolve_cast
    from studio.store import Store
    from studio.tui.app import StudioApp
    from studio.tui.widgets.lines import AskLine
    from studio.tui.widgets.stage import StageView

    path = ROOT / "plays" / "interview.toml"
    cast = resolve_cast(load_play(path).model_copy(update={"turns": 200}), path, model="scripted")
    store = Store(db)
    app = StudioApp(store, play=(path, cast, {}))
    drawn: dict[str, float] = {}
    watched = AskLine if shared else StageView
    render_line = watched.render_line

    def timed(self, y):  # the first row drawn after the press stops the clock
        if "press" in drawn and "frame" not in drawn and (not shared or self.display):
            drawn["frame"] = time.perf_counter()
        return render_line(self, y)

    watched.render_line = timed
    out: list[float] = []
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            screen = app.screen
            while getattr(screen, "engine", None) is None:
                await pilot.pause(0.01)
            for _ in range(keys + 2):
                await pilot.press("s")
                await pilot.pause(0.05)
                while screen.busy:
                    await pilot.pause(0.01)
            if shared:
                store.hold(screen.engine.run_id, "elsewhere:1:0bench00=Ben")
            for _ in range(keys):
                drawn.clear()
                drawn["press"] = time.perf_counter()
                await pilot.press("r")
                deadline = time.perf_counter() + 10
                while "frame" not in drawn:
                    if time.perf_counter() > deadline:
                        raise SystemExit("nothing was drawn after the key")
                    await pilot.pause(0.001)
                out.append((drawn["frame"] - drawn["press"]) * 1000)
                if shared:
                    await pilot.press("escape")
                await pilot.pause(0.05)
    finally:
        watched.render_line = render_line
        store.close()
    return out


def summary(name: str, ms: list[float]) -> str:
    return f"{name}: median {statistics.median(ms):.1f} ms, worst {max(ms):.1f} ms over {len(ms)} keys"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=20, help="keys pressed in each (default 20)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        alone = asyncio.run(measure(Path(folder) / "alone.db", args.keys, shared=False))
        shared = asyncio.run(measure(Path(folder) / "shared.db", args.keys, shared=True))
    print(summary("alone: r rewinds at once, to the stage redrawn", alone))
    print(summary("shared: r asks first, to the ask drawn", shared))
    print(f"ratio shared/alone (medians): {statistics.median(shared) / statistics.median(alone):.2f}")
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
