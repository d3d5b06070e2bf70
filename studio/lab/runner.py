"""Running the dilemma's trials: a model seat against a rule partner, many at once, each recorded.

Trials run concurrently up to a limit (asyncio and a semaphore; the embedded model takes one call at a
time, so it gets one slot). A trial is six calls in a row, since each round's prompt holds the rounds
before it. A reply that is not a move is asked again once with what was wrong; if it is still not a move
the trial fails and says so, and the others go on. Finished and failed trials are recorded, so a rerun
(after Ctrl-C, a crash or a failure) plays only what is missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from studio.lab import pd
from studio.lab.stats import Trial
from studio.lab.trials import Trials

# The paper's settings for the dilemma.
TEMPERATURE = 0.2
MAX_TOKENS = 100


@dataclass(frozen=True)
class Plan:
    groups: Sequence[str]
    partners: Sequence[str]
    reps: int
    model: str
    wordings: Sequence[int] = (0, 1, 2)

    @property
    def experiment(self) -> str:
        return f"pd:{self.model}"

    def keys(self) -> list[tuple[str, int, str, int]]:
        """Every trial as (group, wording, partner, repetition); repetitions spread over the wordings."""
        out = []
        for group in self.groups:
            for partner in self.partners:
                for rep in range(self.reps):
                    out.append((group, self.wordings[rep % len(self.wordings)], partner, rep))
        return out


def trial_key(group: str, wording: int, partner: str, rep: int) -> str:
    return f"{group}/{wording}/{partner}/{rep}"


async def play_trial(gateway: Any, model: str, group: str, wording: int, partner: str, rep: int) -> dict[str, Any]:
    from studio.llm import CallContext
    from studio.llm.gateway import CallSettings

    settings = CallSettings(model=model, temperature=TEMPERATURE, max_tokens=MAX_TOKENS, schema=pd.MOVE_SCHEMA)
    rule = pd.PARTNERS[partner]
    mine: list[str] = []
    theirs: list[str] = []
    replies: list[str] = []
    usage = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
    for round_no in range(1, pd.ROUNDS + 1):
        their_move = rule(mine)
        problem = None
        move = None
        for _ in range(2):  # the reply, and one more chance
            messages = pd.messages(group, wording, list(zip(mine, theirs)), problem)
            ctx = CallContext(role="other", task="move", character=f"{group}-{wording}-{rep}", scene=1, turn=round_no)
            completion = await gateway.complete(settings, messages, ctx)
            replies.append(completion.text)
            usage["calls"] += 1
            for k in ("prompt_tokens", "completion_tokens"):
                usage[k] += int(completion.usage.get(k, 0) or 0)
            move, problem = pd.read_move(completion.text)
            if move:
                break
        if move is None:
            raise ValueError(f"round {round_no}: the reply was not a move twice ({problem})")
        mine.append(move)
        theirs.append(their_move)
    game = pd.Game(mine, theirs)
    return {"group": group, "wording": wording, "partner": partner, "rep": rep, "moves": "".join(mine),
            "partner_moves": "".join(theirs), "total": game.total, "cooperation": game.cooperation,
            "replies": replies, "usage": usage}


async def run(store: Any, plan: Plan, concurrency: int, gateway: Any = None,
              progress: Callable[[str, int, int, int], None] | None = None) -> tuple[list[Trial], dict[str, str]]:
    """Play what is missing of `plan`; return every finished trial of it and the failures' errors."""
    if gateway is None:
        from studio.llm import Gateway

        gateway = Gateway()
    if plan.model.startswith("local/"):
        concurrency = 1  # one embedded model, one call at a time
    trials = Trials(store)
    done = trials.done(plan.experiment)
    todo = [k for k in plan.keys() if trial_key(*k) not in done]
    gate = asyncio.Semaphore(max(1, concurrency))
    counts = {"done": len(plan.keys()) - len(todo), "failed": 0}

    async def one(key: tuple[str, int, str, int]) -> None:
        async with gate:
            name = trial_key(*key)
            try:
                result = await play_trial(gateway, plan.model, *key)
            except Exception as exc:  # a failed trial is recorded; the others go on
                trials.record(plan.experiment, name, "failed", error=str(exc)[:500])
                counts["failed"] += 1
            else:
                trials.record(plan.experiment, name, "done", result)
                counts["done"] += 1
            if progress is not None:
                progress(name, counts["done"], counts["failed"], len(plan.keys()))

    await asyncio.gather(*(one(k) for k in todo))
    results = trials.done(plan.experiment)
    wanted = {trial_key(*k) for k in plan.keys()}
    finished = [
        Trial(r["group"], r["partner"], float(r["cooperation"]), int(r["total"]), int(r["wording"]))
        for key, r in sorted(results.items()) if key in wanted
    ]
    failed = {k: v for k, v in trials.failed(plan.experiment).items() if k in wanted}
    return finished, failed
