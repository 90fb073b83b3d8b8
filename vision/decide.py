"""Stage 4: which candidates are dice, once each has been read. Pure numpy, tested on hand-made candidates.

A table has marks that read as dice: dust, a screw hole, a clip; and a die can be read twice. Two rules (a candidate
mostly under the boxes of surer dice taken for none paid nothing on the unseen sets and went; ``nested`` told a
close-up die from its pips for the tiny detector of before issue 59, which saw pips as dice, and went with it):

* ``off_size``: the dice of one throw are about one size. A candidate far smaller or bigger than the sure dice near it
  (``SIZE_FACTOR``), and not sure itself, is a mark of the table, not a die (issue 51: specks, screw holes, a clip
  read as one big "1"). It is not reported, only kept among the dropped candidates for the count to fall back on.
* ``echoes``: a die read inside a die ``ECHO_RATIO`` x its side or more, as the same face, is that die's face seen
  again (the top face without the body, a translucent die's pips through its side): not reported, kept among the
  dropped. On the test rows, unseen sets and rendered games, each of the eight such dice was one too many.
"""

from __future__ import annotations

import numpy as np

from vision.detect import Candidates

# Calibrated doubt (issue 51): a die read under DOUBT is flagged for the player to check. On the validation rows of
# the photo sets, dice read at 0.8 or more are right 98.8 % of the time (11.5 % of the dice are under it). The
# models' own calibration flags at most 3 % (its threshold, 0.38 for the bundled file), which left 26 % of the dice
# read wrong on validation unflagged. Not reporting candidates under 0.3 at all was measured too and not kept: it cost
# the crowds of far dice (rune55-small-far F1 -1.4) more than it saved in phantoms (0.24 a photo of 1.5).
DOUBT = 0.8
SIZE_SURE = 0.8  # confidence of the dice that set the size of a throw
SIZE_UNSURE = 0.7  # a candidate at least this sure is reported whatever its size
SIZE_FACTOR = 1.8  # off the sure dice' side by this factor or more, either way: not a die of this throw
SIZE_NEIGHBOURS = 3  # the sure dice nearest to a candidate set its size (a tilted camera shows far dice smaller)


def off_size(c: Candidates, confs: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """Of the candidates read as dice (``dice``), those far off the size of the sure dice near them and not sure."""
    out = np.zeros(len(c), bool)
    sure = np.nonzero(dice & (confs >= SIZE_SURE))[0]
    if len(sure) == 0:
        return out
    for k in np.nonzero(dice & (confs < SIZE_UNSURE))[0]:
        others = sure[sure != k]
        if len(others) == 0:
            continue
        near = others[np.argsort(np.hypot(*(c.centres[others] - c.centres[k]).T))[:SIZE_NEIGHBOURS]]
        ratio = float(c.sides[k]) / float(np.median(c.sides[near]))
        out[k] = ratio >= SIZE_FACTOR or ratio <= 1 / SIZE_FACTOR
    return out


ECHO_RATIO = 1.3  # a die inside a die this much bigger or more
ECHO_SLACK = 0.05  # of the bigger die's side: how far the smaller's box may stick out of it


def echoes(c: Candidates, faces: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """Of the candidates read as dice (``dice``), those whose box lies inside that of a die ``ECHO_RATIO`` x their
    side or more read as the same face (``faces``, per candidate)."""
    side = c.sides[:, None]  # row: the smaller candidate, column: the bigger
    room = 0.5 * (c.sides[None, :] - side) + ECHO_SLACK * c.sides[None, :]
    inside = np.all(np.abs(c.centres[:, None, :] - c.centres[None, :, :]) <= room[..., None], axis=2)
    pair = inside & (c.sides[None, :] >= ECHO_RATIO * side) & (faces[:, None] == faces[None, :])
    pair &= dice[:, None] & dice[None, :]
    out: np.ndarray = pair.any(axis=1)
    return out
