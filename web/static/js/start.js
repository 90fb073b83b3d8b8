/* Start page: new game through the API, join by code, import a log. */
"use strict";

(() => {
  const form = document.getElementById("new-game");
  const lines = Array.from(document.querySelectorAll(".player-line"));
  const err = document.getElementById("new-error");

  function chosen() {
    return form.querySelector('input[name="game"]:checked');
  }
  function visible() {
    return lines.filter((l) => !l.hidden).length;
  }
  function setCount(n) {
    lines.forEach((l, i) => {
      l.hidden = i >= n;
    });
    refresh();
  }
  function refresh() {
    const g = chosen();
    const lo = Number(g.dataset.min), hi = Number(g.dataset.max);
    document.getElementById("add-player").disabled = visible() >= hi;
    document.getElementById("remove-player").disabled = visible() <= Math.max(lo, 1);
    document.querySelectorAll(".game-settings").forEach((fs) => {
      const on = fs.dataset.game === g.value;
      fs.hidden = !on;
      fs.disabled = !on;
    });
    showDiceSets();
  }

  /* Saved dice sets (issue 52): offered where there are any of the kind of dice the chosen game is played with (a
     pip set says nothing of poker dice); with none saved the choice stays hidden. */
  const pick = document.getElementById("dice-set-pick");
  const select = document.getElementById("dice-set");
  let diceSets = [];
  function diceKind() {
    const g = chosen();
    const field = g && document.getElementById(`set-${g.value}-dice`);
    return field ? field.value : "pip";
  }
  function showDiceSets() {
    if (!pick || !select) return;
    const kind = diceKind();
    let any = false;
    [...select.options].forEach((o) => {
      if (!o.value) return;
      const fits = o.dataset.kind === kind;
      o.hidden = !fits;
      o.disabled = !fits;
      any = any || fits;
    });
    if (select.selectedOptions[0] && select.selectedOptions[0].disabled) select.value = "";
    pick.hidden = !any;
    const forget = document.getElementById("dice-set-forget");
    const chosenSet = select.selectedOptions[0];
    // only the device that saved a set may forget it; a set met at a joined game is only offered (issue 60)
    if (forget) forget.hidden = !select.value || !chosenSet || chosenSet.dataset.mine !== "true";
  }
  /* A saved set is forgotten by the device that saved it (the server refuses the others, in words). */
  async function forgetDiceSet() {
    const id = select.value;
    if (!id) return;
    try {
      await Becher.api("DELETE", `${pick.dataset.url}/${id}`);
    } catch (e) {
      Becher.toast(Becher.describeError(e), true);
      return;
    }
    const option = select.querySelector(`option[value="${id}"]`);
    if (option) option.remove();
    select.value = "";
    Becher.toast(Becher.words.dice_set_forgotten);
    showDiceSets();
  }
  async function loadDiceSets() {
    if (!select || !pick.dataset.url) return;
    try {
      diceSets = (await Becher.api("GET", pick.dataset.url)).sets || [];
    } catch (e) {
      diceSets = []; // no sets, or a server that keeps none: the game starts with new dice
    }
    diceSets.forEach((set) => {
      const o = document.createElement("option");
      o.value = String(set.id);
      o.dataset.kind = set.kind;
      o.dataset.mine = String(set.mine !== false);
      o.textContent = Becher.fmt(Becher.words.dice_set_option, { name: set.name, n: set.seen });
      select.appendChild(o);
    });
    showDiceSets();
  }
  const forgetBtn = document.getElementById("dice-set-forget");
  if (forgetBtn) forgetBtn.addEventListener("click", forgetDiceSet);
  form.addEventListener("change", (ev) => {
    if (ev.target.id && (ev.target.id.endsWith("-dice") || ev.target.id === "dice-set")) showDiceSets();
    if (ev.target.name === "game") {
      const g = chosen();
      const lo = Number(g.dataset.min), hi = Number(g.dataset.max);
      const n = visible();
      if (n < lo || n > hi) setCount(Math.min(Math.max(n, lo), hi));
      else refresh();
    }
  });
  document.getElementById("add-player").addEventListener("click", () => {
    setCount(visible() + 1);
    const line = lines[visible() - 1];
    if (line) line.querySelector("input").focus();
  });
  document.getElementById("remove-player").addEventListener("click", () => setCount(visible() - 1));

  /* A name over the limit is said next to its own field, the name quoted whole (or cut after a whole word), and
     the field keeps what was typed: the field's maxlength stops typing at the limit, and a longer name pasted is
     kept whole and marked, never cut without a word. */
  const chars = (text) => [...text].length;
  function quoted(name) {
    const room = 60;
    if (chars(name) <= room) return `“${name}”`;
    const cut = [...name].slice(0, room).join("");
    const at = Math.max(cut.lastIndexOf(" "), cut.lastIndexOf("-") + 1);
    return `“${(at > 0 ? cut.slice(0, at) : cut).trim()}…”`;
  }
  function fieldError(input, text) {
    const box = document.getElementById(`${input.id}-error`);
    if (!box) return false;
    box.textContent = text || "";
    box.hidden = !text;
    if (text) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", box.id);
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
    return true;
  }
  function tooLong(input) {
    const limit = Number(input.dataset.limit || Infinity);
    const name = input.value.trim();
    return chars(name) > limit ? Becher.fmt(Becher.words.name_too_long, { n: limit, name: quoted(name) }) : "";
  }
  form.addEventListener("paste", (ev) => {
    const input = ev.target;
    if (input.name !== "player" || !ev.clipboardData) return;
    const text = ev.clipboardData.getData("text").replace(/[\r\n]+/g, " ");
    const whole = input.value.slice(0, input.selectionStart) + text + input.value.slice(input.selectionEnd);
    if (chars(whole.trim()) <= Number(input.dataset.limit || Infinity)) return;
    ev.preventDefault();
    input.value = whole; // set from the script, past the maxlength: the person sees what they pasted
    fieldError(input, tooLong(input));
  });
  form.addEventListener("beforeinput", (ev) => {
    // typing stopped by the maxlength is said too, next to the field: the name is never cut without a word
    const input = ev.target;
    if (input.name !== "player" || !ev.inputType.startsWith("insert") || input.selectionStart !== input.selectionEnd) return;
    const limit = Number(input.dataset.limit || Infinity);
    if (chars(input.value) < limit) return;
    const typed = input.value + (ev.data || "");
    fieldError(input, Becher.fmt(Becher.words.name_too_long, { n: limit, name: quoted(typed) }));
  });
  form.addEventListener("input", (ev) => {
    if (ev.target.name === "player") fieldError(ev.target, tooLong(ev.target));
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    err.hidden = true;
    const game = chosen().value;
    const players = lines
      .filter((l) => !l.hidden)
      .map((l) => {
        const input = l.querySelector("input");
        return input.value.trim() || input.placeholder;
      });
    const settings = {};
    const fs = form.querySelector(`.game-settings[data-game="${game}"]`);
    if (fs) {
      fs.querySelectorAll("[data-kind]").forEach((el) => {
        if (el.dataset.kind === "bool") settings[el.name] = el.checked;
        else if (el.dataset.kind === "int") settings[el.name] = Number(el.value);
        else settings[el.name] = el.value;
      });
    }
    try {
      const bound = document.getElementById("bound-seats");
      const body = { game, players, settings, bound_seats: bound ? bound.checked : true };
      if (select && !pick.hidden && select.value) body.dice_set = Number(select.value);
      if (form.dataset.after) body.after = form.dataset.after; // the last game's phones follow this one
      const res = await Becher.api("POST", "/api/games", body);
      window.location.href = `/table/${res.game.id}`;
    } catch (e) {
      // a name over the limit: the message goes next to the field that holds it, which gets the focus, its text
      // untouched; any other refusal is said by the Start button
      const long = lines.filter((l) => !l.hidden).map((l) => l.querySelector("input")).find((input) => tooLong(input));
      if (long && fieldError(long, Becher.describeError(e))) {
        long.focus();
        long.scrollIntoView({ block: "center" });
        return;
      }
      err.textContent = Becher.describeError(e);
      err.hidden = false;
      if (err.focus) err.focus();
    }
  });

  document.getElementById("join-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const box = document.getElementById("join-error");
    box.hidden = true;
    try {
      const res = await Becher.api("POST", "/api/join", { code: document.getElementById("join-code").value });
      window.location.href = `/phone/${res.game.id}`;
    } catch (e) {
      box.textContent = Becher.describeError(e);
      box.hidden = false;
    }
  });

  const imp = document.querySelector('#import-game input[type="file"]');
  imp.addEventListener("change", async () => {
    const file = imp.files && imp.files[0];
    if (!file) return;
    const fd = new FormData();
    fd.append("log", file);
    try {
      const res = await Becher.api("POST", "/api/games/import", fd, true);
      window.location.href = `/table/${res.game.id}`;
    } catch (e) {
      Becher.toast(Becher.describeError(e), true);
    }
  });

  refresh();
  loadDiceSets();
})();
