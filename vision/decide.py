"""Stage 4: which candidates are dice, once each has been read. Pure numpy, tested on hand-made candidates.

The pyramid (``Detector.pyramid``) keeps every size a level sees well, so two readings of one spot can both be there:
a close-up die and its pips (each pip alone looks like a die showing 1), or a block of small dice and the one big die
it passes for at a coarser level. And a table has marks that read as dice: dust, a screw hole, a clip. Two rules (a
third, a candidate mostly under the boxes of surer dice is none, paid nothing on the unseen sets and went):

* ``nested``: a candidate with smaller ones inside it is one die when it reads surely as a face and most of what lies
  inside reads as a one or as nothing (its pips: a pip alone looks like a die showing 1), with no more sure ones than
  it has pips; otherwise it is the block of the dice inside it.
* ``off_size``: the dice of one throw are about one size. A candidate far smaller or bigger than the sure dice near it
  (``SIZE_FACTOR``), and not sure itself, is a mark of the table, not a die (issue 51: specks, screw holes, a clip
  read as one big "1"). It is not reported, only kept among the dropped candidates for the count to fall back on.
"""

from __future__ import annotations

import numpy as np

from vision.classify import BACKGROUND, softmax
from vision.detect import Candidates

# Calibrated doubt (issue 51): a die read under DOUBT is flagged for the player to check. On the validation rows of
# the photo sets, dice read at 0.8 or more are right 98.8 % of the time (11.5 % of the dice are under it). The
# models' own calibration flags at most 3 % (its threshold, 0.38 for the bundled file), which left 26 % of the dice
# read wrong on validation unflagged. Not reporting candidates under 0.3 at all was measured too and not kept: it cost
# the crowds of far dice (rune55-small-far F1 -1.4) more than it saved in phantoms (0.24 a photo of 1.5).
DOUBT = 0.8
INSIDE = 0.45  # a candidate whose centre lies within this share of a bigger one's side from its centre ...
SMALLER = 0.6  # ... and whose side is under this share of it, lies inside it
CENTRED = 0.15  # ... unless its centre lies within this share of the side: the same die, its size underrated ...
ALIKE = 0.05  # two readings of one die this close: the smaller box stays (a coarse level overrates a die's side)
TIGHT = 0.4  # ... to the box of its pips, at least this share of its side (a smaller one is another die)
WHOLE_SURE = 0.8  # the probability of its face a die must have to stand for what lies inside it
INNER_SURE = 0.5  # a one read this surely inside a die is a die showing 1 where there are more than its pips
SIZE_SURE = 0.8  # confidence of the dice that set the size of a throw
SIZE_UNSURE = 0.7  # a candidate at least this sure is reported whatever its size
SIZE_FACTOR = 1.8  # off the sure dice' side by this factor or more, either way: not a die of this throw
SIZE_NEIGHBOURS = 3  # the sure dice nearest to a candidate set its size (a tilted camera shows far dice smaller)


def nested(c: Candidates, logits: np.ndarray) -> np.ndarray:
    """Which candidates stand, where some lie inside others: ``logits`` (n, 13) per rank class."""
    keep = np.ones(len(c), bool)
    if len(c) < 2:
        return keep
    p = softmax(logits)
    best = p.argmax(axis=1)
    sure = p[:, :BACKGROUND].max(axis=1)
    for k in np.argsort(-c.sides):
        if not keep[k]:
            continue
        near = np.hypot(*(c.centres - c.centres[k]).T)
        inside = keep & (near < INSIDE * c.sides[k]) & (c.sides < SMALLER * c.sides[k])
        inside[k] = False
        # one centred on it and not much smaller is this die seen too small (its pips' box), not another die
        centred = inside & (near < CENTRED * c.sides[k]) & (c.sides >= TIGHT * c.sides[k])
        inner = inside & ~centred
        face = int(p[k, :BACKGROUND].argmax())
        whole = best[k] != BACKGROUND and float(p[k, face]) >= WHOLE_SURE
        if not inner.any():
            if centred.any():  # the box that reads surer of the two stays; the smaller where they read alike
                if sure[k] >= sure[centred].max() + ALIKE:
                    keep &= ~centred
                else:
                    keep[k] = False
            continue
        # pips read as ones or as nothing; dice of a block read as their faces. A die read surely stands for what
        # lies inside it where most of that reads as pips, and no more of it reads surely as a one than it has pips
        pipish = inner & ((best == 0) | (best == BACKGROUND))
        ones = int((inner & (best == 0) & (sure >= INNER_SURE)).sum())
        pips = face + 1 if face < 6 else 10  # a poker die's 9 and 10 show up to ten symbols
        if whole and pipish.sum() >= (inner & ~pipish).sum() and ones <= pips:
            keep &= ~inside
        elif (inner & (best != BACKGROUND)).any():
            keep[k] = False
    return keep


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

