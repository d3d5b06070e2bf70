"""The inner life reaches the engine's prompts: a run on the scripted model shows it to the character."""

from __future__ import annotations

import shutil

from studio.engine import Engine
from studio.engine.forms import load_play, resolve_cast
from conftest import ROOT


def _mara_play(tmp_path):
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    shutil.copy(ROOT / "characters" / "mara_lighthouse.toml", tmp_path / "characters")
    for stem in ("sasha_interviewer",):
        shutil.copy(ROOT / "characters" / f"{stem}.toml", tmp_path / "characters")
    play = tmp_path / "plays" / "light.toml"
    play.write_text('title = "The Light"\nseed = 3\nturns = 4\nepilogue = false\n\n[cast.ego]\n'
                    'character = "mara_lighthouse"\n\n[[cast.others]]\ncharacter = "sasha_interviewer"\n')
    return play


async def test_a_character_prompt_carries_traits_knowledge_and_goals(tmp_path, store, gateway):
    path = _mara_play(tmp_path)
    cast = resolve_cast(load_play(path), path, model="scripted")
    engine = Engine.create(store, cast, {}, gateway=gateway)
    await engine.play_turn()
    mara = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak"]
    assert mara, gateway.tasks()
    system = mara[0][0]["content"]
    assert "very orderly and dutiful" in system and "Your part in the story: the skeptic." in system
    assert "What you know:\n- The lamp failed on the night the Aurelia sank." in system
    assert "She paid the harbour master" not in system  # locked until 'logbook' is said in her presence
    assert "- Keep the lamp's failure secret." in system
    others = [m for ctx, m in gateway.calls if ctx.character != "Mara" and ctx.task == "speak"]
    assert all("Aurelia" not in m[0]["content"] for m in others)  # her knowledge is hers alone


