"""What a scene looks like, drawn from a seed: die designs, table, camera and photo effects.

Train and test draw from disjoint pools (fonts, ink shades, body palettes, table textures and colour families), so a
model trained on ``split="train"`` and measured on ``split="test"`` scenes is measured on designs it has never seen.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from vision.reading import KINDS, PIP_FACES, POKER_FACES

SPLITS = ("train", "test")
BGR = tuple[int, int, int]

# Printed court letters by language, ranks 3, 4, 5 (J, Q, K); rank 6 is always "A".
COURT_LETTERS = {"en": ("J", "Q", "K"), "de": ("B", "D", "K"), "fr": ("V", "D", "R")}
SUITS = ("spade", "heart", "diamond", "club")

# Fonts: ("ttf", file name) or ("hershey", cv2 font id with italic flag). Disjoint between splits.
TRAIN_FONTS: tuple[tuple[str, str | int], ...] = (
    ("ttf", "DejaVuSans-Bold.ttf"),
    ("ttf", "DejaVuSerif-Bold.ttf"),
    ("ttf", "DejaVuSansMono-Bold.ttf"),
    ("ttf", "DejaVuSansCondensed-Bold.ttf"),
    ("ttf", "DejaVuSerif.ttf"),
    ("ttf", "DejaVuSans.ttf"),
    ("hershey", 0),  # FONT_HERSHEY_SIMPLEX
    ("hershey", 2),  # FONT_HERSHEY_DUPLEX
    ("hershey", 4),  # FONT_HERSHEY_TRIPLEX
)
TEST_FONTS: tuple[tuple[str, str | int], ...] = (
    ("ttf", "LiberationSans-Bold.ttf"),
    ("ttf", "LiberationSerif-Bold.ttf"),
    ("ttf", "LiberationMono-Bold.ttf"),
    ("ttf", "LiberationSansNarrow-Bold.ttf"),
    ("ttf", "LiberationSerif-Regular.ttf"),
    ("hershey", 3),  # FONT_HERSHEY_COMPLEX
    ("hershey", 16),  # FONT_HERSHEY_SIMPLEX | FONT_ITALIC
)

# Body colours (BGR). White and ivory dominate real sets, so both splits hold them, in different shades.
TRAIN_BODIES: tuple[BGR, ...] = (
    (245, 245, 245),
    (232, 240, 246),
    (210, 232, 240),
    (40, 40, 200),
    (60, 150, 40),
    (170, 90, 30),
    (25, 25, 25),
    (40, 200, 230),
    (30, 120, 230),
    (200, 200, 200),
    (60, 220, 160),
    (150, 60, 120),
)
TEST_BODIES: tuple[BGR, ...] = (
    (250, 250, 252),
    (222, 236, 244),
    (200, 225, 235),
    (50, 60, 170),
    (120, 50, 160),
    (140, 140, 40),
    (45, 45, 55),
    (90, 200, 250),
    (180, 130, 240),
    (110, 110, 110),
    (30, 90, 60),
    (200, 160, 90),
)
# Ink: black and red are what real poker dice use, so both splits have them (different shades); extras differ.
TRAIN_INKS: dict[str, BGR] = {
    "black": (20, 20, 20),
    "red": (40, 30, 200),
    "blue": (150, 60, 20),
    "green": (40, 110, 20),
    "gold": (40, 170, 215),
    "white": (240, 240, 240),
}
TEST_INKS: dict[str, BGR] = {
    "black": (40, 30, 30),
    "red": (60, 20, 170),
    "blue": (110, 40, 40),
    "green": (70, 90, 30),
    "gold": (60, 150, 190),
    "white": (230, 235, 235),
}

# Table textures per split, and the colour families each may take.
TRAIN_BACKGROUNDS = (
    *("wood", "felt", "paper", "grid_paper", "cloth", "noise", "tray_hex", "carpet", "desk"),
    *("dots", "newsprint", "strokes"),  # pip-like dots, letters and lines with no die: what a reader must not read
    "tartan",  # plaid and stripes: blocks of a die's size and contrast under the dice
)
TEST_BACKGROUNDS = ("tiles", "marble", "tray_round", "gingham", "concrete", "wood_dark")
BACKGROUNDS = TRAIN_BACKGROUNDS + TEST_BACKGROUNDS
# Hue families (OpenCV hue 0..180) for coloured tables: interleaved so both splits span the circle but never share.
TRAIN_HUES = ((0, 12), (25, 40), (55, 75), (95, 112), (130, 145), (165, 180))
TEST_HUES = ((12, 25), (40, 55), (75, 95), (112, 130), (145, 165))

# Die bodies. "plain" is the flat (optionally translucent or weakly marbled) body the renderer always drew.
BODY_KINDS = ("plain", "marbled", "swirled", "glitter", "translucent", "pearl", "metallic")
BODIES = ("plain", "rich", "bold")
# Shares of the body kinds among sets when bodies="rich" (the rest stay plain, as most real sets are).
RICH_SHARES = {"marbled": 0.1, "swirled": 0.08, "glitter": 0.07, "translucent": 0.07, "pearl": 0.04, "metallic": 0.04}
# ... and when bodies="bold": the marbled, translucent and metallic bodies the pretrained detector found in pieces or
# not at all in the rendered games (issue 59: pip-dark-marbled, pip-casino, pip-steel 18-24 points under the tiny
# net's reading) 1.6, 1.7 and 3 times as often, for the detector's patches
BOLD_SHARES = {**RICH_SHARES, "marbled": 0.16, "translucent": 0.12, "metallic": 0.12}
ENGRAVED_SHARE = 0.1  # of the sets that are not metallic (metallic sets are engraved most of the time)

# Palettes of the rich bodies, disjoint between the splits (BGR).
TRAIN_VEINS: tuple[BGR, ...] = (
    (250, 250, 250), (20, 20, 20), (60, 60, 190), (200, 120, 40), (40, 160, 60), (40, 190, 235), (150, 50, 120),
    (90, 100, 120), (30, 60, 110), (200, 200, 120),
)  # fmt: skip
TEST_VEINS: tuple[BGR, ...] = (
    (238, 244, 246), (35, 30, 40), (80, 40, 150), (160, 90, 60), (70, 130, 40), (70, 160, 210), (190, 90, 170),
    (120, 120, 100), (50, 80, 140), (170, 220, 170),
)  # fmt: skip
TRAIN_GLITTER: tuple[BGR, ...] = ((235, 235, 240), (80, 200, 240), (220, 160, 230), (200, 230, 140))
TEST_GLITTER: tuple[BGR, ...] = ((225, 240, 250), (110, 180, 230), (240, 200, 190), (160, 240, 200))
TRAIN_PEARL: tuple[BGR, ...] = ((230, 200, 245), (200, 245, 215), (250, 215, 200), (215, 240, 250))
TEST_PEARL: tuple[BGR, ...] = ((240, 210, 230), (215, 250, 235), (250, 230, 215), (200, 225, 250))
TRAIN_METALS: tuple[BGR, ...] = ((190, 190, 195), (60, 165, 215), (70, 110, 190), (95, 90, 85))  # silver gold copper
TEST_METALS: tuple[BGR, ...] = ((170, 175, 170), (90, 185, 225), (90, 130, 170), (70, 70, 80))  # steel brass bronze


@dataclass(frozen=True)
class DieDesign:
    """One die set's look. Hashable, so face textures can be cached per design."""

    kind: str
    body: BGR
    inks: tuple[BGR, ...]  # ink per rank 1..6
    printed: tuple[str, ...]  # what is printed per rank 1..6 ("9","10","B","D","K","A" for a German set)
    font: tuple[str, str | int] = ("hershey", 0)
    layout: str = "letter"  # pip: "round"|"square"; poker: "letter"|"card"|"letter_suit"
    suit_symbols: bool = False  # poker 9 and 10 as nine/ten suit symbols instead of numerals
    suits: tuple[str, ...] = ("spade", "heart", "club", "diamond", "spade", "spade")  # per rank
    pip_scale: float = 0.11  # pip radius as a share of the face side
    pip_spread: float = 0.27  # distance of the outer pips from the centre, share of the face side
    big_red_one: bool = False
    corner: float = 0.18  # corner radius, share of the face side
    bevel: float = 0.25  # how strongly the rounded edges darken
    opacity: float = 1.0  # below 1: translucent body
    glossy: float = 0.3  # strength of specular highlights
    letter_height: float = 0.62  # big letter height, share of the face side
    stroke: float = 0.0  # extra stroke width for TTF letters, share of the letter height
    shear: float = 0.0  # italic slant of the letters (x shift per unit of height)
    width: float = 1.0  # letter width scale: condensed below 1, extended above
    hollow: bool = False  # outlined letters
    wear: float = 0.0  # 0..1: ink worn off in patches, as on an old set
    swirl: BGR | None = None  # marbled body: veins of this second colour
    # What the body is made of (see BODY_KINDS); "plain" draws exactly what the renderer drew before body kinds.
    body_kind: str = "plain"
    veins: tuple[BGR, ...] = ()  # marbled/swirled: the other colours; glitter: the speck colours; pearl: the tints
    body_scale: float = 1.0  # pattern scale: above 1 coarser bands and swirls, below 1 finer veins and specks
    body_seed: int = 0  # the set's own pattern: two sets of one kind and colour still differ
    engraved: bool = False  # pips or letters carved into the body, shaded by their walls
    paint: float = 1.0  # engraved: how much ink fills the carving (0: unpainted, the body colour with shading)
    court_colors: tuple[BGR, ...] = ((40, 30, 200), (150, 60, 20), (40, 170, 215))
    opposite: tuple[int, ...] = (6, 5, 4, 3, 2, 1)  # rank opposite each rank 1..6

    def __post_init__(self) -> None:
        if self.body_kind not in BODY_KINDS:
            raise ValueError(f"body_kind must be one of {BODY_KINDS}, not {self.body_kind!r}.")
        if not 0 <= self.paint <= 1:
            raise ValueError(f"paint must lie in [0, 1], not {self.paint!r}.")
        if not 0.25 <= self.body_scale <= 4:
            raise ValueError(f"body_scale must lie in [0.25, 4], not {self.body_scale!r}.")
        if self.body_kind in ("marbled", "swirled", "glitter", "pearl") and not self.veins:
            raise ValueError(f"a {self.body_kind} body needs at least one colour in veins.")


