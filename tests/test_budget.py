"""The context budget is a hard limit, even when one piece is larger than all of it."""

from __future__ import annotations

import asyncio
import random

import pytest

from studio.engine.budget import cut, estimate_tokens, fit


def prose(chars: int, seed: int = 1) -> str:
    """Varied words, so neither the line guard nor a test mistakes it for a loop."""
    rng = random.Random(seed)
    vocab = [f"w{n}" for n in range(5000)]
    out, size = [], 0
    while size < chars:
        sentence = " ".join(rng.choice(vocab) for _ in range(rng.randint(6, 14))).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:chars]


def test_cut_keeps_the_start_and_end_and_says_how_much_went():
    text = "BEGIN " + "x" * 10_000 + " END"
    kept = cut(text, 500)
    assert len(kept) <= 500 and kept.startswith("BEGIN") and kept.endswith("END")
    assert "characters cut to fit" in kept
    assert cut("short", 500) == "short"


def test_fit_cuts_the_longest_piece_and_leaves_short_ones_whole():
    messages = [{"role": "system", "content": "Be Jenny."}, {"role": "user", "content": prose(100_000)},
                {"role": "user", "content": "Your turn."}]
    fitted = fit(messages, 1000)
    assert sum(estimate_tokens(m["content"]) for m in fitted) <= 1000
    assert fitted[0]["content"] == "Be Jenny." and fitted[2]["content"] == "Your turn."
    assert fitted is not messages and messages[1]["content"] == prose(100_000)  # the caller's list is untouched


@pytest.mark.parametrize("task, role", [("speak", "other"), ("rewrite_prompt", "superego"), ("revise", "ego"), ("critique", "superego")])
def test_a_100000_character_reply_never_makes_a_call_over_budget(engine_for, gateway, task, role):
    from studio.llm import scripted

    engine = engine_for(turns=6)
    huge = prose(100_000, seed=7)
    scripted.queue(huge, task=task, role=role)
    asyncio.run(engine.play_to_end(lambda pending: "Fine."))
    assert engine.finished
    over = []
    for ctx, messages in gateway.calls:
        r = engine.cast.role(next(x.key for x in engine.cast.roles if x.kind == ctx.role)) if ctx.role != "critic" else None
        if r is None:
            continue
        budget = r.context_tokens - r.max_tokens
        used = sum(estimate_tokens(m["content"]) for m in messages)
        if used > budget:
            over.append((ctx.role, ctx.task, used, budget))
    assert not over, over
    shown = "\n".join(gateway.shown())
    assert "characters cut to fit" in shown  # the huge piece reached later calls, cut and marked
