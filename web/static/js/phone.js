/* The entry, on the phone view and on the table page (one partial, entry.html): the player's controls. Dice come
   from a photo (read by the server, corrected by tapping) or from tapping faces, both offered at once; holds,
   choices and undo post to the JSON API. What may be done always comes from the page, which the server renders from
   the game's options: this script never decides a rule. What was tapped survives a reload (sessionStorage, for the
   same revision of the game) and is never dropped without a word. */
"use strict";

(() => {
  const live = document.getElementById("live");
  if (!live) return;
  const W = Becher.words;
  const gameId = live.dataset.game;
  const kind = live.dataset.kind;
  const faces = live.dataset.faces.split(" ");
  const faceBase = live.dataset.faceBase;
  const dialog = document.getElementById("face-dialog");
  let revision = -1;
  let ui = null;

  const faceUrl = (v) => `${faceBase}${kind === "poker" ? "poker" : "pip"}-${faces[v - 1]}.svg`;
  const faceName = (v) => faces[v - 1];

  /* ------------------------------------------------------------ the dice being entered */

  const storeKey = `becher.entry.${gameId}`;
  // a reload brings the entry into view itself; the browser's own restoring would scroll it away again
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";
  let shownKey = "";

  function setup() {
    const part = live.querySelector(".part");
    if (part) { live.dataset.seen = part.dataset.seen; live.dataset.shown = part.dataset.revision; }
    const panel = document.getElementById("throw-panel");
    if (!panel) { ui = null; forget(); return; }
    const count = Number(panel.dataset.count || 5);
    const table = panel.dataset.table ? panel.dataset.table.split(",").map(Number) : [];
    ui = {
      panel, count, table, held: new Set(), entry: new Array(count).fill(null), unsure: new Array(count).fill(false),
      extra: [], note: "", noteKind: "", photo: null, reading: null, boxes: [], size: null, wholePhoto: false,
      // the photo's side of each place: which box of the photo (index into shownDice) gave its value, or null for
      // a value tapped in or a kept die; the boxes the player said are no die; the left-out boxes taken in instead.
      // Sent with the throw (photo_dice, not_dice): the reader learns this game's dice from them (docs/api.md).
      from: new Array(count).fill(null), notDice: new Set(), taken: new Set(),
    };
    restore();
    if (window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
      const btn = document.getElementById("live-camera");
      if (btn) btn.hidden = false;
    }
    render();
    if (panel.dataset.key !== shownKey) {
      shownKey = panel.dataset.key;
      bringIntoView(panel);
    }
  }

  /* The dice tapped so far, kept for this game's revision: a reload mid-turn finds them again. */
  function save() {
    if (!ui) return;
    try {
      sessionStorage.setItem(storeKey, JSON.stringify({
        key: ui.panel.dataset.key, entry: ui.entry, unsure: ui.unsure, held: [...ui.held], extra: ui.extra, photo: ui.photo,
        from: ui.from, notDice: [...ui.notDice], taken: [...ui.taken],
      }));
    } catch (e) { /* storage full or off: the entry still works, it is only not kept over a reload */ }
  }
  function forget() {
    try { sessionStorage.removeItem(storeKey); } catch (e) { /* ignored */ }
  }
  function restore() {
    let kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(storeKey) || "null"); } catch (e) { kept = null; }
    if (!kept || kept.key !== ui.panel.dataset.key || !Array.isArray(kept.entry) || kept.entry.length !== ui.count) {
      forget();
      return;
    }
    const ok = (v) => v == null || (Number.isInteger(v) && v >= 1 && v <= 6);
    if (!kept.entry.every(ok)) return;
    ui.entry = kept.entry.slice();
    ui.unsure = ui.entry.map((_, i) => !!(kept.unsure && kept.unsure[i]));
    ui.extra = (kept.extra || []).filter((v) => Number.isInteger(v) && v >= 1 && v <= 6);
    ui.photo = kept.photo || null;
    const index = (v) => Number.isInteger(v) && v >= 0;
    if (ui.photo && Array.isArray(kept.from) && kept.from.length === ui.count) {
      ui.from = kept.from.map((k) => (index(k) ? k : null));
      ui.notDice = new Set((kept.notDice || []).filter(index));
      ui.taken = new Set((kept.taken || []).filter(index));
    }
    (kept.held || []).forEach((pos) => {
      const btn = ui.panel.querySelector(`.hold-btn[data-pos="${pos}"]`);
      if (!btn || ui.table[pos] == null) return;
      ui.held.add(pos);
      ui.entry[pos] = ui.table[pos];
      ui.from[pos] = null;
      btn.setAttribute("aria-pressed", "true");
    });
  }

  /* The page scrolls itself so that the face pad and the send button are on screen as a turn comes up. */
  function bringIntoView(panel) {
    if (panel.closest("details:not([open])")) return;
    const sends = panel.querySelectorAll(".send-throw");
    const last = sends.length ? sends[sends.length - 1] : panel;
    const top = panel.getBoundingClientRect().top;
    const bottom = last.getBoundingClientRect().bottom;
    const room = window.innerHeight;
    let by = 0;
    if (bottom - top + 16 <= room) {
      if (bottom > room - 8) by = Math.min(bottom - room + 8, top - 8);
      else if (top < 0) by = top - 8;
    } else {
      const pad = panel.querySelector(".face-pad, .hold-btn") || panel;
      by = pad.getBoundingClientRect().top - 8;
    }
    if (Math.abs(by) > 1) window.scrollBy({ top: by, left: 0, behavior: "instant" });
  }

  function locked(i) {
    return ui.held.has(i);
  }

  function say(text, kind) {
    ui.note = text || "";
    ui.noteKind = ui.note ? kind || "" : "";
    const note = document.getElementById("entry-note");
    if (note) note.textContent = ui.note;
  }

  function render() {
    if (!ui) return;
    const row = document.getElementById("entry");
    row.innerHTML = "";
    ui.entry.forEach((v, i) => {
      const b = document.createElement("button");
      b.type = "button";
      const unsure = v != null && ui.unsure[i] && !locked(i);
      b.className = "die-btn entry-die" + (v == null ? " empty" : "") + (locked(i) ? " held" : "") + (unsure ? " uncertain" : "");
      b.dataset.slot = String(i);
      const what = v == null ? W.empty : faceName(v);
      b.setAttribute("aria-label", `${Becher.fmt(W.die_n, { n: i + 1 })}: ${what}${locked(i) ? ", " + W.held : ""}${unsure ? ", " + W.uncertain : ""}`);
      if (locked(i)) b.disabled = true;
      if (v != null) {
        const img = document.createElement("img");
        img.src = faceUrl(v);
        img.alt = "";
        b.appendChild(img);
      }
      if (unsure) {
        const mark = document.createElement("span");
        mark.className = "unsure-mark";
        mark.setAttribute("aria-hidden", "true");
        mark.textContent = "?";
        b.appendChild(mark);
      }
      row.appendChild(b);
    });
    const full = ui.entry.every((v) => v != null);
    document.querySelectorAll(".send-throw").forEach((b) => {
      b.disabled = sending || !full || Number(b.dataset.count) !== ui.count;
    });
    ui.boxes.forEach((box) => {
      const slot = box.dataset.slot === "" ? null : Number(box.dataset.slot);
      const lbl = box.querySelector(".lbl");
      markBox(box);
      if (slot == null || ui.entry[slot] == null) return;
      // as read ("D=Q" keeps its printing) until the person changes the die's value
      lbl.textContent = ui.entry[slot] === Number(box.dataset.value) ? box.dataset.read : faceName(ui.entry[slot]);
    });
    if (ui.extra.length) say(Becher.fmt(W.set_aside, { dice: ui.extra.map(faceName).join(" ") }), "aside");
    else if (ui.noteKind === "aside") say("");
    Becher.placeLabels(document.getElementById("photo-wrap"));
    save();
  }

  function put(value) {
    const i = ui.entry.findIndex((v, j) => v == null && !locked(j));
    if (i < 0) {
      // every place is taken: the tap is not lost without a word
      say(W.all_entered, "full");
      Becher.announce(W.all_entered);
      return;
    }
    ui.entry[i] = value;
    ui.unsure[i] = false;
    ui.from[i] = null; // tapped in: from no box of the photo
    if (ui.noteKind === "full") say("");
    render();
    Becher.announce(`${Becher.fmt(W.die_n, { n: i + 1 })}: ${faceName(value)}`);
  }

  /* Keeping a die never overwrites a die tapped into its place: the new dice from that place on move up one place,
     in the order they were tapped, and what finds no place is set aside (said under the dice). Letting a kept die go
     frees its place for the first die set aside. */
  function toggleHold(btn) {
    const pos = Number(btn.dataset.pos);
    if (ui.held.has(pos)) {
      ui.held.delete(pos);
      ui.entry[pos] = null;
      ui.unsure[pos] = false;
      ui.from[pos] = null;
      if (ui.extra.length && !ui.reading) ui.entry[pos] = ui.extra.shift();
    } else {
      const after = ui.entry.map((_, i) => i).filter((i) => i >= pos && !locked(i));
      const vals = after.filter((i) => ui.entry[i] != null).map((i) => ({ v: ui.entry[i], u: ui.unsure[i], f: ui.from[i] }));
      ui.held.add(pos);
      ui.entry[pos] = ui.table[pos];
      ui.unsure[pos] = false;
      ui.from[pos] = null;
      const free = after.filter((i) => i !== pos);
      free.forEach((i, n) => {
        ui.entry[i] = n < vals.length ? vals[n].v : null;
        ui.unsure[i] = n < vals.length ? vals[n].u : false;
        ui.from[i] = n < vals.length ? vals[n].f : null;
      });
      ui.extra = vals.slice(free.length).map((x) => x.v).concat(ui.extra);
    }
    btn.setAttribute("aria-pressed", ui.held.has(pos) ? "true" : "false");
    if (ui.reading) applyReading(ui.reading);
    render();
  }

  /* ------------------------------------------------------------ correcting one die */

  let correcting = null;
  /* ``box``: the photo's box the dialog was opened from; only then does it offer "Not a die" (the box is what the
     player judges: a shadow, a mark, a die from another throw). */
  function correct(slot, box) {
    if (slot == null || locked(slot)) return;
    correcting = slot;
    const notDie = document.getElementById("dialog-not-die");
    if (notDie) notDie.hidden = !box || ui.from[slot] == null;
    if (dialog && dialog.showModal) {
      dialog.showModal();
      const first = dialog.querySelector("button[data-face-value]");
      if (first) first.focus();
    }
  }
  if (dialog) {
    dialog.addEventListener("click", (ev) => {
      const b = ev.target.closest("button[data-face-value]");
      if (b && correcting != null && ui) {
        ui.entry[correcting] = Number(b.dataset.faceValue);
        ui.unsure[correcting] = false;
        const box = ui.boxes.find((x) => x.dataset.slot === String(correcting));
        if (box) { box.classList.remove("uncertain"); box.classList.add("fixed"); }
        Becher.announce(`${Becher.fmt(W.die_n, { n: correcting + 1 })}: ${faceName(ui.entry[correcting])}`);
        const back = document.querySelector(`.entry-die[data-slot="${correcting}"]`);
        correcting = null;
        dialog.close();
        render();
        if (back) back.focus();
      }
      if (ev.target.closest("#dialog-not-die") && correcting != null && ui) {
        const slot = correcting;
        correcting = null;
        dialog.close();
        notADie(slot);
      }
      if (ev.target.id === "dialog-cancel") { correcting = null; dialog.close(); }
    });
  }

  /* "Not a die": the box the place's value came from is no die of this throw. The place is emptied for the right
     value (a face tapped, or a dotted box taken in) and the box is struck through; the throw sends it in not_dice. */
  function notADie(slot) {
    const k = ui.from[slot];
    const box = k == null ? null : ui.boxes[k];
    ui.entry[slot] = null;
    ui.unsure[slot] = false;
    ui.from[slot] = null;
    if (k != null) { ui.notDice.add(k); ui.taken.delete(k); }
    if (box) { box.dataset.slot = ""; box.classList.remove("fixed"); }
    const text = Becher.fmt(W.marked_not_die, { n: slot + 1 });
    photoStatus(text);
    Becher.announce(text);
    render();
    const back = document.querySelector(`.entry-die[data-slot="${slot}"]`);
    if (back) back.focus();
  }

  /* A dotted box tapped: the player says it is a die of this throw. It fills an empty place, or else takes the place
     of the proposed die it most likely stands for: a phantom (a shadow, a mark) proposed while the real die was left
     out. That is the least sure die the player has not fixed (uncertain first, then the lowest confidence); it is
     left out in its turn and remembered as not a die, until it is tapped back in. */
  function takeIn(box) {
    if (!ui.reading) return;
    const shown = shownDice(ui.reading);
    const k = Number(box.dataset.index);
    const d = shown[k];
    const free = ui.entry.map((_, i) => i).filter((i) => !locked(i));
    let slot = free.find((i) => ui.entry[i] == null);
    let out = null;
    if (slot == null) {
      const movable = free.filter((i) => ui.from[i] != null && ui.boxes[ui.from[i]] && !ui.boxes[ui.from[i]].classList.contains("fixed"));
      if (!movable.length) {
        // every place holds a die the player tapped in or confirmed: nothing is taken away without asking
        say(W.all_entered, "full");
        Becher.announce(W.all_entered);
        return;
      }
      const rank = (i) => { const x = shown[ui.from[i]]; return [x.uncertain ? 0 : 1, x.confidence || 0]; };
      slot = movable.reduce((a, b) => {
        const [x, y] = [rank(a), rank(b)];
        return y[0] < x[0] || (y[0] === x[0] && y[1] < x[1]) ? b : a;
      });
      out = ui.from[slot];
    }
    if (out != null) {
      ui.notDice.add(out);
      ui.taken.delete(out);
      const gone = ui.boxes[out];
      if (gone) gone.dataset.slot = "";
    }
    ui.notDice.delete(k);
    if (k >= ui.reading.dice.length) ui.taken.add(k);
    ui.entry[slot] = d.value;
    ui.unsure[slot] = !!d.uncertain;
    ui.from[slot] = k;
    box.dataset.slot = String(slot);
    const values = { n: slot + 1, face: Becher.faceLabel(d), old: out == null ? "" : Becher.faceLabel(shown[out]) };
    const text = Becher.fmt(out == null ? W.taken_in : W.swapped, values);
    photoStatus(text);
    Becher.announce(text);
    render();
  }

  function photoStatus(text) {
    const status = document.getElementById("photo-status");
    if (status) status.textContent = text;
  }

  /* A box's look and words follow what the player made of it: in a place, left out (dotted), or not a die (struck). */
  function markBox(box) {
    const k = Number(box.dataset.index);
    const out = box.dataset.slot === "";
    const no = ui.notDice.has(k);
    box.classList.toggle("left-out", out);
    box.classList.toggle("not-die", no);
    const d = ui.reading ? shownDice(ui.reading)[k] : null;
    if (!d) return;
    const state = no ? W.not_a_die_state : out ? W.left_out_state : d.uncertain && !box.classList.contains("fixed") ? W.uncertain : "";
    box.setAttribute("aria-label", `${Becher.fmt(W.die_n, { n: k + 1 })}: ${Becher.faceLabel(d)}${state ? ", " + state : ""}`);
  }

  /* ------------------------------------------------------------ photo */

  function applyReading(reading) {
    const free = ui.entry.map((_, i) => i).filter((i) => !locked(i));
    // the dice proposed, less those the player said are no die, and the left-out ones the player took in instead
    // (read again when a die is kept or let go: what the player decided about the photo stays)
    let dice = shownDice(reading)
      .map((d, k) => ({ d, k }))
      .filter((x) => !ui.notDice.has(x.k) && (x.k < reading.dice.length || ui.taken.has(x.k)));
    if (dice.length > free.length) {
      // the photo shows the kept dice too: leave out one die of each kept value
      ui.held.forEach((pos) => {
        const j = dice.findIndex((x) => x.d.value === ui.table[pos]);
        if (j >= 0) dice.splice(j, 1);
      });
    }
    const found = dice.length;
    if (found > free.length) {
      // more dice than places: the surest fill them, in the photo's order; the rest keep a dotted box
      // (a die the player took in counts as sure as a kept one)
      dice = Becher.surest(dice.map((x) => (ui.taken.has(x.k) ? { ...x.d, held: true } : x.d)), free.length).map((i) => dice[i]);
    }
    free.forEach((i) => { ui.entry[i] = null; ui.unsure[i] = false; ui.from[i] = null; });
    ui.extra = [];
    ui.boxes.forEach((b) => { b.dataset.slot = ""; });
    dice.forEach((x, n) => {
      ui.entry[free[n]] = x.d.value;
      ui.unsure[free[n]] = !!x.d.uncertain;
      ui.from[free[n]] = x.k;
      if (ui.boxes[x.k]) ui.boxes[x.k].dataset.slot = String(free[n]);
    });
    const status = document.getElementById("photo-status");
    const uncertain = dice.filter((x) => x.d.uncertain).length; // of the dice entered
    let msg = reading.dice.length ? W.tap_die : W.read_none;
    const short = free.length - dice.length;
    if (found > free.length) msg = Becher.plural(W.more_dice, found, { n: free.length }) + " " + W.tap_die;
    else if (short > 0 && reading.dice.length) msg = Becher.plural(W.not_found, short);
    // what the server assumed to propose the dice thrown: the dice it left out stay in the photo, dotted
    const left = (reading.extra || []).length;
    if (left && found <= free.length) msg = `${Becher.plural(W.left_out, left)} ${msg}`;
    if (uncertain) msg = `${Becher.plural(W.uncertain_n, uncertain)} ${msg}`;
    status.textContent = msg;
  }

  /* The dice proposed, then those the server left out to propose the dice thrown (drawn dotted, in no place). */
  const shownDice = (reading) => reading.dice.concat(reading.extra || []);

  function showReading(photo, reading) {
    const wrap = document.getElementById("photo-wrap");
    const img = document.getElementById("photo-img");
    wrap.querySelectorAll(".dbox").forEach((b) => b.remove());
    ui.boxes = [];
    img.src = photo.url;
    wrap.hidden = false;
    ui.size = reading ? [reading.width || photo.width, reading.height || photo.height] : null;
    if (!reading) {
      layoutPhoto();
      return;
    }
    shownDice(reading).forEach((d, k) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "dbox" + (d.uncertain ? " uncertain" : "");
      b.dataset.index = String(k);
      b.dataset.slot = "";
      b.dataset.value = String(d.value);
      b.dataset.read = Becher.faceLabel(d);
      const lbl = document.createElement("span");
      lbl.className = "lbl";
      lbl.textContent = Becher.faceLabel(d);
      b.appendChild(lbl);
      wrap.appendChild(b);
      ui.boxes.push(b);
    });
    layoutPhoto();
    applyReading(reading);
  }

  /* The dice's part of the photo, or the whole photo when the person asks for it; the boxes follow. */
  function layoutPhoto() {
    const wrap = document.getElementById("photo-wrap");
    const toggle = document.getElementById("photo-whole");
    const dice = ui.reading && ui.size ? shownDice(ui.reading) : [];
    const [w, h] = ui.size || [1, 1];
    const place = Becher.photoView(wrap, dice, w, h, ui.wholePhoto || !dice.length);
    ui.boxes.forEach((b) => Object.assign(b.style, place(dice[Number(b.dataset.index)].box)));
    Becher.placeLabels(wrap);
    toggle.hidden = !dice.length || (!ui.wholePhoto && !wrap.classList.contains("zoomed"));
    toggle.textContent = ui.wholePhoto ? W.zoom_dice : W.whole_photo;
    toggle.setAttribute("aria-pressed", ui.wholePhoto ? "true" : "false");
    const teach = document.getElementById("teach-dice");
    if (teach) teach.hidden = !dice.length;
  }

  /* Clear lets the photo go with the dice read from it: dice tapped in afterwards are sent without it, since a
     throw's photo is its proof and must show that throw. */
  function dropPhoto() {
    ui.photo = null;
    ui.reading = null;
    ui.boxes = [];
    ui.size = null;
    const wrap = document.getElementById("photo-wrap");
    if (wrap) {
      wrap.querySelectorAll(".dbox").forEach((b) => b.remove());
      wrap.hidden = true;
      const img = document.getElementById("photo-img");
      if (img) img.removeAttribute("src");
    }
    const status = document.getElementById("photo-status");
    if (status) status.textContent = "";
    const toggle = document.getElementById("photo-whole");
    if (toggle) toggle.hidden = true;
    const teach = document.getElementById("teach-dice");
    if (teach) teach.hidden = true;
    const input = document.getElementById("photo-input");
    if (input) input.value = "";
  }

  async function upload(blob) {
    const status = document.getElementById("photo-status");
    status.textContent = W.reading;
    const fd = new FormData();
    fd.append("photo", blob, "dice.jpg");
    live.dataset.uploading = "1"; // the table page shows other devices' photos, not this one's twice
    // the dice thrown (the places not kept) and all in play: the server proposes that many dice (docs/api.md)
    const thrown = ui.entry.filter((_, i) => !locked(i)).length;
    const query = thrown ? `?count=${thrown}&on_table=${ui.count}` : "";
    try {
      const res = await Becher.api("POST", `/api/games/${gameId}/photos${query}`, fd, true);
      ui.photo = res.photo.id;
      live.dataset.ownPhoto = String(res.photo.id);
      // a new photo: what the player said of the last one's boxes does not hold for this one's
      ui.notDice = new Set();
      ui.taken = new Set();
      ui.reading = res.reading;
      showReading(res.photo, res.reading);
      if (!res.reading) {
        status.textContent = res.reading_error || W.read_none;
      }
      render();
    } catch (e) {
      status.textContent = Becher.describeError(e);
    } finally {
      delete live.dataset.uploading;
    }
  }

  let stream = null;
  async function startCamera() {
    const video = document.getElementById("camera");
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
      video.srcObject = stream;
      video.hidden = false;
      document.getElementById("snap").hidden = false;
      await video.play();
    } catch (e) {
      Becher.toast(W.camera_denied, true);
    }
  }
  function snap() {
    const video = document.getElementById("camera");
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext("2d").drawImage(video, 0, 0);
    if (stream) stream.getTracks().forEach((t) => t.stop());
    stream = null;
    video.hidden = true;
    document.getElementById("snap").hidden = true;
    canvas.toBlob((blob) => blob && upload(blob), "image/jpeg", 0.9);
  }

  /* ------------------------------------------------------------ sending */

  /* One write at a time: a second tap while the first is on its way would name a state that is already gone, and the
     server would rightly refuse it as someone else's change. */
  let sending = false;
  async function send(action, extra) {
    if (sending) return;
    sending = true;
    document.querySelectorAll(".send-throw, .choice").forEach((b) => { b.disabled = true; });
    // the revision shown names the exact state the person decided on: an undo and a new action elsewhere keep the
    // action count but not the revision, so the server refuses this write (409 stale) instead of applying it
    const body = { seen: Number(live.dataset.seen || 0), revision: Number(live.dataset.shown || 0), action, ...(extra || {}) };
    try {
      await Becher.api("POST", `/api/games/${gameId}/actions`, body);
      forget();
      // the page shows the change itself: no toast over the dice, only words for a screen reader
      Becher.announce(W.saved);
    } catch (e) {
      Becher.toast(Becher.describeError(e), true);
    } finally {
      sending = false;
    }
    await refresh();
    document.querySelectorAll(".choice").forEach((b) => { b.disabled = false; });
    render();
  }

  function sendThrow(btn) {
    const action = JSON.parse(btn.dataset.action);
    const needs = (btn.dataset.needs || "").split(" ");
    if (ui.entry.some((v) => v == null)) {
      Becher.toast(Becher.plural(W.need_dice, ui.count), true);
      return;
    }
    if (needs.includes("dice")) action.dice = ui.entry.slice();
    if (needs.includes("held")) action.held = Array.from(ui.held).sort((a, b) => a - b);
    const extra = ui.photo ? { photo: ui.photo } : {};
    if (ui.photo && action.dice) {
      // which box of the photo each die came from (null: tapped in or kept), and the boxes that are no die: the
      // reader learns this game's dice from them, a value changed in the dialog as a correction
      extra.photo_dice = ui.from.slice();
      extra.not_dice = [...ui.notDice].sort((a, b) => a - b);
    }
    send(action, extra);
  }

  /* Show your dice (issue 52): the photo's dice, their values checked as for a throw, teach the reader without
     being a throw: before the first throw, dice it reads badly (an unusual printing, an emblem for the six). The
     entry starts afresh: the photo was for teaching. */
  async function teachDice() {
    const pairs = ui.entry.map((v, i) => ({ v, k: ui.from[i] })).filter((x) => x.v != null && x.k != null);
    if (!ui.photo || !pairs.length) {
      Becher.toast(W.teach_none, true);
      return;
    }
    const body = {
      photo: ui.photo, dice: pairs.map((x) => x.v), photo_dice: pairs.map((x) => x.k),
      not_dice: [...ui.notDice].sort((a, b) => a - b),
    };
    try {
      await Becher.api("POST", `/api/games/${gameId}/dice-shown`, body);
    } catch (e) {
      Becher.toast(Becher.describeError(e), true);
      return;
    }
    const said = Becher.plural(W.taught, pairs.length);
    Becher.toast(said);
    Becher.announce(said);
    clearEntry();
  }

  /* The dice not kept, and the photo with what was said of its boxes, let go (Clear, or a photo that taught). */
  function clearEntry() {
    ui.entry = ui.entry.map((v, i) => (locked(i) ? v : null));
    ui.unsure = ui.unsure.map(() => false);
    ui.extra = [];
    ui.from = ui.from.map(() => null);
    ui.notDice = new Set();
    ui.taken = new Set();
    dropPhoto();
    say("");
    render();
  }

  let busy = null;
  async function refresh() {
    // one fetch at a time; a call during a fetch waits for it and then fetches once more
    while (busy) await busy;
    busy = (async () => {
      const ok = await Becher.swap(live.dataset.part, "#live");
      if (ok) {
        const part = live.querySelector(".part");
        if (part) revision = Math.max(revision, Number(part.dataset.revision));
        setup();
      }
    })();
    try { await busy; } finally { busy = null; }
  }

  /* The second tap of a double tap on the send button may land after the page has redrawn, on a die or a face that
     now sits where the button was: it is the same gesture (the browser counts it as the second click), so it is
     dropped instead of opening the face dialog or keeping a die. */
  const DOUBLE_TAP_MS = 600;
  let sentAt = -Infinity;

  live.addEventListener("click", async (ev) => {
    const t = ev.target;
    if (t.closest(".send-throw, .choice")) sentAt = performance.now();
    else if (ev.detail > 1 && performance.now() - sentAt < DOUBLE_TAP_MS) return;
    const face = t.closest(".face-btn");
    if (face && ui) return put(Number(face.dataset.faceValue));
    const hold = t.closest(".hold-btn");
    if (hold && ui) return toggleHold(hold);
    const slot = t.closest(".entry-die");
    if (slot && ui) return correct(Number(slot.dataset.slot));
    const box = t.closest(".dbox");
    if (box && ui) return box.dataset.slot === "" ? takeIn(box) : correct(Number(box.dataset.slot), box);
    if (t.closest("#photo-whole") && ui) {
      ui.wholePhoto = !ui.wholePhoto;
      return layoutPhoto();
    }
    if (t.closest("#teach-dice") && ui) return teachDice();
    if (t.closest("#clear-dice") && ui) return clearEntry();
    if (t.closest("#live-camera")) return startCamera();
    if (t.closest("#snap")) return snap();
    const sendBtn = t.closest(".send-throw");
    if (sendBtn && ui) return sendThrow(sendBtn);
    const choice = t.closest(".choice");
    if (choice && choice.dataset.confirm && !choice.classList.contains("armed")) {
      // a zero costs 200 points: the first tap only asks, the second (within a few seconds) enters it
      const label = choice.querySelector("span") || choice;
      choice.dataset.label = label.textContent;
      label.textContent = choice.dataset.confirm;
      choice.classList.add("armed");
      choice.dataset.armedAt = String(performance.now());
      Becher.announce(choice.dataset.confirm);
      setTimeout(() => {
        if (!choice.isConnected || !choice.classList.contains("armed")) return;
        choice.classList.remove("armed");
        label.textContent = choice.dataset.label;
      }, 5000);
      return;
    }
    // a double tap is one gesture, not a second thought: the confirming tap must come apart from the first
    if (choice && choice.dataset.confirm && performance.now() - Number(choice.dataset.armedAt) < DOUBLE_TAP_MS) return;
    if (choice) return send(JSON.parse(choice.dataset.action));
    const undo = t.closest("[data-undo]");
    if (undo) {
      undo.disabled = true;
      try {
        await Becher.api("POST", `/api/games/${gameId}/undo`, { seen: Number(undo.dataset.seen), revision: Number(undo.dataset.revision) });
        Becher.toast(Becher.fmt(W.undone, { what: undo.dataset.what || "" }));
        Becher.announce(Becher.fmt(W.undone, { what: undo.dataset.what || "" }));
      } catch (e) {
        Becher.toast(Becher.describeError(e), true);
      }
      return refresh();
    }
    const rematch = t.closest("[data-rematch]");
    if (rematch) {
      rematch.disabled = true;
      try {
        const res = await Becher.api("POST", `/api/games/${gameId}/rematch`, {});
        goTo(`/${rematch.dataset.to === "table" ? "table" : "phone"}/${encodeURIComponent(res.game.id)}`);
      } catch (e) {
        rematch.disabled = false;
        Becher.toast(Becher.describeError(e), true);
      }
    }
  });

  live.addEventListener("change", (ev) => {
    if (ev.target.id === "photo-input" && ui) {
      const file = ev.target.files && ev.target.files[0];
      if (file) upload(file);
    }
  });

  live.addEventListener("submit", async (ev) => {
    const form = ev.target.closest("[data-join]");
    if (!form) return;
    ev.preventDefault();
    try {
      await Becher.api("POST", "/api/join", { code: form.querySelector("input").value });
      window.location.reload();
    } catch (e) {
      Becher.toast(Becher.describeError(e), true);
    }
  });

  // The rematch is reached twice on the device that pressed it: by its own answer and by the live event that tells
  // every device. One navigation only: a second one would abort the first halfway.
  let leaving = false;
  function goTo(url) {
    if (leaving) return;
    leaving = true;
    window.location.href = url;
  }

  Becher.follow(gameId, (data, what) => {
    if (what === "photo" && data && ui && data.photo && ui.photo === data.photo.id && !ui.reading && data.reading) {
      // a reading that came late (the reader took longer than the server waited)
      ui.reading = data.reading;
      showReading(data.photo, data.reading);
      render();
      return;
    }
    if (what !== "game" || !data) return;
    if (data.revision <= revision) return;
    const next = data.rematch || data.next_game;
    if (next) {
      // someone at the table started the rematch, or the table a new game after this one: this device follows into
      // it (the group stays in one game; the server kept its player where the name is the same)
      goTo(`/${live.dataset.view === "table" ? "table" : "phone"}/${encodeURIComponent(next)}`);
      return;
    }
    const part = live.querySelector(".part");
    const mine = part && Number(part.dataset.revision) >= data.revision;
    revision = data.revision;
    if (!mine) {
      refresh().then(() => {
        const p = live.querySelector(".part");
        if (p && p.dataset.announce) Becher.announce(p.dataset.announce);
      });
    }
  });

  const first = live.querySelector(".part");
  if (first) revision = Number(first.dataset.revision);
  setup();
})();
