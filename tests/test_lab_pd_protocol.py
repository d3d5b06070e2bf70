"""The dilemma as the paper ran it: one conversation per trial, persona and study in the opening user
message, the model's own replies kept, the partner's projects named; the user's own texts instead of the
studio's; the report's reproduction and protocol card; its JSON as numbers a data frame reads."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from conftest import ROOT, RecordingGateway
from studio.cli import main
from studio.engine.forms.dilemma import game as pd
from studio.lab.experiment import load_experiment
from studio.lab.runner import run_experiment

PAPER = ROOT / "experiments" / "pd_paper.toml"


def _small(tmp_path: Path, extra: str = "", name: str = "dilemma.toml") -> Path:
    path = tmp_path / name
    path.write_text('kind = "pd"\nmodel = "scripted"\nreps = 2\nconcurrency = 2\n[pd]\n'
                    'groups = ["competitive", "control"]\npartners = ["always_defect", "tit_for_tat_c"]\n' + extra,
                    encoding="utf-8")
    return path


def _one_trial_calls(gateway: RecordingGateway) -> list[list[dict]]:
    """The calls of one trial (the first simulacrum's run), in order."""
    first = gateway.calls[0][1][0]["content"]
    return [messages for _, messages in gateway.calls if messages[0]["content"] == first]


def test_each_trial_is_one_growing_conversation_with_the_persona_in_the_opening_user_message(store, tmp_path):
    gateway = RecordingGateway()
    outcome = asyncio.run(run_experiment(store, load_experiment(_small(tmp_path)), gateway=gateway))
    assert not outcome.failed and len(outcome.finished) == 8
    calls = _one_trial_calls(gateway)
    assert [len(m) for m in calls[:pd.ROUNDS]] == [1, 3, 5, 7, 9, 11]  # every round adds its reply and the answer
    last = calls[pd.ROUNDS - 1]
    assert [m["role"] for m in last] == ["user", "assistant"] * 5 + ["user"]  # no system message: persona in user role
    opening = last[0]["content"]
    assert any(opening.startswith(p) for p in pd.GROUPS["competitive"] + pd.GROUPS["control"])
    assert "Project Green" in opening and "$5.00" in opening and "cooperate" not in opening.lower()
    # each earlier reply comes back as the model wrote it, and every later call keeps it
    replies = [m["content"] for m in last if m["role"] == "assistant"]
    assert all(calls[i + 1][2 * i + 1]["content"] == replies[i] for i in range(5))
    assert all("your partner chose Project" in m["content"] for m in last[2::2])


def test_the_user_s_own_texts_run_instead_of_the_studio_s(store, tmp_path):
    (tmp_path / "texts.toml").write_text(
        'instructions = "A money game of {rounds} rounds: {cooperate} pays {R} each, and so on. Choice: ?"\n'
        'next_round = "Partner: {partner}. Round {next}?"\n'
        '[personas]\ncontrol = ["You are a volunteer in a lab.", "You are a student."]\n', encoding="utf-8")
    gateway = RecordingGateway()
    experiment = load_experiment(_small(tmp_path, 'prompts = "texts.toml"\nwordings = [0, 1]\nmixed_model = true\n'))
    outcome = asyncio.run(run_experiment(store, experiment, gateway=gateway))
    assert not outcome.failed
    shown = "\n".join(m["content"] for _, ms in gateway.calls for m in ms)
    assert "You are a volunteer in a lab." in shown and "You are a student." in shown
    assert "A money game of 6 rounds: Project Green pays $5.00 each" in shown and "Partner: Project" in shown
    assert pd.GROUPS["competitive"][0] in shown  # a group the file leaves out keeps the studio's personas
    report = experiment.kind.report(experiment.spec, outcome.finished)
    assert any("texts.toml" in line for line in report.protocol)
    model = next(t for t in report.tables if t.title.startswith("Mixed model"))
    assert all(isinstance(v, float) for row in model.rows for v in row[1:]) and (model.rows or "not fitted" in model.note)


def test_an_empty_control_persona_opens_with_the_study_alone_as_the_paper_s_did(store, tmp_path):
    (tmp_path / "texts.toml").write_text('[personas]\ncontrol = ["You are a student.", ""]\n', encoding="utf-8")
    gateway = RecordingGateway()
    experiment = load_experiment(_small(tmp_path, 'prompts = "texts.toml"\nwordings = [0, 1]\n'))
    outcome = asyncio.run(run_experiment(store, experiment, gateway=gateway))
    assert not outcome.failed and len(outcome.finished) == 8
    openings = {ms[0]["content"] for _, ms in gateway.calls}
    study = pd.instructions(pd.ROUNDS)
    assert study in openings  # the empty persona: nothing before the study's description
    assert any(o.startswith("You are a student.") for o in openings)
    assert not any("No persona" in o for o in openings)
    protocol = experiment.kind.report(experiment.spec, outcome.finished).protocol
    assert any("Control persona 2 is empty" in line for line in protocol)
    assert not any("third control persona was empty" in line for line in protocol)


def test_only_the_control_group_may_have_an_empty_persona(tmp_path, capsys):
    (tmp_path / "texts.toml").write_text('[personas]\ncompetitive = ["", "You are keen."]\n', encoding="utf-8")
    assert main(["lab", "run", str(_small(tmp_path, 'prompts = "texts.toml"\n')), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert "personas.competitive" in err and "only the control group" in err and "Traceback" not in err


@pytest.mark.parametrize("text, field", [
    ('next_round = "Partner: {opponent}"\n', "next_round"),
    ('greeting = "hello"\n', "greeting"),
    ('[personas]\nrivals = ["You are keen."]\n', "personas.rivals"),
    ('[personas]\ncontrol = ["You are calm."]\n', "pd.wordings"),
])
def test_a_bad_texts_file_is_named_with_its_field_before_any_trial(tmp_path, capsys, text, field):
    (tmp_path / "texts.toml").write_text(text, encoding="utf-8")
    path = _small(tmp_path, 'prompts = "texts.toml"\n')
    assert main(["lab", "run", str(path), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert "texts.toml" in err and field in err and "Traceback" not in err


def test_the_paper_s_experiment_on_a_stub_server_reports_the_reproduction_and_numbers(tmp_path, capsys):
    import pandas
    from stub_server import Reply, StubServer

    reply = "I would rather build trust with my partner.\nChoice: Project Green"
    # the server lists its model with llama.cpp's n_params, 8B: a fact, so the figures may stand beside the paper's
    with StubServer([Reply(reply, latency=0.0)], max_requests=400, lifetime=120, meta={"n_params": 8e9}) as server:
        text = PAPER.read_text(encoding="utf-8").replace('model = "local/smollm2"', f'model = "openai/stub"\nendpoints = ["{server.url}"]')
        text = text.replace("reps = 90", "reps = 2").replace('"mixed_motivation", "control"]', '"control"]')
        path = tmp_path / "pd_paper.toml"
        path.write_text(text.replace('partners = ["always_defect", "always_cooperate", "tit_for_tat_c", "tit_for_tat_d"]',
                                     'partners = ["always_defect", "tit_for_tat_c"]'), encoding="utf-8")
        db = str(tmp_path / "s.db")
        assert main(["lab", "run", str(path), "--json", "--db", db]) == 0
        assert json.loads(capsys.readouterr().out)["failed"] == {}
        first = server.requests[0]["messages"]
        assert first[0]["role"] == "user" and "Project Blue" in first[0]["content"] and len(first) == 1
        assert any(len(r["messages"]) == 11 for r in server.requests)  # the sixth round sees the whole game
        # reported while the server still lists its model: its size is a fact the report can read
        assert main(["lab", "report", str(path), "--paper", "--db", db]) == 0
        shown = capsys.readouterr().out
        assert "Reproduction of Phelps and Russell, 2023" in shown and "Differences from the paper" in shown
        assert main(["lab", "report", str(path), "--format", "json", "--db", db]) == 0
        data = json.loads(capsys.readouterr().out)
        cells = next(t for t in data["tables"] if t["title"].startswith("Cooperation"))
        frame = pandas.DataFrame(cells["rows"], columns=cells["columns"])
        for column in ("trials", "personas", "cooperation", "cooperation_low", "cooperation_high", "cooperation_n",
                       "score", "score_low", "score_high", "score_n"):
            assert pandas.api.types.is_numeric_dtype(frame[column]), column
        assert (frame["cooperation"] == 1.0).all() and (frame["cooperation_high"] <= 1.0).all()
        assert (frame["score"] == 30.0)[frame["partner"] == "tit_for_tat_c"].all()  # green with green: $5 a round
        tests = next(t for t in data["tables"] if t["title"] == "The paper's hypotheses")
        frame = pandas.DataFrame(tests["rows"], columns=tests["columns"])
        assert frame["hypothesis"].tolist() == [f"H{i}" for i in range(1, 10)]
        for column in ("effect", "p", "p (Holm)"):
            assert pandas.api.types.is_numeric_dtype(frame[column]) or frame[column].isna().all(), column
        figures = pandas.DataFrame([{"id": i, "paper": f["paper"]["value"], "studio": (f["studio"] or {}).get("value")}
                                    for i, f in enumerate(data["paper"]["figures"])])
        assert pandas.api.types.is_numeric_dtype(figures["paper"]) and pandas.api.types.is_numeric_dtype(figures["studio"])
        assert any("Table 2" == f["where"] and f["studio"] and f["studio"]["value"] == 1.0 for f in data["paper"]["figures"])
