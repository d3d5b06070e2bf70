"""A lab report as the user asks for it: a table in the terminal, CSV, JSON, Markdown, or image files.

- **table**: each table drawn by rich (every cell as plain text, never read as markup), then each figure
  as a terminal chart (`studio.lab.plots`), then the notes.
- **csv**: one tidy table of every figure, a row each: `table`, then the columns that name a row (every
  text column of any table: `group`, `partner`, `criterion`, ..., empty where a table has no such column),
  `measure` (the numeric column), `value`, `low`, `high`, `n` (numbers or empty) and `reproduction` (true
  or false: whether the report's figures may be read beside the paper's; empty without a paper), so one
  `pandas.read_csv` gives numeric columns to filter, pivot or plot. A naming column called like one of the
  fixed ones gets `row_` before its name.
- **json**: the report as data: tables (columns and rows of numbers), figures (their numbers), notes, the
  protocol card and the paper's published figures beside the studio's.

A figure with an interval (`Cell`) stays numbers in CSV and JSON: in JSON its column becomes `x`, `x_low`,
`x_high` and `x_n`, in CSV its row has value, low, high and n; only the terminal and Markdown format it.
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

from studio.lab.kinds import Cell, Report, Reproduction, Table

FORMATS = ("table", "csv", "json", "md", "png", "svg")


def _cell(value: Any) -> str:
    if isinstance(value, Cell):
        return str(value)
    if value is None:
        return "-"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.3g}"
    return str(value)


def to_console(report: Report, console: Any, width: int | None = None) -> None:
    from rich.text import Text

    from studio.lab import plots

    console.print(Text(report.title, style="bold"))
    _console_standing(console, report)
    for table in report.tables:
        _console_table(console, table)
    for figure in report.figures:
        console.print(Text(plots.terminal(figure, width or min(100, console.width))))
    for note in report.notes:
        console.print(Text(note))
    _console_reproduction(console, report)


def _console_reproduction(console: Any, report: Report) -> None:
    """The paper's figures beside the studio's, then the protocol card: the end of every report, and the
    whole of `--paper`."""
    from rich.text import Text

    if report.paper is not None:
        _console_table(console, reproduction_table(report.paper))
    if report.protocol:
        console.print(Text("Protocol", style="bold"))
        for line in report.protocol:
            console.print(Text("- " + line))


def standing(report: Report) -> str:
    """Why the report's figures beside the paper's are not a reproduction, or "" (studio.lab.papers.judged)."""
    return report.paper.not_a_reproduction if report.paper is not None else ""


def _console_standing(console: Any, report: Report) -> None:
    """Said before any figure, so no number is read as a match first."""
    from rich.text import Text

    if standing(report):
        console.print(Text(standing(report), style="bold"))


def _console_table(console: Any, table: Table) -> None:
    from rich.table import Table as RichTable
    from rich.text import Text

    shown = RichTable(title=Text(table.title), caption=Text(table.note) if table.note else None)
    for column in table.columns:
        shown.add_column(Text(column))
    for row in table.rows:
        shown.add_row(*(Text(_cell(c)) for c in row))
    console.print(shown)


def to_console_paper(report: Report, console: Any) -> bool:
    """Only the reproduction: the paper's figures beside the studio's, then the protocol card.
    False when the report's kind reproduces no paper."""
    from rich.text import Text

    if report.paper is None and not report.protocol:
        return False
    console.print(Text(report.title, style="bold"))
    _console_standing(console, report)
    _console_reproduction(console, report)
    return True


def _with_n(cell: Cell | None) -> str:
    """A figure as read beside another: its value (and interval), and the n it rests on ("n ?": not given)."""
    if cell is None or cell.value is None:
        return "-"
    return f"{cell} (n {cell.n if cell.n is not None else '?'})"


def reproduction_table(paper: Reproduction, shown: bool = True) -> Table:
    """The paper's figures beside the studio's. `shown` (a table to read, not data): each side with the n
    it rests on; as data, each figure's n is a number of its own already (`_flat`)."""
    note = f"Published figures: {paper.source}" + (f". {paper.note}" if paper.note else "")
    title = ("Beside" if paper.not_a_reproduction else "Reproduction of") + f" {paper.paper}"
    rows: list[list[Any]]
    if shown:
        note += ". Each figure with the n it rests on (n ?: the paper gives none)"
        rows = [[f.where, f.label, _with_n(f.paper), _with_n(f.studio), f.note] for f in paper.figures]
    else:
        rows = [[f.where, f.label, f.paper, f.studio if f.studio is not None else Cell(None), f.note]
                for f in paper.figures]
    return Table(title, ["where", "figure", "paper", "studio", "note"], rows, note=note)


