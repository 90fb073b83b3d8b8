"""Flat face textures of a die: pips, poker letters and numerals, suit symbols, court pictures.

A texture is a square float32 BGRA array in 0..1; alpha carries the rounded corners. The 3D renderer warps it onto the
cube, so the texture itself is always upright and straight-on.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.synth.style import BGR, TEST_FONTS, TRAIN_FONTS, DieDesign

log = logging.getLogger(__name__)

FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/truetype/liberation"),
    Path("/usr/share/fonts/truetype/liberation2"),
    Path("/usr/share/fonts/truetype"),
    Path("/usr/share/fonts"),
)

TEXTURE_SIZES = (24, 32, 48, 64, 96, 128, 192, 256, 384)


def texture_size_for(px: float) -> int:
    """The smallest cached texture at least as large as a face that is ``px`` pixels wide on screen."""
    for t in TEXTURE_SIZES:
        if t >= px * 1.2:
            return t
    return TEXTURE_SIZES[-1]


@functools.lru_cache(maxsize=64)
def _font_file(name: str) -> Path | None:
    for d in FONT_DIRS:
        p = d / name
        if p.is_file():
            return p
    return None


def ttf_fonts() -> dict[str, Path | None]:
    """Every TrueType font the designs draw with, and where it is here (None: missing, Pillow's default is drawn
    instead), so a training machine can be checked before it renders other data than it should."""
    return {str(name): _font_file(str(name)) for kind, name in TRAIN_FONTS + TEST_FONTS if kind == "ttf"}


def missing_fonts() -> list[str]:
    """The designs' TrueType fonts this machine lacks. Scenes rendered without them are other scenes (Pillow's font
    is drawn instead), so rendered benchmark figures and training data are not comparable with the dev machine's."""
    return sorted(name for name, path in ttf_fonts().items() if path is None)


FONT_PACKAGES = "fonts-dejavu-core fonts-dejavu-extra fonts-liberation"  # the Debian packages that hold them


