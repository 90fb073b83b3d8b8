"""Devices, owners, join codes, the public view and cross-site protection."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask

from tests.web.conftest import BONE_ROUND, Device
from web.access import COOKIE, JOIN_ATTEMPTS


def test_first_request_sets_an_httponly_samesite_device_cookie(client: Device) -> None:
    r = client.get("/api/me")
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(COOKIE + "=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    device = r.json["device"]
    assert client.get("/api/me").json["device"] == device  # the cookie keeps the device
    assert "Set-Cookie" not in client.get("/api/me").headers


def test_a_forged_cookie_value_gets_a_fresh_identity(new_device: Callable[[], Device]) -> None:
    phone = new_device()
    phone.client.set_cookie(COOKIE, "x")
    r = phone.get("/api/me")
    assert COOKIE in r.headers["Set-Cookie"]


def test_another_device_cannot_see_or_write_a_private_game(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    stranger = new_device()
    for url in ("", "/log", "/export", "/events", "/access", "/qr.svg"):
        r = stranger.get(f"/api/games/{game['id']}{url}")
        assert r.status_code == 403 and "join" in r.json["error"], url
    assert stranger.play(game["id"], BONE_ROUND[0], seen=0).status_code == 403
    assert stranger.post(f"/api/games/{game['id']}/undo", json={"seen": 0}).status_code == 403
    assert stranger.post(f"/api/games/{game['id']}/rematch").status_code == 403
    assert stranger.get("/api/games").json["games"] == []
    assert client.get(f"/api/games/{game['id']}").json["game"]["revision"] == 0


def test_join_with_the_code_lets_a_phone_write(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    phone = new_device()
    r = phone.post("/api/join", json={"code": f" {code[:3].lower()}-{code[3:]} ", "name": "Ben's phone"})
    assert r.status_code == 200
    assert r.json["you"] == {
        "device": phone.id,
        "role": "player",
        "can_write": True,
        "seat": None,
        "all_seats": True,
    }
    assert phone.play(game["id"], BONE_ROUND[0], seen=0).status_code == 201
    members = client.get(f"/api/games/{game['id']}/access").json["members"]
    assert [(m["role"], m["name"]) for m in members] == [("owner", ""), ("player", "Ben's phone")]
    assert phone.get("/api/games").json["games"][0]["role"] == "player"
    # joining again is fine; the owner joining its own game stays owner
    assert phone.post("/api/join", json={"code": code}).json["you"]["role"] == "player"
    assert client.post("/api/join", json={"code": code}).json["you"]["role"] == "owner"


@pytest.mark.parametrize(
    "body", [{}, {"code": ""}, {"code": 5}, {"code": "ABCDEF", "name": 3}, {"code": "A", "name": "x" * 61}]
)
def test_join_refuses_malformed_requests(new_device: Callable[[], Device], body: dict[str, object]) -> None:
    assert new_device().post("/api/join", json=body).status_code == 400


def test_wrong_codes_are_refused_and_then_throttled(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    wrong = "222222" if code != "222222" else "333333"
    guesser = new_device()
    for _ in range(JOIN_ATTEMPTS):
        r = guesser.post("/api/join", json={"code": wrong})
        assert r.status_code == 403 and "code" in r.json["error"]
    r = guesser.post("/api/join", json={"code": code})
    assert r.status_code == 429 and r.json["code"] == "too_many"
    assert guesser.get(f"/api/games/{game['id']}").status_code == 403


def test_a_finished_game_cannot_be_joined(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    client.post(f"/api/games/{game['id']}/finish")
    assert new_device().post("/api/join", json={"code": code}).status_code == 403


def test_renewing_the_code_invalidates_the_old_one(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    old = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    new = client.post(f"/api/games/{game['id']}/access", json={"renew_code": True}).json["join"]["code"]
    assert new != old
    assert new_device().post("/api/join", json={"code": old}).status_code == 403
    assert new_device().post("/api/join", json={"code": new}).status_code == 200


def test_public_view_is_read_only_and_only_the_owner_switches_it(
    client: Device, join: Callable[[str], Device], new_device: Callable[[], Device]
) -> None:
    game = client.create()
    phone = join(game["id"])
    viewer = new_device()
    assert phone.post(f"/api/games/{game['id']}/access", json={"public": True}).status_code == 403
    r = client.post(f"/api/games/{game['id']}/access", json={"public": True})
    assert r.status_code == 200 and r.json["public"] is True
    seen = viewer.get(f"/api/games/{game['id']}")
    assert seen.status_code == 200
    assert seen.json["you"] == {
        "device": viewer.id,
        "role": "viewer",
        "can_write": False,
        "seat": None,
        "all_seats": True,
    }
    assert viewer.get(f"/api/games/{game['id']}/export").status_code == 200
    assert viewer.get("/api/games").json["games"][0]["role"] == "viewer"
    refused = viewer.play(game["id"], BONE_ROUND[0], seen=0)
    assert refused.status_code == 403 and "watch" in refused.json["error"]
    assert viewer.get(f"/api/games/{game['id']}/access").status_code == 403  # the code is for the table, not viewers
    client.post(f"/api/games/{game['id']}/access", json={"public": False})
    assert viewer.get(f"/api/games/{game['id']}").status_code == 403


def test_access_changes_need_a_field(client: Device) -> None:
    game = client.create()
    assert client.post(f"/api/games/{game['id']}/access", json={}).status_code == 400
    assert client.post(f"/api/games/{game['id']}/access", json={"public": "yes"}).status_code == 400
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    half = client.post(f"/api/games/{game['id']}/access", json={"public": True, "renew_code": "yes"})
    assert half.status_code == 400
    after = client.get(f"/api/games/{game['id']}/access").json
    assert after["public"] is False and after["join"]["code"] == code


def test_owner_removes_a_member(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create()
    phone = join(game["id"])
    base = f"/api/games/{game['id']}/members"
    assert phone.delete(f"{base}/{client.id}").status_code == 403
    assert client.delete(f"{base}/{client.id}").status_code == 400
    r = client.delete(f"{base}/{phone.id}")
    assert r.status_code == 200 and [m["role"] for m in r.json["members"]] == ["owner"]
    assert phone.play(game["id"], BONE_ROUND[0], seen=0).status_code == 403
    assert client.delete(f"{base}/{phone.id}").status_code == 404


def test_qr_code_encodes_the_join_link(client: Device) -> None:
    game = client.create()
    r = client.get(f"/api/games/{game['id']}/qr.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    text = r.get_data(as_text=True)
    assert "<svg" in text and 'xmlns="http://www.w3.org/2000/svg"' in text  # standalone: shows as an <img>


def test_join_link_from_the_qr_code_joins_and_redirects_to_the_phone_page(
    client: Device, new_device: Callable[[], Device]
) -> None:
    game = client.create()
    url = client.get(f"/api/games/{game['id']}/access").json["join"]["url"]
    path = url[url.index("/join/") :]
    phone = new_device()
    r = phone.get(path, headers={"Sec-Fetch-Site": "none"})
    assert r.status_code == 303 and r.headers["Location"] == f"/phone/{game['id']}"
    assert phone.get(f"/api/games/{game['id']}").json["you"]["role"] == "player"

    lured = new_device()
    r = lured.get(path, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 303 and r.headers["Location"] == "/"
    assert lured.get(f"/api/games/{game['id']}").status_code == 403
    wrong = new_device().get("/join/ZZZZZZ")
    assert wrong.status_code == 303 and "join_error" in wrong.headers["Location"]


def test_writes_without_the_custom_header_are_refused(client: Device) -> None:
    r = client.client.post("/api/games", json={"game": "bone", "players": ["A", "B"]})
    assert r.status_code == 403 and "X-Becher" in r.get_json()["error"]
    assert client.get("/api/games").json["games"] == []


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_cross_site_writes_are_refused_even_with_the_header(client: Device, headers: dict[str, str]) -> None:
    r = client.post("/api/games", json={"game": "bone", "players": ["A", "B"]}, headers=headers)
    assert r.status_code == 403 and r.json["code"] == "forbidden"
    assert client.get("/api/games").json["games"] == []


def test_same_origin_writes_pass(client: Device) -> None:
    r = client.post(
        "/api/games",
        json={"game": "bone", "players": ["A", "B"]},
        headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},
    )
    assert r.status_code == 201


def test_cross_site_form_posts_to_pages_are_refused_too(client: Device) -> None:
    r = client.client.post("/anything", data={"a": "1"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403


def test_host_browser_is_owner_of_every_game_only_when_configured(app: Flask, client: Device) -> None:
    game = client.create()
    host = Device(app.test_client())
    assert host.get(f"/api/games/{game['id']}").status_code == 403  # off by default (tests run on loopback)
    app.config["LOCAL_IS_OWNER"] = True
    assert host.get(f"/api/games/{game['id']}").json["you"]["role"] == "owner"
    assert [(g["id"], g["role"]) for g in host.get("/api/games").json["games"]] == [(game["id"], "owner")]
    remote = Device(app.test_client())
    remote.client.environ_base["REMOTE_ADDR"] = "192.168.1.50"
    assert remote.get(f"/api/games/{game['id']}").status_code == 403


def test_fresh_cookies_do_not_escape_the_throttle(client: Device, new_device: Callable[[], Device]) -> None:
    """Requests without a cookie (each gets a new one) share one device's quota on their address."""
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    wrong = "222222" if code != "222222" else "333333"
    for _ in range(JOIN_ATTEMPTS):
        assert new_device().post("/api/join", json={"code": wrong}).status_code == 403
    r = new_device().post("/api/join", json={"code": code})
    assert r.status_code == 429


