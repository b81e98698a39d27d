"""The balance pages' charts, written as SVG by hand: horizontal bars with their 95% interval
and a dashed line at parity, and histograms of counts.

Two chart types with fixed styling do not need a plotting library: drawing them here takes
about 0.15 ms a chart where matplotlib took 0.12 s (and a second to import), and the bytes
depend only on the figures, on every machine. Text is measured with a fixed table of
average glyph widths (a little wider than DejaVu Sans's), never with the fonts installed.

Units: 1 SVG unit = 1 pt, and the picture is WIDTH inches wide, as the page expects.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from pipeline.common.words import decimal

WIDTH = 4.8  # inches: on a 390 px phone, 12 pt text stays about 12 px tall
FONT = 12.0  # pt
BAR = "#3f51b5"
INK = "#222"
PARITY = "#c00"
_WIDE = set("mwMW@%")
_NARROW = set("iljtfrI.,:;'|!()[] ")


def text_width(text: str, size: float = FONT) -> float:
    """An upper estimate of the text's width in pt, the same on every machine."""
    em = sum(0.9 if c in _WIDE else 0.36 if c in _NARROW else 0.64 for c in text)
    return em * size


def nice_step(span: float, most: int, integer: bool) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that cuts `span` into at most `most` steps."""
    if span <= 0:
        return 1.0
    raw = span / most
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        step = factor * power
        if step >= raw and (not integer or step == int(step)):
            return step
    return 10 * power


def ticks(low: float, high: float, most: int = 7, integer: bool = False) -> list[float]:
    step = nice_step(high - low, most, integer)
    first = math.ceil(low / step - 1e-9) * step
    count = math.floor((high - first) / step + 1e-9) + 1
    return [round(first + i * step, 10) for i in range(max(count, 0))]


def _f(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass
class Canvas:
    """SVG elements in order; `svg()` wraps them in a picture `height` pt tall."""

    height: float
    parts: list[str] = field(default_factory=list)

    def rect(self, x: float, y: float, w: float, h: float, fill: str) -> None:
        self.parts.append(
            f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" fill="{fill}"/>'
        )

    def line(
        self, x1: float, y1: float, x2: float, y2: float, color: str = INK, dash: bool = False
    ) -> None:
        style = ' stroke-dasharray="3,2"' if dash else ""
        self.parts.append(
            f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" '
            f'stroke="{color}" stroke-width="{0.8 if dash else 1}"{style}/>'
        )

    def text(
        self, x: float, y: float, content: str, anchor: str = "middle", rotate: float = 0
    ) -> None:
        turn = f' transform="rotate({_f(rotate)} {_f(x)} {_f(y)})"' if rotate else ""
        self.parts.append(
            f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}"{turn}>{escape(content)}</text>'
        )

    def svg(self, title: str) -> bytes:
        width = WIDTH * 72
        head = (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}pt" '
            f'height="{_f(self.height)}pt" viewBox="0 0 {_f(width)} {_f(self.height)}" '
            f'role="img" aria-label={quoteattr(title)}>'
        )
        style = (
            f"<g style=\"font-family: 'DejaVu Sans', Verdana, sans-serif; font-size: "
            f'{_f(FONT)}px; fill: {INK}">'
        )
        return "\n".join([head, style, *self.parts, "</g>", "</svg>", ""]).encode()


LINE = FONT * 1.25  # the height of a line of text
TICK = 3.5


def wrap(label: str, room: float) -> list[str]:
    """The label on one line, or on two split at the space that balances them best when it
    is wider than `room` (a label too long even so is still drawn whole, over the margin)."""
    if text_width(label) <= room or " " not in label:
        return [label]
    spaces = [i for i, c in enumerate(label) if c == " "]
    cut = min(spaces, key=lambda i: max(text_width(label[:i]), text_width(label[i + 1 :])))
    return [label[:cut], label[cut + 1 :]]


def bars(
    labels: Sequence[str],
    rates: Sequence[tuple[float, float, float]],
    axis: Sequence[str],
    even: float | None,
    title: str,
) -> bytes:
    """One horizontal bar per label: (rate, low, high) in percent, the interval as whiskers,
    a dashed red line at `even` percent (or none); `axis`: the lines under the 0-100 axis."""
    full = WIDTH * 72
    room = full * 0.45  # the labels' most; the bars keep the rest
    lines = [wrap(label, room) for label in labels]
    widest = max(text_width(line) for label in lines for line in label)
    left = min(widest, full * 0.6) + TICK + 6  # a long line takes from the bars
    right = full - text_width("100") / 2 - 2
    row = max(0.36 * 72, max(len(label) for label in lines) * LINE + 6)
    top = 6.0
    bottom = top + row * len(labels)
    canvas = Canvas(bottom + TICK + LINE * (1 + len(axis)) + 6)

    def x(percent: float) -> float:
        return left + (right - left) * min(max(percent, 0.0), 100.0) / 100

    for index, (label, (rate, low, high)) in enumerate(zip(lines, rates, strict=True)):
        middle = top + row * (index + 0.5)
        canvas.rect(left, middle - row * 0.4, x(rate) - left, row * 0.8, BAR)
        canvas.line(x(low), middle, x(high), middle)
        for end in (low, high):
            canvas.line(x(end), middle - 2, x(end), middle + 2)
        canvas.line(left - TICK, middle, left, middle)
        first = middle + FONT * 0.35 - LINE * (len(label) - 1) / 2
        for number_, line in enumerate(label):
            canvas.text(left - TICK - 3, first + LINE * number_, line, anchor="end")
    if even is not None:
        canvas.line(x(even), top, x(even), bottom, PARITY, dash=True)
    canvas.line(left, top, left, bottom)
    canvas.line(left, bottom, right, bottom)
    for value in range(0, 101, 20):
        canvas.line(x(value), bottom, x(value), bottom + TICK)
        canvas.text(x(value), bottom + TICK + LINE * 0.85, decimal(value))
    for index, words in enumerate(axis):
        half = text_width(words) / 2  # centred under the bars, kept inside the picture
        middle = min(max((left + right) / 2, half + 2), full - half - 2)
        canvas.text(middle, bottom + TICK + LINE * (1.9 + index), words)
    return canvas.svg(title)


def histogram(
    values: Sequence[object], counts: Sequence[float], x_label: str, y_label: str, title: str
) -> bytes:
    """A bar per value: numbers on a numeric axis (whole ticks), other values as rotated
    labels, one per bar; counts on whole ticks."""
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    step = nice_step(max([*counts, 1]), 7, integer=True)
    y_top = math.ceil(max([*counts, 1]) / step) * step  # the axis ends on a tick
    y_ticks = ticks(0, y_top, most=7, integer=True)
    left = LINE + 4 + max(text_width(decimal(t)) for t in y_ticks) + TICK + 3
    right = WIDTH * 72 - 12
    top = 6.0
    plot = 3.4 * 72 - 60
    bottom = top + plot
    names = [str(v) for v in values]
    low: float
    high: float
    if numeric:
        low, high = min(values) - 1, max(values) + 1  # type: ignore[type-var,operator]
        under = LINE
    else:
        low, high = -0.5, len(values) - 0.5
        under = max(text_width(n) for n in names) * 0.5 + FONT * 0.9  # sin 30°, cos 30°
    canvas = Canvas(bottom + TICK + under + LINE * 1.4 + 4)

    def x(value: float) -> float:
        return left + (right - left) * (value - low) / (high - low)

    def y(count: float) -> float:
        return bottom - plot * count / y_top

    width = (right - left) / (high - low) * (0.9 if numeric else 0.8)
    for index, (value, count) in enumerate(zip(values, counts, strict=True)):
        at = float(value) if numeric else float(index)  # type: ignore[arg-type]
        canvas.rect(x(at) - width / 2, y(count), width, bottom - y(count), BAR)
    canvas.line(left, top, left, bottom)
    canvas.line(left, bottom, right, bottom)
    for tick in y_ticks:
        canvas.line(left - TICK, y(tick), left, y(tick))
        canvas.text(left - TICK - 3, y(tick) + FONT * 0.35, decimal(tick), anchor="end")
    if numeric:
        for tick in ticks(math.ceil(low), math.floor(high), most=8, integer=True):
            canvas.line(x(tick), bottom, x(tick), bottom + TICK)
            canvas.text(x(tick), bottom + TICK + LINE * 0.85, decimal(tick))
    else:
        for index, name in enumerate(names):
            canvas.line(x(index), bottom, x(index), bottom + TICK)
            at = bottom + TICK + FONT * 0.9
            canvas.text(x(index), at, name, anchor="end", rotate=-30)
    canvas.text((left + right) / 2, bottom + TICK + under + LINE * 0.9, x_label)
    middle = (top + bottom) / 2
    canvas.text(LINE * 0.8, middle, y_label, rotate=-90)
    return canvas.svg(title)