@dataclass(frozen=True)
class SceneStyle:
    """Scene-wide choices. Every field left at None is drawn from the seed; set fields to pin them (tests, demos).

    ``effects=False`` switches off every photo effect (light gradient, vignetting, white balance, exposure, tone,
    blur, resampling, noise, JPEG, fisheye, greyscale, tube) for clean images; set single effect fields to force them.
    """

    background: str | None = None
    tilt_deg: float | None = None  # camera tilt from straight down
    fov_deg: float | None = None  # horizontal field of view
    die_px: float | None = None  # side of a die near the image centre, pixels
    designs: tuple[DieDesign, ...] | None = None
    touching: float | None = None  # chance that a die is placed against another
    shadows: bool | None = None
    distractors: bool | None = None
    board_games: bool = False  # a board game's number tokens and pieces on a flat table (issue 59)
    effects: bool = True
    blur: float | None = None  # defocus sigma, pixels
    motion_blur: float | None = None  # streak length, pixels
    noise: float | None = None  # sensor noise sigma, 0..1 scale
    jpeg_quality: int | None = None  # 0: no JPEG round trip
    fisheye: float | None = None  # barrel distortion coefficient, 0: none
    greyscale: bool | None = None
    vignette: float | None = None
    exposure: float | None = None  # 1: as lit; below: darker and noisier, above: highlights clip
    resample: float | None = None  # >1: the picture was taken this many times smaller and enlarged (soft webcam)
    tone: float | None = None  # gamma of the tone curve, 1: none
    tube: float | None = None  # >0: looking down a tube, dark outside a circle of this share of half the short side
    # Die bodies: "rich" draws marbled, swirled, glitter, translucent, pearl and metallic sets and engraved pips;
    # "plain" draws what the renderer drew before them. None: the split's default ("rich" for train, "plain" for
    # test, so that the rendered test sets stay pixel-identical); "rich" on test uses test-only palettes.
    bodies: str | None = None

    def __post_init__(self) -> None:
        if self.background is not None and self.background not in BACKGROUNDS:
            raise ValueError(f"background must be one of {BACKGROUNDS}, not {self.background!r}.")
        if self.tilt_deg is not None and not 0 <= self.tilt_deg <= 60:
            raise ValueError(f"tilt_deg must lie in [0, 60], not {self.tilt_deg!r}.")
        if self.fov_deg is not None and not 5 <= self.fov_deg <= 120:
            raise ValueError(f"fov_deg must lie in [5, 120], not {self.fov_deg!r}.")
        if self.die_px is not None and not 4 <= self.die_px <= 2000:
            raise ValueError(f"die_px must lie in [4, 2000], not {self.die_px!r}.")
        if self.jpeg_quality is not None and not 0 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must lie in [0, 100], not {self.jpeg_quality!r}.")
        if self.fisheye is not None and not 0 <= self.fisheye <= 1:
            raise ValueError(f"fisheye must lie in [0, 1], not {self.fisheye!r}.")
        if self.exposure is not None and not 0.1 <= self.exposure <= 4:
            raise ValueError(f"exposure must lie in [0.1, 4], not {self.exposure!r}.")
        if self.resample is not None and not 1 <= self.resample <= 8:
            raise ValueError(f"resample must lie in [1, 8], not {self.resample!r}.")
        if self.tone is not None and not 0.3 <= self.tone <= 3:
            raise ValueError(f"tone must lie in [0.3, 3], not {self.tone!r}.")
        if self.tube is not None and not (self.tube == 0 or 0.5 <= self.tube <= 1.5):
            raise ValueError(f"tube must be 0 or lie in [0.5, 1.5], not {self.tube!r}.")
        if self.bodies is not None and self.bodies not in BODIES:
            raise ValueError(f"bodies must be one of {BODIES}, not {self.bodies!r}.")
        if self.designs is not None and not self.designs:
            raise ValueError("designs, when given, must hold at least one DieDesign.")

    def resolved(self, **drawn: Any) -> SceneStyle:
        """Fill the fields still None from ``drawn``; pinned fields win."""
        names = {f.name for f in fields(self)}
        return replace(self, **{k: v for k, v in drawn.items() if k in names and getattr(self, k) is None})


