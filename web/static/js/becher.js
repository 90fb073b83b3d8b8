/* Becher: what every page shares. The JSON API, a toast, screen-reader announcements, the switches. */
"use strict";

const Becher = (() => {
  const words = JSON.parse(document.getElementById("words").textContent || "{}");

  function fmt(template, values) {
    return String(template).replace(/%\((\w+)\)s/g, (_, k) => (values && k in values ? values[k] : ""));
  }

  /* Words for a count: the server gives each count's words (plural rules differ by language); past the last count
     it has, the last. ``values`` fill the other placeholders. */
  function plural(map, n, values) {
    const all = { n, num: n, ...(values || {}) };
    if (typeof map === "string") return fmt(map, all);
    const keys = Object.keys(map || {}).map(Number).sort((a, b) => a - b);
    const k = map[n] != null ? n : keys[keys.length - 1];
    return fmt(map[k] || "", all);
  }

  /* A die as read: its face, or "D=Q" where the reader saw another printing of it (a German queen). */
  function faceLabel(d) {
    return d.printed && d.printed !== d.face ? `${d.printed}=${d.face}` : String(d.face);
  }

  /* With more dice read than a throw has (a key or a cable read as a die, a die from elsewhere): which to take. Held
     dice first, then sure before uncertain, then by confidence; the indices come back in their order. */
  function surest(dice, n) {
    const rank = (d) => [d.held ? 0 : 1, d.uncertain ? 1 : 0, -(d.confidence || 0)];
    const order = dice.map((d, i) => i).sort((a, b) => {
      const [x, y] = [rank(dice[a]), rank(dice[b])];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    });
    return order.slice(0, n).sort((a, b) => a - b);
  }

  /* The part of a photo to show: every die with room around it, in the photo's own shape. A photo taken from high
     above holds its dice in a small patch; shown whole on a phone, their boxes and labels would pile up. */
  function diceRegion(dice, w, h) {
    if (!dice.length) return [0, 0, w, h];
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, side = 0;
    for (const d of dice) {
      const [a, b, c, e] = d.box;
      x0 = Math.min(x0, a); y0 = Math.min(y0, b); x1 = Math.max(x1, c); y1 = Math.max(y1, e);
      side = Math.max(side, c - a, e - b);
    }
    const margin = Math.max(side, 0.02 * Math.max(w, h));
    let rx = x0 - margin, ry = y0 - margin, rw = x1 - x0 + 2 * margin, rh = y1 - y0 + 2 * margin;
    if (rw / rh < w / h) { rx -= (rh * w / h - rw) / 2; rw = rh * w / h; } else { ry -= (rw * h / w - rh) / 2; rh = rw * h / w; }
    if (rw >= 0.6 * w) return [0, 0, w, h]; // most of the photo anyway: show it whole
    rx = Math.min(Math.max(rx, 0), w - rw);
    ry = Math.min(Math.max(ry, 0), h - rh);
    return [rx, ry, rw, rh];
  }

  /* Shows ``dice``' region of a w x h photo in ``wrap`` (or the whole photo); returns where a box goes, in % of wrap. */
  function photoView(wrap, dice, w, h, whole) {
    const [rx, ry, rw, rh] = whole ? [0, 0, w, h] : diceRegion(dice, w, h);
    const zoomed = rw < w;
    const img = wrap.querySelector("img.photo");
    wrap.classList.toggle("zoomed", zoomed);
    wrap.style.aspectRatio = zoomed ? `${w} / ${h}` : "";
    img.style.left = zoomed ? `${(-100 * rx) / rw}%` : "";
    img.style.top = zoomed ? `${(-100 * ry) / rh}%` : "";
    img.style.width = zoomed ? `${(100 * w) / rw}%` : "";
    return (box) => {
      const [x0, y0, x1, y1] = box;
      return {
        left: `${(100 * (x0 - rx)) / rw}%`,
        top: `${(100 * (y0 - ry)) / rh}%`,
        width: `${(100 * (x1 - x0)) / rw}%`,
        height: `${(100 * (y1 - y0)) / rh}%`,
      };
    };
  }

  /* Each die's label goes above its box unless there it is cut off by the photo's edge, covers a label placed before or
     another die; then the nearest spot around the box that costs least (below, left, right, then a label's width or
     height further out). Touching small dice would otherwise hide each other's faces under a pile of labels. Placed
     again whenever the photo changes size (the boxes are in %). */
  function placeLabels(wrap) {
    if (!wrap) return;
    if (!wrap.dataset.labelsWatched && window.ResizeObserver) {
      wrap.dataset.labelsWatched = "1";
      new ResizeObserver(() => placeLabels(wrap)).observe(wrap);
    }
    const area = wrap.getBoundingClientRect();
    const boxes = [...wrap.querySelectorAll(".dbox")];
    // a die a few px wide would vanish under the box's own border: draw that box around it instead
    boxes.forEach((b) => b.classList.toggle("tiny", b.getBoundingClientRect().width < 24));
    const rects = boxes.map((b) => b.getBoundingClientRect());
    const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const placed = [];
    boxes.forEach((box, i) => {
      const lbl = box.querySelector(".lbl");
      if (!lbl) return;
      lbl.style.transform = "";
      const home = lbl.getBoundingClientRect();
      const [w, h, bw, bh] = [home.width, home.height, rects[i].width, rects[i].height];
      const down = bh + h + 8, mid = (bh + h) / 2 + 4, side = (bw + w) / 2 + 4;
      const spots = [[0, 0], [0, down], [-side, mid], [side, mid], [-w - 2, 0], [w + 2, 0], [-w - 2, down],
        [w + 2, down], [0, -h - 2], [0, down + h + 2], [-side - w - 2, mid], [side + w + 2, mid]];
      let best = null;
      for (const [dx, dy] of spots) {
        const r = new DOMRect(home.x + dx, home.y + dy, w, h);
        const cut = r.left < area.left || r.right > area.right || r.top < area.top || r.bottom > area.bottom;
        const cost =
          (cut ? 8 : 0) + 4 * placed.filter((q) => meets(q, r)).length + rects.filter((q, j) => j !== i && meets(q, r)).length;
        if (!best || cost < best.cost) best = { dx, dy, cost, r };
        if (cost === 0) break;
      }
      lbl.style.transform = best.dx || best.dy ? `translate(${best.dx}px, ${best.dy}px)` : "";
      placed.push(best.r);
    });
  }

  let toastTimer = null;
  function toast(text, isError) {
    const el = document.getElementById("toast");
    if (!el) return;
    el.textContent = text;
    el.classList.toggle("error", !!isError);
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, isError ? 6000 : 3500);
  }

  function announce(text) {
    const el = document.getElementById("announce");
    if (!el) return;
    el.textContent = "";
    // a fresh text node each time, so the same words are announced again
    setTimeout(() => { el.textContent = text; }, 50);
  }

  class ApiError extends Error {
    constructor(body, status) {
      super((body && body.error) || words.error);
      this.body = body || {};
      this.status = status;
      this.code = this.body.code || "";
    }
  }

  async function api(method, path, body, isRaw, headers) {
    const opts = { method, headers: { "X-Becher": "1", ...(headers || {}) }, credentials: "same-origin" };
    if (body !== undefined) {
      if (isRaw) {
        opts.body = body;
      } else {
        opts.headers["Content-Type"] = "application/json";
        opts.body = JSON.stringify(body);
      }
    }
    let res;
    try {
      res = await fetch(path, opts);
    } catch (e) {
      throw new ApiError({ error: words.offline }, 0);
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok || !data || data.ok === false) throw new ApiError(data, res.status);
    return data;
  }

  /* Follow a game live: on every change fetch the freshly rendered part of the page and swap it in. */
  function follow(gameId, onGame) {
    const state = document.getElementById("live-state");
    let source = null;
    function open() {
      source = new EventSource(`/api/games/${encodeURIComponent(gameId)}/events`);
      source.addEventListener("open", () => {
        if (state) { state.dataset.state = "live"; state.textContent = words.online; }
      });
      source.addEventListener("game", (ev) => {
        let game = null;
        try { game = JSON.parse(ev.data).game; } catch (e) { return; /* a broken event is ignored */ }
        try { onGame(game, "game"); } catch (e) { /* the page's own handler failed; others still hear of it */ }
        document.dispatchEvent(new CustomEvent("becher:game", { detail: game }));
      });
      source.addEventListener("camera", (ev) => {
        // a throw the table camera proposes (camera.js shows it for a one-tap confirm)
        try { document.dispatchEvent(new CustomEvent("becher:camera", { detail: JSON.parse(ev.data) })); } catch (e) { /* ignored */ }
      });
      source.addEventListener("photo", (ev) => {
        let photo = null;
        try { photo = JSON.parse(ev.data); } catch (e) { return; }
        try { onGame(photo, "photo"); } catch (e) { /* ignored */ }
        document.dispatchEvent(new CustomEvent("becher:photo", { detail: photo }));
      });
      source.addEventListener("members", () => {
        // a phone joined, chose or lost a seat: the owner's list of phones changes, the game does not
        document.dispatchEvent(new CustomEvent("becher:members"));
      });
      source.addEventListener("deleted", () => { source.close(); window.location.href = "/"; });
      source.addEventListener("error", () => {
        if (state) { state.dataset.state = "lost"; state.textContent = words.offline; }
      });
    }
    open();
    return () => source && source.close();
  }

  /* Fetch a freshly rendered part and put it in place, unless it shows the same revision as the one on screen
     (then nothing changed, and swapping would only throw away what the person is entering). */
  async function swap(url, selector) {
    const res = await fetch(url, { credentials: "same-origin" });
    if (!res.ok) return false;
    const html = await res.text();
    const target = document.querySelector(selector);
    if (!target) return false;
    const current = target.querySelector(".part");
    const fresh = html.match(/data-revision="(\d+)"/);
    if (current && fresh && current.dataset.revision === fresh[1]) return false;
    const active = document.activeElement && document.activeElement.id;
    target.innerHTML = html;
    if (active) {
      const again = document.getElementById(active);
      if (again) again.focus({ preventScroll: true });
    }
    return true;
  }

  function describeError(err) {
    if (err && err.code === "stale") return words.stale;
    return (err && err.message) || words.error;
  }

  /* A name cut with an ellipsis: the whole name as a tooltip on hover, and in a toast on a long press (touch). */
  const cut = (el) => el && el.scrollWidth > el.clientWidth + 1;
  document.addEventListener("pointerover", (ev) => {
    const el = ev.target.closest && ev.target.closest(".pname");
    if (el && cut(el) && !el.title) el.title = el.textContent.trim();
  });
  let pressTimer = null;
  document.addEventListener("pointerdown", (ev) => {
    const el = ev.target.closest && ev.target.closest(".pname");
    clearTimeout(pressTimer);
    if (!el || ev.pointerType === "mouse" || !cut(el)) return;
    pressTimer = setTimeout(() => toast(el.textContent.trim()), 500);
  });
  ["pointerup", "pointercancel", "pointermove"].forEach((t) => document.addEventListener(t, (ev) => {
    if (t !== "pointermove" || Math.abs(ev.movementX) + Math.abs(ev.movementY) > 6) clearTimeout(pressTimer);
  }));
  // a tap on a cut name shows it whole, a second tap cuts it again (not where the name is a button's label)
  document.addEventListener("click", (ev) => {
    const el = ev.target.closest && ev.target.closest(".pname");
    if (!el || el.closest("button, a, summary")) return;
    if (el.classList.contains("whole") || cut(el)) el.classList.toggle("whole");
  });
  document.addEventListener("contextmenu", (ev) => {
    const el = ev.target.closest && ev.target.closest(".pname");
    if (el && cut(el)) { ev.preventDefault(); toast(el.textContent.trim()); }
  });

  document.addEventListener("change", (ev) => {
    const t = ev.target;
    if (t instanceof HTMLSelectElement && t.hasAttribute("data-autosubmit") && t.form) t.form.submit();
  });

  return { words, fmt, plural, faceLabel, surest, photoView, placeLabels, toast, announce, api, follow, swap, describeError, ApiError };
})();
