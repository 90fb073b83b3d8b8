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
    if (forget) forget.hidden = !select.value;
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

  form.addEventListener("input", (ev) => {
    if (ev.target.name === "player") ev.target.removeAttribute("aria-invalid");
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
      err.textContent = Becher.describeError(e);
      err.hidden = false;
      // a name over the limit: the field that holds it is marked and gets the focus, its text untouched
      const long = lines.filter((l) => !l.hidden).map((l) => l.querySelector("input"))
        .find((input) => [...input.value.trim()].length > Number(input.dataset.limit || Infinity));
      if (long) { long.setAttribute("aria-invalid", "true"); long.setAttribute("aria-describedby", "new-error"); long.focus(); }
      else if (err.focus) err.focus();
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