def check_kind_split(kind: str, split: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}.")
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}.")


def faces_of(kind: str) -> tuple[str, ...]:
    return PIP_FACES if kind == "pip" else POKER_FACES


def _jitter(rng: np.random.Generator, color: BGR, amount: int) -> BGR:
    c = np.clip(np.array(color) + rng.integers(-amount, amount + 1, 3), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


def _luma(c: BGR) -> float:
    return 0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2]


def sample_design(rng: np.random.Generator, kind: str, split: str, bodies: str | None = None) -> DieDesign:
    """A die set as sold: body colour, ink, pip geometry or poker printing (letters, font, layout), and with
    ``bodies="rich"`` (the default for train) what the body is made of: marbled, swirled, glitter, translucent,
    pearl or metallic, and carved pips; ``bodies="bold"`` likewise at ``BOLD_SHARES``. ``bodies="plain"`` (the
    default for test) draws exactly the plain sets."""
    if bodies is None:
        bodies = "rich" if split == "train" else "plain"
    if bodies not in BODIES:
        raise ValueError(f"bodies must be one of {BODIES}, not {bodies!r}.")
    design = _plain_design(rng, kind, split)
    if bodies == "plain":
        return design
    # The body is drawn from its own stream, seeded by the set as drawn, so that the scene's stream (tables, camera,
    # placement) is the one a plain scene draws: a rich scene is its plain twin with other bodies.
    key = zlib.crc32(repr(design).encode())
    shares = BOLD_SHARES if bodies == "bold" else RICH_SHARES
    return _rich_body(np.random.default_rng([key, SPLITS.index(split), 0xB0D1E5]), design, split, shares)