@functools.lru_cache(maxsize=256)
def _pil_font(name: str, px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = _font_file(name)
    if path is not None:
        try:
            return ImageFont.truetype(str(path), px)
        except OSError:
            log.warning("font %s unreadable, using Pillow's default", path)
    return ImageFont.load_default(px)


@functools.lru_cache(maxsize=512)
def glyph(font: tuple[str, str | int], text: str, stroke: float = 0.0) -> np.ndarray:
    """Tight uint8 mask of ``text`` about 128 px tall. Falls back to Pillow's built-in font when a TTF is missing."""
    ref = 128
    if font[0] == "hershey":
        face = int(font[1])
        scale = cv2.getFontScaleFromHeight(face, ref, 1)
        thick = max(2, int(ref * (0.09 + stroke)))
        (w, h), base = cv2.getTextSize(text, face, scale, thick)
        canvas = np.zeros((h + base + 2 * thick + 8, w + 2 * thick + 8), np.uint8)
        cv2.putText(canvas, text, (thick + 4, h + thick + 4), face, scale, 255, thick, cv2.LINE_AA)
    else:
        pil_font = _pil_font(str(font[1]), ref)
        sw = int(ref * stroke)
        box = pil_font.getbbox(text, stroke_width=sw)
        img = Image.new("L", (int(box[2] - box[0]) + 8, int(box[3] - box[1]) + 8), 0)
        ImageDraw.Draw(img).text(
            (4 - box[0], 4 - box[1]), text, fill=255, font=pil_font, stroke_width=sw, stroke_fill=255
        )
        canvas = np.asarray(img)
    ys, xs = np.nonzero(canvas > 20)
    if len(xs) == 0:  # a font without the glyph: Hershey always has it
        return glyph(("hershey", 0), text, stroke)
    return np.ascontiguousarray(canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


@functools.lru_cache(maxsize=512)
def styled_glyph(font: tuple[str, str | int], text: str, stroke: float, shear: float, width: float,
                 hollow: bool) -> np.ndarray:  # fmt: skip
    """``glyph`` slanted, narrowed or widened, and outlined: printings that no installed font has."""
    m = glyph(font, text, stroke)
    h, w = m.shape
    if shear or width != 1.0:
        pad = 2
        off = pad + max(0.0, shear) * h  # x' = width x - shear y + off keeps every column on the canvas
        a = np.array([[width, -shear, off], [0.0, 1.0, 0.0]], np.float32)
        m = cv2.warpAffine(m, a, (round(w * width + abs(shear) * h) + 2 * pad, h), flags=cv2.INTER_LINEAR)
        xs = np.nonzero((m > 20).any(axis=0))[0]
        if len(xs):
            m = m[:, xs.min() : xs.max() + 1]
    if hollow:
        k = max(3, round(h * 0.1) | 1)
        inner = cv2.erode(m, np.ones((k, k), np.uint8))
        m = cv2.subtract(m, inner)
    return np.ascontiguousarray(m)


def _paste_mask(
    canvas: np.ndarray,
    color: BGR,
    mask: np.ndarray,
    cx: float,
    cy: float,
    h: float,
    w: float | None = None,
    flip: bool = False,
) -> None:
    """Blend ``color`` into ``canvas`` through ``mask`` scaled to height ``h`` (and width ``w``) centred at cx, cy."""
    mh, mw = mask.shape
    if w is None:
        w = h * mw / mh
    hi, wi = max(1, round(h)), max(1, round(w))
    m = cv2.resize(mask, (wi, hi), interpolation=cv2.INTER_AREA if hi < mh else cv2.INTER_LINEAR)
    if flip:
        m = m[::-1, ::-1]
    x0, y0 = round(cx - wi / 2), round(cy - hi / 2)
    H, W = canvas.shape[:2]
    sx0, sy0 = max(0, -x0), max(0, -y0)
    x0c, y0c = max(0, x0), max(0, y0)
    x1c, y1c = min(W, x0 + wi), min(H, y0 + hi)
    if x1c <= x0c or y1c <= y0c:
        return
    a = m[sy0 : sy0 + (y1c - y0c), sx0 : sx0 + (x1c - x0c)].astype(np.float32)[..., None] / 255.0
    roi = canvas[y0c:y1c, x0c:x1c].astype(np.float32)
    canvas[y0c:y1c, x0c:x1c] = (roi * (1 - a) + np.array(color, np.float32) * a + 0.5).astype(np.uint8)


SHIFT = 4
ONE = 1 << SHIFT


def _pts(points: list[tuple[float, float]], cx: float, cy: float, s: float, flip: bool) -> np.ndarray:
    k = -1.0 if flip else 1.0
    return np.array([[round((cx + k * x * s) * ONE), round((cy + k * y * s) * ONE)] for x, y in points], np.int32)


def _circle(img: np.ndarray, cx: float, cy: float, r: float, color: BGR) -> None:
    cv2.circle(img, (round(cx * ONE), round(cy * ONE)), max(1, round(r * ONE)), color, -1, cv2.LINE_AA, SHIFT)


def draw_suit(img: np.ndarray, suit: str, cx: float, cy: float, size: float, color: BGR, flip: bool = False) -> None:
    """A card suit symbol of half-height ``size`` centred at cx, cy (drawn upside down when ``flip``)."""
    s = size
    k = -1.0 if flip else 1.0

    def circ(x: float, y: float, r: float) -> None:
        _circle(img, cx + k * x * s, cy + k * y * s, r * s, color)

    def poly(points: list[tuple[float, float]]) -> None:
        cv2.fillPoly(img, [_pts(points, cx, cy, s, flip)], color, cv2.LINE_AA, SHIFT)

    if suit == "diamond":
        poly([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])
    elif suit == "heart":
        circ(-0.42, -0.42, 0.5)
        circ(0.42, -0.42, 0.5)
        poly([(-0.9, -0.25), (0.9, -0.25), (0, 1.0)])
    elif suit == "spade":
        circ(-0.42, 0.2, 0.46)
        circ(0.42, 0.2, 0.46)
        poly([(-0.87, 0.05), (0.87, 0.05), (0, -1.0)])
        poly([(0, 0.2), (0.3, 1.0), (-0.3, 1.0)])
    else:  # club
        circ(0, -0.5, 0.38)
        circ(-0.45, 0.12, 0.38)
        circ(0.45, 0.12, 0.38)
        poly([(0, -0.1), (0.28, 1.0), (-0.28, 1.0)])


def pip_positions(n: int, spread: float) -> list[tuple[float, float]]:
    """Pip centres of face ``n`` in face units (-0.5..0.5), the classic layout."""
    q = spread
    layouts = {
        1: [(0.0, 0.0)],
        2: [(-q, -q), (q, q)],
        3: [(-q, -q), (0.0, 0.0), (q, q)],
        4: [(-q, -q), (q, -q), (-q, q), (q, q)],
        5: [(-q, -q), (q, -q), (0.0, 0.0), (-q, q), (q, q)],
        6: [(-q, -q), (-q, 0.0), (-q, q), (q, -q), (q, 0.0), (q, q)],
    }
    return layouts[n]


def _shade(c: BGR, k: float) -> BGR:
    return (int(min(255, c[0] * k)), int(min(255, c[1] * k)), int(min(255, c[2] * k)))


def _draw_pips(img: np.ndarray, design: DieDesign, rank: int, T: int) -> None:
    ink = design.inks[rank - 1]
    r = design.pip_scale * T
    if rank == 1 and design.big_red_one:
        r *= 2.1
    dark_rim = _shade(design.body, 0.55)
    for x, y in pip_positions(rank, design.pip_spread):
        cx, cy = T / 2 + x * T, T / 2 + y * T
        if design.layout == "square":
            h = r * 0.92
            pts = np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]]) * ONE
            cv2.fillPoly(img, [pts.round().astype(np.int32)], ink, cv2.LINE_AA, SHIFT)
            continue
        # A drilled pip: a darker rim shows on the side facing away from the light.
        _circle(img, cx - r * 0.08, cy - r * 0.08, r * 1.06, dark_rim)
        _circle(img, cx, cy, r, ink)
        if r > 6:
            _circle(img, cx + r * 0.25, cy + r * 0.25, r * 0.45, _shade(ink, 1.25 if sum(ink) < 300 else 0.93))


