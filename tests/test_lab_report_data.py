"""A report's figures reach CSV and JSON as numbers, and a paper's published figures sit beside the studio's."""

from __future__ import annotations

import csv
import io
import json

import pytest
from rich.console import Console

from studio.lab import render
from studio.lab.kinds import Cell, Report, Reproduction, PaperFigure, Table


def _report() -> Report:
    table = Table("Cooperation", ["group", "cooperation"], [["cooperative", Cell(0.5, 0.4, 0.6, 30)],
                                                            ["competitive", Cell(0.25, 0.1, 0.4, 30)]])
    paper = Reproduction("Someone et al. (2024), A Study", "Table 2", [
        PaperFigure("Table 2", "cooperative", Cell(0.55), Cell(0.5, 0.4, 0.6, 30)),
        PaperFigure("Table 2", "altruistic", Cell(0.7), None, "not run here"),
    ])
    return Report("A report", [table], protocol=["Six rounds, as the paper.", "Payoffs in points, not dollars."],
                  paper=paper)


def test_json_tables_hold_numbers_not_formatted_strings() -> None:
    data = json.loads(render.to_json(_report()))
    table = data["tables"][0]
    assert table["columns"] == ["group", "cooperation", "cooperation_low", "cooperation_high", "cooperation_n"]
    assert table["rows"][0] == ["cooperative", 0.5, 0.4, 0.6, 30]
    figures = data["paper"]["figures"]
    assert figures[0]["paper"]["value"] == 0.55 and figures[0]["studio"]["high"] == 0.6
    assert figures[1]["studio"] is None
    assert data["protocol"][1].startswith("Payoffs")


def test_csv_is_one_tidy_table_whose_figures_read_as_numbers() -> None:
    text = render.to_csv(_report())
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["table", "group", "where", "figure", "note", "measure", "value", "low", "high", "n",
                             "reproduction"]
    first = rows[0]
    assert (first["table"], first["group"], first["measure"]) == ("Cooperation", "cooperative", "cooperation")
    assert first["figure"] == "" and first["reproduction"] == "true"
    assert [float(first[k]) for k in ("value", "low", "high", "n")] == [0.5, 0.4, 0.6, 30]
    published = [r for r in rows if r["table"].startswith("Reproduction of") and r["measure"] == "paper"]
    assert [float(r["value"]) for r in published] == [0.55, 0.7]
    missing = next(r for r in rows if r["figure"] == "altruistic" and r["measure"] == "studio")
    assert missing["value"] == "" and missing["note"] == "not run here"  # not measured: empty, never 0


def test_a_report_that_is_no_reproduction_says_so_on_every_csv_row() -> None:
    report = _report()
    report.paper.not_a_reproduction = "This is not a reproduction: the scripted model."
    rows = list(csv.DictReader(io.StringIO(render.to_csv(report))))
    assert {r["reproduction"] for r in rows} == {"false"}
    assert rows[-1]["table"].startswith("Beside")


def test_a_naming_column_called_like_a_fixed_one_keeps_its_own_column() -> None:
    report = Report("r", [Table("t", ["measure", "value"], [["speed", 2.0]])])
    [row] = list(csv.DictReader(io.StringIO(render.to_csv(report))))
    assert (row["row_measure"], row["measure"], row["value"], row["reproduction"]) == ("speed", "value", "2.0", "")


def test_pandas_reads_the_csv_s_figures_as_numbers() -> None:
    import pandas
    frame = pandas.read_csv(io.StringIO(render.to_csv(_report())))
    for column in ("value", "low", "high", "n"):
        assert pandas.api.types.is_float_dtype(frame[column]), column
    assert "keys" not in frame.columns            # it would hide DataFrame.keys behind frame.keys
    rates = frame[(frame.table == "Cooperation") & (frame.measure == "cooperation")].set_index("group")["value"]
    assert rates["competitive"] == 0.25
    assert frame.reproduction.dtype == bool


