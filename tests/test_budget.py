"""No call exceeds its role's context budget, even when one line alone is larger than the budget."""

from __future__ import annotations

from studio.engine.budget import cut
from studio.engine.prompts import estimate_tokens

HUGE = ("All work and no play makes Sasha a dull interviewer. " * 2000)[:100_000]


def test_cut_keeps_short_text_and_marks_what_it_drops():
    assert cut("short", 100) == "short"
    out = cut(HUGE, 500)
    assert len(out) <= 500 and out.startswith("All work") and "more characters]" in out
    assert "cut:" in cut("x" * 50, 10)


async def test_a_100000_character_reply_does_not_overflow_any_later_call(engine_for, gateway):
    """A human at the other's seat pastes a 100,000-character line (a model's reply is capped by its
    max_tokens, a human's is not): every call after it still fits its role's budget."""
    engine = engine_for(turns=2, epilogue=True, roles={"other": "human"})
    await engine.play_turn(lambda pending: HUGE)
    engine.release("other")
    await engine.play_turn()
    while not engine.finished:
        await engine.play_turn()
    roles = {r.key: r for r in engine.cast.roles}
    later = gateway.calls
    assert len(later) >= 4
    for ctx, messages in later:
        role = roles[ctx.role]
        sent = sum(estimate_tokens(str(m["content"])) + 4 for m in messages)
        assert sent <= role.context_tokens - role.max_tokens, (ctx.role, ctx.task, sent)
    shown = "\n".join(gateway.shown(role="superego"))
    assert "more characters]" in shown  # the superego is told the line was cut, not handed a silent stub
    assert any(e.text == HUGE for e in engine.path)  # the stored line itself is kept whole