def _draw_court(img: np.ndarray, design: DieDesign, rank: int, T: int, ink: BGR) -> None:
    """A simple double-headed court picture in the middle of the face, like a playing card."""
    c1, c2, c3 = design.court_colors[0], design.court_colors[1], design.court_colors[2]
    skin: BGR = (170, 200, 235)
    x0, y0, x1, y1 = T * 0.26, T * 0.2, T * 0.74, T * 0.8
    cv2.rectangle(
        img,
        (round(x0 * ONE), round(y0 * ONE)),
        (round(x1 * ONE), round(y1 * ONE)),
        ink,
        max(1, round(T / 80)),
        cv2.LINE_AA,
        SHIFT,
    )
    cx, cy = T / 2, T / 2
    s = T * 0.24
    for flip in (False, True):
        k = -1.0 if flip else 1.0

        def P(pts: list[tuple[float, float]], k: float = k) -> np.ndarray:
            return np.array([[round((cx + k * x * s) * ONE), round((cy + k * y * s) * ONE)] for x, y in pts], np.int32)

        cv2.fillPoly(img, [P([(-0.85, -0.05), (0.85, -0.05), (0.6, -0.55), (-0.6, -0.55)])], c1, cv2.LINE_AA, SHIFT)
        cv2.fillPoly(img, [P([(-0.25, -0.05), (0.25, -0.05), (0.15, -0.55), (-0.15, -0.55)])], c2, cv2.LINE_AA, SHIFT)
        _circle(img, cx, cy + k * -0.72 * s, 0.2 * s, skin)
        if rank == 5:  # king: a spiked crown
            crown = [
                (-0.25, -0.88),
                (0.25, -0.88),
                (0.3, -1.15),
                (0.12, -1.0),
                (0, -1.18),
                (-0.12, -1.0),
                (-0.3, -1.15),
            ]
            cv2.fillPoly(img, [P(crown)], c3, cv2.LINE_AA, SHIFT)
        elif rank == 4:  # queen: a low tiara with a jewel
            cv2.fillPoly(img, [P([(-0.22, -0.88), (0.22, -0.88), (0.16, -1.0), (-0.16, -1.0)])], c3, cv2.LINE_AA, SHIFT)
            _circle(img, cx, cy + k * -1.04 * s, 0.06 * s, c1)
        else:  # jack: a flat cap with a feather
            cv2.fillPoly(img, [P([(-0.28, -0.86), (0.28, -0.86), (0.2, -1.02), (-0.2, -1.02)])], c2, cv2.LINE_AA, SHIFT)
            cv2.line(
                img,
                tuple(P([(0.15, -0.95)])[0]),
                tuple(P([(0.45, -1.2)])[0]),
                c3,
                max(1, round(T / 60)),
                cv2.LINE_AA,
                SHIFT,
            )


