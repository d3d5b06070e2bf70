"""The social game's cost to the engine, and whether its prompts stay within budget as the game grows.

A full eight-player game of plays/island.toml on the scripted model (no delay), through the real engine
and store. For every step the time spent inside the model call is taken off the step's wall time, so
what is left is the engine's own work (the form's planning and prompt building, the store's write, the
fold). Prompt size per call is estimated as the engine's budget counts it, per round.

    .venv/bin/python bench/bench_game.py [--games N]
Goals: engine time per action (one player's turn, with the conversation it opens) <= 2 ms
median; every call within its role's budget.
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

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class TimedGateway:
    def __init__(self):
        from studio.llm import Gateway

        self.inner = Gateway(backoff=0.001)
        self.spent = 0.0
        self.calls: list[tuple[int, int]] = []  # (round, estimated prompt tokens)
        self.round = 0

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        from studio.engine.budget import estimate_tokens

        self.calls.append((ctx.scene, sum(estimate_tokens(m["content"]) for m in messages)))
        started = time.perf_counter()
        try:
            return await self.inner.complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)
        finally:
            self.spent += time.perf_counter() - started


async def one_game(db: Path) -> tuple[list[float], list[float], TimedGateway, int, int]:
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast
    from studio.store import Store

    path = ROOT / "plays" / "island.toml"
    cast = resolve_cast(load_play(path), path, model="scripted")
    budget = min(r.context_tokens - r.max_tokens for r in cast.roles)
    gateway = TimedGateway()
    store = Store(db)
    engine = Engine.create(store, cast, {}, gateway=gateway)
    per_step: list[float] = []
    per_turn: list[float] = []
    while not engine.finished:
        turn_engine = 0.0
        before_turn = len(engine.path)
        while True:
            spent = gateway.spent
            started = time.perf_counter()
            await engine.step()
            own = time.perf_counter() - started - (gateway.spent - spent)
            per_step.append(own)
            turn_engine += own
            if engine.finished or engine.form.ends_turn(engine.state, engine.path[before_turn:]):
                break
        per_turn.append(turn_engine)
    events = len(engine.path)
    store.close()
    return per_step, per_turn, gateway, budget, events


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games to play (default: 3)")
    games = parser.parse_args().games
    os.environ["STUDIO_SCRIPTED_DELAY"] = "0"
    steps: list[float] = []
    turns: list[float] = []
    by_round: dict[int, list[int]] = {}
    budget = 0
    events = 0
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(games):
            s, t, gateway, budget, events = asyncio.run(one_game(Path(tmp) / f"game{g}.db"))
            steps += s
            turns += t
            for rnd, tokens in gateway.calls:
                by_round.setdefault(rnd, []).append(tokens)
    ms = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    print(f"{games} games of 8 players, {events} events each, on the scripted model (engine time only)")
    print(f"engine time per action (a player's turn): median {ms(turns):.2f} ms, p95 "
          f"{sorted(turns)[int(len(turns) * 0.95)] * 1000:.2f} ms   goal <= 2 ms")
    print(f"engine time per step: median {ms(steps):.2f} ms over {len(steps)} steps")
    print(f"prompt tokens per call by round (budget {budget}):")
    for rnd in sorted(by_round):
        xs = by_round[rnd]
        print(f"  round {rnd}: median {statistics.median(xs):.0f}, max {max(xs)} over {len(xs)} calls"
              + ("  OVER BUDGET" if max(xs) > budget else ""))


if __name__ == "__main__":
    main()
