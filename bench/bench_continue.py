"""What does continuing a line cost, beside writing it again?

On the embedded model (or ``--model scripted`` for the studio's own share), plays two turns of the interview,
then alternates, on the newest protagonist line, ``Engine.regenerate`` (the line written again) and
``Engine.continue_line`` (the line so far, then what the model adds), each followed by a return to the
original take so every repetition starts from the same place. Alternating keeps warm-up, the prefix cache
and CPU frequency alike for both sides. Prints, side by side, the median time to the first piece the
model adds, the median time to the committed line, and the prompt tokens evaluated afresh (the rest came
from the prefix cache).

    .venv/bin/python bench/bench_continue.py [--reps 6] [--model local/smollm2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from studio.engine import Engine  # noqa: E402
from studio.engine.forms import load_play, resolve_cast  # noqa: E402
from studio.llm import Gateway  # noqa: E402
from studio.store import Store  # noqa: E402


async def measure(model: str, reps: int) -> dict[str, list[tuple[float, float, int, int]]]:
    play = ROOT / "plays" / "interview.toml"
    cast = resolve_cast(load_play(play).model_copy(update={"turns": 10}), play, model=model)
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.db")
        engine = Engine.create(store, cast, {}, gateway=Gateway())
        await engine.play_turn()
        await engine.play_turn()
        line = engine.stage()[-1]
        arrived: list[float] = []
        engine.token_listeners.append(lambda step, token: arrived.append(time.perf_counter()))
        results: dict[str, list[tuple[float, float, int, int]]] = {"regenerate": [], "continue": []}
        for _ in range(reps):
            for name in ("regenerate", "continue"):
                arrived.clear()
                started = time.perf_counter()
                event = await (engine.regenerate(line.id) if name == "regenerate" else engine.continue_line(line.id))
                done = time.perf_counter()
                # a continuation's first piece is the line so far, shown at once; the model's is the next
                pieces = arrived[1:] if name == "continue" else arrived
                first = (pieces[0] if pieces else done) - started
                usage = event.usage or {}
                # the scripted model keeps no cache: its prompt is not evaluated at all
                fresh = int(usage.get("prompt_tokens", 0)) - int(usage["cached_tokens"]) if "cached_tokens" in usage else -1
                results[name].append((first, done - started, fresh, int(usage.get("completion_tokens", 0))))
                engine.choose_take(line.id)
        store.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--model", default="local/smollm2")
    args = parser.parse_args()
    results = asyncio.run(measure(args.model, args.reps))
    print(f"{args.model}, {args.reps} repetitions each, alternating; medians")
    print(f"{'':12} {'first piece':>12} {'whole line':>12} {'prompt evaluated':>17} {'tokens written':>15}")
    for name, rows in results.items():
        first = statistics.median(r[0] for r in rows) * 1000
        whole = statistics.median(r[1] for r in rows) * 1000
        fresh = statistics.median(r[2] for r in rows)
        written = statistics.median(r[3] for r in rows)
        evaluated = f"{fresh:17.0f}" if fresh >= 0 else f"{'-':>17}"
        print(f"{name:12} {first:10.0f} ms {whole:10.0f} ms {evaluated} {written:15.0f}")


if __name__ == "__main__":
    main()