NINE_LAYOUT = [
    (-0.22, -0.3),
    (-0.22, -0.1),
    (-0.22, 0.1),
    (-0.22, 0.3),
    (0.22, -0.3),
    (0.22, -0.1),
    (0.22, 0.1),
    (0.22, 0.3),
    (0.0, 0.0),
]
TEN_LAYOUT = [
    *NINE_LAYOUT[:8],  # the same two columns of four; the middle holds two symbols instead of one
    (0.0, -0.2),
    (0.0, 0.2),
]


def _draw_poker(img: np.ndarray, design: DieDesign, rank: int, T: int) -> None:
    ink = design.inks[rank - 1]
    text = design.printed[rank - 1]
    suit = design.suits[rank - 1]
    font = design.font
    mask = styled_glyph(font, text, design.stroke, design.shear, design.width, design.hollow)
    big_h = design.letter_height * T
    max_w = 0.8 * T

    def big_letter(cx: float, cy: float, h: float, widest: float = max_w) -> None:
        w = h * mask.shape[1] / mask.shape[0]
        if w > widest:
            h, w = h * widest / w, widest
        _paste_mask(img, ink, mask, cx, cy, h, w)

    def corner_index(with_suit: bool) -> None:
        h = T * 0.2
        for flip in (False, True):
            cx, cy = (T * 0.18, T * 0.18) if not flip else (T * 0.82, T * 0.82)
            w = min(h * mask.shape[1] / mask.shape[0], T * 0.27)
            _paste_mask(img, ink, mask, cx, cy, h, w, flip=flip)
            if with_suit:
                dy = -h * 0.95 if flip else h * 0.95
                draw_suit(img, suit, cx, cy + dy, h * 0.32, ink, flip=flip)

    layout = design.layout
    if rank <= 2 and design.suit_symbols:
        pattern = NINE_LAYOUT if rank == 1 else TEN_LAYOUT
        for x, y in pattern:
            draw_suit(img, suit, T / 2 + x * T * 1.05, T / 2 + y * T * 1.05, T * 0.065, ink, flip=y > 0.01)
        if layout == "card":
            corner_index(False)
        return
    if layout == "card":
        if rank in (3, 4, 5):
            _draw_court(img, design, rank, T, ink)
            corner_index(True)
        elif rank == 6:
            draw_suit(img, suit, T / 2, T / 2, T * 0.2, ink)
            corner_index(True)
        else:
            big_letter(T / 2, T / 2, big_h * 0.65, 0.52 * T)  # clear of the corner indices
            corner_index(True)
    elif layout == "letter_suit":
        big_letter(T / 2, T * 0.44, big_h * 0.78)
        draw_suit(img, suit, T / 2, T * 0.8, T * 0.085, ink)
    else:
        big_letter(T / 2, T / 2, big_h)


