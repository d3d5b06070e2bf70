"""The by-line in every export: "Written by" before a plain author, and an author that already opens with
its own credit ("after Magee, ...") printed as written, never "by after Magee"."""

from __future__ import annotations

import pytest
from fountain import FountainParser
from pypdf import PdfReader

import aw_reader
from studio.engine.script import credit, credit_lines
from studio.export import render
from studio.export.pdf import render_pdf
from studio.export.script import build_script
from studio.export.stage import render_play_pdf
from test_export_fountain import synthetic_run, unescape_title
from test_export_layouts import fdx_paragraphs, norm

PLAIN = "Anna Kay"
AFTER = "after Magee, Arora, Gollings and Lam-Saw, The Drama Machine (2024)"
# (author, the credit line, the names line) as a screenplay title page sets them
AUTHORS = [
    (PLAIN, "Written by", PLAIN),
    (AFTER, "after", AFTER.removeprefix("after ")),
    ("Based on the novel by Ida Lake", "Based on", "the novel by Ida Lake"),
]


def test_the_credit_says_written_by_only_before_a_plain_author():
    assert credit(PLAIN) == "Written by Anna Kay"
    assert credit(AFTER) == AFTER
    assert credit("by Anna Kay") == "by Anna Kay"
    assert credit("adapted from Chekhov") == "adapted from Chekhov"
    assert credit("Afterglow Collective") == "Written by Afterglow Collective"  # a word, not the credit
    assert credit_lines(PLAIN, plain="by") == ("by", PLAIN)


@pytest.fixture
def script_by(store):
    run_id = synthetic_run(store, ["The room.", "Tell me.", "", "", "", "No.", "", "A brief"])

    def make(author: str):
        script = build_script(store, run_id)
        script.author = author
        return script

    return make


@pytest.mark.parametrize("author, credit_words, names", AUTHORS)
def test_fountain_title_page_has_the_credit_and_the_author_apart(script_by, author, credit_words, names):
    text = render(script_by(author), "fountain")
    meta = FountainParser().parse(text).metadata
    assert unescape_title(meta["credit"]) == credit_words
    assert unescape_title(meta["author"]) == names
    if aw_reader.modules() is not None:
        page = aw_reader.title_page(aw_reader.read(text))
        assert page["credit"] == credit_words and page["author"] == names


@pytest.mark.parametrize("author, credit_words, names", AUTHORS)
def test_markdown_and_fdx_read_the_by_line_right(script_by, author, credit_words, names):
    markdown = render(script_by(author), "markdown")
    assert markdown.splitlines()[2] == f"*{credit_words} {names}*"
    _, title, _ = fdx_paragraphs(render(script_by(author), "fdx"))
    assert title[2:4] == [credit_words, names]


@pytest.mark.parametrize("author, credit_words, names", AUTHORS)
def test_pdf_title_pages_read_the_by_line_right(script_by, tmp_path, author, credit_words, names):
    render_pdf(script_by(author), tmp_path / "screen.pdf")
    page = norm(PdfReader(str(tmp_path / "screen.pdf")).pages[0].extract_text())
    assert f"{credit_words} {norm(names)}" in page
    assert "Written by after" not in page
    render_play_pdf(script_by(author), tmp_path / "stage.pdf")
    page = norm(PdfReader(str(tmp_path / "stage.pdf")).pages[0].extract_text())
    stage_credit = "by" if author == PLAIN else credit_words
    assert f"{stage_credit} {norm(names)}" in page
    assert "by after" not in page


def test_show_heads_a_run_with_the_by_line_as_the_play_credits_it(tmp_path, capsys):
    from conftest import PLAYS
    from studio.cli import main

    db = str(tmp_path / "s.db")
    assert main(["run", str(PLAYS / "interview.toml"), "--model", "scripted", "--turns", "1", "--db", db]) == 0
    capsys.readouterr()
    assert main(["show", "1", "--db", db]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("The Interview · " + AFTER), first
