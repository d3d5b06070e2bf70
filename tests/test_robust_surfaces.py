"""The newer surfaces under bad input and interruption: ensembles, experiment tables, facts, typed lines,
votes. Every case ends with one message and exit 2 (or the right behaviour), never a traceback."""

from __future__ import annotations

import pytest

from conftest import ROOT
from test_cli import bad, studio, workdir  # noqa: F401  (fixture)

INTERVIEW = ROOT / "plays" / "interview.toml"


def test_ctrl_c_in_the_middle_of_a_streamed_line_marks_it_unsaved(tmp_path, ctrl_c_mid_line):
    result = studio("run", INTERVIEW, "--model", "scripted", db=tmp_path / "s.db")
    assert result.returncode == 130
    half = "".join(ctrl_c_mid_line)
    line = next(row for row in result.stdout.splitlines() if half.strip() and half.strip() in row)
    assert "not saved" in line  # the half line itself says it was never kept
    assert studio("show", "1", db=tmp_path / "s.db").stdout.count(half.strip()) == 0


def test_a_refused_address_never_echoes_its_key(tmp_path):
    path = tmp_path / "pd.toml"
    path.write_text('kind = "pd"\nmodel = "openai/stub"\nendpoints = ["http//host/v1?key=SECRETVALUE99"]\n')
    result = studio("lab", "run", path, db=tmp_path / "s.db")
    bad(result)
    assert "SECRETVALUE99" not in result.stderr + result.stdout


def _process(*args, db, stdin: bytes = b""):
    import os
    import subprocess

    from conftest import STUDIO

    environment = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "STUDIO_DB": str(db)}
    done = subprocess.run([*STUDIO, *map(str, args)], input=stdin, capture_output=True, env=environment, cwd=ROOT,
                          timeout=180)
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("typed", [
    b"I grew up \x1b]0;owned\x07by the sea.\x1b[2J\n",
    b"I grew up \xff\xfe by the sea.\n",
    b"\xc3 by the sea\n",
])
def test_a_typed_line_is_stored_clean_and_every_show_is_safe(workdir, typed):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace("turns = 10", "turns = 2"))
    db = workdir / "s.db"
    code, out, err = _process("run", play, "--model", "scripted", "--role", "ego=human", db=db, stdin=typed * 4)
    assert code == 0 and "Traceback" not in err, err
    for command in (["show", "1"], ["show", "1", "--json", "--all"]):
        code, out, err = _process(*command, db=db)
        assert code == 0, err
        assert "\x1b" not in out and "by the sea" in out  # the line kept, its control gone


FIRST_SCENE = 'on_stage = ["Ines", "Tomas", "Marit"]\n\n[[scenes]]\nbrief = "Open'


@pytest.mark.parametrize("change, words", [
    ('on_stage = ["Nobody"]', ["scenes[0].on_stage", "'Nobody' is not a character", "Ines"]),
    ("on_stage = []", ["scenes[0].on_stage", "nobody on stage"]),
    ('on_stage = ["Ines"]\nexit = { Ines = 1 }', ["scenes[0].exit", "everyone has left after turn 1"]),
    ('on_stage = ["Ines", "Tomas"]\nenter = { Nobody = 1 }', ["scenes[0].enter", "'Nobody'"]),
    ('on_stage = ["Ines", "Tomas"]\nexit = { Nobody = 1 }', ["scenes[0].exit", "'Nobody'"]),
])
def test_a_scene_that_names_nobody_or_empties_the_stage_is_refused(workdir, change, words):
    play = workdir / "plays" / "last_crossing.toml"
    text = play.read_text()
    assert FIRST_SCENE in text
    play.write_text(text.replace(FIRST_SCENE, FIRST_SCENE.replace('on_stage = ["Ines", "Tomas", "Marit"]', change), 1))
    bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), str(play), *words)


