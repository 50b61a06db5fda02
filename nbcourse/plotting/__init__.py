"""Plots for the lessons, one module per topic. Each function draws one picture from
numbers it is given (or computes with the pure functions of the library) and returns a
matplotlib Figure, which a notebook shows when a cell returns it; tests render it to
PNG and the sliders redraw the live ones (:class:`LivePlot`).

Colours come from the Okabe-Ito palette, which stays distinguishable for colour-blind
readers; every plot has axis labels, units where there are any, and a legend.

=============== ========================================================== =======
module          pictures                                                   lesson
=============== ========================================================== =======
``factors``     the factors of one query; how alpha moves them             01, 02
``beta``        Beta priors, the coin's Bayesian update, prior wash-out    02
``likelihood``  log-likelihood over the simplex, and of a Gaussian         03
``weights``     naive Bayes weights as a linear model                      04, 05
``gaussian``    class densities and decision boundaries                    04, 06
``words``       Zipf's law, floating-point underflow                       05
``scores``      scores against alpha, confusion matrices, calibration,     04-06
                learning curves
``attack``      good words needed to flip caught spam                      08
``images``      a per-pixel parameter of each class, as one image per class 04
=============== ========================================================== =======
"""
from ._base import CLASS_COLORS, COLORS, LivePlot, NotebookFigure, figure_to_png, new_figure
from .beta import BetaUpdatePlot, plot_beta_densities, plot_beta_update, plot_prior_washout
from .factors import SmoothingEffectPlot, plot_query_factors, plot_smoothing_effect
from .gaussian import plot_class_densities, plot_gaussian_boundaries
from .likelihood import plot_gaussian_log_likelihood, plot_simplex_log_likelihood
from .scores import (AlphaCurvePlot, plot_confusion_matrices, plot_learning_curves,
                     plot_reliability)
from .weights import plot_top_weights, plot_weight_comparison
from .words import plot_underflow, plot_zipf
from .attack import plot_words_to_flip
from .images import plot_class_images

__all__ = [
    "COLORS", "CLASS_COLORS", "NotebookFigure", "new_figure", "figure_to_png", "LivePlot",
    "plot_query_factors", "SmoothingEffectPlot", "plot_smoothing_effect",
    "plot_beta_densities", "BetaUpdatePlot", "plot_beta_update", "plot_prior_washout",
    "plot_simplex_log_likelihood", "plot_gaussian_log_likelihood",
    "plot_top_weights", "plot_weight_comparison",
    "plot_gaussian_boundaries", "plot_class_densities",
    "plot_zipf", "plot_underflow",
    "AlphaCurvePlot", "plot_confusion_matrices", "plot_reliability", "plot_learning_curves",
    "plot_words_to_flip", "plot_class_images",
]
