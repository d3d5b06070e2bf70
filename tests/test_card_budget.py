"""A real card fits the model it plays on: the budget is the model's window, history goes first (oldest
first, a line standing for what went), and the mood, goals and what the character knows are never cut."""

from __future__ import annotations

import random
import shutil

from studio.engine import Engine
from studio.engine.budget import estimate_tokens
from studio.engine.forms import load_play, resolve_cast
from conftest import ROOT


def _card_prompt(tokens: int) -> str:
    rng = random.Random(4)
    words = [f"lore{n}" for n in range(3000)]
    out = ["You are Seren, healer of the glade."]
    while estimate_tokens(" ".join(out)) < tokens:
        out.append(" ".join(rng.choice(words) for _ in range(12)).capitalize() + ".")
    out.append("You end every answer with a question.")
    return " ".join(out)


def _play(tmp_path, context: str = "context_tokens = 4096\n"):
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    shutil.copy(ROOT / "characters" / "sasha_interviewer.toml", tmp_path / "characters")
    (tmp_path / "characters" / "seren.toml").write_text(
        f'name = "Seren"\ndescription = "A healer."\nprompt = """{_card_prompt(4000)}"""\n{context}'
        '[[moods]]\nname = "tender"\nvoice = "speaks softly, lingers on names"\n'
        '[[knowledge]]\ntext = "The well in the glade is poisoned."\n'
        '[[knowledge]]\ntext = "Her sister sleeps under the old oak."\nwhen = { keyword = "sister" }\n'
        '[[goals]]\ntext = "Keep the glade hidden."\n')
    play = tmp_path / "plays" / "glade.toml"
    play.write_text('title = "Glade"\nseed = 2\nturns = 8\nepilogue = false\n\n[cast.ego]\ncharacter = "seren"\n\n'
                    '[[cast.others]]\ncharacter = "sasha_interviewer"\n')
    return play


async def test_a_4k_token_card_on_a_4k_window_keeps_its_inner_life_and_loses_old_lines_first(tmp_path, store, gateway):
    from studio.llm import scripted

    path = _play(tmp_path)
    cast = resolve_cast(load_play(path), path, model="scripted")
    seren = cast.role("ego")
    assert seren.context_tokens == 4096
    for turn in range(8):  # long lines, so the history cannot all fit; one of them unlocks her knowledge
        scripted.queue(("Tell me about your sister. " if turn == 1 else "") + _card_prompt(300)[:1200],
                       task="speak", role="other")
    engine = Engine.create(store, cast, {}, gateway=gateway)
    await engine.play_to_end()
    calls = [m for ctx, m in gateway.calls if ctx.character == "Seren" and ctx.task == "speak"]
    assert len(calls) == 8
    for messages in calls:
        text = "\n".join(m["content"] for m in messages)
        assert sum(estimate_tokens(m["content"]) for m in messages) <= 4096 - seren.max_tokens
        assert "Your mood now: tender (speaks softly, lingers on names)." in text
        assert "What you know:\n- The well in the glade is poisoned." in text
        assert "What you want:\n- Keep the glade hidden." in text
        assert text.startswith("You are Seren, healer of the glade.")
        assert messages[-1]["role"] == "user" and "Sasha" in messages[-1]["content"]  # the newest line is there
    late = "\n".join(m["content"] for m in calls[-1])
    assert "- Her sister sleeps under the old oak." in late  # unlocked turns ago, never cut since
    assert calls[-1][1]["content"].startswith("(Earlier in scene 1, ") and "lines not shown here" in late


def test_an_unset_budget_is_the_models_own_window(tmp_path):
    path = _play(tmp_path, context="")
    play = load_play(path)
    local = resolve_cast(play, path, model="local/smollm2").role("ego")
    from studio.llm.local import N_CTX

    assert local.context_tokens == N_CTX
    assert resolve_cast(play, path, model="scripted").role("ego").context_tokens == 1400  # no window known
    hosted = resolve_cast(play, path, model="openai/gpt-4o").role("ego")  # litellm's model list, no network
    assert hosted.context_tokens >= 100_000
    (tmp_path / "characters" / "seren.toml").write_text(
        "context_tokens = 2048\n" + (tmp_path / "characters" / "seren.toml").read_text())
    assert resolve_cast(load_play(path), path, model="openai/gpt-4o").role("ego").context_tokens == 2048