def test_a_human_turn_policy_asks_the_playwright_who_speaks(workdir):
    play = workdir / "plays" / "last_crossing.toml"
    text = play.read_text().replace('next = "moderator"', 'next = "human"').replace("turns = 6", "turns = 2")
    play.write_text(text.replace("[[scenes]]", "[[scenes_]]", 0))
    db = workdir / "s.db"
    result = studio("run", play, "--model", "scripted", "--scenes", "1", db=db, input="Nobody\nmarit\n\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "Who speaks next?" in result.stdout
    assert "Nobody is not on stage" in result.stdout  # asked again, not forfeited
    assert "MARIT" in result.stdout  # the pick took


def _island_with_a_human(store):
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast

    path = ROOT / "plays" / "island.toml"
    cast = resolve_cast(load_play(path), path, model="scripted", roles={"Amara Osei": "human"})
    return Engine.create(store, cast, {})


def _until_amara_votes(engine, answers):
    """Play with Amara's turns scripted, her votes taken from `answers` in turn; returns the vote events."""
    import asyncio

    given = iter(answers)

    def human(pending):
        if pending.step.task in ("vote", "jury"):
            return next(given)
        return {"act": "wait", "talk": "I will stay here.", "summary": "Quiet.", "impressions": "{}",
                "goals": '{"goals": ["Last"]}', "reflect": "Quiet round."}[pending.step.task]

    for _ in range(80):
        asyncio.run(engine.play_turn(human))
        votes = [e for e in engine.path if e.origin == "human" and e.data.get("task") == "vote"]
        if any(e.kind != "backstage.choice" for e in votes):
            return votes
    raise AssertionError("Amara never voted")


def test_a_persons_invalid_vote_is_asked_again_until_valid(store):
    engine = _island_with_a_human(store)
    votes = _until_amara_votes(engine, ["Nobody", "Nobody at all", "hiro tanaka"])
    assert [e.kind for e in votes] == ["backstage.choice", "backstage.choice", "backstage.vote"]
    assert votes[-1].data["vote"] == "Hiro Tanaka"  # the third try counts; nothing was forfeited
    assert "vote for exactly one of" in votes[0].data["invalid"] and "pass" in votes[0].data["invalid"]


def test_a_person_may_pass_their_vote(store):
    engine = _island_with_a_human(store)
    votes = _until_amara_votes(engine, ["Nobody", "pass"])
    assert votes[-1].data["vote"] is None and "casts no vote" in votes[-1].text


def test_a_models_invalid_vote_is_asked_again_once_then_lost(store):
    from studio.llm import scripted

    engine = _island_with_a_human(store)
    for _ in range(2):
        scripted.queue('{"vote": "Nobody", "reason": "none"}', task="vote")
    import asyncio

    for _ in range(80):
        asyncio.run(engine.play_turn(lambda p: {"vote": "Hiro Tanaka", "jury": "Hiro Tanaka", "act": "wait",
                                                "talk": "Here.", "summary": "Quiet.", "impressions": "{}",
                                                "goals": '{"goals": ["Last"]}', "reflect": "Quiet."}[p.step.task]))
        model_votes = [e for e in engine.path if e.origin == "model" and e.data.get("task") == "vote"]
        if len(model_votes) >= 3:
            break
    assert [e.kind for e in model_votes[:2]] == ["backstage.choice", "backstage.vote"]
    assert model_votes[1].data["vote"] is None


PD = 'kind = "pd"\nmodel = "scripted"\nreps = 1\n'
INTERVIEW_KIND = 'kind = "interview"\nmodel = "scripted"\n[interview]\ncharacter = "{root}/characters/mara_lighthouse.toml"\n'


@pytest.mark.parametrize("text, words", [
    ('kind = "pd"\nmodel = ""\n', ["model", "not ''"]),  # never a quiet fall back to the embedded model
    ('kind = "pd"\nmodel = "   "\n', ["model"]),
    (PD + "[pd]\ngroups = [[\"cooperative\"]]\n", ["pd.groups[0]"]),
    (PD + "[pd]\npartners = [{x = 1}]\n", ["pd.partners[0]"]),
    (INTERVIEW_KIND + 'scale = ["mini"]\n', ["interview.scale"]),
    (INTERVIEW_KIND + "bogus = 1\n", ["interview.bogus"]),
    ('kind = "compare"\nmodel = "scripted"\n[compare]\nplay = "{root}/plays/interview.toml"\nbogus = 1\n', ["compare.bogus"]),
    ('kind = "game"\nmodel = "scripted"\n[game]\nexperiment = "persona"\nsplit = "³:3"\n', ["game.split", "two counts"]),
    (PD + 'title = "\\u001b]0;owned\\u0007\\u001b[2JReport"\n', ["title", "one line"]),
    ('kind = "pd"\nmodel = "openai/x\\u001b[2J"\n', ["model", "one line"]),
    ('kind = "pd"\nmodel = "scripted"\nreps = ' + "[" * 5000 + "]" * 5000 + "\n", ["nests"]),
])
def test_a_bad_experiment_file_is_one_message(tmp_path, text, words):
    path = tmp_path / "exp.toml"
    path.write_text(text.replace("{root}", str(ROOT)))
    result = studio("lab", "run", path, db=tmp_path / "s.db")
    message = bad(result, str(path), *words)
    assert "\x1b" not in message and "\x1b" not in result.stdout
    assert not (tmp_path / "s.db").exists() or "trials" not in result.stderr  # nothing was played


def test_an_empty_model_flag_is_refused(tmp_path):
    bad(studio("lab", "run", ROOT / "experiments" / "pd_small.toml", "--model", "", db=tmp_path / "s.db"), "--model")


@pytest.mark.parametrize("fact", ["storm=NaN", "storm=Infinity", "storm=-Infinity", "storm=1e999",
                                  "storm=" + "[" * 100_000, "storm=" + "[" * 300 + "]" * 300])
def test_a_fact_that_is_no_finite_scalar_is_refused(tmp_path, fact):
    db = tmp_path / "s.db"
    assert studio("run", INTERVIEW, "--model", "scripted", "--turns", "1", db=db).returncode == 0
    bad(studio("mind", "1", "Jenny", "--fact", fact, db=db), "--fact")
    shown = studio("show", "1", "--json", "--all", db=db)
    for line in shown.stdout.splitlines():
        import json

        json.loads(line)  # still JSON, line by line


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_play_fact_that_is_not_finite_is_refused(workdir, value):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text() + f"\n[facts]\nstorm = {value}\n")
    bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), "facts", "finite")


