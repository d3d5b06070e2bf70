"""What each Fountain reader prints, as the lines a reader of the page sees: the tests hold these to
the stage, character for character.

Each function takes a Fountain document and returns its printed lines, blank lines dropped:
afterwriting's own PDF (`awc.js --pdf`, read with pdftotext), screenplain's PDF (pdftotext) and
HTML, Jouvence's HTML, and fountain-py's elements (it has no printer: the text of each element, with
the emphasis and escapes it resolves, is what a program built on it shows). Title pages are left out
(the tests compare the script); notes are printed by none of them.
"""

from __future__ import annotations

import html.parser
import io
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import aw_reader

_BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "br", "tr", "section", "dd", "dt", "hr"}


class _Text(html.parser.HTMLParser):
    """The text of an HTML page, a line per block and per <br>; <style>, <head> and footnote lists skipped."""

    def __init__(self, skip_classes: tuple[str, ...] = ()) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = [""]
        self.skip_depth = 0
        self.stack: list[bool] = []
        self.skip_classes = skip_classes

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        skipping = tag in ("style", "head", "title", "script", "sup") or any(c in self.skip_classes for c in classes)
        if tag not in ("br", "hr", "meta", "link", "img"):
            self.stack.append(skipping)
            self.skip_depth += skipping
        if tag in _BLOCKS:
            self.out.append("")

    def handle_endtag(self, tag):
        if tag in ("br", "hr", "meta", "link", "img"):
            return
        if self.stack:
            self.skip_depth -= self.stack.pop()
        if tag in _BLOCKS:
            self.out.append("")

    def handle_data(self, data):
        if not self.skip_depth:
            self.out[-1] += data.replace("\n", "")

    def lines(self) -> list[str]:
        return [line.strip() for line in self.out if line.strip()]


def html_lines(page: str, skip_classes: tuple[str, ...] = ()) -> list[str]:
    reader = _Text(skip_classes)
    reader.feed(page)
    return reader.lines()


def pdf_lines(path: str | Path) -> list[str]:
    """The text of a PDF in the order it was drawn (pdftotext -raw): a script's order, columns of dual
    dialogue one after the other."""
    done = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True, check=True)
    return [line.strip() for line in done.stdout.split("\n") if line.strip() and line.strip() != "\f"]


def _without_title_page(text: str) -> str:
    """The script without its title page: the readers print the title page each its own way."""
    head, sep, rest = text.partition("\n\n")
    return rest if sep and ":" in head.split("\n", 1)[0] else text


def fountain_py(text: str) -> list[str]:
    from fountain import ElementType, FountainParser

    out: list[str] = []
    elements = []
    for element in FountainParser().parse(_without_title_page(text)).elements:
        if element.type == ElementType.DUAL_DIALOGUE:  # two speeches side by side, left first
            meta = element.metadata
            elements += [meta["left_character"], *meta["left_dialogue"], meta["right_character"], *meta["right_dialogue"]]
        elif element.type not in (ElementType.NOTE, ElementType.PAGE_BREAK, ElementType.BONEYARD):
            elements.append(element)
    for element in elements:
        out += [line.strip() for line in element.text.split("\n") if line.strip()]
    return out


def screenplain_html(text: str) -> list[str]:
    from screenplain.export.html import convert
    from screenplain.parsers import fountain

    out = io.StringIO()
    convert(fountain.parse(io.StringIO(_without_title_page(text))), out, bare=True)
    return html_lines(out.getvalue())


def screenplain_pdf(text: str) -> list[str]:
    from screenplain.export.pdf import to_pdf
    from screenplain.parsers import fountain

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "script.pdf")
        to_pdf(fountain.parse(io.StringIO(_without_title_page(text))), path)
        return _numbers_dropped(pdf_lines(path))


def jouvence_html(text: str) -> list[str]:
    from jouvence.html import HtmlDocumentRenderer
    from jouvence.parser import JouvenceParser

    out = io.StringIO()
    HtmlDocumentRenderer(standalone=False).render_doc(JouvenceParser().parseString(_without_title_page(text)), out)
    return html_lines(out.getvalue(), skip_classes=("jouvence-notes",))


def afterwriting_pdf(text: str) -> list[str]:
    """afterwriting's own PDF of the script, made by its command line (`awc.js --pdf`), as pdftotext reads it."""
    folder_modules = aw_reader.modules()
    assert folder_modules is not None
    with tempfile.TemporaryDirectory() as folder:
        source, pdf = os.path.join(folder, "script.fountain"), os.path.join(folder, "script.pdf")
        Path(source).write_text(_without_title_page(text), encoding="utf-8")
        done = subprocess.run(["node", "awc.js", "--source", source, "--pdf", pdf],
                              cwd=folder_modules / "afterwriting", capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and os.path.exists(pdf), done.stdout + done.stderr
        return _numbers_dropped(pdf_lines(pdf))


def _numbers_dropped(lines: list[str]) -> list[str]:
    """A PDF's lines without the page numbers in its margin (`2.`), nor (MORE) and (CONT'D) furniture."""
    import re

    return [line for line in lines
            if not re.fullmatch(r"\d+\.", line) and line != "(MORE)" and not line.endswith("(CONT'D)")]


def available() -> dict[str, Callable[[str], list[str]]]:
    """The printers installed here: the Python readers always (the `test` extra), PDFs where pdftotext
    is, afterwriting where node and its package are (.ci/run installs them)."""
    found: dict[str, Callable[[str], list[str]]] = {
        "fountain-py": fountain_py, "screenplain-html": screenplain_html, "jouvence-html": jouvence_html,
    }
    if shutil.which("pdftotext"):
        found["screenplain-pdf"] = screenplain_pdf
        if aw_reader.modules() is not None:
            found["afterwriting-pdf"] = afterwriting_pdf
    return found
