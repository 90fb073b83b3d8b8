"""Security headers: a Content-Security-Policy on every page (nothing is loaded from outside, inline scripts carry
the page's nonce) and HSTS under HTTPS only."""

from __future__ import annotations

import re
from collections.abc import Callable

from flask import Flask

from tests.web.conftest import BONE_ROUND, Device


def pages(client: Device, join: Callable[[str], Device]) -> list[tuple[Device, str]]:
    game = client.create()
    phone = join(game["id"])
    client.play(game["id"], BONE_ROUND[0], seen=0)
    gid = game["id"]
    return [
        (client, "/"),
        (client, "/rules/bone"),
        (client, f"/table/{gid}"),
        (client, f"/history/{gid}"),
        (client, f"/camera?game={gid}"),
        (phone, f"/phone/{gid}"),
        (Device(client.client.application.test_client()), f"/phone/{gid}"),  # not joined: the join page (403)
    ]


def test_every_page_has_a_content_security_policy_and_its_inline_scripts_the_nonce(
    client: Device, join: Callable[[str], Device]
) -> None:
    nonces = set()
    for device, url in pages(client, join):
        r = device.get(url)
        assert r.status_code in (200, 403) and r.mimetype == "text/html", url
        policy = r.headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["default-src"] == "'self'" and directives["object-src"] == "'none'"
        assert directives["frame-ancestors"] == "'none'" and directives["base-uri"] == "'none'"
        assert "unsafe-inline" not in directives["script-src"] and "unsafe-eval" not in directives["script-src"]
        assert not any("http" in value for value in directives.values()), policy  # no outside origin allowed
        html = r.get_data(as_text=True)
        nonce = re.search(r"'nonce-([^']+)'", directives["script-src"])
        for tag in re.findall(r"<script\b[^>]*>", html):
            if "src=" in tag or 'type="application/json"' in tag:
                continue
            assert nonce and f'nonce="{nonce.group(1)}"' in tag, (url, tag)
        if nonce:
            nonces.add(nonce.group(1))
        assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html), url  # nothing loaded from outside
    assert len(nonces) >= 5  # a fresh nonce for every page


def test_the_api_answers_carry_no_page_policy_and_no_hsts_over_plain_http(client: Device) -> None:
    r = client.get("/api/rules")
    assert "Content-Security-Policy" not in r.headers
    assert "Strict-Transport-Security" not in client.get("/").headers


def test_hsts_under_https(app: Flask, client: Device) -> None:
    app.config["HTTPS"] = True
    secure = client.client.get("/api/rules", base_url="https://localhost")
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")
    assert int(secure.headers["Strict-Transport-Security"].split("=")[1]) >= 180 * 24 * 3600
    assert "Strict-Transport-Security" not in client.get("/api/rules").headers  # a plain request (the redirect port)