def test_override_with_only_dashes_is_one_message(tmp_path):
    db = tmp_path / "s.db"
    assert studio("run", INTERVIEW, "--model", "scripted", "--turns", "1", db=db).returncode == 0
    bad(studio("override", "1", "3", "--", "--", db=db), "empty")


@pytest.mark.parametrize("name,says", [("\x1b]0;owned\x07Draft", "one line"), ("Draft\u202eevil", "one line"),
                                       ("two\nlines", "one line"), ("tab\there", "one line"),
                                       ("   ", "only spaces"), ("\u3000 ", "only spaces")])
def test_a_run_name_with_terminal_control_or_only_spaces_is_refused(tmp_path, name, says):
    db = tmp_path / "s.db"
    assert studio("run", INTERVIEW, "--model", "scripted", "--turns", "1", db=db).returncode == 0
    assert studio("rename", "1", "Draft one", db=db).returncode == 0
    result = studio("rename", "1", name, db=db)
    bad(result, "NAME", says)
    assert "\x1b" not in result.stdout + result.stderr and "\u202e" not in result.stdout + result.stderr
    assert "Draft one" in studio("runs", db=db).stdout  # the name it had is kept


@pytest.mark.parametrize("command", [
    ["show", "\x1b]0;owned\x07\x1b[2J"],
    ["run", INTERVIEW, "--role", "\x1b]0;owned\x07=human"],
    ["run", INTERVIEW, "--strategies", "\x1b[2Jx"],
    ["lab", "pd", "--group", "\x1b]0;owned\x07", "--model", "scripted"],
])
def test_an_error_never_echoes_terminal_control(tmp_path, command):
    result = studio(*command, db=tmp_path / "s.db")
    bad(result)
    assert "\x1b" not in result.stderr + result.stdout


def test_a_place_name_with_terminal_control_is_refused(workdir):
    play = workdir / "plays" / "island.toml"
    text = play.read_text()
    play.write_text(text.replace('name = "Camp"', 'name = "Camp\\u001b]0;owned\\u0007"', 1))
    result = studio("run", play, "--model", "scripted", db=workdir / "s.db")
    bad(result, "game.places[0].name", "one line")
    assert "\x1b" not in result.stderr + result.stdout
