"""The social game run by the engine on the scripted model: rules, presence, votes, the jury, replay, a human."""

from __future__ import annotations

import asyncio

import pytest

from conftest import PLAYS, RecordingGateway
from studio.engine import Engine
from studio.llm import scripted
from studio.engine.forms import load_play, resolve_cast
from studio.store import events as ev


def island(store, gateway=None, roles=None, **game):
    play = load_play(PLAYS / "island.toml")
    if game:
        play = play.model_copy(update={"game": play.game.model_copy(update=game)})
    cast = resolve_cast(play, PLAYS / "island.toml", model="scripted", roles=roles)
    return Engine.create(store, cast, {}, gateway=gateway or RecordingGateway())


def stage_and_votes(engine):
    return [(e.kind, e.character, e.text) for e in engine.path if e.kind in (ev.STAGE, ev.DIRECTION, ev.VOTE, ev.SCENE)]


def test_a_whole_game_ends_with_a_winner_chosen_by_the_jury(store):
    engine = island(store)
    asyncio.run(engine.play_to_end())
    game = engine.state.game
    assert engine.finished and game.winner in game.alive and len(game.alive) == 2
    assert len(game.jury) == 6 and sorted(game.placements().values()) == list(range(1, 9))
    verdict = engine.path[-1]
    assert verdict.kind == ev.DIRECTION and f"{game.winner} wins the game" in verdict.text
    tallies = [e for e in engine.path if e.data.get("task") == "tally"]
    assert len(tallies) == 6
    for event in tallies:  # each reading names who left, and it is the most-voted (or a drawn tie)
        result = event.data["tally"]
        counts = {k: v for k, v in result["counts"].items() if k != result.get("idol_played_by")}
        top = max(counts.values(), default=0)
        assert counts.get(result["eliminated"], 0) == top or result.get("draw") is not None


def test_a_models_impossible_action_is_asked_again_once_then_its_turn_is_lost(store):
    scripted.queue("fly to the moon", task="act")
    scripted.queue("swim to Ocean", task="act")  # not one walk from where anyone starts... still impossible
    engine = island(store)
    asyncio.run(engine.play_turn())
    while not any(e.data.get("task") == "act" and e.kind == ev.DIRECTION for e in engine.path):
        asyncio.run(engine.play_turn())
    choice = [e for e in engine.path if e.kind == ev.CHOICE]
    action = next(e for e in engine.path if e.data.get("task") == "act" and e.kind == ev.DIRECTION)
    assert len(choice) == 1 and "say one action" in choice[0].data["invalid"]
    # said to be lost, not shown as a wait it chose; the refused text is kept as refused, never as its reply
    assert "loses the turn" in action.text and action.data["forced"] and action.data["action"] == "wait"
    assert action.data["refused"] == "swim to Ocean" and "reply" not in action.data
    assert choice[0].data["private"] == action.role  # the unusable answer is the player's own business


def test_a_conversation_is_remembered_by_exactly_those_present(store):
    engine = island(store)
    while not any(e.kind == ev.STAGE for e in engine.path):
        asyncio.run(engine.play_turn())
    line = next(e for e in engine.path if e.kind == ev.STAGE)
    game = engine.state.game
    place = game.where[line.character]
    there = {engine.state.key(p) for p in game.alive if game.where.get(p) == place}
    assert set(line.data["present"]) == there
    from studio.engine.forms.social.memory import recollections

    for key, name in engine.state.names.items():
        remembered = any(line.text in m for m in recollections(engine.path, key))
        assert remembered == (key in there), name
        assert line.witnessed_by(key) == (key in there)


def test_votes_are_secret_and_ties_break_by_the_recorded_draw(store):
    engine = island(store)
    asyncio.run(engine.play_to_end())
    votes = [e for e in engine.path if e.kind == ev.VOTE]
    assert votes and all(e.data["private"] == e.role and e.data["present"] == [e.role] for e in votes)
    ties = [e.data["tally"] for e in engine.path if e.data.get("task") == "tally" and "draw" in e.data["tally"]]
    for result in ties:  # the draw recorded is the one the rule makes from the seed
        assert result["eliminated"] == result["tie"][result["draw"]]


def test_a_game_replays_identically_after_rewind(store):
    engine = island(store)
    asyncio.run(engine.play_to_end())
    before = stage_and_votes(engine)
    engine.rewind(12)
    assert not engine.finished
    asyncio.run(engine.play_to_end())
    assert stage_and_votes(engine) == before
    assert engine.state.game.placements() == island_placements(store)


def island_placements(store):
    again = island(store)
    asyncio.run(again.play_to_end())
    return again.state.game.placements()


