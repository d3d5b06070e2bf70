"""A lab report as the user asks for it: a table in the terminal, CSV, JSON, Markdown, or image files.

- **table**: each table drawn by rich (every cell as plain text, never read as markup), then each figure
  as a terminal chart (`studio.lab.plots`), then the notes.
- **csv**: each table as a block of rows whose first column names the table, blocks apart by a blank
  line; the csv module (or a spreadsheet) reads it.
- **json**: the report as data: tables (columns and rows), figures (their numbers) and notes.
- **md**: Markdown a user can attach to a paper: the tables, the notes, and each figure as a PNG written
  beside the Markdown file and linked from it.
- **png**, **svg**: each figure as an image file.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from studio.lab.kinds import Report, Table

FORMATS = ("table", "csv", "json", "md", "png", "svg")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.3g}"
    return str(value)


def to_console(report: Report, console: Any, width: int | None = None) -> None:
    from rich.table import Table as RichTable
    from rich.text import Text

    from studio.lab import plots

    console.print(Text(report.title, style="bold"))
    for table in report.tables:
        shown = RichTable(title=Text(table.title), caption=Text(table.note) if table.note else None)
        for column in table.columns:
            shown.add_column(Text(column))
        for row in table.rows:
            shown.add_row(*(Text(_cell(c)) for c in row))
        console.print(shown)
    for figure in report.figures:
        console.print(Text(plots.terminal(figure, width or min(100, console.width))))
    for note in report.notes:
        console.print(Text(note))


def to_csv(report: Report) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for i, table in enumerate(report.tables):
        if i:
            writer.writerow([])
        writer.writerow(["table", *table.columns])
        for row in table.rows:
            writer.writerow([table.title, *(_cell(c) for c in row)])
    return out.getvalue()


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def as_data(report: Report, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    figures = [{"type": type(f).__name__.lower(), **asdict(f)} for f in report.figures]
    return _json_safe({"title": report.title, **(extra or {}),
                       "tables": [asdict(t) for t in report.tables], "figures": figures, "notes": report.notes})


def to_json(report: Report, extra: dict[str, Any] | None = None) -> str:
    return json.dumps(as_data(report, extra), ensure_ascii=False, indent=2)


def _md_cell(value: Any) -> str:
    return _cell(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_table(table: Table) -> list[str]:
    lines = [f"### {table.title}", "", "| " + " | ".join(_md_cell(c) for c in table.columns) + " |",
             "|" + "|".join(" --- " for _ in table.columns) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", table.note]
    return lines + [""]


def to_markdown(report: Report, path: str | Path, header: list[str] | None = None) -> list[Path]:
    """Write the report to `path` (.md) and its figures as PNG files beside it; return every file written."""
    from studio.lab import plots

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    lines = [f"# {report.title}", ""] + (header or [])
    for table in report.tables:
        lines += _md_table(table)
    for figure in report.figures:
        image = plots.save(figure, path.with_name(f"{path.stem}-{figure.name}.png"))
        written.append(image)
        lines += [f"![{figure.title}]({image.name})", ""]
    if report.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in report.notes] + [""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return [path, *written]


def to_images(report: Report, folder: str | Path, stem: str, suffix: str) -> list[Path]:
    """Each figure as `<folder>/<stem>-<figure>.<suffix>`."""
    from studio.lab import plots

    return [plots.save(f, Path(folder) / f"{stem}-{f.name}.{suffix}") for f in report.figures]
