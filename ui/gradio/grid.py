"""Table widths that hold on a phone. gradio sizes a Dataframe's columns by shares of the
table's width, so at 390 px a 6 % column is 20 px and its words wrap a letter a line; pixel
widths keep each column as wide as at 1440 px and a narrow screen scrolls the table sideways.
With the `np-grid` class (app.CSS) a cell wraps between words only."""

from __future__ import annotations

from collections.abc import Sequence

DESKTOP_PX = 1212  # a full-width table's width in the app at 1440 px
GRID = ["np-grid"]  # the elem_classes of a table whose words stay whole


def px_widths(shares: Sequence[float], total: int = DESKTOP_PX, least: int = 48) -> list[str | int]:
    """Shares of the desktop width (percent) as pixel widths, each at least `least` px."""
    return [f"{max(least, round(share * total / 100))}px" for share in shares]
