"""A play's starting facts, the playwright's checked edits, and the runner's incremental fold of a take."""

from __future__ import annotations

import pytest

from studio.engine import Engine
from studio.mind import edits
from studio.mind.runner import MindRunner
from studio.mind.state import fold
from studio.model import load_character
from studio.engine.forms import load_play, resolve_cast
from studio.model.errors import InputError
from conftest import ROOT
from test_mind_engine import _mara_play

KEEPERS_LOG = ROOT / "plays" / "keepers_log.toml"
HARBOUR_MASTER = "The harbour master has left town."


def _engine(store, gateway, path):
    return Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)


def _unlocked(engine):
    return [e.data["knowledge"] for e in engine.path if e.kind == "mind.unlock"]


async def test_the_shipped_keepers_log_starts_stormy_and_mara_learns_it_in_scene_two(store, gateway):
    engine = _engine(store, gateway, KEEPERS_LOG)
    assert engine.state.facts == {"storm": True}  # before any event
    await engine.play_to_end()
    (unlock,) = [e for e in engine.path if e.kind == "mind.unlock"]
    assert unlock.data["knowledge"] == HARBOUR_MASTER and unlock.scene == 2
    assert unlock.data["because"] == {"fact": "storm", "equals": True, "scene": 2}
    later = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak" and ctx.scene == 2]
    assert later and f"- {HARBOUR_MASTER}" in later[-1][0]["content"]
    first = [m for ctx, m in gateway.calls if ctx.character == "Mara" and ctx.task == "speak" and ctx.scene == 1]
    assert HARBOUR_MASTER not in first[0][0]["content"]


async def test_without_the_starting_fact_or_with_a_fact_event_overriding_it_nothing_unlocks(tmp_path, store, gateway):
    calm = tmp_path / "calm.toml"
    calm.write_text(KEEPERS_LOG.read_text().replace("storm = true", 'storm = "rising"'))
    engine = _engine(store, gateway, calm)
    await engine.play_to_end()
    assert _unlocked(engine) == []  # "rising" is not true: the condition reads the declared value
    engine = _engine(store, gateway, KEEPERS_LOG)
    await engine.play_turn()
    engine.mind_event(edits.fact("storm=false", scene=1, turn=1))  # the playwright calms the sea
    assert engine.state.facts["storm"] is False
    await engine.play_to_end()
    assert _unlocked(engine) == []
    engine.rewind_to(engine.path[0].id)  # before the fact event: the play's own value holds again
    assert engine.state.facts == {"storm": True}
    await engine.play_to_end()
    assert _unlocked(engine) == [HARBOUR_MASTER]


@pytest.mark.parametrize("body, field, words", [
    ("when = 1979-05-27", "facts.when", "not a date"),
    ('on_stage = ["Mara"]', "facts.on_stage", "kept by the engine"),
    ("storm = { level = 3 }", "facts.storm", "not a table"),
    ('storm = "' + "x" * 600 + '"', "facts.storm", "at most 500 characters"),
])
def test_a_bad_starting_fact_names_the_field_and_the_fix(tmp_path, body, field, words):
    play = tmp_path / "bad.toml"
    play.write_text(KEEPERS_LOG.read_text().replace("storm = true", body))
    with pytest.raises(InputError) as caught:
        load_play(play)
    assert caught.value.field == field and words in caught.value.problem and caught.value.fix
    assert str(play) in caught.value.message


def test_hand_edits_are_checked_once_for_every_door():
    sheet = load_character(ROOT / "characters" / "mara_lighthouse.toml")
    world = fold([])
    mind = world.mind("Mara")
    at = {"scene": 1, "turn": 2}
    assert edits.mood(sheet, "Mara", " Sharp ", **at)["data"]["mood"] == "sharp"
    with pytest.raises(edits.EditError, match="no mood 'giddy'") as caught:
        edits.mood(sheet, "Mara", "giddy", **at)
    assert caught.value.field == "mood"
    assert edits.locked(sheet, mind) == [(2, sheet.knowledge[1].text), (3, HARBOUR_MASTER)]
    assert edits.unlock(sheet, "Mara", mind, 3, **at)["data"]["item"] == 2
    with pytest.raises(edits.EditError, match="already knows item 1 \\(from the start\\)"):
        edits.unlock(sheet, "Mara", mind, 1, **at)
    with pytest.raises(edits.EditError, match="items 1 to 3, not 4"):
        edits.unlock(sheet, "Mara", mind, 4, **at)
    assert edits.goals("Mara", ["  Leave.  ", "", "Stay dry."], **at)["data"]["goals"] == ["Leave.", "Stay dry."]
    with pytest.raises(edits.EditError, match="no goal given"):
        edits.goals("Mara", [" ", ""], **at)
    assert edits.parse_fact("visits = 3") == ("visits", 3)
    assert edits.parse_fact("storm=rising") == ("storm", "rising")
    assert edits.parse_fact("storm=null") == ("storm", None)  # removes the fact
    for bad, words in (("storm", "expected NAME=VALUE"), ("on_stage=[]", "kept by the engine"),
                       ('storm={"a": 1}', "not a table")):
        with pytest.raises(edits.EditError, match=words):
            edits.parse_fact(bad)


