"""How many good words it takes to flip caught spam (lesson 08's good-word attack)."""
from __future__ import annotations

import numpy as np

from ._base import COLORS, new_figure

#: One look per filter: colour, line style and marker all differ, so no line is told
#: apart by colour alone.
_LOOKS = [(COLORS["blue"], "-", "o"), (COLORS["vermillion"], "--", "s"),
          (COLORS["green"], ":", "^"), (COLORS["purple"], "-.", "D"), (COLORS["orange"], "-", "v")]


def plot_words_to_flip(words_needed, *, max_words: int = 20):
    """Share of the caught spam messages flipped to ham with at most m added words, against m.

    ``words_needed`` maps a filter's name to the number of words each caught message needed
    (``GoodWordAttack.n_words``; ``inf`` when the attack failed). A curve that rises
    early belongs to an easy filter to fool; one that stays low, to a robust one.
    """
    if not isinstance(words_needed, dict) or not words_needed:
        raise TypeError("words_needed must be a non-empty dict: filter name -> words needed per message")
    if len(words_needed) > len(_LOOKS):
        raise ValueError(f"at most {len(_LOOKS)} filters fit in one picture, got {len(words_needed)}")
    steps = np.arange(0, max_words + 1)
    fig, ax = new_figure((7.0, 4.2), layout="tight")
    for (name, needed), (color, style, marker) in zip(words_needed.items(), _LOOKS):
        needed = np.asarray(needed, dtype=np.float64)
        if needed.ndim != 1 or len(needed) == 0:
            raise ValueError(f"words_needed[{name!r}] must list one number per message")
        share = [(needed <= m).mean() for m in steps]
        ax.step(steps, share, where="post", color=color, linestyle=style, marker=marker,
                markersize=4, label=f"{name} ({len(needed)} caught)")
    ax.set_xlabel("good words added to the message")
    ax.set_ylabel("share of caught spam now let through")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(0, max_words)
    ax.set_xticks(steps[::2])
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=9)
    return fig