def _plain_design(rng: np.random.Generator, kind: str, split: str) -> DieDesign:
    bodies = TRAIN_BODIES if split == "train" else TEST_BODIES
    inks = TRAIN_INKS if split == "train" else TEST_INKS
    fonts = TRAIN_FONTS if split == "train" else TEST_FONTS
    # White/ivory bodies most of the time, like real sets.
    body = bodies[int(rng.integers(0, 3))] if rng.random() < 0.55 else bodies[int(rng.integers(0, len(bodies)))]
    body = _jitter(rng, body, 10)
    dark_body = _luma(body) < 110
    swirl = None
    if rng.random() < 0.12:  # marbled plastic, like many coloured sets
        other = bodies[int(rng.integers(0, len(bodies)))]
        if abs(_luma(other) - _luma(body)) < 60:  # keep the ink readable against both colours
            swirl = _jitter(rng, other, 15)
    opacity = 1.0 if rng.random() < 0.85 else float(rng.uniform(0.55, 0.8))
    glossy = float(rng.uniform(0.0, 0.9))
    corner = float(rng.uniform(0.08, 0.3)) if rng.random() < 0.85 else float(rng.uniform(0.025, 0.08))  # casino: sharp
    bevel = float(rng.uniform(0.1, 0.45))
    if kind == "pip":
        if dark_body:
            ink = inks["white"] if rng.random() < 0.7 else inks["gold"]
        else:
            r = rng.random()
            ink = inks["black"] if r < 0.6 else inks["red"] if r < 0.75 else inks["white"] if r < 0.85 else inks["gold"]
            if _luma(body) > 170 and ink in (inks["white"], inks["gold"]):
                ink = inks["black"]
            if abs(_luma(ink) - _luma(body)) < 50:
                ink = inks["white"] if _luma(body) < 128 else inks["black"]
        ink = _jitter(rng, ink, 12)
        big_red_one = bool(rng.random() < 0.25)
        return DieDesign(
            kind="pip",
            body=body,
            inks=(_jitter(rng, inks["red"], 10) if big_red_one else ink,) + (ink,) * 5,
            printed=PIP_FACES,
            layout="round" if rng.random() < 0.85 else "square",
            pip_scale=float(rng.uniform(0.085, 0.13)),
            pip_spread=float(rng.uniform(0.22, 0.3)),
            big_red_one=big_red_one,
            swirl=swirl,
            wear=float(rng.uniform(0.1, 0.5)) if rng.random() < 0.12 else 0.0,
            corner=corner,
            bevel=bevel,
            opacity=opacity,
            glossy=glossy,
            opposite=(6, 5, 4, 3, 2, 1),
        )
    lang = ("en", "de", "fr")[int(rng.choice(3, p=[0.5, 0.25, 0.25]))]
    j, q, k = COURT_LETTERS[lang]
    printed = ("9", "10", j, q, k, "A")
    black, red = inks["black"], inks["red"]
    if dark_body:
        black = inks["white"] if rng.random() < 0.7 else inks["gold"]
        red = inks["gold"] if rng.random() < 0.5 else inks["white"]
    scheme = rng.random()
    suits = tuple(SUITS[int(i)] for i in rng.integers(0, 4, 6))
    if scheme < 0.45:  # alternating red and black
        start = int(rng.integers(0, 2))
        ink_list = [red if (i + start) % 2 else black for i in range(6)]
    elif scheme < 0.6:
        ink_list = [black] * 6
    elif scheme < 0.7:
        ink_list = [red] * 6
    elif scheme < 0.85:  # by suit
        ink_list = [red if s in ("heart", "diamond") else black for s in suits]
    else:  # an extra colour in the set
        extra = inks[("blue", "green", "gold")[int(rng.integers(0, 3))]]
        if dark_body:
            extra = inks["white"]
        ink_list = [[black, red, extra][int(i)] for i in rng.integers(0, 3, 6)]
    ink_list = [_jitter(rng, c, 12) for c in ink_list]
    if scheme < 0.7 or scheme >= 0.85:
        # Suits follow the ink where a set is alternating/uniform: red ink wears hearts or diamonds.
        suits = tuple(
            ("heart", "diamond")[int(rng.integers(0, 2))] if _is_red(c) else ("spade", "club")[int(rng.integers(0, 2))]
            for c in ink_list
        )
    font = fonts[int(rng.integers(0, len(fonts)))]
    layout = ("letter", "card", "letter_suit")[int(rng.choice(3, p=[0.4, 0.35, 0.25]))]
    court = tuple(_jitter(rng, c, 20) for c in ((40, 30, 200), (150, 60, 20), (40, 170, 215), (40, 110, 20)))
    pairs = rng.random()
    opposite: tuple[int, ...]
    if pairs < 0.7:
        opposite = (2, 1, 4, 3, 6, 5)  # 9-10, J-Q, K-A
    else:
        perm = rng.permutation(6)
        opp = [0] * 6
        for a, b in zip(perm[0::2], perm[1::2], strict=True):
            opp[a], opp[b] = int(b) + 1, int(a) + 1
        opposite = tuple(opp)
    return DieDesign(
        kind="poker",
        body=body,
        inks=tuple(ink_list),
        printed=printed,
        font=font,
        layout=layout,
        suit_symbols=bool(rng.random() < 0.3),
        suits=suits,
        corner=corner,
        bevel=bevel,
        opacity=opacity,
        glossy=glossy,
        letter_height=float(rng.uniform(0.5, 0.72)),
        stroke=float(rng.uniform(0.0, 0.06)) if rng.random() < 0.5 else 0.0,
        shear=float(rng.uniform(-0.25, 0.25)) if rng.random() < 0.25 else 0.0,
        width=float(rng.uniform(0.75, 1.3)) if rng.random() < 0.4 else 1.0,
        hollow=bool(rng.random() < 0.08),
        swirl=swirl,
        wear=float(rng.uniform(0.1, 0.5)) if rng.random() < 0.12 else 0.0,
        court_colors=court,
        opposite=opposite,
    )


