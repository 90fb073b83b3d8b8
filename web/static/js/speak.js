/* The table speaks, if asked (issue 61): with "Read aloud" pressed, the tablet says each throw proposed from a photo
   (its dice and the hand they make) and, after each change of the game, what was done, the hand and whose turn it
   is, in the page's language, with the browser's own speech synthesis: no server voice, no network. Off until asked
   (remembered on this device); one tap mutes it again. The words come from the page (data-speak, /table/<id>/hand). */
"use strict";

(() => {
  const live = document.getElementById("live");
  if (!live) return;
  const synth = window.speechSynthesis;
  if (!synth || typeof window.SpeechSynthesisUtterance !== "function") return; // the button stays hidden
  const W = Becher.words;
  const KEY = "becher.speak";
  let on = false;
  try { on = localStorage.getItem(KEY) === "1"; } catch (e) { on = false; }

  /* The button sits in the live part, drawn again with every change: it is shown and set after each. */
  function show() {
    const button = document.getElementById("speak-toggle");
    if (!button) return;
    button.hidden = false;
    button.setAttribute("aria-pressed", on ? "true" : "false");
    const icon = button.querySelector(".speak-icon");
    if (icon) icon.src = on ? icon.dataset.on : icon.dataset.off;
  }
  function say(text) {
    if (!on || !text) return;
    synth.cancel(); // the newest news only: a queue of old turns would lag behind the table
    const u = new SpeechSynthesisUtterance(text);
    u.lang = document.documentElement.lang || "en";
    synth.speak(u);
  }
  live.addEventListener("click", (ev) => {
    if (!ev.target.closest("#speak-toggle")) return;
    on = !on;
    try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* kept for this page only */ }
    if (!on) synth.cancel();
    show();
    Becher.announce(on ? W.speak_on : W.speak_off);
  });
  show();

  /* Each new revision of the live part says its sentence once (the page as it loaded is not read out). */
  const part = () => live.querySelector(".part");
  let heard = part() ? part().dataset.revision : "";
  new MutationObserver(() => {
    show();
    const p = part();
    if (!p || p.dataset.revision === heard) return;
    heard = p.dataset.revision;
    say(p.dataset.speak);
  }).observe(live, { childList: true });

  /* A throw proposed from a photo (a phone's, or the table camera's): its dice, then the hand they make. */
  document.addEventListener("becher:photo", async (ev) => {
    const data = ev.detail;
    if (!on || !data || !data.reading || !Array.isArray(data.reading.dice) || !data.reading.dice.length) return;
    const dice = data.reading.dice;
    let hand = "";
    try {
      const values = dice.map((d) => d.value).join(",");
      const res = await fetch(`/table/${encodeURIComponent(live.dataset.game)}/hand?dice=${values}`, { credentials: "same-origin" });
      if (res.ok) hand = (await res.json()).hand || "";
    } catch (e) { hand = ""; }
    const words = Becher.fmt(W.speak_proposed, { dice: dice.map(Becher.faceLabel).join(" ") });
    say(hand ? `${words} ${hand}.` : words);
  });
})();