@functools.lru_cache(maxsize=64)
def _edge_profile(T: int, corner: float, bevel: float) -> tuple[np.ndarray, np.ndarray]:
    """Alpha with rounded corners, and a shading factor that darkens the rounded edges."""
    r = corner * T
    yy, xx = np.mgrid[0:T, 0:T].astype(np.float32) + 0.5
    dx = np.maximum(np.maximum(r - xx, xx - (T - r)), 0)
    dy = np.maximum(np.maximum(r - yy, yy - (T - r)), 0)
    dist_out = np.sqrt(dx * dx + dy * dy) - r  # <0 inside the rounded square
    inside = np.minimum(np.minimum(xx, T - xx), np.minimum(yy, T - yy))
    inside = np.where(dist_out > -r, -dist_out, inside)  # distance to the rounded border
    alpha = np.clip(inside + 0.5, 0, 1).astype(np.float32)
    band = max(1.0, 0.12 * T)
    t = np.clip(inside / band, 0, 1)
    shade = (1 - bevel * (1 - t) ** 2).astype(np.float32)
    return alpha, shade


@functools.lru_cache(maxsize=384)
def face_texture(design: DieDesign, rank: int, T: int) -> tuple[np.ndarray, np.ndarray]:
    """(BGRA float32 texture, ink mask float32) of face ``rank`` (1..6) at ``T`` x ``T`` pixels."""
    if not 1 <= rank <= 6:
        raise ValueError(f"rank must lie in 1..6, not {rank!r}.")
    seed = (int(design.corner * 1e6) * 31 + int(design.bevel * 1e6) * 7 + rank * 1009 + T) % 2**32
    frng = np.random.default_rng(seed)
    base = np.empty((T, T, 3), np.uint8)
    base[:] = design.body
    if design.body_kind != "plain":
        base = body_texture(design, rank, T)
    elif design.swirl is not None:  # marbled plastic: a second colour in wandering veins
        small = frng.random((4, 4), dtype=np.float32)
        field = cv2.resize(small, (T, T), interpolation=cv2.INTER_CUBIC) * 4.0
        veins = np.exp(-np.abs(np.sin(field)) / 0.3)[..., None] * 0.75
        base = (base * (1 - veins) + np.array(design.swirl, np.float32) * veins).astype(np.uint8)
    img = base.copy()
    if design.kind == "pip":
        _draw_pips(img, design, rank, T)
    else:
        _draw_poker(img, design, rank, T)
    if design.engraved:
        img = _engrave(img, base, design.paint, T)
    if design.wear > 0:  # paint rubbed off in patches: blend back to the body
        small = frng.random((8, 8), dtype=np.float32)
        patches = cv2.resize(small, (T, T), interpolation=cv2.INTER_CUBIC)
        fade = np.clip((patches - (1 - design.wear)) * 3, 0, 0.85)[..., None]
        img = (img * (1 - fade) + base * fade).astype(np.uint8)
    diff = np.abs(img.astype(np.int16) - base.astype(np.int16)).max(axis=2)
    ink = np.clip(diff.astype(np.float32) / 60.0, 0, 1)
    alpha, shade = _edge_profile(T, design.corner, design.bevel)
    out = np.empty((T, T, 4), np.float32)
    out[..., :3] = img.astype(np.float32) * (shade[..., None] / 255.0)
    out[..., 3] = alpha
    return out, ink