async def test_a_committed_unlock_reaches_the_next_prompt(tmp_path, store, gateway):
    from studio.mind.moments import unlock_by_hand
    from studio.model import load_character

    path = _mara_play(tmp_path)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    await engine.play_turn()
    sheet = load_character(tmp_path / "characters" / "mara_lighthouse.toml")
    store.append(engine.run_id, store.head(engine.run_id), **unlock_by_hand(sheet, "Mara", 1, scene=1, turn=1))
    engine.reload()
    gateway.calls.clear()
    while not gateway.calls or all(ctx.task != "speak" or ctx.character != "Mara" for ctx, _ in gateway.calls):
        await engine.play_turn()
    system = next(m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak")[0]["content"]
    assert "- She paid the harbour master to keep the failure out of the log." in system
    store.set_head(engine.run_id, engine.path[0].id)  # rewind before the unlock: the take forgets it
    engine.reload()
    gateway.calls.clear()
    while all(ctx.task != "speak" or ctx.character != "Mara" for ctx, _ in gateway.calls):
        await engine.play_turn()
    system = next(m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak")[0]["content"]
    assert "She paid the harbour master" not in system


async def _play_until_mara_speaks(engine, times=1):
    spoken = 0
    while spoken < times and not engine.finished:
        before = len(engine.path)
        await engine.play_turn()
        spoken += sum(1 for e in engine.path[before:] if e.kind == "stage" and e.character == "Mara")


async def test_the_engine_draws_a_seeded_mood_once_per_scene_and_replays_it(tmp_path, store, gateway):
    path = _mara_play(tmp_path)
    cast = resolve_cast(load_play(path), path, model="scripted")
    engine = Engine.create(store, cast, {}, gateway=gateway)
    await _play_until_mara_speaks(engine, 2)
    moods = [e for e in engine.path if e.kind == "mind.mood"]
    assert len(moods) == 1 and moods[0].origin == "studio" and moods[0].character == "Mara"
    drawn = moods[0].data["mood"]
    first_line = next(e for e in engine.path if e.kind == "stage" and e.character == "Mara")
    assert first_line.data["mind"]["mind"] == [moods[0].id]  # the first line it shaped says so
    later = [e for e in engine.path if e.kind == "stage" and e.character == "Mara"][1]
    assert "mind" not in later.data
    system = next(m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak")[0]["content"]
    assert f"Your mood now: {drawn}" in system
    # rewind to the start and play again: the same draw; a second run with the same seed: the same draw
    store.set_head(engine.run_id, None)
    engine.reload()
    await _play_until_mara_speaks(engine)
    assert [e.data["mood"] for e in engine.path if e.kind == "mind.mood"] == [drawn]
    other = Engine.create(store, cast, {}, gateway=gateway)
    await _play_until_mara_speaks(other)
    assert [e.data["mood"] for e in other.path if e.kind == "mind.mood"] == [drawn]


async def test_the_engine_unlocks_on_a_keyword_heard_on_stage(tmp_path, store, gateway):
    from studio.llm import scripted

    path = _mara_play(tmp_path)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("Who keeps the logbook here?", task="speak", role="other")
    for _ in range(3):
        await engine.play_turn()
    unlocks = [e for e in engine.path if e.kind == "mind.unlock"]
    assert len(unlocks) == 1 and unlocks[0].data["knowledge"].startswith("She paid the harbour master")
    heard_in = engine.by_id[unlocks[0].data["heard_in"]]
    assert "logbook" in heard_in.text and heard_in.character != "Mara"
    after = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak"][-1][0]["content"]
    assert "- She paid the harbour master" in after


async def test_reflections_every_n_turns_update_impressions_in_the_next_prompt(tmp_path, store, gateway):
    path = _mara_play(tmp_path)
    sheet = tmp_path / "characters" / "mara_lighthouse.toml"
    sheet.write_text(sheet.read_text().replace("reflect_every = 6", "reflect_every = 2"))
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    await engine.play_turn()
    assert [e for e in engine.path if e.kind == "mind.reflection"] == []
    await engine.play_turn()  # two turns gone: Mara takes stock before she speaks at turn 2
    (reflected,) = [e for e in engine.path if e.kind == "mind.reflection"]
    assert reflected.turn == 2 and reflected.origin == "model"
    assert set(reflected.data["impressions"]) == {"Sasha"}
    asked = next(m for ctx, m in gateway.calls if ctx.task == "reflect")
    assert "Others: Sasha" in asked[1]["content"] and "Sasha: (scripted)" in asked[1]["content"]
    imp = reflected.data["impressions"]["Sasha"]
    system = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak"][-1][0]["content"]
    assert f"- Sasha: trust {imp['trust']:+d}, liking {imp['liking']:+d}" in system
    line = next(e for e in engine.path if e.id > reflected.id and e.kind == "stage" and e.character == "Mara")
    assert reflected.id in line.data["mind"]["mind"]
    await engine.play_turn()
    assert len([e for e in engine.path if e.kind == "mind.reflection"]) == 1  # not again at turn 3
    await engine.play_turn()
    assert [e.turn for e in engine.path if e.kind == "mind.reflection"] == [2, 4]


async def test_an_unreadable_reflection_is_committed_once_and_not_asked_every_turn(tmp_path, store, gateway):
    from studio.llm import scripted

    path = _mara_play(tmp_path)
    sheet = tmp_path / "characters" / "mara_lighthouse.toml"
    sheet.write_text(sheet.read_text().replace("reflect_every = 6", "reflect_every = 2"))
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("no", task="reflect")
    scripted.queue("still no", task="reflect")
    for _ in range(4):
        await engine.play_turn()
    reflections = [e for e in engine.path if e.kind == "mind.reflection"]
    assert reflections[0].data["error"] and reflections[0].data["thoughts"] == ""
    assert [ctx.task for ctx, _ in gateway.calls].count("reflect") == 2 + (len(reflections) - 1)


async def test_past_its_budget_a_character_recalls_a_relevant_old_line_and_the_line_links_it(tmp_path, store, gateway):
    from studio.llm import scripted

    path = _mara_play(tmp_path)
    path.write_text(path.read_text().replace("turns = 4", "turns = 12"))
    sheet = tmp_path / "characters" / "mara_lighthouse.toml"
    sheet.write_text(sheet.read_text().replace("reflect_every = 6", "reflect_every = 0\ncontext_tokens = 900"))
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("The Aurelia's captain asked me to tell you he forgives the lamp.", task="speak", role="other")
    for _ in range(9):
        await engine.play_turn()
    old = next(e for e in engine.path if "Aurelia's captain" in e.text)
    scripted.queue("Tell me again what the Aurelia's captain said.", task="speak", role="other")
    gateway.calls.clear()
    await engine.play_turn()
    system = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak"][-1][0]["content"]
    assert "You remember:\n- (turn 1) Sasha: The Aurelia's captain asked me" in system
    line = engine.path[-1]
    assert line.character == "Mara" and old.id in [r["event"] for r in line.data["mind"]["recalled"]]
    recalled = next(r for r in line.data["mind"]["recalled"] if r["event"] == old.id)
    assert 0 < recalled["relevance"] <= 1 and 0 < recalled["recency"] < 1
    score = next(e for e in engine.path if e.kind == "mind.importance" and e.data["line"] == old.id)
    assert recalled["importance"] == score.data["importance"]  # the committed score ranked it


async def test_each_witnessed_line_is_scored_once_and_replays_do_not_ask_again(tmp_path, store, gateway):
    path = _mara_play(tmp_path)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    for _ in range(3):
        await engine.play_turn()
    lines = [e for e in engine.path if e.kind == "stage"]
    scored = {e.data["line"]: e for e in engine.path if e.kind == "mind.importance"}
    # every line Mara heard from Sasha, each scored before Mara's next step; her own lines are not asked about
    assert set(scored) == {e.id for e in lines if e.character == "Sasha"}
    assert all(e.character == "Mara" and 1 <= e.data["importance"] <= 10 for e in scored.values())
    asked = [ctx.task for ctx, _ in gateway.calls].count("importance")
    assert asked == len(scored)
    engine.reload()
    await engine.play_turn()
    again = [e.data["line"] for e in engine.path if e.kind == "mind.importance"]
    assert len(again) == len(set(again))  # never twice for one line


def _ensemble(tmp_path, enter_after=2):
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    for stem in ("mara_lighthouse", "sasha_interviewer", "jenny"):
        shutil.copy(ROOT / "characters" / f"{stem}.toml", tmp_path / "characters")
    play = tmp_path / "plays" / "harbour.toml"
    play.write_text(
        'title = "Harbour"\nform = "ensemble"\nnext = "round_robin"\nseed = 5\nturns = 6\nepilogue = false\n\n'
        f'[[scenes]]\nbrief = "The quay."\non_stage = ["Sasha", "Jenny"]\nenter = {{ Mara = {enter_after} }}\n\n'
        '[[cast.characters]]\ncharacter = "sasha_interviewer"\n\n[[cast.characters]]\ncharacter = "jenny"\n\n'
        '[[cast.characters]]\ncharacter = "mara_lighthouse"\n')
    return play


async def test_in_an_ensemble_a_keyword_said_before_she_enters_unlocks_nothing(tmp_path, store, gateway):
    from studio.llm import scripted

    path = _ensemble(tmp_path)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("Nobody has touched the logbook since the wreck.", task="speak")
    while not any(e.character == "Mara" and e.kind == "stage" for e in engine.path):
        await engine.play_turn()
    said = next(e for e in engine.path if "logbook" in e.text)
    assert not said.witnessed_by(engine.cast.matching("Mara")[0].key)
    assert [e for e in engine.path if e.kind == "mind.unlock"] == []
    mara_speaks = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak"]
    assert mara_speaks and "She paid the harbour master" not in mara_speaks[-1][0]["content"]
    assert "Your part in the story: the skeptic." in mara_speaks[-1][0]["content"]
    scripted.queue("Mara, the logbook. Who wrote in it?", task="speak")
    for _ in range(3):
        await engine.play_turn()
    (unlock,) = [e for e in engine.path if e.kind == "mind.unlock"]
    assert "Who wrote in it" in engine.by_id[unlock.data["heard_in"]].text
    # her memory holds only what she witnessed: the line before her entrance is not recalled
    runner = engine._minds()
    recalled = runner.recall("Mara", engine.path, None, query="logbook since the wreck", turn=9, shown=[])
    assert said.id not in [r.memory.event_id for r in recalled]
    assert any("Who wrote in it" in r.memory.text for r in recalled)


async def test_the_backstage_export_shows_the_mood_before_the_line_it_shaped(tmp_path, store, gateway):
    from studio.export.script import Backstage, Speech, build_script

    path = _mara_play(tmp_path)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    await _play_until_mara_speaks(engine)
    blocks = build_script(store, engine.run_id, backstage=True).blocks
    notes = [b for b in blocks if isinstance(b, Backstage) and b.kind == "mind.mood"]
    assert len(notes) == 1 and notes[0].label == "Mara's mood" and notes[0].text.startswith("Mara is ")
    after = blocks[blocks.index(notes[0]) + 1]
    assert isinstance(after, Speech) and after.character == "Mara"


async def test_the_cast_pane_shows_mood_goals_knowledge_impressions_and_reflections(tmp_path, store, gateway):
    from studio.tui.views import role_card

    path = _mara_play(tmp_path)
    sheet = tmp_path / "characters" / "mara_lighthouse.toml"
    sheet.write_text(sheet.read_text().replace("reflect_every = 6", "reflect_every = 2"))
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    mara = engine.cast.matching("Mara")[0]
    before = role_card(engine, mara).plain
    assert "mood: not drawn yet" in before and "– locked: She paid the harbour master" in before
    for _ in range(2):
        await engine.play_turn()
    card = role_card(engine, mara).plain
    mood = next(e for e in engine.path if e.kind == "mind.mood")
    reflection = next(e for e in engine.path if e.kind == "mind.reflection")
    assert f"mood: {mood.data['mood']} (#{mood.id})" in card
    assert "goals (from the sheet): Keep the lamp's failure secret.; Find out what the stranger already knows." in card
    assert "  · The lamp failed on the night the Aurelia sank." in card
    imp = reflection.data["impressions"]["Sasha"]
    assert f"{imp['trust']:+d}" in card and f"(#{reflection.id})" in card and "wants: (scripted)" in card
    assert f"reflected (#{reflection.id}): (scripted) Mara turns over" in card
    sasha = engine.cast.matching("Sasha")[0]
    assert "mood:" not in role_card(engine, sasha).plain  # a sheet without an inner life shows none


async def test_the_playwright_sets_a_mood_unlocks_and_edits_goals_from_the_cli(tmp_path, store, gateway, capsys):
    from studio.cli import main

    path = _mara_play(tmp_path)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    await engine.play_turn()
    db = ["--db", str(store.path)]
    run = str(engine.run_id)
    assert main(["mind", run, "Mara", "--mood", "SHARP", "--unlock", "2", "--goal", "Leave the island.", *db]) == 0
    assert main(["mind", run, "Mara", *db]) == 0
    out = capsys.readouterr().out
    assert "(Mara is sharp: clipped" in out and "+ She paid the harbour master" in out and "goals (#" in out
    engine.reload()
    made = [e for e in engine.path if e.kind.startswith("mind.") and e.origin == "human"]
    assert [e.kind for e in made] == ["mind.mood", "mind.unlock", "mind.goals"]
    gateway.calls.clear()
    await _play_until_mara_speaks(engine)
    system = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak"][-1][0]["content"]
    assert "Your mood now: sharp" in system and "- Leave the island." in system
    assert "Keep the lamp's failure secret." not in system
    assert main(["mind", run, "Mara", "--unlock", "9", *db]) == 2
    assert "has knowledge items 1 to 3, not 9" in capsys.readouterr().err
    assert main(["mind", run, "Nobody", *db]) == 2
