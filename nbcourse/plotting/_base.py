"""What every plot of the course shares: the palette, one way to make a figure, PNG bytes,
and the base class of the pictures that sliders redraw.

Figures are made with :class:`matplotlib.figure.Figure` (see :class:`NotebookFigure`),
never with ``pyplot``. A Figure that pyplot does not know about is shown in a notebook
exactly once, as the value of the cell that returns it. pyplot would also show every
figure it created at the end of the cell, so a returned figure would appear twice, and a
slider's figure would be kept alive in pyplot's registry and shown again under the
widget. Tests and grading kernels never have to close anything either.
"""
from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["COLORS", "CLASS_COLORS", "NotebookFigure", "new_figure", "figure_to_png", "LivePlot"]

#: Okabe & Ito (2008) colour-blind safe palette.
COLORS = {
    "blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "vermillion": "#D55E00",
    "sky": "#56B4E9", "purple": "#CC79A7", "yellow": "#F0E442", "black": "#000000",
}

#: Colours for the classes of a model, in the order of ``model.classes_``.
CLASS_COLORS = (COLORS["blue"], COLORS["vermillion"], COLORS["green"], COLORS["orange"])


class NotebookFigure(Figure):
    """A Figure that a notebook shows as a PNG when a cell returns it.

    IPython draws a plain Figure only after matplotlib's inline backend has been switched
    on, which importing pyplot (or ``%matplotlib inline``) does; this module never
    imports pyplot, so the figure says itself how to be drawn. When the inline backend is
    on, its own formatter is used instead: either way the picture appears once.
    """

    def __repr__(self) -> str:  # "<Figure size 640x480 with 1 Axes>", as for any Figure
        return super().__repr__().replace(type(self).__name__, "Figure", 1)

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


def new_figure(figsize, nrows: int = 1, ncols: int = 1, *, layout: str = "constrained",
               squeeze: bool = True, **subplot_kw):
    """A new Figure of ``figsize`` inches with a grid of axes: ``(figure, axes)``.

    ``layout`` is matplotlib's layout engine ("constrained" or "tight"); the other
    keywords go to :meth:`Figure.subplots` (``width_ratios``, ``sharex``, ...). The
    figure has an Agg canvas, so it can be drawn and saved without pyplot.
    """
    figure = NotebookFigure(figsize=figsize, layout=layout)
    FigureCanvasAgg(figure)
    return figure, figure.subplots(nrows, ncols, squeeze=squeeze, **subplot_kw)


def _png(canvas, compress_level: int = 1) -> bytes:
    """What ``canvas`` shows now, as PNG bytes (zlib level 1: a slider needs speed more
    than small files)."""
    from PIL import Image

    width, height = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = io.BytesIO()
    image.save(buffer, format="png", compress_level=compress_level)
    return buffer.getvalue()


def figure_to_png(fig, dpi=80) -> bytes:
    """PNG bytes of ``fig`` at ``dpi`` (which becomes the figure's dpi), drawn in a single
    pass (``savefig`` would lay the figure out and draw it twice)."""
    fig.set_dpi(dpi)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return _png(canvas)


class LivePlot:
    """A figure that a slider redraws: the base class of the course's live pictures.

    A subclass draws its figure once in ``__init__`` (into ``self.figure``, made by
    :func:`new_figure`), lists the artists that its ``update`` changes in
    ``self.moving``, and calls :meth:`freeze_layout` when everything is in place.
    ``update(...)`` changes those artists and returns ``self``; if it changed
    anything else (an axis limit, a tick label, a title that is not in ``moving``)
    it calls :meth:`redraw_all` first.

    :meth:`to_png` then draws only the moving artists on top of a saved picture of the
    rest (matplotlib's "blitting"): a few milliseconds instead of drawing every tick
    label again. A plot whose every part moves simply leaves ``moving`` empty and calls
    :meth:`redraw_all` in each ``update``.
    """

    #: The resolution of :meth:`to_png` when none is given.
    dpi = 80

    figure: Figure
    moving: list | tuple = ()  # set by a subclass that blits; empty: redraw everything
    _background = None

    def freeze_layout(self) -> None:
        """Lay the figure out once, then keep that layout: later updates are faster,
        and a legend or a label never jumps while the slider moves."""
        self.figure.draw_without_rendering()
        self.figure.set_layout_engine("none")

    def redraw_all(self) -> None:
        """Forget the saved background: the next :meth:`to_png` draws everything."""
        self._background = None

    def update(self, *args, **kwargs) -> "LivePlot":  # pragma: no cover - abstract
        raise NotImplementedError

    def to_png(self, dpi=None) -> bytes:
        """The current picture as PNG bytes, for an ``ipywidgets.Image``."""
        fig = self.figure
        dpi = self.dpi if dpi is None else dpi
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        if self._background is None or fig.dpi != dpi:
            fig.set_dpi(dpi)
            # "Animated" artists are left out of a full draw but keep their size: a title
            # that was hidden instead would measure as empty and be pushed off the figure.
            for artist in self.moving:
                artist.set_animated(True)
            fig.canvas.draw()
            self._background = fig.canvas.copy_from_bbox(fig.bbox)
            for artist in self.moving:
                artist.set_animated(False)
        else:
            fig.canvas.restore_region(self._background)
        for artist in self.moving:
            fig.draw_artist(artist)
        return _png(fig.canvas)


def checked_names(values, length: int, name: str) -> list[str]:
    """``values`` as ``length`` strings, or a clear error naming the argument."""
    if isinstance(values, str):
        raise TypeError(f"{name} must be a sequence of {length} names, got the string {values!r}")
    names = [str(v) for v in values]
    if len(names) != length:
        raise ValueError(f"{name} must hold {length} names, got {len(names)}")
    return names


def decade_ticks(ax, low: float, high: float) -> None:
    """Ticks at the powers of ten from ``low`` to ``high`` on a log x axis, written as plain
    numbers (0.01, not 10^-2), with no minor ticks."""
    from matplotlib.ticker import NullLocator

    decades = 10.0 ** np.arange(np.floor(np.log10(low)), np.ceil(np.log10(high)) + 1)
    ax.set_xticks(decades, [f"{d:g}" for d in decades])
    ax.xaxis.set_minor_locator(NullLocator())