def _is_red(c: BGR) -> bool:
    return c[2] > 120 and c[2] > c[1] + 60 and c[2] > c[0] + 60


def sample_hue(rng: np.random.Generator, split: str) -> float:
    hues = TRAIN_HUES if split == "train" else TEST_HUES
    lo, hi = hues[int(rng.integers(0, len(hues)))]
    return float(rng.uniform(lo, hi))


def _reink(design: DieDesign, body: BGR, split: str, gold: bool = False) -> tuple[BGR, ...]:
    """The set's inks, with any too close to ``body`` in brightness swapped for white or gold (dark bodies) or
    black (light bodies), as makers do."""
    inks = TRAIN_INKS if split == "train" else TEST_INKS
    out = []
    for i, c in enumerate(design.inks):
        if abs(_luma(c) - _luma(body)) < 70:
            light = inks["white"] if (i % 2 or design.kind == "pip") and not gold else inks["gold"]
            c = light if _luma(body) < 128 else inks["black"]
        out.append(c)
    return tuple(out)


def _rich_body(
    rng: np.random.Generator, d: DieDesign, split: str, shares: dict[str, float] = RICH_SHARES
) -> DieDesign:
    """Give a drawn set one of the body kinds at ``shares``, from the split's own palettes."""
    train = split == "train"
    bodies = TRAIN_BODIES if train else TEST_BODIES
    veins = TRAIN_VEINS if train else TEST_VEINS
    r, acc, kind = rng.random(), 0.0, "plain"
    for name, share in shares.items():
        acc += share
        if r < acc:
            kind = name
            break
    seed = int(rng.integers(0, 2**31))
    scale = float(np.exp(rng.uniform(np.log(0.5), np.log(2.0))))
    engraved = bool(rng.random() < (0.75 if kind == "metallic" else ENGRAVED_SHARE))
    paint = float(rng.choice([0.0, rng.uniform(0.2, 0.6), rng.uniform(0.7, 1.0)], p=[0.3, 0.3, 0.4]))
    body = d.body
    gold = bool(rng.random() < 0.35)  # light ink on a dark body: white or gold, as in real trays
    if kind in ("marbled", "swirled", "glitter"):
        tone = rng.random()
        if tone < 0.5:  # dark sets with light pips, often
            dark = [b for b in bodies if _luma(b) < 110]
            body = _jitter(rng, dark[int(rng.integers(0, len(dark)))], 15)
        elif tone < 0.85:  # strongly coloured plastic more than white
            coloured = [b for b in bodies[3:] if _luma(b) >= 110]
            body = _jitter(rng, coloured[int(rng.integers(0, len(coloured)))], 15)
    colors: tuple[BGR, ...] = ()
    opacity, glossy = d.opacity, d.glossy
    if kind in ("marbled", "swirled"):
        n = 1 if rng.random() < 0.55 else 2
        picks = [_jitter(rng, veins[int(i)], 15) for i in rng.integers(0, len(veins), n)]
        if kind == "marbled" and rng.random() < 0.45:
            # veins of the pips' hue and as dark as them or darker: the pattern the reader mistook for pips
            ink = _reink(d, body, split, gold)[1]
            picks[0] = _jitter(rng, tuple(int(c * rng.uniform(0.6, 1.0)) for c in ink), 8)  # type: ignore[arg-type]
        colors = tuple(picks)
    elif kind == "glitter":
        pool = TRAIN_GLITTER if train else TEST_GLITTER
        colors = tuple(_jitter(rng, pool[int(i)], 10) for i in rng.integers(0, len(pool), 2))
        glossy = float(rng.uniform(0.4, 0.9))
        if rng.random() < 0.4:
            opacity = float(rng.uniform(0.6, 0.85))  # glitter in clear plastic
    elif kind == "translucent":
        body = _jitter(rng, bodies[int(rng.integers(0, len(bodies)))], 15)
        opacity = float(rng.uniform(0.3, 0.65))
        glossy = float(rng.uniform(0.4, 1.0))
    elif kind == "pearl":
        pool = TRAIN_PEARL if train else TEST_PEARL
        body = _jitter(rng, bodies[int(rng.integers(0, 3))], 10)  # white and ivory pearl
        colors = tuple(_jitter(rng, pool[int(i)], 10) for i in rng.integers(0, len(pool), 2))
        glossy = float(rng.uniform(0.3, 0.8))
    elif kind == "metallic":
        metals = TRAIN_METALS if train else TEST_METALS
        body = _jitter(rng, metals[int(rng.integers(0, len(metals)))], 10)
        opacity, glossy = 1.0, float(rng.uniform(0.7, 1.0))
    if kind == "plain" and not engraved:
        return d
    if _luma(body) < 110:  # carvings in a dark body are painted: bare ones could not be read
        paint = max(paint, 0.7)
    elif _luma(body) > 190:  # nor bare ones in a white body under a bright lamp: a trace of ink at least
        paint = max(paint, 0.4)
    return replace(
        d,
        body=body,
        inks=_reink(d, body, split, gold),
        swirl=None if kind != "plain" else d.swirl,
        body_kind=kind,
        veins=colors,
        body_scale=scale,
        body_seed=seed,
        engraved=engraved,
        paint=paint if engraved else 1.0,
        opacity=opacity,
        glossy=glossy,
    )
