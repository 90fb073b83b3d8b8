import re
import zlib
from pathlib import Path

import numpy as np
import pytest

from calibration.__main__ import main as calibration_main
from calibration.mat import MARKER_MM, PAPERS, layout_for, layout_for_ids, mat_pdf, render_mat
from calibration.rectify import detect_markers, fit_mat

PT = 72.0 / 25.4


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_pdf_is_one_page_at_exact_paper_size(paper: str) -> None:
    data = mat_pdf(paper)
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    width, height, _ = PAPERS[paper]
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert box is not None
    assert float(box.group(1)) == pytest.approx(width * PT, abs=0.01)
    assert float(box.group(2)) == pytest.approx(height * PT, abs=0.01)
    # Every object offset in the cross-reference table points at that object.
    xref_at = int(data.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    rows = data[xref_at:].split(b"\n")[3:]
    for number, row in enumerate(rows[: data.count(b" 0 obj\n")], start=1):
        offset = int(row.split()[0])
        assert data[offset:].startswith(f"{number} 0 obj".encode())


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_pdf_draws_each_marker_cell_at_scale(paper: str) -> None:
    data = mat_pdf(paper)
    stream = data.split(b"stream\n", 1)[1].rsplit(b"\nendstream", 1)[0]
    content = zlib.decompress(stream).decode()
    cell = MARKER_MM / 6 * PT
    black = [m for m in re.findall(r"0\.000 g ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", content)]
    cells = [b for b in black if abs(float(b[2]) - cell) < 0.01 and abs(float(b[3]) - cell) < 0.01]
    # Each marker has its 20-cell border plus some of its 16 inner cells black.
    assert 6 * 20 < len(cells) < 6 * 36


def test_shipped_pdfs_match_the_source() -> None:
    folder = Path(__file__).parents[2] / "calibration"
    for paper in PAPERS:
        assert (folder / f"becher-mat-{paper}.pdf").read_bytes() == mat_pdf(paper), "run python -m calibration mat"


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_rendered_mat_shows_all_markers_of_its_paper(paper: str) -> None:
    image = render_mat(paper, 2.0)
    markers = detect_markers(image)
    layout = layout_for(paper)
    assert set(markers) == set(layout.markers)
    fit = fit_mat(markers)
    assert fit is not None and fit.layout.paper == paper and not fit.covered
    assert fit.error_mm < 0.5


def test_zones_split_the_mat_with_holding_along_the_player_edge() -> None:
    layout = layout_for("a4")
    throw_y = [p[1] for p in layout.zones["throw"]]
    hold_y = [p[1] for p in layout.zones["hold"]]
    assert max(throw_y) == min(hold_y)
    assert max(hold_y) < layout.height


def test_paper_is_told_by_marker_ids() -> None:
    assert layout_for_ids([0, 1, 3]).paper == "a4"  # type: ignore[union-attr]
    assert layout_for_ids(np.array([[11], [14]])).paper == "letter"  # type: ignore[union-attr]
    assert layout_for_ids([40, 41]) is None
    with pytest.raises(ValueError, match="paper"):
        layout_for("a3")
    with pytest.raises(ValueError, match="positive"):
        render_mat("a4", 0)


def test_tool_writes_both_pdfs(tmp_path: Path) -> None:
    assert calibration_main(["mat", "-o", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["becher-mat-a4.pdf", "becher-mat-letter.pdf"]
    one = tmp_path / "mine.pdf"
    assert calibration_main(["mat", "--paper", "letter", "-o", str(one)]) == 0
    assert one.read_bytes() == mat_pdf("letter")
