/* Table view: a phone's photo shown while its throw is confirmed. Following the game, the entry, undo and rematch
   are the entry script's (phone.js), which serves the table page too. */
"use strict";

(() => {
  const live = document.getElementById("live");
  if (!live) return;

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

  document.addEventListener("becher:photo", (ev) => {
    const data = ev.detail;
    // the camera's own picture comes with its proposal (camera.js); a photo taken on this page shows in its entry
    const own = live.dataset.uploading === "1" || (data && data.photo && live.dataset.ownPhoto === String(data.photo.id));
    if (data && data.device !== "camera" && !own) showPhoto(data);
  });
  document.addEventListener("becher:game", () => {
    if (figure) figure.hidden = true;
  });
  /* The photo only shows what a phone read: it closes with its ×, Escape or a tap anywhere else, so it never keeps
     the block or the ranking from the table's eyes. */
  if (figure) {
    const close = () => { figure.hidden = true; };
    figure.querySelector(".photo-close").addEventListener("click", close);
    document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && !figure.hidden) close(); });
    document.addEventListener("pointerdown", (ev) => {
      if (!figure.hidden && !figure.contains(ev.target)) close();
    });
  }

  /* The owner's phones box: seat binding, and freeing the seat of a phone that left. It sits in the live part, so it
     is drawn again with every change of the game; that keeps it open if it was, and a change that is no new
     revision (a phone joined or chose a seat) fetches the box alone. */
  const gameId = live.dataset.game;
  let phonesOpen = false;
  let loading = null;
  function keepOpen() {
    const box = document.getElementById("phones-box");
    if (box && phonesOpen && !box.open) box.open = true;
  }
  new MutationObserver(keepOpen).observe(live, { childList: true });
  live.addEventListener("toggle", (ev) => {
    if (ev.target.id === "phones-box") phonesOpen = ev.target.open;
  }, true);
  async function reloadPhones() {
    const list = document.getElementById("phones");
    if (!list) return;
    while (loading) await loading;
    loading = (async () => {
      const res = await fetch(list.dataset.url, { credentials: "same-origin" });
      if (!res.ok) return;
      const html = await res.text();
      const now = document.getElementById("phones");
      if (!now) return;
      now.innerHTML = html;
      const count = document.querySelector("#phones-box summary .muted");
      if (count) count.textContent = `(${now.querySelectorAll(".phones-list li").length})`;
    })();
    try { await loading; } catch (e) { /* offline: the box shows what it had */ } finally { loading = null; }
  }
  /* "Save these dice" (owner): a name asked in place, kept while a live update draws the box again (what was typed
     is not lost when a phone sends a throw meanwhile), posted as a dice set the next game may start from. */
  const W = Becher.words;
  let saving = null; // the name being typed while the form is open, else null
  function keepSaving() {
    const form = document.getElementById("save-dice");
    if (!form || saving == null || !form.hidden) return;
    showSave(form, saving);
  }
  function showSave(form, name) {
    const input = form.querySelector("input");
    const open = document.getElementById("save-dice-open");
    form.hidden = false;
    if (open) { open.hidden = true; open.setAttribute("aria-expanded", "true"); }
    input.value = name;
    saving = name;
    if (!document.activeElement || document.activeElement === document.body) input.focus();
  }
  function hideSave() {
    const form = document.getElementById("save-dice");
    const open = document.getElementById("save-dice-open");
    saving = null;
    if (form) form.hidden = true;
    if (open) { open.hidden = false; open.setAttribute("aria-expanded", "false"); open.focus(); }
  }
  new MutationObserver(keepSaving).observe(live, { childList: true });
  live.addEventListener("input", (ev) => {
    if (ev.target.id === "save-dice-name") saving = ev.target.value;
  });
  live.addEventListener("click", (ev) => {
    if (ev.target.closest("#save-dice-open")) {
      const form = document.getElementById("save-dice");
      if (!form) return;
      showSave(form, form.querySelector("input").value);
      form.querySelector("input").focus();
    } else if (ev.target.closest("#save-dice-cancel")) {
      hideSave();
    }
  });
  live.addEventListener("submit", async (ev) => {
    const form = ev.target.closest("#save-dice");
    if (!form) return;
    ev.preventDefault();
    const err = document.getElementById("save-dice-error");
    const input = form.querySelector("input");
    const name = input.value.trim();
    err.hidden = true;
    if (!name) {
      err.textContent = W.name_needed;
      err.hidden = false;
      input.focus();
      return;
    }
    const btn = form.querySelector('button[type="submit"]');
    // a name this device has saved already is answered 409 "exists": the button then asks to replace those dice,
    // and the next press (same name) sends replace: true; another name asks again (issue 60)
    const replace = form.dataset.replace === name;
    btn.disabled = true;
    try {
      const res = await Becher.api("POST", `/api/games/${gameId}/dice-set`, replace ? { name, replace } : { name });
      const said = Becher.fmt(W.dice_saved, { name: (res.set && res.set.name) || name });
      delete form.dataset.replace;
      if (btn.dataset.label) btn.textContent = btn.dataset.label;
      hideSave();
      Becher.toast(said);
      Becher.announce(said);
    } catch (e) {
      err.textContent = Becher.describeError(e);
      err.hidden = false;
      if (e && e.code === "exists") {
        form.dataset.replace = name;
        if (!btn.dataset.label) btn.dataset.label = btn.textContent;
        btn.textContent = W.replace_dice;
      }
    } finally {
      btn.disabled = false;
    }
  });
  live.addEventListener("input", (ev) => {
    if (ev.target.id !== "save-dice-name") return;
    const form = document.getElementById("save-dice");
    const btn = form && form.querySelector('button[type="submit"]');
    if (form && btn && form.dataset.replace !== ev.target.value.trim() && btn.dataset.label) {
      btn.textContent = btn.dataset.label;
    }
  });

  /* Saved dice that keep learning (issue 60): once the game has ended, the owner of the set it started from is asked
     "Update 'NAME' with tonight's throws?". Yes posts the update (the game's new revision takes the question away on
     every device); "Not now" hides it on this page until it is loaded again. */
  let notNow = false;
  function keepNotNow() {
    const box = document.getElementById("set-learn");
    if (box && notNow) box.hidden = true;
  }
  new MutationObserver(keepNotNow).observe(live, { childList: true });
  live.addEventListener("click", async (ev) => {
    const box = document.getElementById("set-learn");
    if (!box) return;
    if (ev.target.closest("#set-learn-no")) {
      notNow = true;
      box.hidden = true;
      return;
    }
    const yes = ev.target.closest("#set-learn-yes");
    if (!yes) return;
    const err = document.getElementById("set-learn-error");
    yes.disabled = true;
    err.hidden = true;
    try {
      const res = await Becher.api("POST", `/api/games/${box.dataset.game}/dice-set/update`, {});
      const said = Becher.fmt(W.dice_set_updated, { name: (res.set && res.set.name) || box.dataset.name });
      box.hidden = true;
      Becher.toast(said);
      Becher.announce(said);
    } catch (e) {
      err.textContent = Becher.describeError(e);
      err.hidden = false;
      yes.disabled = false;
    }
  });

  document.addEventListener("becher:members", reloadPhones);
  live.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("[data-bound], [data-free-seat], [data-remove-phone]");
    if (!btn || !btn.closest("#phones")) return;
    btn.disabled = true;
    try {
      if (btn.dataset.bound) {
        await Becher.api("POST", `/api/games/${gameId}/access`, { bound_seats: btn.dataset.bound === "true" });
      } else if (btn.dataset.freeSeat) {
        await Becher.api("POST", `/api/games/${gameId}/seat`, { device: btn.dataset.freeSeat, seat: null });
      } else {
        await Becher.api("DELETE", `/api/games/${gameId}/members/${encodeURIComponent(btn.dataset.removePhone)}`);
      }
    } catch (e) {
      Becher.toast(Becher.describeError(e), true);
    }
    await reloadPhones();
  });
})();
