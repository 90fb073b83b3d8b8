"""The printable mat: ArUco markers framing a throwing area and a holding area, at a known scale.

This file is the mat's source. One layout description (rectangles, lines and text in millimetres) is
drawn two ways: as a vector PDF for printing (a tiny standard-library writer, so the scale is exact
and the file stays a few kilobytes) and as a raster image for tests and previews. A4 and Letter use
different marker ids, so a camera can tell which paper it sees.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

__all__ = [
    "ARUCO_DICT",
    "MARKER_MM",
    "PAPERS",
    "MatLayout",
    "layout_for",
    "layout_for_ids",
    "mat_pdf",
    "render_mat",
    "write_pdf",
]

ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_MM = 30.0
MARGIN_MM = 12.0
HOLD_MM = 48.0  # depth of the holding strip along the player's edge
# Paper (landscape, millimetres) and the first marker id of its six markers.
PAPERS: dict[str, tuple[float, float, int]] = {
    "a4": (297.0, 210.0, 0),
    "letter": (279.4, 215.9, 10),
}
_CELLS = 6  # a 4x4 marker plus its one-cell black border


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    gray: float = 0.0  # 0 black .. 1 white


@dataclass(frozen=True)
class Line:
    x0: float
    y0: float
    x1: float
    y1: float
    width: float = 0.4
    gray: float = 0.45


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # baseline
    size: float  # millimetres, cap height roughly 0.7 of it
    text: str
    gray: float = 0.3


Polygon = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class MatLayout:
    """Where everything on one paper lies, in millimetres from the page's top-left corner (x right, y down)."""

    paper: str
    width: float
    height: float
    markers: dict[int, tuple[tuple[float, float], ...]]  # id -> corners TL, TR, BR, BL (ArUco's order)
    zones: dict[str, Polygon]
    shapes: tuple[Rect | Line | Text, ...] = field(repr=False, default=())

    def marker_points(self, marker_id: int) -> np.ndarray:
        return np.asarray(self.markers[marker_id], dtype=np.float32)


def _marker_bits(marker_id: int) -> np.ndarray:
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, _CELLS)
    return np.asarray(image < 128)  # True where the cell is black


def layout_for(paper: str) -> MatLayout:
    """The mat for ``paper`` ("a4" or "letter")."""
    key = paper.strip().lower()
    if key not in PAPERS:
        raise ValueError(f"The mat is made for paper {sorted(PAPERS)}, not {paper!r}.")
    width, height, first_id = PAPERS[key]
    m, s = MARGIN_MM, MARKER_MM
    x0, y0, x1, y1 = m, m, width - m, height - m
    divide = y1 - HOLD_MM
    xm = (x0 + x1) / 2 - s / 2
    tops = {first_id: (x0, y0), first_id + 1: (xm, y0), first_id + 2: (x1 - s, y0)}
    bottoms = {first_id + 3: (x1 - s, y1 - s), first_id + 4: (xm, y1 - s), first_id + 5: (x0, y1 - s)}
    markers: dict[int, tuple[tuple[float, float], ...]] = {}
    shapes: list[Rect | Line | Text] = [Rect(x0, divide, x1 - x0, y1 - divide, 0.93)]
    for marker_id, (mx, my) in {**tops, **bottoms}.items():
        markers[marker_id] = ((mx, my), (mx + s, my), (mx + s, my + s), (mx, my + s))
        shapes.append(Rect(mx - 1.5, my - 1.5, s + 3, s + 3, 1.0))  # white quiet zone over the tint
        cell = s / _CELLS
        bits = _marker_bits(marker_id)
        for r in range(_CELLS):
            for c in range(_CELLS):
                if bits[r, c]:
                    shapes.append(Rect(mx + c * cell, my + r * cell, cell, cell, 0.0))
        shapes.append(Text(mx, my + s + 4.0 if my < divide else my - 2.0, 2.5, f"{marker_id}", 0.6))
    zones: dict[str, Polygon] = {
        "throw": ((x0, y0), (x1, y0), (x1, divide), (x0, divide)),
        "hold": ((x0, divide), (x1, divide), (x1, y1), (x0, y1)),
    }
    shapes += [
        Line(x0, y0, x1, y0),
        Line(x1, y0, x1, y1),
        Line(x1, y1, x0, y1),
        Line(x0, y1, x0, y0),
        Line(x0 + s + 4, divide, x1 - s - 4, divide, 0.6, 0.3),
        Text(x0 + s + 8, y0 + 12, 5.0, "THROWING AREA"),
        Text(xm + s + 8, y0 + 12, 5.0, "WURFBEREICH"),
        Text(x0 + s + 8, divide + 12, 5.0, "HOLDING AREA - ABLAGE"),
        Text(x0 + 6, y0 + s + 14, 3.2, f"Becher calibration mat, {key.upper()}. Print at 100 % (no fit to page)."),
        Text(x0 + 6, y0 + s + 20, 3.2, "The bar below must measure 100 mm. Keep all six markers in view."),
        Rect(x0 + 6, y0 + s + 24, 100.0, 2.0, 0.0),
        Line(x0 + 6, y0 + s + 22, x0 + 6, y0 + s + 28, 0.4, 0.0),
        Line(x0 + 106, y0 + s + 22, x0 + 106, y0 + s + 28, 0.4, 0.0),
        Text(x0 + 110, y0 + s + 27, 3.2, "100 mm"),
    ]
    return MatLayout(key, width, height, markers, zones, tuple(shapes))