def test_a_human_can_play_a_contestant(store):
    engine = island(store, roles={"Amara Osei": "human"})
    asked = []

    def human(pending):
        from studio.engine.forms.base import refusal

        asked.append(pending.step.task)
        if refusal(engine.path, pending.role.key):
            return "pass"  # told the answer was refused (Bruno gone, say), she lets the turn go by, as a person would
        return {"act": "talk to Bruno", "talk": "Bruno, stay close to me tonight.", "summary": "Bruno listened.",
                "impressions": '{"Bruno Keller": {"trust": 1, "liking": 1, "wants": "an ally"}}',
                "goals": '{"goals": ["Win Bruno over"]}', "vote": "Hiro Tanaka", "reflect": "Quiet round.",
                "jury": "Bruno Keller"}[pending.step.task]

    for _ in range(40):
        asyncio.run(engine.play_turn(human))
    assert "act" in asked and "goals" in asked
    talk = next(e for e in engine.path if e.origin == "human" and e.data.get("task") == "act")
    assert talk.text == "At Camp, Amara Osei takes Bruno Keller aside to talk." and talk.data["action"] == "talk"
    assert any(e.origin == "human" and e.kind == ev.STAGE and "stay close" in e.text for e in engine.path)


def test_architecture_switches_modules_off_per_player(store):
    gateway = RecordingGateway()
    engine = island(store, gateway, architecture={"Amara Osei": "none", "Bruno Keller": "goals"})
    for _ in range(30):
        asyncio.run(engine.play_turn())
    asked = {(ctx.character, ctx.task) for ctx, _ in gateway.calls}
    assert ("Amara Osei", "goals") not in asked and ("Bruno Keller", "goals") in asked
    assert ("Amara Osei", "impressions") not in asked and ("Bruno Keller", "impressions") not in asked


def test_an_island_naming_a_stranger_is_refused(tmp_path):
    from studio.model import InputError

    text = (PLAYS / "island.toml").read_text().replace('"Hiro Tanaka" = "Jungle Path"', '"Nobody" = "Camp"')
    bad = PLAYS.parent / "plays" / "_bad_island.toml"
    try:
        bad.write_text(text)
        with pytest.raises(InputError, match="game.start.Nobody"):
            resolve_cast(load_play(bad), bad, model="scripted")
    finally:
        bad.unlink()


