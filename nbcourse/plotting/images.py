"""Parameters as pictures: a per-pixel parameter of each class drawn as an image."""
from __future__ import annotations

import numpy as np

from ._base import new_figure

__all__ = ["plot_class_images"]


def plot_class_images(values, classes, shape, *, label: str = "P(pixel on | class)",
                      vmin: float = 0.0, vmax: float = 1.0, ncols: int = 5):
    """One small image per class: row ``c`` of ``values`` reshaped to ``shape``.

    For Bernoulli naive Bayes on pixels, ``values`` is ``np.exp(model.feature_log_prob_)``,
    the probability that each pixel is on in each class, and the images show what the
    model has learnt: the typical stroke of each class. Grey levels run from white
    (``vmin``) to black (``vmax``), with one shared colour bar.
    """
    values = np.asarray(values, dtype=np.float64)
    classes = list(classes)
    if values.ndim != 2 or values.shape[0] != len(classes):
        raise ValueError(f"values must have one row per class ({len(classes)}), got shape {values.shape}")
    if int(np.prod(shape)) != values.shape[1]:
        raise ValueError(f"shape {tuple(shape)} holds {int(np.prod(shape))} pixels, but each row of "
                         f"values has {values.shape[1]}")
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite numbers")
    ncols = min(ncols, len(classes))
    nrows = -(-len(classes) // ncols)
    figure, axes = new_figure((1.5 * ncols + 0.8, 1.6 * nrows + 0.2), nrows, ncols, squeeze=False)
    for k, ax in enumerate(axes.ravel()):
        ax.set_xticks([])
        ax.set_yticks([])
        if k >= len(classes):
            ax.set_visible(False)
            continue
        shown = ax.imshow(values[k].reshape(shape), cmap="Greys", vmin=vmin, vmax=vmax,
                          interpolation="nearest")
        ax.set_title(str(classes[k]), fontsize=10)
    figure.colorbar(shown, ax=axes, shrink=0.8, label=label)
    return figure
