"""The planted run, and the stage's lines in the readers' shape: what the PDF tests and the Fountain
tests compare against. What each Fountain reader prints of it is test_export_print's to hold."""

from __future__ import annotations

import re
import unicodedata

import pytest

import fountain_readers
from planted import LINES, planted_line_count, planted_run
from studio.export import render
from studio.export.script import Direction, Epilogue, Heading, Speech, build_script

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


def test_the_export_writes_no_invisible_character_and_no_fullwidth_twin(planted):
    """Nothing invisible is added but the word joiner that holds a typed `*/` apart (afterwriting would
    end a boneyard there and print nothing after it)."""
    _, text = planted
    assert "\u200b" not in text
    held = text.replace("*\u2060/", "*/")
    assert "\\*\u2060/" in text and "*/" not in text  # every typed `*/` is held apart
    assert not any(unicodedata.category(c) == "Cf" and c != "\u200d" for c in held)  # ZWJ is part of an emoji
    typed = set("".join(line for _, line in LINES))
    assert {c for c in text if "\uff01" <= c <= "\uff5e"} <= typed  # fullwidth only where typed (Chinese commas)


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
