"""The title page is the playwright's: every format prints its title, credit, author, draft date and
contact as the play gives them, the run's day where the play gives no date, and no made-up author where
the play names none. Read back with the Fountain readers, Final Draft's XML, Markdown, pypdf and pdftotext."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import date

import pytest
from fountain import FountainParser
from pypdf import PdfReader

import aw_reader
from studio.export import render
from studio.export.pdf import render_pdf
from studio.export.script import build_script
from studio.export.stage import render_play_pdf
from studio.store import events as ev
from test_export_fountain import unescape_title
from test_export_layouts import fdx_paragraphs, norm

PAGE = {
    "author": "Ana Kay",
    "credit": "Story by",
    "draft_date": "Second draft, 3 May 2026",
    "contact": "Ana Kay\n12 Quay Street, Cork\nana@example.com",
}


@pytest.fixture
def run_with(store, gateway):
    """A run of the interview whose play carries `page` on its title page, with one line in it."""
    from conftest import make_cast
    from studio.engine import Engine

    def make(**page):
        cast = make_cast(turns=1, epilogue=False)
        cast = cast.model_copy(update={"play": cast.play.model_copy(update=page)})
        engine = Engine.create(store, cast, {}, gateway=gateway)
        engine._commit(ev.SCENE, "Scene 1: the kitchen", origin="human", scene=1, turn=1)
        engine._commit(ev.STAGE, "Tell me.", origin="human", role="other", character="Sasha", scene=1, turn=1)
        return build_script(store, engine.run_id)

    return make


def pdf_first_page(path) -> str:
    return norm(PdfReader(str(path)).pages[0].extract_text())


def drawn(path, page_number: int) -> list[tuple[str, float, float, str]]:
    """Each piece of text on a page as pypdf reads it drawn: (text, x, y in points from the foot of the
    page, the font's name)."""
    out: list[tuple[str, float, float, str]] = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            x = tm[4] * cm[0] + cm[4]
            y = tm[5] * cm[3] + cm[5]
            out.append((text.strip(), x, y, str((font or {}).get("/BaseFont", ""))))

    PdfReader(str(path)).pages[page_number].extract_text(visitor_text=visit)
    return out


def find(pieces, start: str):
    """The first piece of text drawn that starts with `start`."""
    return next(p for p in pieces if p[0].startswith(start))


def pdftotext_first_page(path) -> str:
    done = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(path), "-"], capture_output=True, text=True,
                          check=True)
    return norm(done.stdout)


def test_fountain_title_page_has_every_key_the_spec_names(run_with):
    text = render(run_with(**PAGE), "fountain")
    meta = FountainParser().parse(text).metadata
    assert unescape_title(meta["title"][0] if isinstance(meta["title"], list) else meta["title"]) == "The Interview"
    assert unescape_title(meta["credit"]) == "Story by" and unescape_title(meta["author"]) == "Ana Kay"
    assert meta["draft date"] == "Second draft, 3 May 2026"
    assert meta["contact"] == "Ana Kay\n12 Quay Street, Cork\nana@example.com"
    # the spec's multi-line value: each line of the contact indented under its key
    assert "Contact:\n    Ana Kay\n    12 Quay Street, Cork\n    ana@example.com\n" in text
    if aw_reader.modules() is not None:
        page = aw_reader.title_page(aw_reader.read(text))
        assert page["credit"] == "Story by" and page["author"] == "Ana Kay"
        assert page["draft date"] == "Second draft, 3 May 2026"
        assert "12 Quay Street, Cork" in page["contact"] and "ana@example.com" in page["contact"]


def test_fdx_title_page_is_laid_out_as_final_draft_does(run_with):
    _, title, root = fdx_paragraphs(render(run_with(**PAGE), "fdx"))
    assert title[:4] == ["The Interview", "", "Story by", "Ana Kay"]
    paragraphs = root.find("TitlePage").find("Content").findall("Paragraph")
    placed = [("".join(t.text or "" for t in p.findall("Text")), p.get("Alignment")) for p in paragraphs]
    texts = [text for text, _ in placed]
    # the title, credit and author centred a third of the way down; the contact and the date at the foot
    assert placed[texts.index("The Interview"):][:4] == [
        ("The Interview", "Center"), ("", "Center"), ("Story by", "Center"), ("Ana Kay", "Center")]
    assert placed[-4:] == [("Ana Kay", "Left"), ("12 Quay Street, Cork", "Left"), ("ana@example.com", "Left"),
                           ("Draft date: Second draft, 3 May 2026", "Right")]
    assert texts.index("The Interview") >= 10 and len(texts) - texts.index("The Interview") >= 25


