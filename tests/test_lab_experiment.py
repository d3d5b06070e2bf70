"""`studio lab run EXPERIMENT.toml` and `studio lab report`: the general runner, on the scripted model and
rule partners. Resumed experiments play no finished trial again; a failing trial is kept apart; every
report format reads back; a bad experiment file is named with its field and exits 2."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re

import pytest

from conftest import PLAYS, ROOT, RecordingGateway
from studio.cli import main
from studio.lab.experiment import load_experiment
from studio.lab.runner import run_experiment, slots
from studio.lab.trials import Trials
from studio.llm import scripted

PD = """kind = "pd"
title = "A small dilemma"
model = "scripted"
reps = {reps}
concurrency = {concurrency}
[pd]
groups = ["cooperative", "competitive"]
partners = ["always_defect", "tit_for_tat_c"]
"""


def _file(tmp_path, text, name="dilemma.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _pd(tmp_path, reps=2, concurrency=4):
    return _file(tmp_path, PD.format(reps=reps, concurrency=concurrency))


class Crash(BaseException):
    """A crash or Ctrl-C in the middle of a trial: not an error of the trial, so nothing records it."""


class CrashesAt(RecordingGateway):
    def __init__(self, at, task=None):
        super().__init__()
        self.at, self.task = at, task

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        if self.task is None or ctx.task == self.task:
            self.at -= 1
            if self.at == 0:
                raise Crash()
        return await super().complete(settings, messages, ctx, on_token, on_retry)


def test_a_resumed_experiment_runs_no_finished_trial_again(store, tmp_path):
    experiment = load_experiment(_pd(tmp_path), concurrency=1)
    assert experiment.name.startswith("dilemma:scripted@") and len(experiment.kind.plan(experiment.spec)) == 8
    crashing = CrashesAt(15)  # trials of six moves, one at a time: two finish, the third is cut off
    with pytest.raises(Crash):
        asyncio.run(run_experiment(store, experiment, gateway=crashing))
    trials = Trials(store)
    assert len(trials.done(experiment.name)) == 2
    [(cut, record)] = trials.started(experiment.name).items()  # left running, with its run
    assert len([e for e in store.take(record["run"]) if e.role == "simulacrum"]) == 2  # two moves before the crash
    again = RecordingGateway()
    outcome = asyncio.run(run_experiment(store, experiment, gateway=again))
    assert len(outcome.finished) == 8 and outcome.failed == {}
    # the cut-off trial goes on from its third move in the same run; the five not begun play six each;
    # the two done are not played again
    assert len(again.calls) == 4 + 5 * 6
    assert outcome.finished[cut]["run"] == record["run"] and len(outcome.finished[cut]["moves"]) == 6
    assert [c.turn for c, _ in again.calls[:4]] == [3, 4, 5, 6]
    assert len({r["run"] for r in outcome.finished.values()}) == 8 == len(store.runs())  # a run per trial
    nothing = RecordingGateway()
    asyncio.run(run_experiment(store, experiment, gateway=nothing))
    assert nothing.calls == []
    more = RecordingGateway()
    outcome = asyncio.run(run_experiment(store, load_experiment(_pd(tmp_path), reps=3), gateway=more))
    assert len(outcome.finished) == 12 and len(more.calls) == 4 * 6  # only the third repetitions


def test_a_trial_that_left_a_run_continues_it_instead_of_starting_again(store, tmp_path):
    path = _file(tmp_path, f"""kind = "compare"