def _smooth_field(rng: np.random.Generator, T: int, cells: float) -> np.ndarray:
    """Smooth noise in 0..1 over a T x T face with about ``cells`` bumps a side, the same pattern at every T."""
    n = max(2, round(cells))
    small = rng.random((n + 2, n + 2), dtype=np.float32)
    S = min(T, 64)  # smooth at this size already: drawn here and enlarged, big textures cost no more than small ones
    big = cv2.resize(small, (S * (n + 2) // n + 1, S * (n + 2) // n + 1), interpolation=cv2.INTER_CUBIC)
    o = S // n
    field = big[o : o + S, o : o + S]
    return cv2.resize(field, (T, T), interpolation=cv2.INTER_LINEAR) if S < T else np.ascontiguousarray(field)


def _turbulence(rng: np.random.Generator, T: int, scale: float) -> np.ndarray:
    """Noise at several scales (coarse to fine), about -1..1: the wandering of veins and swirls."""
    out = np.zeros((T, T), np.float32)
    for cells, weight in ((2.5, 1.0), (5.0, 0.5), (10.0, 0.25)):
        out += weight * (_smooth_field(rng, T, cells / scale) - 0.5)
    return out * 1.4


def _mix(base: np.ndarray, color: BGR, weight: np.ndarray) -> np.ndarray:
    w = np.clip(weight, 0, 1)[..., None]
    return np.asarray(base * (1 - w) + np.array(color, np.float32) * w, np.float32)


BODY_RES = 128


@functools.lru_cache(maxsize=16)
def _grid(T: int) -> np.ndarray:
    return (np.mgrid[0:T, 0:T].astype(np.float32) + 0.5) / T - 0.5


def body_texture(design: DieDesign, rank: int, T: int) -> np.ndarray:
    """The body of one face (uint8 BGR, T x T) for the rich body kinds: veins, swirls, specks, sheen, metal bands.

    Seeded by the set and the face, not by T, so a face looks the same at every texture size; cached with the face.
    """
    if T > BODY_RES:  # drawn at BODY_RES and enlarged: large faces are rare, and the pattern is soft at any size
        return cv2.resize(body_texture(design, rank, BODY_RES), (T, T), interpolation=cv2.INTER_LINEAR)
    rng = np.random.default_rng([design.body_seed, rank, 0xB0D1])
    kind, sc = design.body_kind, design.body_scale
    base = np.empty((T, T, 3), np.float32)
    base[:] = design.body
    yy, xx = _grid(T)
    if kind in ("marbled", "swirled"):
        for j, color in enumerate(design.veins):
            ang = rng.uniform(0, np.pi)
            freq = rng.uniform(2.0, 5.0) / sc  # bands across the face
            warp = rng.uniform(2.5, 6.0) if kind == "marbled" else rng.uniform(5.0, 9.0)  # swirls wind further
            phase = (np.cos(ang) * xx + np.sin(ang) * yy) * freq * np.pi + warp * _turbulence(rng, T, sc)
            if kind == "marbled":  # clouds of the other colour with sharp veins through them, several widths
                width = rng.uniform(0.1, 0.35) * (0.6 if j else 1.0)
                wave = np.sin(phase + rng.uniform(0, 6.3))
                veins = np.exp(-np.abs(wave) / width)
                streaks = np.clip((0.5 + 0.5 * wave - rng.uniform(0.35, 0.75)) / 0.25, 0, 1) * rng.uniform(0.5, 0.9)
                w = np.maximum(veins, streaks)
            else:  # broad layered bands of the other colour, soft-edged
                w = 0.5 + rng.uniform(0.6, 1.6) * np.sin(phase + rng.uniform(0, 6.3))
                w *= rng.uniform(0.75, 1.0)
            base = _mix(base, color, w)
    elif kind == "glitter":
        # Specks suspended in the plastic: bright flakes of the glitter colours, dark ones, a few sparkling white.
        n = int(rng.integers(400, 900) / sc)
        pos = rng.random((n, 2))
        rad = rng.uniform(0.003, 0.012, n) * min(sc, 1.3)
        pick = rng.random(n)
        colors = np.array([(255, 255, 255), tuple(c * 0.45 for c in design.body), *design.veins], np.float32)
        which = np.where(pick < 0.08, 0, np.where(pick < 0.22, 1, 2 + (pick * 97).astype(int) % len(design.veins)))
        # Stamped at a resolution where the largest speck is about a pixel, then smoothed up to T: cheap at any size.
        S = max(8, min(T, round(1.0 / (2 * 0.012 * min(sc, 1.3)))))
        ix = np.minimum((pos * S).astype(int), S - 1)
        flat = np.zeros((S * S, 3), np.float32)
        cover = np.zeros(S * S, np.float32)
        k = ix[:, 1] * S + ix[:, 0]
        weight = np.minimum(1.0, (rad * S * 2) ** 2)  # a speck smaller than a cell tints it partly
        flat[k] = colors[which] * weight[:, None]
        cover[k] = weight
        specks = cv2.resize(flat.reshape(S, S, 3), (T, T), interpolation=cv2.INTER_LINEAR)
        alpha = cv2.resize(cover.reshape(S, S), (T, T), interpolation=cv2.INTER_LINEAR)[..., None]
        base = base * (1 - alpha) + specks
    elif kind == "pearl":  # a soft sheen that shifts hue over the face, and faint mother-of-pearl swirls
        for color in design.veins:
            w = np.clip(_smooth_field(rng, T, 2.0 / sc) * 1.6 - 0.3, 0, 1) * rng.uniform(0.6, 1.0)
            base = _mix(base, color, w)
        phase = rng.uniform(3, 7) * _turbulence(rng, T, sc) + xx * 6
        base *= (1.0 + 0.1 * np.sin(phase))[..., None]
    elif kind == "metallic":  # polished metal mirrors the room: bright and dark bands across the face, brushed grain
        ang = rng.uniform(0, np.pi)
        u = np.cos(ang) * xx + np.sin(ang) * yy
        bands = np.zeros_like(u)
        for _ in range(2):
            bands += np.sin(u * rng.uniform(1.2, 4.0) * np.pi + rng.uniform(0, 6.3)) * rng.uniform(0.4, 1.0)
        bands += 1.2 * _turbulence(rng, T, sc * 1.5)
        gain = 0.85 + 0.5 * np.tanh(1.5 * bands)
        if T >= 48:
            gain *= 1.0 + 0.08 * (_smooth_field(rng, T, 40.0) - 0.5)
        base *= gain[..., None]
    return np.clip(base, 0, 255).astype(np.uint8)


def _engrave(img: np.ndarray, base: np.ndarray, paint: float, T: int) -> np.ndarray:
    """Carve what was printed into the body: a darker floor, a shadowed wall on one side and a lit one on the other,
    filled with ``paint`` of the ink (0: bare body colour, shaded only)."""
    diff = np.abs(img.astype(np.int16) - base.astype(np.int16)).max(axis=2)
    m = np.clip(diff.astype(np.float32) / 60.0, 0, 1)
    k = max(1, round(0.03 * T))
    down, up = np.zeros_like(m), np.zeros_like(m)
    down[k:, k:] = m[:-k, :-k]  # the carving moved towards the lower right
    up[:-k, :-k] = m[k:, k:]
    shadow = np.clip(m - down, 0, 1)  # upper-left wall, turned away from a light above left
    lit = np.clip(m - up, 0, 1)
    factor = 1.0 - 0.3 * m - 0.35 * shadow + 0.3 * lit
    b = base.astype(np.float32)
    out = (b + paint * (img.astype(np.float32) - b)) * factor[..., None]
    return np.asarray(np.clip(out, 0, 255), np.uint8)