def test_markdown_title_page(run_with):
    lines = render(run_with(**PAGE), "markdown").split("\n\n")
    assert lines[0] == "# The Interview" and lines[1] == "*Story by Ana Kay*"
    assert any(block.endswith("· Second draft, 3 May 2026") for block in lines[:5])
    assert "Contact:\\\nAna Kay\\\n12 Quay Street, Cork\\\nana@example.com" in lines


@pytest.mark.parametrize("layout", ["screen", "stage"])
def test_pdf_title_pages_print_the_whole_page(run_with, tmp_path, layout):
    path = tmp_path / f"{layout}.pdf"
    (render_pdf if layout == "screen" else render_play_pdf)(run_with(**PAGE), path)
    page = pdf_first_page(path)
    title = "THE INTERVIEW" if layout == "stage" else "The Interview"
    assert page.startswith(f"{title} Story by Ana Kay"), page
    for line in ("12 Quay Street, Cork", "ana@example.com", "Second draft, 3 May 2026"):
        assert line in page
    assert PdfReader(str(path)).metadata.author == "Ana Kay"
    pieces = drawn(path, 0)
    inch = 72
    # the contact at the foot on the left, the date at the foot against the right margin
    contact, dated, author = find(pieces, "12 Quay"), find(pieces, "Second draft"), find(pieces, "Ana Kay")
    assert contact[2] < 2.5 * inch and abs(contact[1] - 1.5 * inch) < 1
    assert dated[2] < 1.5 * inch and abs(dated[1] + len(dated[0]) * 7.2 - 7.5 * inch) < 2
    assert author[2] > 5 * inch  # the by-line stays in the page's upper half
    if shutil.which("pdftotext"):
        text = pdftotext_first_page(path)
        for line in (title, "Story by", "Ana Kay", "12 Quay Street, Cork", "ana@example.com", "Second draft, 3 May 2026"):
            assert line in text


def test_no_author_prints_no_by_line_and_never_anonymous(run_with, tmp_path):
    script = run_with(author="")  # the play names no author and no date
    today = date.today().isoformat()
    fountain = render(script, "fountain")
    assert not re.search(r"^(Credit|Author):", fountain, re.M) and "Anonymous" not in fountain
    assert f"Draft date: {today}" in fountain  # the run's day
    markdown = render(script, "markdown")
    assert "Written by" not in markdown and "Anonymous" not in markdown and "**" not in markdown.split("\n\n")[1]
    _, title, _ = fdx_paragraphs(render(script, "fdx"))
    assert "Written by" not in title and f"Draft date: {today}" in title
    for renderer in (render_pdf, render_play_pdf):
        renderer(script, tmp_path / "p.pdf")
        page = pdf_first_page(tmp_path / "p.pdf")
        assert "Written by" not in page and " by " not in f" {page} ".replace("played by", "")
        assert "Anonymous" not in page and today in page


def test_a_plain_author_still_gets_the_default_credit_and_a_one_line_contact_its_key(run_with):
    script = run_with(author="Ana Kay", contact="ana_kay@example.com")
    text = render(script, "fountain")
    meta = FountainParser().parse(text).metadata
    assert unescape_title(meta["credit"]) == "Written by" and unescape_title(meta["author"]) == "Ana Kay"
    assert "\nContact: ana\\_kay@example.com\n" in text
    assert unescape_title(meta["contact"]) == "ana_kay@example.com"


def test_show_heads_a_run_of_a_play_with_no_author_with_its_title_alone(tmp_path, capsys):
    from conftest import PLAYS
    from studio.cli import main

    play = tmp_path / "nobody.toml"
    play.write_text((PLAYS / "interview.toml").read_text().replace(
        'author = "after Magee, Arora, Gollings and Lam-Saw, The Drama Machine (2024)"\n', ""))
    (tmp_path / "characters").symlink_to(PLAYS.parent / "characters")
    db = str(tmp_path / "s.db")
    assert main(["run", str(play), "--model", "scripted", "--turns", "1", "--db", db]) == 0
    capsys.readouterr()
    assert main(["show", "1", "--db", db]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("· The Interview"), first
