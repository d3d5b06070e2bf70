"""Drawing a personality profile: designed vs measured Big Five, in the terminal and as an image file.

plotext draws no radar, so the terminal gets one row of bars per series under each axis (plain text,
no colour codes: it reads the same in a log, a pipe or a screen reader), and a value beside each bar.
The file is a matplotlib polar plot, PNG or SVG by the path's suffix. A dimension a method could not
measure is drawn as a gap ("-" in the terminal), never as a zero.

The same module draws the interview over a play (a kinds.Lines: each dimension across the scenes).
"""

from __future__ import annotations

import math
from pathlib import Path

from studio.lab.kinds import Lines, Radar

GLYPHS = ("█", "▓", "▒", "░", "#", "=", "+")
SPARKS = "▁▂▃▄▅▆▇█"
SUFFIXES = (".png", ".svg")


def terminal(radar: Radar, width: int = 60) -> str:
    """The profiles as paired bars, one block per axis, within `width` columns."""
    low, high = radar.scale
    names = list(radar.series)
    label = max([len(n) for n in names] + [8]) + 3
    bar = max(10, width - label - 7)
    lines = [radar.title, f"{'':{label}}{low:g}{' ' * (bar - len(f'{low:g}') - len(f'{high:g}'))}{high:g}"]
    for i, axis in enumerate(radar.axes):
        lines.append(axis)
        for n, name in enumerate(names):
            value = radar.series[name][i] if i < len(radar.series[name]) else None
            glyph = GLYPHS[n % len(GLYPHS)]
            if value is None or (isinstance(value, float) and math.isnan(value)):
                lines.append(f"  {name:<{label - 2}}{'':{bar}} -")
                continue
            share = (min(max(value, low), high) - low) / (high - low) if high > low else 0.0
            cells = max(1, round(share * bar))  # even the scale's bottom gets a mark, so it is seen
            lines.append(f"  {name:<{label - 2}}{glyph * cells:<{bar}} {value:.2f}")
    legend = "   ".join(f"{GLYPHS[n % len(GLYPHS)]} {name}" for n, name in enumerate(names))
    lines.append(legend)
    return "\n".join(lines)


def _check_suffix(path: Path) -> None:
    if path.suffix.lower() not in SUFFIXES:
        from studio.model import InputError

        raise InputError(str(path), None, f"is a '{path.suffix or 'suffix-less'}' file; charts are PNG or SVG",
                         "name the file .png or .svg")


def save(radar: Radar, path: str | Path) -> Path:
    """A polar chart of every series over the axes, PNG or SVG by the suffix."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(path)
    _check_suffix(out)
    low, high = radar.scale
    count = len(radar.axes)
    angles = [2 * math.pi * i / count for i in range(count)]
    fig = plt.figure(figsize=(6, 6))
    try:
        from matplotlib.projections.polar import PolarAxes

        ax = fig.add_subplot(projection="polar")
        if not isinstance(ax, PolarAxes):  # what projection="polar" makes; the check tells the type checker so
            raise TypeError("matplotlib made no polar axes")
        ax.set_theta_offset(math.pi / 2)
        ax.set_theta_direction(-1)
        for n, (name, values) in enumerate(radar.series.items()):
            ys = [math.nan if v is None else float(v) for v in values]
            ax.plot(angles + angles[:1], ys + ys[:1], marker="o", linewidth=2.5 if n == 0 else 1.5,
                    linestyle="-" if n == 0 else "--", label=name)
            if n == 0 and not any(math.isnan(y) for y in ys):
                ax.fill(angles, ys, alpha=0.12)
        ax.set_xticks(angles)
        ax.set_xticklabels(radar.axes)
        ax.tick_params(axis="x", pad=12)
        ax.set_ylim(low - 1 if low > 0 else low, high)
        ax.set_yticks([v for v in range(int(low), int(high) + 1)])
        ax.set_title(radar.title, fontsize=10, pad=20)
        ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.1), fontsize=8)
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, bbox_inches="tight")
    finally:
        plt.close(fig)
    return out


def lines_terminal(lines: Lines, width: int = 60, scale: tuple[float, float] = (1.0, 5.0)) -> str:
    """Values over steps as a plain table, each row ending in a sparkline of its course on the scale."""
    label = max([len(n) for n in lines.series] + [6]) + 1
    cell = max([len(s) for s in lines.steps] + [5]) + 1
    lo, hi = scale
    out = [lines.title, f"{'':{label}}" + "".join(f"{s:>{cell}}" for s in lines.steps)]
    for name, values in lines.series.items():
        spark = "".join(" " if v is None else SPARKS[round((min(max(v, lo), hi) - lo) / (hi - lo) * (len(SPARKS) - 1))]
                        for v in values)
        row = "".join(f"{'-' if v is None else f'{v:.2f}':>{cell}}" for v in values)
        out.append(f"{name:<{label}}{row}  {spark}")
    out.append(f"(sparklines from {lo:g} to {hi:g})")
    return "\n".join(out)
