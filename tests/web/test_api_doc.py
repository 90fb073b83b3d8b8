"""docs/api.md is the contract: every /api route (and the join link) is documented with its method."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def normalize(path: str) -> str:
    return re.sub(r"<[^>]*>", "<>", path)


def test_every_api_route_is_in_the_api_document(app: Flask) -> None:
    doc = normalize(DOC.read_text(encoding="utf-8"))
    missing = []
    for rule in app.url_map.iter_rules():
        if not (rule.rule.startswith("/api") or rule.rule.startswith("/join")):
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            entry = f"{method} {normalize(rule.rule)}"
            if f"`{entry}" not in doc:
                missing.append(entry)
    assert missing == []


def test_every_error_code_the_api_uses_is_in_the_document() -> None:
    from web import store
    from web.app import API_CODES

    doc = DOC.read_text(encoding="utf-8")
    api_source = (DOC.parents[1] / "web" / "api.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'fail\(\d+, "([a-z_]+)"', api_source)) | set(API_CODES.values())
    codes |= {cls.code for cls in (store.NotFound, store.Stale, store.Illegal, store.Finished, store.Malformed)}
    codes |= {"server", "too_many"}
    assert sorted(c for c in codes if f"`{c}`" not in doc) == []
