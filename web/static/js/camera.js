/* The table camera on the pages (routes under /api/camera, see docs/camera.md):
   - the camera page: preview, "check the view", profiles (save, use, delete), the quality issues in plain words;
   - the table: a live preview panel while a camera runs, watching the open game, a new turn when the player changes;
   - table and phone: the camera's proposed throw (SSE event "camera"), dice pictured, uncertain ones marked, a tap
     corrects a die, one tap confirms (or the table enters it at once when the proposal says auto and all is certain);
   - any page with the panel: this device's own camera as the table camera, posting frames.
   What the throw is sent as comes from the page (the game's own choice, rendered by the server). */
"use strict";

(() => {
  const W = Becher.words;
  const C = W.camera || {};
  const $ = (id) => document.getElementById(id);

  async function status() {
    const res = await Becher.api("GET", "/api/camera");
    return res.camera;
  }

  function issueText(issue) {
    return (C.issues && C.issues[issue.code]) || issue.message || issue.code;
  }

  function showIssues(list, issues) {
    if (!list) return;
    list.innerHTML = "";
    (issues || []).forEach((issue) => {
      const li = document.createElement("li");
      li.className = issue.blocking ? "blocking" : "";
      li.dataset.code = issue.code;
      li.textContent = issueText(issue);
      list.appendChild(li);
    });
  }

  function stateText(cam) {
    if (cam.error) return Becher.fmt(C.error, { what: cam.error });
    if (!cam.running && !cam.frames) return C.none;
    const word = (C.states && C.states[cam.state]) || cam.state;
    return cam.calibrated ? `${word} · ${Becher.fmt(C.profile, { name: cam.profile || "" })}` : `${word} · ${C.no_profile}`;
  }

  /* ------------------------------------------------------------ the live preview */

  function preview(img) {
    if (!img) return () => {};
    let loading = false;
    img.addEventListener("load", () => { loading = false; img.hidden = false; });
    img.addEventListener("error", () => { loading = false; img.hidden = true; });
    return () => {
      if (loading) return;
      loading = true;
      img.src = `/api/camera/preview.jpg?t=${Date.now()}`;
    };
  }

  /* ------------------------------------------------------------ this device as the table camera */

  const canUseCamera = !!(window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
  let feeding = false;

  async function feedFrames(video, onStatus) {
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: "environment", width: { ideal: 640 }, height: { ideal: 480 } }, audio: false,
      });
    } catch (e) {
      Becher.toast(W.camera_denied, true);
      return false;
    }
    video.srcObject = stream;
    video.hidden = false;
    await video.play();
    feeding = true;
    const canvas = document.createElement("canvas");
    let busy = false;
    const timer = setInterval(() => {
      if (busy || !video.videoWidth) return;
      busy = true;
      const scale = Math.min(1, 640 / video.videoWidth);
      canvas.width = Math.round(video.videoWidth * scale);
      canvas.height = Math.round(video.videoHeight * scale);
      canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
      const t = performance.now() / 1000; // when the frame was taken, so stillness is timed by the camera
      canvas.toBlob(async (blob) => {
        try {
          if (blob) {
            const res = await Becher.api("POST", "/api/camera/frame", blob, true,
              { "Content-Type": "image/jpeg", "X-Frame-Time": t.toFixed(3) });
            if (onStatus) onStatus(res.camera);
          }
        } catch (e) {
          if (e.code === "camera_busy") {
            clearInterval(timer);
            stream.getTracks().forEach((tr) => tr.stop());
            video.hidden = true;
            feeding = false;
          }
          Becher.toast(Becher.describeError(e), true);
        } finally {
          busy = false;
        }
      }, "image/jpeg", 0.8);
    }, 150);
    Becher.toast(C.feeding);
    return true;
  }

  function offerDeviceCamera(onStatus) {
    const btn = $("device-camera");
    const video = $("device-video");
    if (!btn || !video) return;
    if (!canUseCamera) {
      const why = $("device-no-camera");
      if (why) why.hidden = false;
      return;
    }
    btn.hidden = false;
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      if (!(await feedFrames(video, onStatus))) btn.disabled = false;
    });
  }

  /* ------------------------------------------------------------ the camera page: check, profiles */

  function setupPage() {
    const refresh = preview($("cam-preview"));
    const none = $("cam-none");
    async function poll() {
      try {
        const cam = await status();
        $("cam-state").textContent = stateText(cam);
        showIssues($("cam-issues"), cam.issues);
        if (cam.frames || cam.running) { refresh(); if (none) none.hidden = true; }
      } catch (e) { /* the next poll tries again */ }
    }
    poll();
    setInterval(poll, 500);
    offerDeviceCamera(null);

    const result = $("cam-check-result");
    $("cam-check").addEventListener("click", async () => {
      result.hidden = false;
      result.classList.remove("error");
      try {
        const res = await Becher.api("POST", "/api/camera/check");
        const mat = res.mat;
        if (!mat) {
          result.classList.add("error");
          result.textContent = C.no_mat;
          return;
        }
        let text = Becher.fmt(C.markers, {
          seen: mat.markers.length, expected: mat.expected, paper: mat.paper === "letter" ? "Letter" : "A4",
          error: mat.error_mm.toFixed(1),
        });
        if (mat.covered) { text += " " + C.covered; result.classList.add("error"); }
        result.textContent = text;
        result.dataset.markers = String(mat.markers.length);
      } catch (e) {
        result.classList.add("error");
        result.textContent = e.code === "no_frame" ? C.no_frame : Becher.describeError(e);
      }
    });

    const list = $("cam-profiles");
    async function profiles() {
      const res = await Becher.api("GET", "/api/camera/profiles");
      list.innerHTML = "";
      $("cam-profiles-none").hidden = res.profiles.length > 0;
      res.profiles.forEach((p) => {
        const li = document.createElement("li");
        li.dataset.profile = p.name;
        const what = document.createElement("span");
        what.className = "what";
        const name = document.createElement("strong");
        name.textContent = p.name;
        const note = document.createElement("span");
        note.className = "muted";
        const paper = p.paper ? Becher.fmt(C.on_mat, { paper: p.paper === "letter" ? "Letter" : "A4" }) : C.without_mat;
        note.textContent = ` · ${paper}${p.name === res.current ? " · " + C.in_use : ""}`;
        what.append(name, note);
        const use = document.createElement("button");
        use.type = "button";
        use.className = "small";
        use.textContent = C.use;
        use.setAttribute("aria-label", `${C.use}: ${p.name}`);
        use.disabled = p.name === res.current;
        use.addEventListener("click", async () => {
          try { await Becher.api("POST", `/api/camera/profiles/${encodeURIComponent(p.name)}/use`, {}); }
          catch (e) { Becher.toast(Becher.describeError(e), true); }
          profiles();
        });
        const del = document.createElement("button");
        del.type = "button";
        del.className = "small warn";
        del.textContent = C.delete;
        del.setAttribute("aria-label", `${C.delete}: ${p.name}`);
        del.addEventListener("click", async () => {
          try { await Becher.api("DELETE", `/api/camera/profiles/${encodeURIComponent(p.name)}`); }
          catch (e) { Becher.toast(Becher.describeError(e), true); }
          profiles();
        });
        li.append(what, use, del);
        list.appendChild(li);
      });
    }
    profiles().catch(() => {});

    $("cam-save").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const name = $("profile-name").value.trim();
      if (!name) return;
      try {
        await Becher.api("POST", "/api/camera/profiles", { name, none: $("profile-none").checked });
        Becher.toast(Becher.fmt(C.saved, { name }));
      } catch (e) {
        const known = { no_mat: C.no_mat, mat_covered: C.covered, no_frame: C.no_frame };
        Becher.toast(known[e.code] || Becher.describeError(e), true);
      }
      profiles().catch(() => {});
    });
  }

  /* ------------------------------------------------------------ the table: live panel, watch, turns */

  let watching = false; // this page asked for the game's proposals: it also enters auto-confirmed ones

  function setupPanel(panel) {
    const gameId = panel.dataset.game;
    const refresh = preview($("cam-preview"));
    const auto = $("cam-auto");
    const key = "becher_cam_auto";
    auto.checked = localStorage.getItem(key) === "1";
    let lastFrames = 0;
    let lastSeen = 0;
    let mover = null;
    let asked = false;
    const take = $("cam-take");
    take.addEventListener("click", () => { watch(); take.hidden = true; });

    async function watch() {
      try {
        await Becher.api("POST", "/api/camera/watch", { game: gameId, auto_confirm: auto.checked });
        watching = true;
      } catch (e) { Becher.toast(Becher.describeError(e), true); }
    }
    function show(cam) {
      if (cam.frames > lastFrames) lastSeen = Date.now();
      lastFrames = cam.frames;
      const active = cam.running || feeding || Date.now() - lastSeen < 10000; // frames came in the last 10 s
      panel.classList.toggle("active", !!active);
      $("cam-state").textContent = stateText(cam);
      showIssues($("cam-issues"), active ? cam.issues : []);
      if (active) refresh();
      // watch this game once by itself; if another table took the camera since, offer to take it back (two tables
      // of different games would otherwise take it from each other every second)
      if (active && cam.game !== gameId && !asked) { asked = true; watch(); }
      take.hidden = !(active && cam.game && cam.game !== gameId);
      if (!take.hidden) $("cam-state").textContent += ` · ${C.other_game}`;
    }
    async function poll() {
      try { show(await status()); } catch (e) { /* next time */ }
    }
    poll();
    setInterval(poll, 1000);
    auto.addEventListener("change", () => {
      localStorage.setItem(key, auto.checked ? "1" : "0");
      if (watching) watch();
    });
    offerDeviceCamera((cam) => { if (cam.game !== gameId && !watching) watch(); });

    document.addEventListener("becher:game", (ev) => {
      const game = ev.detail;
      const next = game && game.state ? game.state.to_move : null;
      if (mover !== null && next !== mover && watching) {
        Becher.api("POST", "/api/camera/turn", {}).catch(() => {}); // the next throw is a first throw
      }
      mover = next;
    });
  }

  /* ------------------------------------------------------------ the proposal: see, correct, confirm */

  function setupProposal(box) {
    const live = $("live");
    const gameId = live.dataset.game;
    const kind = box.dataset.kind;
    const faces = box.dataset.faces.split(" ");
    const faceUrl = (v) => `${box.dataset.faceBase}${kind === "poker" ? "poker" : "pip"}-${faces[v - 1]}.svg`;
    let current = null;

    function hide() { box.hidden = true; current = null; }

    /* Positions to propose: all of them, or with more dice in view than the throw has the held and then the surest,
       in their order on the table. */
    function surest(p, count) {
      if (p.dice.length <= count || !Array.isArray(p.confidence)) return p.dice.map((_, pos) => pos);
      const held = new Set(p.held || []);
      const unsure = new Set(p.uncertain || []);
      const dice = p.dice.map((_, pos) => ({ held: held.has(pos), uncertain: unsure.has(pos), confidence: p.confidence[pos] }));
      return Becher.surest(dice, count);
    }

    function render() {
      const row = $("cam-dice");
      row.innerHTML = "";
      current.dice.forEach((v, i) => {
        const b = document.createElement("button");
        b.type = "button";
        const held = current.held.includes(i);
        const unsure = current.uncertain.has(i);
        b.className = "die-btn cam-die" + (unsure ? " uncertain" : "") + (held ? " held" : "") + (current.fixed.has(i) ? " fixed" : "");
        b.dataset.pos = String(i);
        b.dataset.value = String(v);
        b.setAttribute("aria-label", `${Becher.fmt(W.die_n, { n: i + 1 })}: ${faces[v - 1]}${held ? ", " + W.held : ""}${unsure ? ", " + W.uncertain : ""}`);
        const img = document.createElement("img");
        img.src = faceUrl(v);
        img.alt = "";
        b.appendChild(img);
        if (held) b.disabled = true;
        row.appendChild(b);
      });
      const n = current.uncertain.size;
      const note = [Becher.fmt(C.throw_n, { n: current.throw })];
      if (n) note.push(Becher.fmt(C.uncertain_n, { n })); else note.push(C.certain);
      if (current.wrongCount) note.push(Becher.plural(W.need_dice, current.count));
      else if (current.found > current.count) note.push(Becher.plural(W.more_dice, current.found, { n: current.count }));
      $("cam-proposal-note").textContent = note.join(" · ");
      $("cam-confirm").disabled = !!current.wrongCount;
    }

    async function confirm() {
      if (!current) return;
      const part = live.querySelector(".part");
      const mark = live.querySelector(".camera-throw");
      if (!part || !mark) { hide(); return; }
      const action = JSON.parse(mark.dataset.action);
      const needs = (mark.dataset.needs || "").split(" ");
      if (needs.includes("dice")) action.dice = current.dice.slice();
      if (needs.includes("held")) action.held = current.held.slice();
      const body = { seen: Number(part.dataset.seen), revision: Number(part.dataset.revision), action };
      if (current.photo) body.photo = current.photo;
      $("cam-confirm").disabled = true;
      try {
        await Becher.api("POST", `/api/games/${gameId}/actions`, body);
        Becher.toast(C.confirmed);
        Becher.announce(C.confirmed);
        hide();
      } catch (e) {
        Becher.toast(Becher.describeError(e), true);
        $("cam-confirm").disabled = false;
      }
    }

    document.addEventListener("becher:camera", (ev) => {
      const p = ev.detail;
      if (!p || p.game !== gameId) return;
      const part = live.querySelector(".part");
      const mark = live.querySelector(".camera-throw");
      if (!part || !mark) return; // no throw may be made now
      const me = part.dataset.me;
      if (me !== undefined && me !== "" && me !== mark.dataset.player) return; // another player's phone
      const count = Number(mark.dataset.count || 5);
      const keep = surest(p, count);
      const at = new Map(keep.map((pos, i) => [pos, i]));
      current = {
        dice: keep.map((pos) => p.dice[pos]),
        held: (p.held || []).filter((pos) => at.has(pos)).map((pos) => at.get(pos)),
        uncertain: new Set((p.uncertain || []).filter((pos) => at.has(pos)).map((pos) => at.get(pos))),
        fixed: new Set(), photo: p.photo, throw: p.throw, count, found: p.dice.length,
        wrongCount: keep.length !== count, revision: Number(part.dataset.revision),
      };
      showIssues($("cam-proposal-issues"), p.issues);
      const link = $("cam-photo");
      if (p.photo) { link.href = `/photo/${p.photo}`; link.hidden = false; } else link.hidden = true;
      box.hidden = false;
      render();
      Becher.announce(Becher.fmt(C.proposed, { dice: current.dice.map((v) => faces[v - 1]).join(" ") }));
      if (p.auto && current.uncertain.size === 0 && !current.wrongCount && current.found === count && watching) confirm();
    });

    document.addEventListener("becher:game", (ev) => {
      // the game moved on (this throw entered, or anything else): the proposal is no longer the question
      if (current && ev.detail && ev.detail.revision > current.revision) hide();
    });

    box.addEventListener("click", (ev) => {
      const die = ev.target.closest(".cam-die");
      if (die && current) {
        const i = Number(die.dataset.pos);
        current.dice[i] = (current.dice[i] % 6) + 1; // a tap shows the next face
        current.uncertain.delete(i);
        current.fixed.add(i);
        render();
        const again = box.querySelector(`.cam-die[data-pos="${i}"]`);
        if (again) again.focus();
        return;
      }
      if (ev.target.closest("#cam-confirm")) confirm();
      if (ev.target.closest("#cam-dismiss")) hide();
    });
  }

  if ($("camera-setup")) setupPage();
  const panel = $("cam-panel");
  if (panel) setupPanel(panel);
  const box = $("cam-proposal");
  if (box && $("live")) setupProposal(box);
})();
