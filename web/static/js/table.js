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

  Becher.follow(gameId, (data, kind) => {
    if (kind !== "game" || !data) return;
    if (typeof data.revision === "number" && data.revision <= revision) return;
    revision = data.revision;
    refresh();
  });

  live.addEventListener("click", async (ev) => {
    const undo = ev.target.closest("[data-undo]");
    if (undo) {
      undo.disabled = true;
      try {
        const res = await Becher.api("POST", `/api/games/${gameId}/undo`, { seen: Number(undo.dataset.seen) });
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
