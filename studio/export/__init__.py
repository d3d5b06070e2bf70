"""Scripts out: a run's take written as Fountain, Markdown, Final Draft or PDF (screen or stage).

`export_run` is the one entry point, shared by `studio export` and the app's export dialog. It
reads the take (the run's current one unless `head` names the last event of another), builds the
script once (`studio.export.script`) and hands it to the format's renderer. Files are written
whole or not at all, by default to `exports/<play>-run<N>.<ext>`.

The formats are listed once, in `FORMATS`: `studio export --format` and the app's export dialog both read
it, so importing this package loads no renderer and no pydantic model.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the script's model loads pydantic: `studio --help` reads FORMATS without it
    from studio.export.script import Script
    from studio.store import Store

Warn = Callable[[str], None]


@dataclass(frozen=True)
class Format:
    """One kind of script the studio writes. A text format gives `text` (the whole script as a string,
    for previews and tests, written atomically); a binary one gives `writer`, which writes the file itself."""

    suffix: str
    description: str  # how the app's export dialog and `studio export --help` name it
    text: Callable[[Script], str] | None = None
    writer: Callable[[Script, Path, Warn | None], Any] | None = None

    def write(self, script: Script, path: Path, warn: Warn | None = None) -> None:
        if self.writer is not None:
            self.writer(script, path, warn)
            return
        assert self.text is not None
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(self.text(script), encoding="utf-8")
        os.replace(tmp, path)


def _fountain(script: Script) -> str:
    from studio.export.fountain import render_fountain

    return render_fountain(script)


def _markdown(script: Script) -> str:
    from studio.export.markdown import render_markdown

    return render_markdown(script)


def _fdx(script: Script) -> str:
    from studio.export.fdx import render_fdx

    return render_fdx(script)


def _screenplay_pdf(script: Script, path: Path, warn: Warn | None) -> Any:
    from studio.export.pdf import render_pdf

    return render_pdf(script, path, warn=warn)


def _stage_pdf(script: Script, path: Path, warn: Warn | None) -> Any:
    from studio.export.stage import render_play_pdf

    return render_play_pdf(script, path, warn=warn)


# Every format, once: `studio export --format` offers these names and the app's dialog these descriptions,
# in this order (the first is the default where a play names no layout).
FORMATS: dict[str, Format] = {
    "fountain": Format(".fountain", "Fountain", text=_fountain),
    "markdown": Format(".md", "Markdown", text=_markdown),
    "fdx": Format(".fdx", "Final Draft", text=_fdx),
    "pdf": Format(".pdf", "PDF, screenplay", writer=_screenplay_pdf),
    "play-pdf": Format(".pdf", "PDF, stage play", writer=_stage_pdf),
}
ALIASES = {"md": "markdown", "play": "play-pdf", "stage": "play-pdf", "stage-pdf": "play-pdf"}


class ExportError(Exception):
    """An export that cannot be made as asked: the message says what to change."""


def default_dir() -> Path:
    return Path(os.environ.get("STUDIO_EXPORTS") or "exports")


def slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:60].strip("-") or "play"


def default_name(script: Script, fmt: str, backstage: bool = False, head: int | None = None) -> str:
    """exports/<play>-run<N>[-take<EVENT>][-backstage].<ext>: one name per run, take and variant."""
    name = f"{slug(script.title)}-run{script.run_id}"
    if fmt == "play-pdf":
        name += "-stage"
    if head is not None:
        name += f"-take{head}"
    if backstage:
        name += "-backstage"
    return name + FORMATS[fmt].suffix


def render(script: Script, fmt: str) -> str:
    """The text formats as a string (for previews and tests); PDF is binary and only written."""
    found = FORMATS.get(fmt)
    if found is None or found.text is None:
        texts = [name for name, f in FORMATS.items() if f.text is not None]
        raise ExportError(f"'{fmt}' is not a text format; use {', '.join(texts[:-1])} or {texts[-1]}")
    return found.text(script)


def _target(out: str | os.PathLike[str] | None, name: str) -> Path:
    """Where to write: the default folder, a folder named by `out`, or `out` itself.

    A folder is one that exists or is written with a trailing slash; a file named without an
    extension gets the format's (`--out draft` writes draft.fountain).
    """
    if out is None:
        return default_dir() / name
    path = Path(out).expanduser()
    if path.is_dir() or str(out).endswith(("/", os.sep)):
        return path / name
    if not path.suffix:
        return path.with_suffix(Path(name).suffix)
    return path


def export_run(
    store: Store,
    run_id: int,
    fmt: str | None,
    out: str | os.PathLike[str] | None = None,
    backstage: bool = False,
    head: int | None = None,
    warn: Callable[[str], None] | None = None,
) -> Path:
    """Write run `run_id` as `fmt` and return the file's path.

    `out` is a file, or a folder to put the default name in; `head` picks a take other than the
    current one; `backstage` adds the inner voice (Fountain notes beside the lines, an appendix in
    Markdown and PDF). `fmt` None picks the play's own layout (`layout = "stage"`: play-pdf, else
    fountain). `warn` hears each line of a PDF with a character no font could print. Raises ExportError for a bad format or destination, StoreError for an
    unknown run or an event that is not part of it.
    """
    from studio.export.script import build_script

    script = build_script(store, run_id, head=head, backstage=backstage)
    if fmt is None:
        fmt = "play-pdf" if script.layout == "stage" else "fountain"
    fmt = fmt.strip().lower()
    fmt = ALIASES.get(fmt, fmt)
    if fmt not in FORMATS:
        raise ExportError(f"unknown format '{fmt}'; use one of: {', '.join(FORMATS)}")
    path = _target(out, default_name(script, fmt, backstage, head))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        FORMATS[fmt].write(script, path, warn)
    except (IsADirectoryError, NotADirectoryError, PermissionError, FileNotFoundError) as exc:
        raise ExportError(f"cannot write {path} ({exc.strerror}); choose another --out") from None
    except OSError as exc:
        raise ExportError(f"cannot write {path} ({exc.strerror or exc}); choose another --out") from None
    return path


__all__ = ["ALIASES", "FORMATS", "ExportError", "Format", "default_dir", "export_run", "render"]