def _flat(table: Table) -> tuple[list[str], list[list[Any]]]:
    """Columns holding a Cell in any row become four numeric columns; other values stay as they are."""
    cells = {i for row in table.rows for i, v in enumerate(row) if isinstance(v, Cell)}
    columns: list[str] = []
    for i, name in enumerate(table.columns):
        columns += [name, f"{name}_low", f"{name}_high", f"{name}_n"] if i in cells else [name]
    rows = []
    for row in table.rows:
        flat: list[Any] = []
        for i, value in enumerate(row):
            if i in cells:
                c = value if isinstance(value, Cell) else Cell(value if isinstance(value, (int, float)) else None)
                flat += [c.value, c.low, c.high, c.n]
            else:
                flat.append(value)
        rows.append(flat)
    return columns, rows


def _all_tables(report: Report) -> list[Table]:
    return report.tables + ([reproduction_table(report.paper, shown=False)] if report.paper is not None else [])


TIDY = ("table", "measure", "value", "low", "high", "n", "reproduction")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Cell)) and not isinstance(value, bool)


def _naming(table: Table) -> list[int]:
    """The columns of `table` that name a row: those with no number (or Cell) in any row."""
    numeric = {i for row in table.rows for i, v in enumerate(row) if _is_number(v)}
    return [i for i in range(len(table.columns)) if i not in numeric]


def _tidy(table: Table, naming: list[str]) -> list[list[Any]]:
    """A table's rows as tidy rows: a column that holds a number (or a Cell) in any row is a measure, every
    other column names the row, in its place among `naming`; a measure with no number in a row keeps its
    row, with its value empty."""
    names = _naming(table)
    out = []
    for row in table.rows:
        named = {_csv_name(table.columns[i]): "" if row[i] is None else row[i] for i in names if i < len(row)}
        for i in range(len(table.columns)):
            if i in names or i >= len(row):
                continue
            value = row[i]
            c = value if isinstance(value, Cell) else Cell(value if _is_number(value) else None)
            out.append([table.title, *(named.get(n, "") for n in naming), table.columns[i],
                        *(_number(x) for x in (c.value, c.low, c.high, c.n))])
    return out


def _csv_name(column: str) -> str:
    return f"row_{column}" if column in TIDY else column


def _number(value: Any) -> Any:
    """A number as CSV holds it, missing (None or NaN) as an empty field."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else value


def to_csv(report: Report) -> str:
    tables = _all_tables(report)
    naming = list(dict.fromkeys(_csv_name(t.columns[i]) for t in tables for i in _naming(t)))
    flag = "" if report.paper is None else str(not report.paper.not_a_reproduction).lower()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([TIDY[0], *naming, *TIDY[1:]])
    for table in tables:
        writer.writerows([*row, flag] for row in _tidy(table, naming))
    return out.getvalue()


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _table_data(table: Table) -> dict[str, Any]:
    columns, rows = _flat(table)
    return {"title": table.title, "columns": columns, "rows": rows, "note": table.note}


def _cell_data(cell: Cell | None) -> dict[str, Any] | None:
    return None if cell is None else {"value": cell.value, "low": cell.low, "high": cell.high, "n": cell.n}


def as_data(report: Report, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    figures = [{"type": type(f).__name__.lower(), **asdict(f)} for f in report.figures]
    paper = None if report.paper is None else {
        "paper": report.paper.paper, "source": report.paper.source, "note": report.paper.note,
        "reproduction": not report.paper.not_a_reproduction, "not_a_reproduction": report.paper.not_a_reproduction,
        "figures": [{"where": f.where, "label": f.label, "paper": _cell_data(f.paper), "studio": _cell_data(f.studio),
                     "note": f.note} for f in report.paper.figures],
    }
    return _json_safe({"title": report.title, **(extra or {}),
                       "tables": [_table_data(t) for t in report.tables], "figures": figures, "notes": report.notes,
                       "protocol": report.protocol, "paper": paper})


def to_json(report: Report, extra: dict[str, Any] | None = None) -> str:
    return json.dumps(as_data(report, extra), ensure_ascii=False, indent=2)


def _md_cell(value: Any) -> str:
    return _cell(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", " ")


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
    lines = [f"# {report.title}", ""] + ([f"**{_md_text(standing(report))}**", ""] if standing(report) else []) \
        + (header or [])
    for table in report.tables:
        lines += _md_table(table)
    for figure in report.figures:
        image = plots.save(figure, path.with_name(f"{path.stem}-{figure.name}.png"))
        written.append(image)
        lines += [f"![{figure.title}]({image.name})", ""]
    if report.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in report.notes] + [""]
    if report.paper is not None:
        lines += ["## Reproduction", ""] + _md_table(reproduction_table(report.paper))
    if report.protocol:
        lines += ["## Protocol", ""] + [f"- {_md_text(p)}" for p in report.protocol] + [""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return [path, *written]


def to_images(report: Report, folder: str | Path, stem: str, suffix: str) -> list[Path]:
    """Each figure as `<folder>/<stem>-<figure>.<suffix>`."""
    from studio.lab import plots

    return [plots.save(f, Path(folder) / f"{stem}-{f.name}.{suffix}") for f in report.figures]
