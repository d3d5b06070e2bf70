"""The social game's experiments as the paper ran them: end to end on the scripted model and on a local
OpenAI-compatible server, the win-rate test against chance, the paper's figures beside the studio's, and a
researcher's own prompt texts."""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT
from studio.cli import main

SMALL = ROOT / "experiments" / "game_small.toml"


def _rows(table):
    return [dict(zip(table["columns"], row)) for row in table["rows"]]


def _file(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_architecture_experiment_reports_wins_against_chance_and_the_paper_beside_it(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    assert main(["lab", "run", str(SMALL), "--model", "scripted", "--reps", "2", "--json", "--db", db]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["done"] == 2
    wins = next(t for t in out["tables"] if t["title"].startswith("Games won"))
    rows = _rows(wins)
    assert {r["group"] for r in rows} == {"A (none)", "B (goals)", "C (impressions)", "D (both)"}
    assert sum(r["wins"] for r in rows) == 2  # every game has one winner, in one group
    for row in rows:  # numbers, not formatted text: the rate with its interval, chance and p
        assert isinstance(row["win rate"], float) and 0 <= row["win rate_low"] <= row["win rate"] <= row["win rate_high"] <= 1
        assert row["chance"] == 0.25 and 0 <= row["binomial p"] <= 1
    actions = next(t for t in out["tables"] if t["title"].startswith("Actions by kind"))
    assert all(0 <= r["talk"] <= 1 for r in _rows(actions))
    paper = out["paper"]
    assert paper["paper"].startswith("Thudium") and any(f["where"] == "Figure 4" for f in paper["figures"])
    talk = next(f for f in paper["figures"] if f["label"].startswith("Share of all actions that are talk"))
    assert talk["paper"]["value"] == 0.726 and talk["paper"]["n"] == 23
    assert 0 <= talk["studio"]["low"] <= talk["studio"]["value"] <= talk["studio"]["high"] <= 1
    assert any("Table B.1" in line for line in out["protocol"]) and any(line.startswith("Difference:") for line in out["protocol"])

    assert main(["lab", "report", str(SMALL), "--model", "scripted", "--paper", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "Figure 4" in text and "0.83" in text and "Section 5.2" in text and "Difference:" in text
    assert "Games won" not in text  # --paper prints only the reproduction and the protocol card


def test_the_json_report_loads_as_numbers(tmp_path, capsys):
    import pandas as pd
    db = str(tmp_path / "s.db")
    assert main(["lab", "run", str(SMALL), "--model", "scripted", "--reps", "1", "--db", db]) == 0
    capsys.readouterr()
    assert main(["lab", "report", str(SMALL), "--model", "scripted", "--format", "json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    table = next(t for t in report["tables"] if t["title"].startswith("Games won"))
    wins = pd.DataFrame(table["rows"], columns=table["columns"])
    assert pd.api.types.is_float_dtype(wins["win rate"]) and pd.api.types.is_float_dtype(wins["binomial p"])


def test_a_group_that_always_wins_is_told_from_chance_and_an_even_one_is_not():
    from studio.lab.game_analysis import win_rate

    strong = win_rate("charismatic", 14, 17, 3, 6)  # the paper's 82% of 17 games, 3 of 6 players
    assert strong.chance == 0.5 and strong.p < 0.05 and strong.low > 0.5
    even = win_rate("charismatic", 7, 21, 2, 6)  # the paper's 7 of 21 with 2 of 6: as chance has it
    assert even.p > 0.5 and even.low < 1 / 3 < even.high


def test_the_persona_report_fills_the_paper_s_persona_figures():
    from studio.lab.game_kind import game_report

    records = {}
    for i in range(10):
        names = [f"P{j}" for j in range(6)]
        groups = {n: ("charismatic" if j % 2 == 0 else "aloof") for j, n in enumerate(names)}
        order = sorted(names, key=lambda n: (groups[n] != "charismatic", (names.index(n) + i) % 6))
        records[f"game/{i}"] = {"run": i + 1, "groups": groups, "winner": order[0], "players": 6,
                                "placements": {n: k + 1 for k, n in enumerate(order)}, "first_out": order[-1],
                                "actions": {n: {"talk": 3, "move": 1, "other": 1} for n in names}, "audits": []}
    spec = {"name": "p", "model": "scripted", "game": {"experiment": "persona", "split": [3, 3],
                                                       "archetypes": ["charismatic", "aloof"], "first_round": False}}
    report = game_report(spec, records)
    figures = {f.label: f for f in report.paper.figures}
    won = next(f for label, f in figures.items() if label.startswith("3 charismatic v 3 aloof"))
    assert won.paper.value == 0.82 and won.studio.value == 1.0 and won.studio.n == 10
    wins = report.tables[0].rows[0]
    assert wins[0] == "charismatic" and wins[5] == 0.5 and wins[6] < 0.01  # all 10 games, chance 0.5
    placed = next(f for label, f in figures.items() if label == "3 v 3: mean placement, charismatic")
    assert placed.studio.value == pytest.approx(2.0)


def _talk_row(per_game):
    """The charismatic row of the actions table over games whose players each take `per_game[i]` talk
    actions of ten."""
    from studio.lab.game_kind import game_report

    records = {}
    for i, talk in enumerate(per_game):
        names = [f"P{j}" for j in range(6)]
        groups = {n: ("charismatic" if j % 2 == 0 else "aloof") for j, n in enumerate(names)}
        records[f"game/{i}"] = {"run": i + 1, "groups": groups, "winner": names[0], "players": 6,
                                "placements": {n: k + 1 for k, n in enumerate(names)}, "first_out": names[-1],
                                "actions": {n: {"talk": talk, "move": 10 - talk, "other": 0} for n in names}, "audits": []}
    spec = {"name": "p", "model": "scripted", "game": {"experiment": "persona", "split": [3, 3],
                                                       "archetypes": ["charismatic", "aloof"], "first_round": False}}
    table = next(t for t in game_report(spec, records).tables if t.title.startswith("Actions by kind"))
    return next(row for row in table.rows if row[0] == "charismatic")


def test_talk_that_goes_with_the_game_widens_the_interval_of_its_share():
    """Half the games all talk and half all move: 300 actions, but ten games' worth of evidence."""
    steady, clustered = _talk_row([5] * 10), _talk_row([10, 0] * 5)
    assert steady[1] == clustered[1] == 300 and steady[2].value == clustered[2].value == 0.5
    assert clustered[2].n == 10  # counted in games
    assert clustered[2].high - clustered[2].low > 2.5 * (steady[2].high - steady[2].low)
    assert clustered[2].low < 0.25 and clustered[2].high > 0.75  # what ten coin-flip games can say


def _stub_answer(body):
    """What a plain model behind a local server might answer: the first option offered, a vote for the
    first name allowed, goals and scores as JSON, a line otherwise."""
    from stub_server import Reply

    asked = body["messages"][-1]["content"]
    if m := re.search(r"Choose one of: (.+?)\.\n", asked):
        return Reply(m.group(1).split("; ")[0])
    if m := re.search(r"(?:from|finalists are): (.+?)\.", asked) or re.search(r"finalists are (.+?)\.", asked):
        return Reply(json.dumps({"vote": re.split(r", | and ", m.group(1))[0], "reason": "a plain choice"}))
    if m := re.search(r"VOTE NOW: (.+)$", asked, re.M):
        return Reply(json.dumps({"vote": m.group(1).split(", ")[0], "reason": "told to"}))
    if '"high": 3' in asked:
        return Reply('{"high": 3, "medium": 2, "low": 4}')
    if '"high": "..."' in asked:
        return Reply('{"high": "stay", "medium": "ally", "low": "idol"}')
    return Reply("We should stick together.")


def test_the_experiment_runs_on_a_local_openai_compatible_server_with_the_researcher_s_prompts(tmp_path, capsys):
    from stub_server import StubServer

    prompts = _file(tmp_path, '[vote]\nuser = "{situation}\\nVOTE NOW: {candidates}"\n', "mine.toml")
    text = SMALL.read_text().replace('model = "local/smollm2"', 'model = "openai/stub"\nsmall = false')
    text = text.replace('play = "plays/island4.toml"', f'play = "{ROOT / "experiments" / "plays" / "island4.toml"}"\n'
                        'prompts = "mine.toml"')
    path = _file(tmp_path, text)
    with StubServer([], default=_stub_answer, max_requests=2000, lifetime=120) as server:
        argv = ["lab", "run", str(path), "--reps", "1", "--endpoint", server.url, "--json", "--db", str(tmp_path / "s.db")]
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["done"] == 1 and out["failed"] == {}
        votes = [r for r in server.requests if "VOTE NOW:" in r["messages"][-1]["content"]]
        assert votes and "Round" in votes[0]["messages"][-1]["content"]  # their words, the moment's fields
        assert any("researcher's own prompt texts were used for: vote" in line for line in out["protocol"])
    assert prompts.exists()


def test_a_prompt_file_naming_an_unknown_field_is_one_message(tmp_path, capsys):
    _file(tmp_path, '[vote]\nuser = "Vote now, {nme}"\n', "mine.toml")
    text = SMALL.read_text().replace('play = "plays/island4.toml"',
                                     f'play = "{ROOT / "experiments" / "plays" / "island4.toml"}"\nprompts = "mine.toml"')
    path = _file(tmp_path, text)
    assert main(["lab", "run", str(path), "--model", "scripted", "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert "mine.toml" in err and "nme" in err and "Traceback" not in err