def layout_for_ids(ids: object) -> MatLayout | None:
    """The paper whose markers these are (the one most ids belong to), or None when none is a mat marker."""
    found = {int(i) for i in np.asarray(ids, dtype=np.int64).ravel()}
    best: tuple[int, str] | None = None
    for paper, (_, _, first) in PAPERS.items():
        hits = len(found & set(range(first, first + 6)))
        if hits and (best is None or hits > best[0]):
            best = (hits, paper)
    return layout_for(best[1]) if best else None


# --- raster -------------------------------------------------------------------------------------------------------


def render_mat(paper: str = "a4", px_per_mm: float = 2.0) -> np.ndarray:
    """The mat as a BGR image, ``px_per_mm`` pixels a millimetre (for tests, previews and synthetic video)."""
    if not px_per_mm > 0:
        raise ValueError(f"Pixels per millimetre must be positive, not {px_per_mm!r}.")
    layout = layout_for(paper)
    k = px_per_mm
    image = np.full((round(layout.height * k), round(layout.width * k), 3), 255, np.uint8)
    for shape in layout.shapes:
        if isinstance(shape, Rect):
            g = round(shape.gray * 255)
            p0 = (round(shape.x * k), round(shape.y * k))
            p1 = (round((shape.x + shape.w) * k) - 1, round((shape.y + shape.h) * k) - 1)
            cv2.rectangle(image, p0, p1, (g, g, g), thickness=-1)
        elif isinstance(shape, Line):
            g = round(shape.gray * 255)
            thickness = max(1, round(shape.width * k))
            cv2.line(
                image,
                (round(shape.x0 * k), round(shape.y0 * k)),
                (round(shape.x1 * k), round(shape.y1 * k)),
                (g, g, g),
                thickness,
            )
        else:
            g = round(shape.gray * 255)
            scale = shape.size * k / 30.0
            cv2.putText(
                image,
                shape.text,
                (round(shape.x * k), round(shape.y * k)),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                (g, g, g),
                max(1, round(scale * 1.5)),
                cv2.LINE_AA,
            )
    return image


# --- vector PDF ---------------------------------------------------------------------------------------------------

_PT = 72.0 / 25.4


def _pdf_text(text: str) -> bytes:
    raw = text.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content(layout: MatLayout) -> bytes:
    out: list[bytes] = []
    h = layout.height

    def num(v: float) -> str:
        return f"{v * _PT:.3f}".rstrip("0").rstrip(".")

    for shape in layout.shapes:
        if isinstance(shape, Rect):
            out.append(
                f"{shape.gray:.3f} g {num(shape.x)} {num(h - shape.y - shape.h)} "
                f"{num(shape.w)} {num(shape.h)} re f".encode()
            )
        elif isinstance(shape, Line):
            out.append(
                f"{shape.gray:.3f} G {num(shape.width)} w {num(shape.x0)} {num(h - shape.y0)} m "
                f"{num(shape.x1)} {num(h - shape.y1)} l S".encode()
            )
        else:
            out.append(
                f"BT {shape.gray:.3f} g /F1 {num(shape.size)} Tf {num(shape.x)} {num(h - shape.y)} Td (".encode()
                + _pdf_text(shape.text)
                + b") Tj ET"
            )
    return b"\n".join(out)


def mat_pdf(paper: str = "a4") -> bytes:
    """The mat as a one-page vector PDF at exact scale."""
    layout = layout_for(paper)
    stream = zlib.compress(_content(layout))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {layout.width * _PT:.2f} {layout.height * _PT:.2f}] "
        f"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".encode(),
        f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode() + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        f"<< /Title (Becher calibration mat {layout.paper.upper()}) /Producer (becher) >>".encode(),
    ]
    body = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        body += f"{number} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(body)
    body += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        body += f"{offset:010d} 00000 n \n".encode()
    body += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\n".encode()
    body += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(body)


def write_pdf(path: str | Path, paper: str = "a4") -> Path:
    out = Path(path)
    out.write_bytes(mat_pdf(paper))
    return out
