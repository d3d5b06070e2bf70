"""Drawing a report's figures: charts in the terminal (plotext) and image files (matplotlib, PNG or SVG).

Every kind's figures are plain data (`studio.lab.kinds`): bars with 95% intervals, lines over steps and
radars of two profiles. Bars are drawn grouped, one colour per series, with the interval as a whisker;
a category with no data is left empty, never drawn as 0. Lines skip a step that was not measured. A radar
is drawn by `studio.lab.radar` (paired bars in the terminal, a polar chart in a file).

The terminal text carries no colour codes, so it reads the same in a log, a pipe or a report.
"""

from __future__ import annotations

import math
from pathlib import Path

from studio.lab.kinds import Bars, Figure, Lines, Radar

SUFFIXES = (".png", ".svg")
GLYPHS = ("█", "▒", "░", "#", "+", "x", "o")  # one fill per series: the terminal text has no colours


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


# --------------------------------------------------------------------------- the terminal


def terminal(figure: Figure, width: int = 80, height: int = 20) -> str:
    """The figure as plain text, `width` columns wide."""
    if isinstance(figure, Radar):
        from studio.lab import radar

        return radar.terminal(figure, width)
    import plotext as plt

    plt.clf()
    plt.theme("clear")
    plt.plotsize(max(30, width), max(10, height))
    plt.title(figure.title)
    if isinstance(figure, Bars):
        _terminal_bars(plt, figure)
    else:
        _terminal_lines(plt, figure)
    text = plt.uncolorize(plt.build())
    plt.clf()
    return text + "\n" + _legend(figure)


def _positions(categories: int, series: int) -> tuple[list[list[float]], float]:
    """Where each series' bar of each category stands, grouped around the category's whole number."""
    width = 0.8 / max(1, series)
    return [[i + 1 + (j - (series - 1) / 2) * width for i in range(categories)] for j in range(series)], width


def _terminal_bars(plt, bars: Bars) -> None:
    xs, width = _positions(len(bars.categories), len(bars.series))
    for n, ((name, values), x) in enumerate(zip(bars.series.items(), xs)):
        shown = [(xi, v) for xi, v in zip(x, values) if not _missing(v[0])]
        if not shown:
            continue
        plt.bar([xi for xi, _ in shown], [v[0] for _, v in shown], width=width * 0.9, label=name,
                marker=GLYPHS[n % len(GLYPHS)])
        whiskers = [(xi, v) for xi, v in shown if not (_missing(v[1]) or _missing(v[2])) and v[2] > v[1]]
        if whiskers:
            plt.error([xi for xi, _ in whiskers], [(v[1] + v[2]) / 2 for _, v in whiskers],
                      yerr=[(v[2] - v[1]) / 2 for _, v in whiskers])
    plt.xticks(list(range(1, len(bars.categories) + 1)), [_short(c) for c in bars.categories])
    plt.xlim(0.5, len(bars.categories) + 0.5)
    tops = [v[2] if not _missing(v[2]) else v[0] for vs in bars.series.values() for v in vs if not _missing(v[0])]
    plt.ylim(min(0.0, *tops) if tops else 0.0, max(tops) * 1.1 if tops and max(tops) > 0 else 1.0)
    if bars.ylabel:
        plt.ylabel(bars.ylabel)


def _terminal_lines(plt, lines: Lines) -> None:
    for name, values in lines.series.items():
        points = [(i + 1, v) for i, v in enumerate(values) if not _missing(v)]
        if points:
            plt.plot([x for x, _ in points], [v for _, v in points], label=name, marker="dot")
    plt.xticks(list(range(1, len(lines.steps) + 1)), [_short(s) for s in lines.steps])
    if lines.ylabel:
        plt.ylabel(lines.ylabel)


def _legend(figure: Bars | Lines) -> str:
    """The numbers under the chart, since a terminal's cells cannot show them exactly."""
    out = []
    if isinstance(figure, Bars):
        for name, values in figure.series.items():
            cells = []
            for category, (mean, low, high) in zip(figure.categories, values):
                if _missing(mean):
                    cells.append(f"{category} -")
                elif _missing(low) or _missing(high) or low == high:
                    cells.append(f"{category} {mean:.2f}")
                else:
                    cells.append(f"{category} {mean:.2f} [{low:.2f}, {high:.2f}]")
            out.append(f"{name}: " + "; ".join(cells))
    else:
        for name, points in figure.series.items():
            out.append(f"{name}: " + " ".join("-" if _missing(v) else f"{v:.2f}" for v in points))
    return "\n".join(out)


def _short(text: str, most: int = 14) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


# --------------------------------------------------------------------------- files


def save(figure: Figure, path: str | Path) -> Path:
    """Write the figure to `path`, PNG or SVG by its suffix."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise ValueError(f"{path.name}: a figure is written as .png or .svg, not {path.suffix or 'no suffix'}")
    if isinstance(figure, Radar):
        from studio.lab import radar

        return Path(radar.save(figure, path))
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    fig, ax = pyplot.subplots(figsize=(max(6.0, 1.2 * _count(figure) + 2), 4.5), layout="constrained")
    try:
        if isinstance(figure, Bars):
            _file_bars(ax, figure)
        else:
            _file_lines(ax, figure)
        ax.set_title(figure.title)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
    finally:
        pyplot.close(fig)
    return path


def _count(figure: Bars | Lines) -> int:
    return len(figure.categories) if isinstance(figure, Bars) else len(figure.steps)


def _file_bars(ax, bars: Bars) -> None:
    xs, width = _positions(len(bars.categories), len(bars.series))
    for (name, values), x in zip(bars.series.items(), xs):
        means = [math.nan if _missing(v[0]) else v[0] for v in values]
        below = [0.0 if _missing(v[1]) or _missing(v[0]) else max(0.0, v[0] - v[1]) for v in values]
        above = [0.0 if _missing(v[2]) or _missing(v[0]) else max(0.0, v[2] - v[0]) for v in values]
        ax.bar(x, means, width=width * 0.9, yerr=[below, above], capsize=3, label=name)
    ax.set_xticks(list(range(1, len(bars.categories) + 1)), bars.categories, rotation=20, ha="right")
    ax.set_ylabel(bars.ylabel)
    if len(bars.series) > 1:
        ax.legend(fontsize="small")


def _file_lines(ax, lines: Lines) -> None:
    steps = list(range(1, len(lines.steps) + 1))
    for name, values in lines.series.items():
        ax.plot(steps, [math.nan if _missing(v) else v for v in values], marker="o", label=name)
    ax.set_xticks(steps, lines.steps, rotation=20, ha="right")
    if lines.scale:
        ax.set_ylim(lines.scale[0] - 0.2, lines.scale[1] + 0.2)
    ax.set_ylabel(lines.ylabel)
    if len(lines.series) > 1:
        ax.legend(fontsize="small")
