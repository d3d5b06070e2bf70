"""The shipped plays must keep asking the models exactly what they ask today.

The recording in tests/data/golden_calls.json was taken before the engine was
moved behind forms and seats; a refactor that changes any role, task or message
of any call on the scripted model shows up here as a diff, not as a vague drift.
Regenerate it only on purpose: STUDIO_RECORD_GOLDEN=1 pytest tests/test_golden_calls.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "data" / "golden_calls.json"
CASES = {"interview": dict(play="interview.toml", turns=6, seed=7), "detective": dict(play="detective.toml", turns=4, seed=7)}


async def _record(engine_for, gateway, case):
    engine = engine_for(**case)
    await engine.play_to_end()
    return [{"role": c.role, "task": c.task, "turn": c.turn, "messages": m} for c, m in gateway.calls]


@pytest.mark.parametrize("name", sorted(CASES))
async def test_shipped_plays_make_the_recorded_calls(engine_for, gateway, name):
    calls = await _record(engine_for, gateway, CASES[name])
    if os.environ.get("STUDIO_RECORD_GOLDEN"):
        data = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        data[name] = calls
        GOLDEN.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    expected = json.loads(GOLDEN.read_text())[name]
    assert [(c["role"], c["task"], c["turn"]) for c in calls] == [(c["role"], c["task"], c["turn"]) for c in expected]
    for got, want in zip(calls, expected):
        assert got["messages"] == want["messages"], f"call {want['role']}/{want['task']} turn {want['turn']} changed"
