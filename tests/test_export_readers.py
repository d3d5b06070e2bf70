"""Every Fountain reader prints the planted run as the stage has it: each line the same element, the
same speaker and the same words (after NFKC, under which the export's fullwidth twins of markup
characters are those characters), in the same order, in every writing system."""

from __future__ import annotations

import re
import unicodedata

import pytest

import fountain_readers
from planted import LINES, planted_line_count, planted_run
from studio.export import render
from studio.export.script import Direction, Epilogue, Heading, Speech, build_script, split_business

READERS = fountain_readers.available()


def stage_lines(script) -> list[fountain_readers.Line]:
    """What the stage prints, line by line, in the readers' shape: the script every format shares."""
    out: list[fountain_readers.Line] = []

    def speech(name: str, parts) -> None:
        who = " ".join(name.split()).upper()
        for kind, text in parts:
            if kind == "business":
                out.append(("business", who, " ".join(text.split())))
            else:
                out.extend(("line", who, line.strip()) for line in text.splitlines() if line.strip())
        if not parts:
            out.append(("business", who, "silence"))

    for block in script.blocks:
        if isinstance(block, Heading):
            out.append(("heading", None, block.title))
            if block.brief:
                out.append(("action", None, block.brief))
        elif isinstance(block, Direction):
            out.extend(("action", None, line.strip()) for line in block.text.splitlines() if line.strip())
        elif isinstance(block, Speech):
            speech(block.character, block.parts)
        elif isinstance(block, Epilogue):
            out += [("page_break", None, ""), ("heading", None, "EPILOGUE")]
            speech(block.character, block.parts)
    return fountain_readers.normalised(out)


@pytest.fixture
def planted(store):
    run_id = planted_run(store)
    script = build_script(store, run_id)
    return script, render(script, "fountain")


def test_the_corpus_plants_enough_lines_in_every_writing_system(planted):
    script, _ = planted
    assert planted_line_count() >= 80
    printed = " ".join(text for _, _, text in stage_lines(script))
    for sample in ("静", "部屋", "방은", "الغرفة", "החדר", "कमरा", "ห้อง", "👩‍👩‍👧‍👦", "Zoë"):
        assert unicodedata.normalize("NFKC", sample) in printed


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_prints_every_line_as_the_stage_has_it(planted, reader):
    script, text = planted
    want = stage_lines(script)
    got = fountain_readers.normalised(READERS[reader](text))
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"{reader}, line {i + 1}: printed {g!r}, the stage has {w!r}"
    assert len(got) == len(want), f"{reader} printed {len(got)} lines, the stage has {len(want)}"


def test_the_export_writes_no_escape_and_no_invisible_character(planted):
    _, text = planted
    assert "\u200b" not in text and "\\*" not in text and "\\_" not in text
    assert not any(unicodedata.category(c) == "Cf" and c != "\u200d" for c in text)  # ZWJ is part of an emoji


def test_only_markup_characters_are_reworded(planted):
    """Outside the structure the export writes, the file is the stage's text with at most the documented
    fullwidth twins: NFKC of the file holds every planted line whole."""
    _, text = planted
    folded = unicodedata.normalize("NFKC", text)
    for speaker, line in LINES:
        parts = split_business(line) if speaker else (("line", line),)
        for kind, said in parts:
            for piece in said.splitlines() if kind == "line" else [f"({said})"]:
                if piece.strip():
                    assert unicodedata.normalize("NFKC", piece.strip()) in folded, piece


def test_afterwriting_is_among_the_readers_where_node_is():
    if fountain_readers.aw_reader.modules() is None:
        pytest.skip("node and afterwriting are not installed (.ci/run installs them)")
    assert "afterwriting" in READERS


def test_no_test_imports_the_tests_package():
    """Jouvence (a reader above) installs a top-level `tests` package, which shadows this folder as
    `tests`: a helper imported as `tests.x` would not be found. Helpers are imported by module name."""
    from pathlib import Path

    here = Path(__file__).parent
    offenders = [p.name for p in here.glob("*.py") if re.search(r"^\s*(from|import) tests\.", p.read_text(), re.M)]
    assert offenders == []
