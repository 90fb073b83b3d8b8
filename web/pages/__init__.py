"""The pages (start, table, phone): blueprints registered on the app by :func:`register`."""

from __future__ import annotations

from flask import Flask


def register(app: Flask) -> None:
    """Register the page blueprints on ``app`` (the pages are added by the pages work)."""