def test_thirty_wrong_codes_from_one_device_do_not_lock_out_the_right_code_from_another(
    app: Flask, client: Device, new_device: Callable[[], Device]
) -> None:
    """Same network address (a shared Wi-Fi behind one router, or the host): a guesser keeping its cookie, and one
    sending no cookie at all (a new one each time), lock out only themselves."""
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    wrong = "222222" if code != "222222" else "333333"
    keeping = new_device()
    keeping.get("/")  # a page first, as a phone opens Becher: it has its cookie from then on
    cookieless = Device(app.test_client(use_cookies=False))
    for guesser in (keeping, cookieless):
        answers = [guesser.post("/api/join", json={"code": wrong}).status_code for _ in range(30)]
        assert answers == [403] * JOIN_ATTEMPTS + [429] * (30 - JOIN_ATTEMPTS)
        assert guesser.post("/api/join", json={"code": code}).status_code == 429
    phone = new_device()
    phone.get("/")
    assert phone.post("/api/join", json={"code": code}).status_code == 200


def test_a_script_with_a_fresh_cookie_per_try_is_stopped_at_the_address_limit(
    app: Flask, client: Device
) -> None:
    import secrets

    from web.access import COOKIE, JOIN_ATTEMPTS_ADDR

    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    wrong = "222222" if code != "222222" else "333333"
    answers = []
    for _ in range(JOIN_ATTEMPTS_ADDR + 5):
        script = app.test_client()
        script.set_cookie(COOKIE, secrets.token_urlsafe(32))
        answers.append(Device(script).post("/api/join", json={"code": wrong}).status_code)
    assert answers == [403] * JOIN_ATTEMPTS_ADDR + [429] * 5
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.168.1.40"  # another address is not affected
    assert Device(other).post("/api/join", json={"code": code}).status_code == 200
