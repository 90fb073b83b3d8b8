/* Players page: rename an entry, or merge two entries of one person, through the API; the page then reloads. */
"use strict";

(() => {
  const err = document.getElementById("players-error");
  async function send(path, body) {
    err.hidden = true;
    try {
      await Becher.api("POST", path, body);
      window.location.reload();
    } catch (e) {
      err.textContent = Becher.describeError(e);
      err.hidden = false;
      err.scrollIntoView({ block: "nearest" });
    }
  }
  document.querySelectorAll("form.rename").forEach((form) => {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      send(`/api/players/${form.dataset.player}`, { name: form.elements.name.value });
    });
  });
  document.querySelectorAll("form.merge").forEach((form) => {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      send(`/api/players/${form.dataset.player}/merge`, { into: Number(form.elements.into.value) });
    });
  });
})();
