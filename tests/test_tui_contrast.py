"""Every letter the app draws reads at WCAG AA (4.5:1 against what is behind it), in every built-in theme.

Measured from the rendered screen itself: each cell's colour and background as the compositor hands
them to the terminal, `dim` resolved as a terminal draws it. The ANSI themes are left out: there the
terminal's own palette decides the colours, and the app cannot know them.
"""

from __future__ import annotations


from test_tui import dialog, new_take, opened, step, studio  # noqa: F401  (studio is a fixture)

from studio.tui.contrast import AA, ratio


SIZE = (120, 40)


def themes(app) -> list[str]:
    return sorted(name for name in app.available_themes if not name.startswith("ansi"))


def unreadable(app, region=None) -> list[str]:
    """Each run of letters below AA on screen (or within `region`), with its ratio and row."""
    found = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            start, x = x, x + segment.cell_length
            text, style = segment.text, segment.style
            if region is not None and not (region.y <= y < region.bottom and region.x <= start < region.right):
                continue
            if style is None or all(c == " " or "\u2500" <= c <= "\u259f" for c in text):
                continue  # blank, or a border's lines: edges, not letters
            fg, bg = style.color.get_truecolor(), style.bgcolor.get_truecolor()
            if style.reverse:
                fg, bg = bg, fg
            if style.dim:
                fg = tuple(round(a + (b - a) * 0.5) for a, b in zip(fg, bg))
            measured = ratio(tuple(fg), tuple(bg))
            if measured < AA:
                found.append(f"{measured:.2f}:1 row {y} {text.strip()!r}")
    return found


async def test_the_stage_briefs_tags_and_every_pane_read_in_every_theme(studio):
    """A staged play two lines in, a second take: the scene's brief under its heading, `take 2/2` after the
    line, the character names in their colours, the status, the notes, the footer."""
    app = studio("last_crossing.toml")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot, 2)
        await new_take(pilot, "g", "A second take, in another voice.")
        await pilot.press("up")  # the cursor's highlight on a line is measured too
        text = "\n".join("".join(s.text for s in strip) for strip in app.screen._compositor.render_strips())
        assert "The wheelhouse at dusk" in text and "take 2/2" in text
        failures = {}
        for theme in themes(app):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            bad = unreadable(app)
            if bad:
                failures[theme] = bad[:6]
        assert not failures, failures


async def test_a_dialog_reads_in_every_theme(studio):
    app = studio("last_crossing.toml")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        screen = await dialog(pilot, "x", screen="ExportScreen")
        box = screen.query_one(".dialog").region
        failures = {}
        for theme in themes(app):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            bad = unreadable(app, box)
            if bad:
                failures[theme] = bad[:6]
        assert not failures, failures
