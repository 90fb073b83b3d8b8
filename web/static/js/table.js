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
})();