async def test_the_cli_refuses_a_bad_fact_and_commits_nothing(tmp_path, store, gateway, capsys):
    from studio.cli import main

    engine = _engine(store, gateway, _mara_play(tmp_path))
    await engine.play_turn()
    before = len(store.events(engine.run_id))
    db = ["--db", str(store.path)]
    assert main(["mind", str(engine.run_id), "Mara", "--mood", "sharp", "--fact", "on_stage=x", *db]) == 2
    err = capsys.readouterr().err
    assert "field '--fact'" in err and "kept by the engine" in err and "Traceback" not in err
    assert len(store.events(engine.run_id)) == before  # the good --mood was not committed either
    assert main(["mind", str(engine.run_id), "Mara", "--unlock", "1", *db]) == 2
    assert "already knows item 1" in capsys.readouterr().err


def _fresh(runner: MindRunner) -> MindRunner:
    return MindRunner(runner.sheets, seed=runner.seed, keys=runner.keys, facts=runner.facts)


def _same_as_a_full_fold(engine) -> None:
    runner = engine._minds()
    assert runner.world(engine.path) == fold(engine.path, engine.cast.play.facts)
    fresh = _fresh(runner)
    assert runner.pending_scores(engine.path, None) == fresh.pending_scores(engine.path, None)
    assert runner.met(engine.path, "Mara") == fresh.met(engine.path, "Mara")
    ask = {"query": "the logbook and the storm", "turn": engine.state.turn + 1, "shown": []}
    assert ([r.as_data() for r in runner.recall("Mara", engine.path, None, **ask)]
            == [r.as_data() for r in fresh.recall("Mara", engine.path, None, **ask)])
    memories = [m.event_id for m in runner._index("Mara", engine.path, None).memories]
    assert memories == [m.event_id for m in fresh._index("Mara", engine.path, None).memories]
    assert set(memories) <= {e.id for e in engine.path}  # nothing from an abandoned take


async def test_the_incremental_fold_equals_a_full_fold_after_a_rewind_and_on_another_take(store, gateway):
    engine = _engine(store, gateway, KEEPERS_LOG)
    runner = engine._minds()
    sheet = engine.cast.matching("Mara")[0].sheet
    for _ in range(2):
        await engine.play_turn()
    _same_as_a_full_fold(engine)
    engine.mind_event(edits.goals("Mara", ["Burn the log."], scene=1, turn=2))
    engine.mind_event(edits.unlock(sheet, "Mara", runner.world(engine.path).mind("Mara"), 2, scene=1, turn=2))
    engine.mind_event(edits.fact("storm=null", scene=1, turn=2))
    await engine.play_turn()
    old_tip = engine.head
    _same_as_a_full_fold(engine)
    mara = runner.world(engine.path).mind("Mara")
    assert mara.goals == ["Burn the log."] and 1 in mara.unlocked and "storm" not in runner.world(engine.path).facts

    engine.rewind(2)  # back before the hand edits: the cached world must forget them
    _same_as_a_full_fold(engine)
    mara = runner.world(engine.path).mind("Mara")
    assert mara.goals is None and 1 not in mara.unlocked and runner.world(engine.path).facts == {"storm": True}

    await engine.play_to_end()  # a new take, folded on from the rewound prefix
    _same_as_a_full_fold(engine)
    assert _unlocked(engine) == [HARBOUR_MASTER]

    engine.rewind_to(old_tip)  # back onto the first take
    _same_as_a_full_fold(engine)
    assert runner.world(engine.path).mind("Mara").goals == ["Burn the log."]