model = "scripted"
reps = 1
[compare]
play = "{PLAYS / 'interview.toml'}"
turns = 1
conditions = ["without"]
reading = "single"
""")
    experiment = load_experiment(path)
    crashing = CrashesAt(1, task="critic")  # the run has played; its critique is cut off
    with pytest.raises(Crash):
        asyncio.run(run_experiment(store, experiment, gateway=crashing))
    [(key, record)] = Trials(store).started(experiment.name).items()
    assert key == "without/0" and record["run"] == store.runs()[-1].id
    again = RecordingGateway()
    outcome = asyncio.run(run_experiment(store, experiment, gateway=again))
    assert outcome.finished["without/0"]["run"] == record["run"] and len(store.runs()) == 1
    assert [ctx.task for ctx, _ in again.calls] == ["critic"]  # the run's lines were not played again


def test_a_trial_that_errors_is_recorded_and_the_rest_finish(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    path = _pd(tmp_path, reps=2, concurrency=1)
    scripted.queue("!error:400", task="move")  # the first trial's first call is rejected for good
    assert main(["lab", "run", str(path), "--json", "--db", db]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["done"] == 7 and len(out["failed"]) == 1
    assert "rejected" in next(iter(out["failed"].values()))
    assert "1 trials failed" in captured.err and "Traceback" not in captured.err
    assert main(["lab", "status", "--db", db]) == 0
    assert re.search(r"dilemma:scripted@[0-9a-f]{12}: 7 trials done, 1 failed", capsys.readouterr().out)
    assert main(["lab", "run", str(path), "--json", "--db", db]) == 0  # the rerun plays the failed one only
    out = json.loads(capsys.readouterr().out)
    assert out["done"] == 8 and out["failed"] == {} and out["played_now"] == 1


def test_trials_run_at_once_up_to_the_limit_and_the_embedded_model_gets_one_slot(store, tmp_path):
    class Slow(RecordingGateway):
        now = most = 0

        async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
            self.now += 1
            self.most = max(self.most, self.now)
            await asyncio.sleep(0.01)
            try:
                return await super().complete(settings, messages, ctx, on_token, on_retry)
            finally:
                self.now -= 1

    gateway = Slow()
    asyncio.run(run_experiment(store, load_experiment(_pd(tmp_path, reps=2, concurrency=3)), gateway=gateway))
    assert gateway.most == 3
    assert slots("local/smollm2", 16) == 1 and slots("scripted", 16) == 16


@pytest.fixture
def ran(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    path = _pd(tmp_path, reps=3)
    assert main(["lab", "run", str(path), "--db", db]) == 0
    shown = capsys.readouterr().out
    return path, db, shown


def test_the_run_prints_the_cells_the_hypotheses_and_a_chart(ran):
    _, _, shown = ran
    assert "Cooperation and score per group and partner" in shown and "H9" in shown
    assert "Cooperation rate by group and partner" in shown  # the terminal chart's title
    assert "unconditional defector: cooperative" in shown  # and its numbers under it


def test_report_as_csv_json_and_markdown(ran, tmp_path, capsys):
    path, db, _ = ran
    assert main(["lab", "report", str(path), "--format", "csv", "--db", db]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    rates = [r for r in rows if r["table"] == "Cooperation and score per group and partner" and r["measure"] == "cooperation"]
    assert len(rates) == 4 and all(r["group"] and r["partner"] and float(r["n"]) <= 3 for r in rates)
    assert all(0 <= float(r["low"]) <= float(r["value"]) <= float(r["high"]) <= 1 for r in rates)  # within 0-1
    assert {r["table"] for r in rows} >= {"The paper's hypotheses", "Each hypothesis's parts"}
    assert main(["lab", "report", str(path), "--format", "json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["done"] == 12 and [f["type"] for f in data["figures"]] == ["bars"]
    assert [t["title"] for t in data["tables"]] == ["Cooperation and score per group and partner", "The paper's hypotheses",
                                                    "Each hypothesis's parts"]
    out = tmp_path / "paper" / "dilemma.md"
    assert main(["lab", "report", str(path), "--format", "md", "--out", str(out), "--db", db]) == 0
    text = out.read_text()
    assert "| group | partner | trials | personas | cooperation | score |" in text
    assert "![Cooperation rate by group and partner](dilemma-pd_cooperation.png)" in text
    assert (tmp_path / "paper" / "dilemma-pd_cooperation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_as_png_and_svg_files(ran, tmp_path, capsys):
    path, db, _ = ran
    folder = tmp_path / "plots"
    assert main(["lab", "report", str(path), "--format", "png", "--out", str(folder), "--db", db]) == 0
    assert (folder / "dilemma-pd_cooperation.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["lab", "report", str(path), "--format", "svg", "--out", str(folder), "--db", db]) == 0
    svg = (folder / "dilemma-pd_cooperation.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg[:400]
    assert main(["lab", "report", str(path), "--format", "png", "--out", str(folder / "x.png"), "--db", db]) == 2
    assert "--out" in capsys.readouterr().err


def test_a_report_before_any_trial_says_to_run_it_first(tmp_path, capsys):
    path = _pd(tmp_path)
    assert main(["lab", "report", str(path), "--db", str(tmp_path / "s.db")]) == 2
    assert "studio lab run" in capsys.readouterr().err


@pytest.mark.parametrize("text, field", [
    ('kind = "poker"\n', "'kind'"),
    ('title = "no kind"\n', "'kind'"),
    ('kind = "pd"\nreps = 0\n', "'reps'"),
    ('kind = "pd"\nconcurrency = "many"\n', "'concurrency'"),
    ('kind = "pd"\nmodel = "nowhere/at-all"\n', "'model'"),
    ('kind = "pd"\nrepetitions = 3\n', "'repetitions'"),
    ('kind = "pd"\n[pd]\ngroups = ["pirates"]\n', "'pd.groups'"),
    ('kind = "pd"\n[pd]\ntemperature = 9\n', "'pd.temperature'"),
    ('kind = "pd"\n[compare]\nplay = "x"\n', "'compare'"),
    ('kind = "game"\n[game]\nexperiment = "poker"\n', "'game.experiment'"),
    ('kind = "compare"\n[compare]\n', "'compare.play'"),
    ('kind = "pd"\nreps = \n', "not valid TOML"),
    # each kind's table is a pydantic model: unknown keys, wrong types and values out of bounds are refused
    ('kind = "pd"\n[pd]\ncolour = "red"\n', "'pd.colour'"),
    ('kind = "pd"\n[pd]\nmax_tokens = "100"\n', "'pd.max_tokens'"),
    ('kind = "pd"\n[pd]\nmax_tokens = 5\n', "'pd.max_tokens'"),
    ('kind = "pd"\n[pd]\nwordings = [true]\n', "'pd.wordings"),
    ('kind = "game"\n[game]\nexperiment = "persona"\nsplit = [0, 3]\n', "'game.split'"),
    ('kind = "game"\n[game]\nexperiment = "architecture"\nfirst_round = "no"\n', "'game.first_round'"),
    ('kind = "game"\n[game]\nexperiment = "architecture"\nrounds = 3\n', "'game.rounds'"),
    ('kind = "compare"\n[compare]\nplay = "x.toml"\nturns = "two"\n', "'compare.turns'"),
    ('kind = "compare"\n[compare]\nplay = "x.toml"\nrepeat = 2\n', "'compare.repeat'"),
    ('kind = "compare"\n[compare]\nplay = "x.toml"\nconditions = ["louder"]\n', "'compare.conditions'"),
    ('kind = "interview"\n[interview]\ncharacter = "mara_lighthouse"\nscale = "huge"\n', "'interview.scale'"),
    ('kind = "interview"\n[interview]\ncharacter = "mara_lighthouse"\nmood = 1\n', "'interview.mood'"),
    ('kind = "interview"\n[interview]\ncharacter = "mara_lighthouse"\nseed = 1.5\n', "'interview.seed'"),
])
def test_a_bad_experiment_file_names_its_field_and_exits_2(tmp_path, capsys, text, field):
    path = _file(tmp_path, text, "bad.toml")
    assert main(["lab", "run", str(path), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and field in err and "fix:" in err and "Traceback" not in err
    assert "Value error" not in err and "errors.pydantic.dev" not in err
    if "poker" in text and "kind" in field:
        assert all(known in err for known in ("compare", "game", "interview", "pd"))  # the known kinds are listed


def test_the_command_lines_numbers_are_checked_too(tmp_path, capsys):
    path = _pd(tmp_path)
    assert main(["lab", "run", str(path), "--reps", "0", "--db", str(tmp_path / "s.db")]) == 2
    assert "--reps" in capsys.readouterr().err
    assert main(["lab", "run", str(tmp_path / "missing.toml"), "--db", str(tmp_path / "s.db")]) == 2
    assert "missing.toml" in capsys.readouterr().err


def test_every_shipped_experiment_file_loads():
    names = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml"))
    assert {"compare_interview", "game_architecture", "game_persona", "game_small", "interview_mara", "pd_paper",
            "pd_small"} <= set(names)
    sizes = {n: len(load_experiment(ROOT / "experiments" / f"{n}.toml").kind.plan(
        load_experiment(ROOT / "experiments" / f"{n}.toml").spec)) for n in names}
    assert sizes["pd_paper"] == 6 * 4 * 90 and sizes["pd_small"] == 8


def test_the_social_games_experiment_runs_as_games_in_the_store(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    args = ["lab", "run", str(ROOT / "experiments" / "game_architecture.toml"), "--model", "scripted", "--reps", "1",
            "--json", "--db", db]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["done"] == 1 and out["tables"][1]["columns"][:3] == ["group", "players", "mean place"]
    assert main(["show", "1", "--db", db]) == 0  # the game is an ordinary run
    assert "Eight on an Island" in capsys.readouterr().out


def test_a_report_draws_a_radar_in_the_terminal_and_as_a_file(tmp_path):
    from studio.lab import plots
    from studio.lab.kinds import Radar

    radar = Radar("profile", "Designed and measured", ["openness", "extraversion"],
                  {"designed": [4.0, 2.0], "measured": [3.5, None]})
    text = plots.terminal(radar, 60)
    assert "openness" in text and "4.00" in text and "3.50" in text and "designed" in text and "measured" in text
    assert plots.save(radar, tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in plots.save(radar, tmp_path / "r.svg").read_bytes()[:400]


def test_a_report_takes_in_repetitions_run_beyond_the_files_reps(ran, capsys):
    path, db, _ = ran
    assert main(["lab", "run", str(path), "--reps", "4", "--json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["played_now"] == 4
    assert main(["lab", "report", str(path), "--format", "json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["done"] == 16
    assert main(["lab", "report", str(path), "--reps", "2", "--format", "json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["done"] == 8


def test_each_dilemma_trial_is_a_run_whose_scores_follow_from_the_moves(tmp_path, capsys):
    from studio.engine.forms.dilemma import game as pd

    db = str(tmp_path / "s.db")
    path = _pd(tmp_path, reps=3)
    assert main(["lab", "run", str(path), "--json", "--db", db]) == 0
    out = json.loads(capsys.readouterr().out)
    done = {k: r for k, r in _trials(db, out["experiment"]).items()}
    assert len(done) == 12 and len({r["run"] for r in done.values()}) == 12
    for record in done.values():
        mine, theirs = record["moves"], record["partner_moves"]
        assert record["total"] == sum(pd.PAYOFF[(a, b)][0] for a, b in zip(mine, theirs))
        if record["partner"] == "tit_for_tat_c":  # the rule answers the simulacrum's previous move
            assert theirs == "C" + mine[:-1]
        else:
            assert theirs == "DDDDDD"
    assert "C" in "".join(r["moves"] for r in done.values()) and "D" in "".join(r["moves"] for r in done.values())
    record = done["competitive/0/always_defect/0"]
    assert main(["show", str(record["run"]), "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "PARTNER (UNCONDITIONAL DEFECTOR)  Project Blue." in shown
    assert f"Simulacrum 1 (competitive) {pd.dollars(record['total'])}, Partner (unconditional defector)" in shown
    assert out["tables"][0]["rows"][0][:3] == ["competitive", "always_defect", 3]


def _trials(db, name):
    from studio.store import Store

    store = Store(db)
    try:
        return Trials(store).done(name)
    finally:
        store.close()


def test_a_reply_that_is_never_a_move_fails_the_trial_and_the_retry_starts_a_new_run(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    path = _file(tmp_path, PD.format(reps=1, concurrency=1).replace(
        'partners = ["always_defect", "tit_for_tat_c"]', 'partners = ["always_defect"]').replace(
        'groups = ["cooperative", "competitive"]', 'groups = ["control"]'))
    for _ in range(2):
        scripted.queue("I would rather not say.", task="move")
    assert main(["lab", "run", str(path), "--db", db]) == 1
    assert "not a move twice" in capsys.readouterr().err
    assert main(["show", "1", "--db", db]) == 0
    assert "I would rather not say." not in capsys.readouterr().out  # kept backstage, never on stage
    assert main(["lab", "run", str(path), "--json", "--db", db]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["done"] == 1 and out["played_now"] == 1
    assert _trials(db, load_experiment(path).name)["control/0/always_defect/0"]["run"] == 2  # a fresh run, not the invalid one


@pytest.fixture
def dilemma_db(tmp_path):
    db = tmp_path / "studio.db"
    assert main(["lab", "run", str(_pd(tmp_path, reps=1)), "--json", "--db", str(db)]) == 0
    return db


async def test_the_app_opens_a_dilemma_trial_like_any_run(dilemma_db, monkeypatch):
    from studio.store import Store
    from studio.tui.app import StudioApp
    from test_tui import opened, screen_text

    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    store = Store(dilemma_db)
    try:
        app = StudioApp(store, run_id=1, model="scripted")
        async with app.run_test(size=(120, 40)) as pilot:
            await opened(pilot)
            text = screen_text(app)
            assert "SIMULACRUM 1 (COOPERATIVE)" in text and "PARTNER (UNCONDITIONAL DEFECTOR)  Project Blue." in text
            assert "After 6 rounds" in text and "finished" in text
    finally:
        store.close()


def test_the_progress_counts_trials_running_done_and_tokens(store, tmp_path):
    seen = []
    experiment = load_experiment(_pd(tmp_path, reps=2, concurrency=2))
    outcome = asyncio.run(run_experiment(store, experiment, gateway=RecordingGateway(),
                                         progress=lambda t: seen.append((t.done, t.running, t.failed, t.tokens, t.estimate))))
    assert seen[0][:3] == (0, 0, 0) and seen[-1][:3] == (8, 0, 0)
    assert max(running for _, running, _, _, _ in seen) == 2  # two at once, as the file says
    assert seen[-1][3] == outcome.tally.tokens > 0 and seen[-1][4] == 0.0  # nothing left to wait for
    assert [done for done, *_ in seen] == sorted(done for done, *_ in seen)


def test_text_from_a_report_is_printed_as_text_never_as_markup():
    from rich.console import Console

    from studio.lab.kinds import Report, Table
    from studio.lab.render import to_console, to_csv

    report = Report("[bold]A title[/bold]", [Table("[red]t[/red]", ["[i]column[/i]"], [["[link=x]cell[/link], with a comma"]])],
                    notes=["[blink]note[/blink]"])
    console = Console(record=True, width=100)
    to_console(report, console)
    shown = console.export_text()
    for text in ("[bold]A title[/bold]", "[red]t[/red]", "[i]column[/i]", "[link=x]cell[/link]", "[blink]note[/blink]"):
        assert text in shown
    report.tables[0].columns.append("n")
    report.tables[0].rows[0].append(2)
    assert list(csv.reader(io.StringIO(to_csv(report))))[1] == ["[red]t[/red]", "[link=x]cell[/link], with a comma",
                                                                 "n", "2", "", "", "", ""]


def test_a_game_cut_off_midway_goes_on_in_the_same_run(store):
    experiment = load_experiment(ROOT / "experiments" / "game_architecture.toml", model="scripted", reps=1)
    with pytest.raises(Crash):
        asyncio.run(run_experiment(store, experiment, gateway=CrashesAt(40)))
    [(key, record)] = Trials(store).started(experiment.name).items()
    before = len(store.take(record["run"]))
    assert before > 10
    again = RecordingGateway()
    outcome = asyncio.run(run_experiment(store, experiment, gateway=again))
    assert outcome.finished[key]["run"] == record["run"] and len(store.runs()) == 1
    assert len(store.take(record["run"])) > before and sorted(outcome.finished[key]["placements"].values()) == list(range(1, 9))


def test_an_exported_dilemma_trial_is_a_finished_play(dilemma_db, tmp_path):
    out = tmp_path / "trial.md"
    assert main(["export", "1", "--format", "markdown", "--out", str(out), "--db", str(dilemma_db)]) == 0
    text = out.read_text()
    assert "**Partner (unconditional defector):** Project Blue." in text and "After 6 rounds" in text
    assert "unfinished" not in text


def test_an_experiment_file_spreads_its_model_over_the_endpoints_it_lists(tmp_path, capsys):
    from stub_server import Reply, StubServer

    move = '{"move": "C", "reason": "they have kept faith so far"}'
    servers = [StubServer([Reply(move, latency=0.02)], max_requests=100, lifetime=60) for _ in range(2)]
    with servers[0] as a, servers[1] as b:
        path = _file(tmp_path, PD.format(reps=2, concurrency=4).replace(
            'model = "scripted"', f'model = "openai/stub"\nsmall = false\nendpoints = ["{a.url}", "{b.url}"]\n'
                                  'max_parallel = 1'))
        assert main(["lab", "run", str(path), "--json", "--db", str(tmp_path / "s.db")]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["done"] == 8 and out["failed"] == {}
        assert len(a.requests) + len(b.requests) == 8 * 6 and a.requests and b.requests  # both took a share
        assert a.peak == 1 and b.peak == 1  # each held to max_parallel
    bad = _file(tmp_path, PD.format(reps=1, concurrency=1).replace('model = "scripted"', 'endpoints = ["nowhere"]'),
                "bad.toml")
    assert main(["lab", "run", str(bad), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "model" in err  # the embedded/scripted voices have no endpoints


def test_endpoints_on_the_command_line_replace_the_files(tmp_path, capsys):
    from stub_server import Reply, StubServer

    move = '{"move": "D", "reason": "a test of the servers"}'
    server = StubServer([Reply(move, latency=0.01)], max_requests=100, lifetime=60)
    with server as only:
        path = _file(tmp_path, PD.format(reps=1, concurrency=4).replace(
            'model = "scripted"', 'model = "openai/stub"\nsmall = false\nendpoints = ["http://127.0.0.1:9/v1"]'))
        argv = ["lab", "run", str(path), "--endpoint", only.url, "--max-parallel", "2", "--json",
                "--db", str(tmp_path / "s.db")]
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["done"] == 4 and len(only.requests) == 4 * 6 and only.peak <= 2  # the file's dead server unused
    for flags, named in ((["--endpoint", "ftp://x"], "--endpoint"), (["--max-parallel", "0"], "--max-parallel"),
                         (["--model", "scripted", "--endpoint", "http://127.0.0.1:9/v1"], "--endpoint")):
        plain = _file(tmp_path, PD.format(reps=1, concurrency=1), "plain.toml")
        assert main(["lab", "run", str(plain), *flags, "--db", str(tmp_path / "s.db")]) == 2
        err = capsys.readouterr().err
        assert named in err and "Traceback" not in err
