/* Start page: a tap on a player from earlier games puts the name on the first free seat (adding a seat when every
   shown one is taken and the game allows more); a name already seated is not seated twice. */
"use strict";

(() => {
  const lines = () => Array.from(document.querySelectorAll(".player-line"));
  document.querySelectorAll("button.known").forEach((button) => {
    button.addEventListener("click", () => {
      const name = button.dataset.name;
      const shown = lines().filter((l) => !l.hidden).map((l) => l.querySelector("input"));
      if (shown.some((input) => input.value.trim().toLowerCase() === name.toLowerCase())) return;
      let free = shown.find((input) => !input.value.trim());
      if (!free) {
        const add = document.getElementById("add-player");
        if (add.disabled) return;
        add.click();
        free = lines().filter((l) => !l.hidden).map((l) => l.querySelector("input")).find((i) => !i.value.trim());
      }
      if (free) {
        free.value = name;
        free.dispatchEvent(new Event("input", { bubbles: true }));
        Becher.announce(name);
      }
    });
  });
})();