def test_the_game_report_lists_placements_votes_and_alliances(tmp_path):
    import json

    from test_cli import studio

    db = tmp_path / "s.db"
    assert studio("run", PLAYS / "island.toml", "--model", "scripted", db=db).returncode == 0
    report = json.loads(studio("game", "1", "--json", db=db).stdout)
    assert sorted(report["placements"].values()) == list(range(1, 9))
    assert report["winner"] == min(report["placements"], key=report["placements"].get)
    assert len([v for v in report["votes"] if v["round"] != "final"]) == 8 + 7 + 6 + 5 + 4 + 3
    assert all(v["reason"] for v in report["votes"] if v["round"] != "final")
    out = tmp_path / "report.md"
    assert studio("game", "1", "--out", str(out), db=db).returncode == 0
    text = out.read_text()
    assert f"**Winner: {report['winner']}**" in text and "## Alliances" in text
    assert studio("run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "1", db=db).returncode == 0
    wrong = studio("game", "2", db=db)
    assert wrong.returncode == 2 and "social_game" in wrong.stderr


def test_the_architecture_experiment_assigns_balanced_conditions_and_resumes(store):
    from studio.lab.experiment import built
    from studio.lab.game_kind import GamePlan, assignment, placements_by_group
    from studio.lab.runner import run_sync

    plan = GamePlan("architecture", 2, "scripted", PLAYS / "island.toml")
    names = [f"P{i}" for i in range(8)]
    arms = assignment(plan, names, 0)
    assert sorted(arms.values()) == sorted(["none", "goals", "impressions", "both"] * 2)
    assert assignment(plan, names, 0) == arms and assignment(plan, names, 1) != arms
    experiment = built("game", {"name": plan.name, "model": "scripted", "reps": 2, "concurrency": 1,
                                "game": {"experiment": "architecture", "play": str(PLAYS / "island.toml")}})
    outcome = run_sync(store, experiment)
    records = [r for _, r in sorted(outcome.finished.items())]
    assert len(records) == 2 and not outcome.failed
    # every game is an ordinary run, and players out in round 1 are left out, as the paper did
    groups = placements_by_group(records, first_round=False)
    assert sum(len(v) for v in groups.values()) == 2 * 7
    run = store.run(records[0]["run"])
    assert "game 1" in run.title
    gateway = RecordingGateway()
    again = run_sync(store, experiment, gateway=gateway)
    assert gateway.calls == [] and again.finished == outcome.finished


def test_the_persona_experiment_replaces_each_sheet_s_own_persona(store):
    from studio.lab.game_kind import GamePlan, cast_for

    plan = GamePlan("persona", 1, "scripted", PLAYS / "island.toml", (2, 4), players=6)
    cast, groups = cast_for(plan, 0)
    # six of the eight play, as in the paper's persona games, all with goals and impressions
    assert len(cast.roles) == 6 and set(cast.play.game.start) <= set(groups)
    assert set(cast.play.game.architecture.values()) == {"both"}
    assert sorted(groups.values()).count("charismatic") == 2 and list(groups.values()).count("aloof") == 4
    for role in cast.roles:
        group = groups[role.name]
        assert role.sheet.prompt.startswith(f"You are {role.name}.")
        assert role.sheet.archetype == group and role.sheet.traits is None  # the archetype is its only persona


def test_a_path_to_nowhere_is_one_clear_line_naming_file_field_and_fix(capsys):
    from studio.cli import main

    text = (PLAYS / "island.toml").read_text().replace('paths = ["', 'paths = ["Nowhere", "', 1)
    bad = PLAYS / "_nowhere_island.toml"
    try:
        bad.write_text(text)
        assert main(["run", str(bad), "--model", "scripted", "--db", ":memory:"]) == 2
    finally:
        bad.unlink()
    err = capsys.readouterr().err
    assert "_nowhere_island.toml" in err and "game.places" in err and "'Nowhere'" in err
    assert "Value error" not in err and "{'" not in err and "Traceback" not in err
    assert "fix: name one of the places" in err


def test_lab_game_finds_the_island_from_any_folder(tmp_path, monkeypatch, capsys):
    import json

    from studio.cli import main

    monkeypatch.chdir(tmp_path)
    code = main(["lab", "game", "persona", "--games", "1", "--split", "1:1", "--model", "scripted",
                 "--db", str(tmp_path / "lab.db"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["groups"], out


def test_actions_and_votes_are_asked_for_in_the_shape_the_rules_allow(store):
    """The schema a player's reply is held to lists exactly what the rules allow at that moment."""
    import json

    from studio.engine.forms.social import rules

    class Checking(RecordingGateway):
        engine = None
        checked = {"act": 0, "vote": 0}

        async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
            state = self.engine.state
            if ctx.task == "act":
                legal = rules.legal_actions(state.rules, state.game, ctx.character)
                none = {"enum": [None]}
                offered = {(s["properties"]["action"]["enum"][0], s["properties"].get("target", none)["enum"][0],
                            s["properties"].get("item", none)["enum"][0]) for s in json.loads(settings.schema)["anyOf"]}
                assert offered == {(a.verb, a.target or None, a.item) for a in legal}
                self.checked["act"] += 1
            elif ctx.task == "vote":
                options = json.loads(settings.schema)["properties"]["vote"]["enum"]
                assert options and ctx.character not in options and set(options) <= set(state.game.alive)
                self.checked["vote"] += 1
            return await super().complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)

    gateway = Checking()
    engine = island(store, gateway=gateway)
    gateway.engine = engine
    while gateway.checked["vote"] < 3 and not engine.finished:
        asyncio.run(engine.play_turn())
    assert gateway.checked["act"] >= 8 and gateway.checked["vote"] >= 3


def test_a_round_whose_last_actor_talks_still_ends_in_a_vote(store):
    """Found on the embedded model: when the tick's last action opened a conversation, the tick never
    advanced and the players acted again and again without ever voting."""
    from studio.llm import Completion

    class Talkative(RecordingGateway):
        engine = None

        async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
            if ctx.task == "act":
                game = self.engine.state.game
                here = game.where[ctx.character]
                others = [p for p in game.alive if p != ctx.character and game.where[p] == here]
                text = f"talk to {others[0]}" if others else "wait"
                return Completion(text, settings.model, {}, 1, 0.0)
            return await super().complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)

    everyone_at_camp = {p: "Camp" for p in load_play(PLAYS / "island.toml").game.start}
    gateway = Talkative()
    engine = island(store, gateway=gateway, actions_per_round=1, start=everyone_at_camp)
    gateway.engine = engine
    for _ in range(200):
        if engine.state.tallies:
            break
        asyncio.run(engine.play_turn())
    acts = [e for e in engine.path if e.kind == ev.DIRECTION and e.data.get("task") == "act"]
    assert engine.state.tallies, f"no vote after {len(acts)} actions"
    assert len(acts) == 8  # one action each, then the vote


def _play_rounds(engine, rounds):
    while engine.state.game.round <= rounds and not engine.finished:
        asyncio.run(engine.play_turn())


def test_a_player_is_shown_the_memories_retrieval_ranks_not_the_latest(store):
    from studio.engine.forms.social.memory import RECALL, recall, recollections

    engine = island(store)
    _play_rounds(engine, 1)
    state, path = engine.state, engine.path
    key = state.key("Amara Osei")
    remembered = recollections(path, key)
    assert len(remembered) > RECALL
    # a question about the round's vote brings back the reading of the votes, however many lines came after
    tally = next(e.text for e in path if e.data.get("task") == "tally")
    shown = recall(state, path, key, "the votes are read: who leaves the game and joins the jury", RECALL)
    assert tally in shown and len(shown) == RECALL
    assert shown[-1] == tally  # the most relevant sits last, nearest the question
    # and what the action prompt shows is what retrieval picked for her goals and surroundings
    asked = [m for ctx, m in engine.gateway.calls if ctx.task == "act" and ctx.character == "Amara Osei"][-1]
    listed = asked[-1]["content"].split("least to the most relevant now:\n")[-1]
    assert "- " in listed and "What do you do now?" in listed


def test_reflection_asks_the_paper_s_questions_and_the_audit_scores_the_goals(store):
    from studio.engine.forms.social.prompts import REFLECTION_QUESTIONS

    scripted.queue('{"insights": [{"text": "Bruno keeps his word."}, {"text": "The beach is watched."}]}',
                   task="reflect")
    gateway = RecordingGateway()
    engine = island(store, gateway)
    _play_rounds(engine, 2)
    reflect = [(ctx, m) for ctx, m in gateway.calls if ctx.task == "reflect"]
    assert reflect and all(q in reflect[0][1][-1]["content"] for q in REFLECTION_QUESTIONS)
    first = reflect[0][0].character
    key = engine.state.key(first)
    assert engine.state.insights[key][:2] == ("Bruno keeps his word.", "The beach is watched.")
    audits = [e for e in engine.path if e.data.get("task") == "audit"]
    assert audits and all(1 <= v <= 5 for e in audits for v in e.data["scores"].values())
    # the audit is an outside judge, not the player: no persona in its system prompt
    judged = next(m for ctx, m in gateway.calls if ctx.task == "audit")
    assert "You are not a player" in judged[0]["content"] and "Goals this round" in judged[1]["content"]
    # round 2's goals are set with round 1's goals and their audited scores
    history = engine.state.goal_history[key]
    assert history[0][0] == 1 and history[0][2]
    second = [m for ctx, m in gateway.calls if ctx.task == "goals" and ctx.character == first][1]
    assert "Your goals in round 1" in second[-1]["content"] and "(score " in second[-1]["content"]
    assert "Bruno keeps his word." in second[-1]["content"]


def test_an_archetype_gives_the_paper_s_trait_words(store):
    from studio.model.archetypes import ARCHETYPES, persona_text

    assert len(ARCHETYPES) == 11 and persona_text("Villain").startswith("By temperament you are very prejudiced")
    assert "very assertive" in persona_text("charismatic") and "very passive" in persona_text("aloof")
    assert persona_text("skeptic") == ""
    engine = island(store)
    role = engine.cast.roles[0]
    role.sheet = role.sheet.model_copy(update={"archetype": "Aloof"})
    view = engine.form.view(engine.state, role.key, engine.path)
    assert "very close-minded" in view.persona


def test_a_player_s_sheet_weights_steer_what_the_game_recalls(store):
    from studio.engine.forms.social.memory import recall, recollections
    from studio.model.inner_life import MemorySettings

    engine = island(store)
    _play_rounds(engine, 1)
    state, path = engine.state, engine.path
    role = engine.cast.role(state.key("Amara Osei"))
    role.sheet = role.sheet.model_copy(update={"memory": MemorySettings(importance_weight=0, relevance_weight=0)})
    state.memory.clear()
    # recency alone: the newest memories, whatever is asked
    assert recall(state, path, role.key, "the votes are read", 3) == tuple(recollections(path, role.key)[-3:])


def test_a_speaker_who_leaves_ends_the_conversation_and_impressions_read_as_a_theory_of_mind(store):
    scripted.queue("I have said enough. I leave the conversation.", task="talk")
    gateway = RecordingGateway()
    engine = island(store, gateway, talk_lines=3)
    while not any(e.data.get("task") == "summary" for e in engine.path):
        asyncio.run(engine.play_turn())
    lines = [e for e in engine.path if e.kind == ev.STAGE]
    assert len(lines) == 1 and "I leave the conversation" in lines[0].text  # not the 3 a side it could run to
    asked = next(m for ctx, m in gateway.calls if ctx.task == "impressions")[-1]["content"]
    assert "what they will probably do next" in asked and "what you should keep from them" in asked
    from studio.engine.forms.social.answers import impressions

    read = impressions('{"Bruno": {"trust": 1, "liking": 0, "strategy": "stay hidden", "next": "search the jungle",'
                       ' "of_me": "a useful ally", "keep_secret": "where the machete is"}}', ["Bruno Keller"])
    assert read["Bruno Keller"] == ("trust +1, liking +0; strategy: stay hidden; next: search the jungle; "
                                    "thinks of me: a useful ally; keep from them: where the machete is")
