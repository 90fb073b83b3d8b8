/* Table view: follow the game live, swap in the freshly rendered block, announce what changed. */
"use strict";

(() => {
  const live = document.getElementById("live");
  if (!live) return;
  const gameId = live.dataset.game;
  let revision = Number(live.dataset.revision || 0);
  let busy = false;
  let again = false;

  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const before = live.querySelector(".part");
      const oldText = before ? before.dataset.announce : "";
      await Becher.swap(live.dataset.part, "#live");
      const part = live.querySelector(".part");
      if (part && part.dataset.announce && part.dataset.announce !== oldText) Becher.announce(part.dataset.announce);
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }

  /* A phone's photo, read: shown on the table with a box and face on every die until the throw is confirmed. */
  const figure = document.getElementById("table-photo");
  function showPhoto(data) {
    if (!figure || !data.photo || !data.reading) return;
    const wrap = figure.querySelector(".photo-wrap");
    wrap.querySelectorAll(".dbox").forEach((b) => b.remove());
    figure.querySelector("img").src = data.photo.url;
    const r = data.reading;
    const place = Becher.photoView(wrap, r.dice, r.width, r.height, false);
    r.dice.forEach((d) => {
      const b = document.createElement("span");
      b.className = "dbox" + (d.uncertain ? " uncertain" : "");
      Object.assign(b.style, place(d.box));
      const lbl = document.createElement("span");
      lbl.className = "lbl";
      lbl.textContent = Becher.faceLabel(d);
      b.appendChild(lbl);
      wrap.appendChild(b);
    });
    Becher.placeLabels(wrap);
    figure.querySelector("figcaption").textContent = r.dice.map(Becher.faceLabel).join(" ");
    figure.hidden = false;
  }

  Becher.follow(gameId, (data, kind) => {
    if (kind === "photo" && data) {
      if (data.device !== "camera") showPhoto(data); // the camera's own picture comes with its proposal (camera.js)
      return;
    }
    if (kind !== "game" || !data) return;
    if (figure) figure.hidden = true;
    if (typeof data.revision === "number" && data.revision <= revision) return;
    revision = data.revision;
    refresh();
  });

  live.addEventListener("click", async (ev) => {
    const undo = ev.target.closest("[data-undo]");
    if (undo) {
      undo.disabled = true;
      try {
        const res = await Becher.api("POST", `/api/games/${gameId}/undo`, { seen: Number(undo.dataset.seen), revision: Number(undo.dataset.revision) });
        const what = Becher.fmt(Becher.words.undone, { what: undo.dataset.what || (res.undone || []).map((a) => a.type).join(", ") });
        Becher.toast(what);
        Becher.announce(what);
      } catch (e) {
        Becher.toast(Becher.describeError(e), true);
      }
      refresh();
      return;
    }
    const rematch = ev.target.closest("[data-rematch]");
    if (rematch) {
      try {
        const res = await Becher.api("POST", `/api/games/${gameId}/rematch`, {});
        window.location.href = `/${rematch.dataset.to || "table"}/${res.game.id}`;
      } catch (e) {
        Becher.toast(Becher.describeError(e), true);
      }
    }
  });
})();
