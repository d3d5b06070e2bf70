"""Markdown and PDF exports of both shipped plays, read back the way a reader (or a program) would.

Markdown is parsed with markdown-it-py (CommonMark, plus tables and strikethrough as GitHub reads
them); the PDF's pages are read with pypdf. Model text, markup included, must come out as text.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from pypdf import PdfReader

from studio.cli import main
from studio.export import export_run, render
from studio.export.script import build_script
from studio.store import Store
from studio.store import events as ev
from test_export_fountain import MARKUP, speech_parts, synthetic_run

PLAYS = [("interview.toml", {"turns": 3}), ("detective.toml", {"turns": 2})]


def norm(text: str) -> str:
    return " ".join(text.split())


async def finished(engine_for, play_file, **kwargs):
    engine = engine_for(play_file, **kwargs)
    await engine.play_to_end()
    return engine


# -- Markdown ---------------------------------------------------------------------------------------


def md_blocks(text: str) -> list[tuple[str, str, bool]]:
    """(block, plain text, wholly in italics) for every heading, paragraph and list item, in order.

    Fails on anything a model's text must never produce: code, HTML, links, images, tables, ordered
    lists, thematic breaks, strikethrough.
    """
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    tokens = md.parse(text)
    out: list[tuple[str, str, bool]] = []
    context: list[str] = []
    for token in tokens:
        assert token.type not in (
            "fence", "code_block", "html_block", "table_open", "ordered_list_open", "hr",
        ), token.type
        if token.type.endswith("_open") and token.type != "paragraph_open":
            context.append(token.tag)
        elif token.type.endswith("_close") and token.type != "paragraph_close":
            context.pop()
        if token.type != "inline":
            continue
        plain: list[str] = []
        depth = 0
        italic_all = True
        for child in token.children or []:
            assert child.type not in ("html_inline", "code_inline", "link_open", "image", "s_open"), child.type
            if child.type == "em_open":
                depth += 1
            elif child.type == "em_close":
                depth -= 1
            elif child.type in ("softbreak", "hardbreak"):
                plain.append("\n")
            elif child.type == "text":
                plain.append(child.content)
                if depth == 0 and child.content.strip():
                    italic_all = False
        kind = context[-1] if context and context[-1] in ("h1", "h2", "h3", "li", "blockquote") else "p"
        out.append((kind, "".join(plain), italic_all))
    return out


@pytest.mark.parametrize("play_file, kwargs", PLAYS)
async def test_markdown_is_a_readable_play(engine_for, store, tmp_path, play_file, kwargs):
    engine = await finished(engine_for, play_file, **kwargs)
    path = export_run(store, engine.run_id, "markdown", out=tmp_path)
    assert path.suffix == ".md"
    blocks = md_blocks(path.read_text(encoding="utf-8"))
    play = engine.cast.play
    headings = [(k, t) for k, t, _ in blocks if k in ("h1", "h2")]
    assert headings == (
        [("h1", play.title), ("h2", "Cast")]
        + [("h2", f"Scene {n}") for n in range(1, play.scene_count + 1)]
        + [("h2", "Epilogue")]
    )
    # The cast: the people on stage, bold names with their public descriptions.
    cast = [t for k, t, _ in blocks if k == "li"]
    on_stage = [r for r in engine.cast.roles if r.kind in ("ego", "other")]
    assert cast == [f"{r.name} — {norm(r.sheet.description)}" for r in on_stage]
    # The stage, in order: directions wholly in italics, speeches led by the bold name.
    body = [(t, italic) for k, t, italic in blocks if k == "p"]
    start = next(i for i, (t, _) in enumerate(body) if t.startswith("Studio run"))
    stage = body[start + 1 :]
    events = [e for e in engine.path if e.kind in (ev.STAGE, ev.DIRECTION)]
    for event, (text, italic) in zip(events, stage):
        if event.kind == ev.DIRECTION:
            assert italic and text == event.text
        else:
            assert not italic and text == f"{event.character}: {event.text}"
    epilogue = next(e for e in engine.path if e.kind == ev.EPILOGUE)
    after = [t for t, _ in stage[len(events) :]]
    assert after[0] == f"{engine.cast.ego.name}'s autobiographical notes" and after[1] == epilogue.text
    # No backstage unless asked for.
    text = path.read_text()
    assert "Appendix" not in text
    assert not any(e.text in text for e in engine.path if e.is_backstage)


async def test_markdown_backstage_is_an_appendix(engine_for, store, tmp_path):
    engine = await finished(engine_for, "interview.toml", turns=2)
    text = export_run(store, engine.run_id, "markdown", out=tmp_path, backstage=True).read_text()
    blocks = md_blocks(text)
    headings = [t for k, t, _ in blocks if k == "h2"]
    assert headings[-2:] == ["Epilogue", "Appendix: the backstage"]
    appendix = blocks[[t for _, t, _ in blocks].index("Appendix: the backstage") :]
    quoted = [t for k, t, _ in appendix if k == "blockquote"]
    assert quoted == [e.text for e in engine.path if e.is_backstage]
    assert any("before Jenny's line" in t for _, t, _ in appendix)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.lists(st.one_of(st.sampled_from(MARKUP + ["1. x", "- x", "+ x", "> q", "<div>", "`c`",
                                                                   "[l](u)", "![i](u)", "&amp;", "&#65;", "| a |",
                                                                   "~~s~~", "    code", "```", "---", "<http://x>"]),
                                                   st.text(max_size=6)), max_size=12).map("".join),
                      min_size=8, max_size=8))
def test_any_model_text_stays_text_in_markdown(texts):
    store = Store(":memory:")
    try:
        run_id = synthetic_run(store, texts)
        blocks = md_blocks(render(build_script(store, run_id, backstage=True), "markdown"))
        headings = [t for k, t, _ in blocks if k in ("h1", "h2")]
        assert headings == ["The Interview", "Cast", "Scene 1", "Scene 2", "Epilogue", "Appendix: the backstage"]
        assert [k for k, _, _ in blocks].count("li") == 2
        # Sasha's line comes back as written: same words, same line breaks, led by her bold name.
        other = texts[1]
        plain = [t for k, t, _ in blocks if k == "p"]
        expected = md_paragraphs(other)
        if expected:
            i = plain.index("Sasha: " + expected[0])
            assert plain[i : i + len(expected)] == ["Sasha: " + expected[0], *expected[1:]]
        # The director's direction opens scene 1, every paragraph of it in italics.
        direction = md_paragraphs(texts[0] or "The room.", speech=False)
        start = blocks.index(("h2", "Scene 1", False)) + 1
        assert blocks[start : start + len(direction)] == [("p", para, True) for para in direction]
    finally:
        store.close()


def md_paragraphs(text: str, speech: bool = True) -> list[str]:
    """A speech without business (or a direction), as paragraphs of lines: what the Markdown must show."""
    if speech and any(kind == "business" for kind, _ in speech_parts(text)):
        return []  # business splits the line into parts; the Fountain tests cover that rule
    paras: list[list[str]] = [[]]
    for line in text.splitlines():
        line = "".join(c for c in line if c == "\t" or not (ord(c) < 32 or 127 <= ord(c) < 160)).strip()
        if line:
            paras[-1].append(line)
        elif paras[-1]:
            paras.append([])
    return ["\n".join(p) for p in paras if p]


# -- PDF --------------------------------------------------------------------------------------------


def pages(path) -> list[str]:
    return [page.extract_text() for page in PdfReader(str(path)).pages]


@pytest.mark.parametrize("play_file, kwargs", PLAYS)
async def test_pdf_has_the_screenplay_pages(engine_for, store, tmp_path, play_file, kwargs):
    engine = await finished(engine_for, play_file, **kwargs)
    path = export_run(store, engine.run_id, "pdf", out=tmp_path)
    assert path.read_bytes().startswith(b"%PDF")
    text = pages(path)
    play = engine.cast.play
    # Page 1: the title page and nothing else.
    title = norm(text[0])
    assert title.startswith(play.title) and norm(play.author) in title and "Written by after" not in title
    assert re.search(r"\d{4}-\d\d-\d\d", title) and "SCENE" not in title
    # Page 2 opens the play; every later page is numbered, 2. onwards, as screenplays are.
    assert text[1].lstrip().startswith("SCENE 1")
    for number, page in enumerate(text[2:], start=2):
        assert page.lstrip().startswith(f"{number}."), page[:40]
    # Every line, cue and direction in order, then the epilogue on a page of its own at the end.
    body = norm(" ".join(text[1:]))
    position = 0
    for event in engine.path:
        if event.kind in (ev.SCENE, ev.STAGE, ev.DIRECTION, ev.EPILOGUE):
            if event.kind == ev.SCENE:
                want = f"SCENE {event.scene}"
            elif event.kind == ev.STAGE:
                want = f"{event.character.upper()} {norm(event.text)}"
            elif event.kind == ev.DIRECTION:
                want = norm(event.text)
            else:
                want = f"EPILOGUE {engine.cast.ego.name.upper()} {norm(event.text)}"
            found = body.find(want, position)
            assert found >= 0, want
            position = found + len(want)
    epilogue_page = next(i for i, page in enumerate(text) if "EPILOGUE" in page)
    assert epilogue_page == len(text) - 1
    assert re.sub(r"^\s*\d+\.\s*", "", text[epilogue_page]).startswith("EPILOGUE")
    assert not any(norm(e.text) in body for e in engine.path if e.is_backstage)


async def test_pdf_backstage_follows_the_epilogue(engine_for, store, tmp_path):
    engine = await finished(engine_for, "interview.toml", turns=2)
    text = pages(export_run(store, engine.run_id, "pdf", out=tmp_path, backstage=True))
    start = next(i for i, page in enumerate(text) if re.sub(r"^\s*\d+\.\s*", "", page).startswith("BACKSTAGE"))
    assert "EPILOGUE" in " ".join(text[:start])
    appendix = norm(" ".join(text[start:]))
    for event in engine.path:
        if event.is_backstage:
            assert norm(event.text) in appendix


def test_pdf_prints_model_text_as_written(store, tmp_path):
    line = 'Zoë said “not *that*” — <b>&amp; [[x]] /* y */ \\ ok'
    run_id = synthetic_run(store, ["The room.", line, "", "", "", "*smirks* Fine.", "", ""])
    text = norm(" ".join(pages(export_run(store, run_id, "pdf", out=tmp_path / "x.pdf"))))
    assert f"SASHA {norm(line)}" in text  # *that* is emphasis, not business: it stays in the line
    assert "JENNY (smirks) Fine." in text


def test_export_command_writes_every_format(engine_for, store, tmp_path, capsys):
    engine = asyncio.run(finished(engine_for, "detective.toml", turns=1))
    for fmt, suffix in (("fountain", ".fountain"), ("markdown", ".md"), ("pdf", ".pdf")):
        code = main(["export", str(engine.run_id), "--format", fmt, "--out", str(tmp_path), "--db", str(store.path)])
        out = capsys.readouterr().out.strip()
        assert code == 0 and out == str(tmp_path / f"last-call-run{engine.run_id}{suffix}")
    assert main(["export", str(engine.run_id), "--format", "docx", "--db", str(store.path)]) == 2
    assert main(["export", "99", "--db", str(store.path)]) == 2
    assert "no run 99" in capsys.readouterr().err
