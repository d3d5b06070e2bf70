"""Scripts out: a run's take written as Fountain, Markdown, Final Draft or PDF (screen or stage).

`export_run` is the one entry point, shared by `studio export` and the app's export dialog. It
reads the take (the run's current one unless `head` names the last event of another), builds the
script once (`studio.export.script`) and hands it to the format's renderer. Files are written
whole or not at all, by default to `exports/<play>-run<N>.<ext>`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from studio.export.script import Script, build_script
from studio.store import Store

FORMATS = {"fountain": ".fountain", "markdown": ".md", "fdx": ".fdx", "pdf": ".pdf", "play-pdf": ".pdf"}


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
    return name + FORMATS[fmt]


def render(script: Script, fmt: str) -> str:
    """The text formats as a string (for previews and tests); PDF is binary and only written."""
    if fmt == "fountain":
        from studio.export.fountain import render_fountain

        return render_fountain(script)
    if fmt == "markdown":
        from studio.export.markdown import render_markdown

        return render_markdown(script)
    if fmt == "fdx":
        from studio.export.fdx import render_fdx

        return render_fdx(script)
    raise ExportError(f"'{fmt}' is not a text format; use fountain, markdown or fdx")


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
    script = build_script(store, run_id, head=head, backstage=backstage)
    if fmt is None:
        fmt = "play-pdf" if script.layout == "stage" else "fountain"
    fmt = fmt.strip().lower()
    if fmt in ("md",):
        fmt = "markdown"
    if fmt in ("play", "stage", "stage-pdf"):
        fmt = "play-pdf"
    if fmt not in FORMATS:
        raise ExportError(f"unknown format '{fmt}'; use one of: {', '.join(FORMATS)}")
    path = _target(out, default_name(script, fmt, backstage, head))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "pdf":
            from studio.export.pdf import render_pdf

            render_pdf(script, path, warn=warn)
        elif fmt == "play-pdf":
            from studio.export.stage import render_play_pdf

            render_play_pdf(script, path, warn=warn)
        else:
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(render(script, fmt), encoding="utf-8")
            os.replace(tmp, path)
    except (IsADirectoryError, NotADirectoryError, PermissionError, FileNotFoundError) as exc:
        raise ExportError(f"cannot write {path} ({exc.strerror}); choose another --out") from None
    except OSError as exc:
        raise ExportError(f"cannot write {path} ({exc.strerror or exc}); choose another --out") from None
    return path


__all__ = ["FORMATS", "ExportError", "Script", "build_script", "default_dir", "export_run", "render"]
