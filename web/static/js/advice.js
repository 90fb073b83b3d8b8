/* The hold advisor's hint: the best hold marked on the dice, its odds in words, and the next best two.
   Off by default and switched on per device (localStorage), so a table can play without it. It finds every
   [data-advice] element on the page (web/templates/advice_hint.html) and the dice buttons ([data-pos]) of the
   element around it marked data-advice-scope; pages that swap their content in are followed by an observer.
   The numbers come from GET /api/games/<id>/advice; this script decides nothing. */
"use strict";

(() => {
  const KEY = "becher.advice";
  const lang = document.documentElement.lang || "en";
  const pct = (v) => new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: v > 0 && v < 0.01 ? 1 : 0 }).format(v);
  const pts = (v) => new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(v);
  const on = () => { try { return localStorage.getItem(KEY) === "on"; } catch (e) { return false; } };
  const remember = (value) => { try { localStorage.setItem(KEY, value ? "on" : "off"); } catch (e) { /* private mode */ } };

  function words(root) {
    const el = root.querySelector("[data-advice-words]");
    try { return JSON.parse(el ? el.textContent : "{}"); } catch (e) { return {}; }
  }

  function holdText(W, hold) {
    if (hold.stand) return W.stand;
    if (!hold.keep.length) return W.again;
    return Becher.fmt(W.keep, { dice: hold.keep.join(" ") });
  }

  function oddsText(W, advice, value, sure) {
    if (advice.objective === "points") return Becher.fmt(sure ? W.points_sure : W.points, { n: pts(value) });
    const b = advice.beat || {};
    const hand = b.said || b.label_en || "";
    if (b.name) return Becher.fmt(W.beat, { pct: pct(value), name: b.name, hand });
    return Becher.fmt(W.beat_hand, { pct: pct(value), hand });
  }

  function dice(root) {
    const scope = root.closest("[data-advice-scope]") || root.parentElement || document;
    return Array.from(scope.querySelectorAll("[data-pos]"));
  }

  function unmark(root) {
    dice(root).forEach((b) => {
      b.classList.remove("advised");
      if (b.dataset.plainLabel != null) {
        b.setAttribute("aria-label", b.dataset.plainLabel);
        delete b.dataset.plainLabel;
      }
    });
  }

  function show(root, advice) {
    const W = words(root);
    const out = root.querySelector("[data-advice-out]");
    const [best, ...rest] = advice.holds;
    unmark(root);
    const held = new Set(best.held);
    dice(root).forEach((b) => {
      if (!held.has(Number(b.dataset.pos))) return;
      b.classList.add("advised");
      const label = b.getAttribute("aria-label");
      if (label != null) {
        b.dataset.plainLabel = label;
        b.setAttribute("aria-label", `${label}, ${W.marked}`);
      }
    });
    out.innerHTML = "";
    const head = document.createElement("p");
    head.className = "advice-best";
    head.textContent = `${holdText(W, best)}: ${oddsText(W, advice, best.value, best.stand)}`;
    out.appendChild(head);
    if (rest.length) {
      const list = document.createElement("ol");
      list.className = "advice-next";
      list.setAttribute("aria-label", W.next);
      rest.slice(0, 2).forEach((h) => {
        const li = document.createElement("li");
        const words = h.stand ? W.points_sure : W.points;
        const short = advice.objective === "points" ? Becher.fmt(words, { n: pts(h.value) }) : pct(h.value);
        li.textContent = `${holdText(W, h)}: ${short}`;
        list.appendChild(li);
      });
      out.appendChild(list);
    }
    if (advice.rows && advice.rows.length) {
      const top = advice.rows.reduce((a, r) => (r.expected > a.expected ? r : a));
      const row = document.createElement("p");
      row.className = "hint advice-row";
      row.textContent = Becher.fmt(W.row, { row: top.said || top.label_en, pct: pct(top.chance), n: pts(top.expected) });
      out.appendChild(row);
    }
  }

  async function load(root) {
    const out = root.querySelector("[data-advice-out]");
    const W = words(root);
    out.hidden = false;
    out.textContent = W.working;
    try {
      const res = await Becher.api("GET", `/api/games/${root.dataset.game}/advice`);
      if (root.isConnected && on()) show(root, res.advice);
    } catch (e) {
      unmark(root);
      out.textContent = Becher.describeError(e);
    }
  }

  function hide(root) {
    const out = root.querySelector("[data-advice-out]");
    out.hidden = true;
    out.innerHTML = "";
    unmark(root);
  }

  function init(root) {
    if (root.dataset.ready) return;
    root.dataset.ready = "1";
    const box = root.querySelector("[data-advice-switch]");
    box.checked = on();
    if (box.checked) load(root);
  }

  document.addEventListener("change", (ev) => {
    const box = ev.target.closest && ev.target.closest("[data-advice-switch]");
    if (!box) return;
    remember(box.checked);
    document.querySelectorAll("[data-advice]").forEach((root) => {
      const other = root.querySelector("[data-advice-switch]");
      if (other) other.checked = box.checked;
      if (box.checked) load(root); else hide(root);
    });
  });

  const scan = () => document.querySelectorAll("[data-advice]").forEach(init);
  new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
  scan();
})();