def test_terminal_formats_the_interval_and_paper_view_shows_protocol() -> None:
    console = Console(record=True, width=120)
    render.to_console(_report(), console)
    text = console.export_text()
    assert "0.50 [0.40, 0.60]" in text and "Payoffs in points" in text
    console = Console(record=True, width=120)
    assert render.to_console_paper(_report(), console)
    shown = console.export_text()
    assert "0.55" in shown and "not run here" in shown and "Cooperation" not in shown.split("Reproduction")[0]
    assert not render.to_console_paper(Report("plain"), Console(record=True))


def test_each_reproduction_row_shows_the_n_of_both_sides() -> None:
    console = Console(record=True, width=160)
    render.to_console_paper(_report(), console)
    shown = console.export_text()
    row = next(line for line in shown.splitlines() if "cooperative" in line)
    assert "0.55 (n ?)" in row and "0.50 [0.40, 0.60] (n 30)" in row   # the paper gives no n here; ours rests on 30
    rows = render.reproduction_table(_report().paper).rows
    assert [r[2:4] for r in rows] == [["0.55 (n ?)", "0.50 [0.40, 0.60] (n 30)"], ["0.70 (n ?)", "-"]]


@pytest.mark.parametrize("model, small", [
    ("scripted", True), ("local/smollm2", True), ("ollama/qwen2.5:0.5b", True), ("hf/SmolLM2-135M-Instruct", True),
    ("ollama/llama3.2:1b", True), ("openai/gemma-2b-it", True), ("openai/qwen2.5-1.5b-instruct", True),
    ("openai/gpt-4o-mini", False), ("ollama/llama3.1:8b", False), ("ollama/mixtral:8x7b", False),
])
def test_a_scripted_or_small_model_makes_no_reproduction(model, small) -> None:
    from studio.lab.papers import not_a_reproduction

    said = not_a_reproduction([model])
    assert bool(said) == small and (not said or said.startswith("This is not a reproduction"))


@pytest.mark.parametrize("model", ["openai/gpt2", "openai/distilgpt2", "openai/stub", "ollama_chat/house-model"])
def test_a_model_nothing_gives_the_size_of_is_no_reproduction_until_the_experiment_says(model) -> None:
    """gpt2 is 124M parameters under a name that says none: a name is no fact. Listed nowhere, it is taken
    for neither small nor large; `small = false` in the experiment makes it a reproduction, `true` a small one."""
    from studio.lab.papers import model_size, not_a_reproduction

    assert model_size(model) == (None, "neither its name nor litellm's model facts give its size")
    assert "nothing says how large the model is" in not_a_reproduction([model])
    assert not_a_reproduction([model], small=False) == ""
    assert "from a small model" in not_a_reproduction([model], small=True)


def test_behind_an_endpoint_a_hosted_name_proves_nothing() -> None:
    from studio.lab.papers import model_size, not_a_reproduction

    assert model_size("openai/gpt-4o-mini") == (False, "litellm's model facts list it as a hosted model")
    assert model_size("openai/gpt-4o-mini", served=True)[0] is None
    assert "served from an endpoint" in not_a_reproduction(["openai/gpt-4o-mini"], served=True)
    assert model_size("openai/llama-3-70b", served=True) == (False, "its name gives 70B parameters")


def test_a_report_that_is_not_a_reproduction_says_so_before_any_figure(tmp_path) -> None:
    from studio.lab.papers import judged

    report = judged(_report(), {"kind": "compare", "model": "openai/gpt-4o", "compare": {"critic": "local/smollm2"}})
    console = Console(record=True, width=160)
    render.to_console(report, console)
    text = " ".join(console.export_text().split())
    assert text.index("This is not a reproduction") < text.index("0.50")
    assert "local/smollm2" in text and "Beside Someone et al." in text
    data = json.loads(render.to_json(report))
    assert data["paper"]["reproduction"] is False and data["paper"]["not_a_reproduction"].startswith("This is not")
    [md, *_] = render.to_markdown(report, tmp_path / "r.md")
    lines = md.read_text(encoding="utf-8").splitlines()
    assert lines[2].startswith("**This is not a reproduction")
    served = judged(_report(), {"kind": "compare", "model": "openai/gpt-4o", "compare": {}})
    assert json.loads(render.to_json(served))["paper"]["reproduction"] is True
