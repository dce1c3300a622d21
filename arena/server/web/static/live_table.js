// A live table: the game's server-sent events, each a whole snapshot of what this page may see (the server
// leaves out every hidden card unless this viewer may see the hands: arena/server/live.py), drawn on the
// replay's felt. When the game is stored the page fetches its replay and opens it in the report's viewer.
"use strict";
(function () {
  const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠", N: "NT" };
  const line = document.getElementById("live-line");
  if (!line) return;
  const id = line.dataset.game;
  const received = [];  // every event this page got, for the tests (what left the server)
  const live = { received, last: null, stored: null, error: null };
  window.arenaLive = live;

  function esc(s) { return String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";"); }
  function card(code, extra) {
    if (code === "JKR") return `<span class="card joker ${extra || ""}" data-card="JKR">★<small>Joker</small></span>`;
    const rank = code[0] === "T" ? "10" : code[0], suit = code[1], red = suit === "D" || suit === "H";
    return `<span class="card ${red ? "red" : ""} ${extra || ""}" data-card="${esc(code)}">${rank}${SUIT[suit] || ""}</span>`;
  }
  function backs(k) { return Array.from({ length: Math.max(0, k) }, () => '<span class="card back" aria-label="hidden card">▮</span>').join(""); }

  function render(s) {
    const H = s.hand, n = s.seats.length, felt = document.getElementById("live-table");
    const played = new Array(n).fill(0);
    for (const a of H.actions) if (a.text.startsWith("PLAY(")) played[a.seat] += 1;
    const rx = felt.clientWidth < 520 ? 34 : 40;
    let html = "";
    for (let i = 0; i < n; i++) {
      const angle = Math.PI / 2 + i * 2 * Math.PI / n;
      const x = 50 + rx * Math.cos(angle), y = 50 + 38 * Math.sin(angle);
      const roles = [];
      if (i === H.dealer) roles.push('<span class="role">dealer</span>');
      if (i === H.maker) roles.push('<span class="role maker">maker</span>');
      if (i === H.partner) roles.push('<span class="role partner">partner</span>');
      const cards = s.hands ? s.hands[i].map((c) => card(c)).join("") : backs(5 - played[i]);
      html += `<div class="pseat" data-seat="${i}" style="left:${x}%;top:${y}%"><div class="who">${esc(s.seats[i])} <span class="meta">seat ${i}</span> ${roles.join("")}</div>` +
        `<div class="meta">score ${s.scores[i]}${H.tricks_won[i] ? ` · tricks ${H.tricks_won[i]}` : ""}</div><div class="hand" data-hand-of="${i}">${cards}</div></div>`;
      const shown = H.trick.length ? H.trick : (H.last_trick ? H.last_trick.plays : []);
      const play = shown.find((p) => p.seat === i);
      if (play) {
        const win = !H.trick.length && H.last_trick && H.last_trick.winner === i;
        html += `<div class="trick" style="left:${50 + 17 * Math.cos(angle)}%;top:${50 + 17 * Math.sin(angle)}%">${card(play.card, "big" + (win ? " win" : ""))}</div>`;
      }
    }
    let centre = "";
    if (H.up && !H.trick.length && !H.last_trick) centre += `<div class="label">up-card</div>${card(H.up, "big")}`;
    if (H.exposed) centre += `<div class="label">exposed</div>${card(H.exposed)}`;
    if (H.trump) centre += `<div class="label">trump ${esc(SUIT[H.trump] || H.trump)}</div>`;
    if (H.called) centre += `<div class="label">called</div>${card(H.called)}`;
    if (s.ended) centre += `<div class="final"><strong>Game over</strong></div>`;
    felt.innerHTML = html + `<div class="centre">${centre}</div>`;
    const done = H.tricks_won.reduce((a, b) => a + b, 0);
    const status = [`<strong>Hand ${H.index + 1}</strong> · dealer ${esc(s.seats[H.dealer])}`, `scores: ${s.scores.join(" / ")}`];
    if (H.maker !== null) status.push(`maker ${esc(s.seats[H.maker])}${H.trump ? `, trump ${esc(SUIT[H.trump] || H.trump)}` : ""}${H.alone ? ", alone" : ""}`);
    if (H.actions.some((a) => a.text.startsWith("PLAY("))) status.push(`trick ${Math.min(done + (H.trick.length ? 1 : 0), 5)} of 5`);
    for (const d of s.hands_done.slice(-3)) status.push(`hand ${d.index + 1}: ${esc(d.outcome)}, points ${d.points.join(" / ")}`);
    document.getElementById("live-status").innerHTML = status.join("<br>");
    const log = document.getElementById("live-log");
    log.innerHTML = H.actions.map((a, k) => `<li class="${k === H.actions.length - 1 ? "now" : ""}">${esc(s.seats[a.seat])}: ${esc(a.text)}</li>`).join("");
    log.scrollTop = log.scrollHeight;
    line.textContent = `${s.seats.join(", ")} · hand ${H.index + 1} · scores ${s.scores.join(" / ")}${s.hands ? " · you see every seat's cards" : ""}`;
    line.dataset.seq = s.seq;
  }

  // The game is stored: its page has the replay (the same the game page shows); open it here.
  async function replay(url) {
    const reply = await fetch(url, { credentials: "same-origin" });
    const page = new DOMParser().parseFromString(await reply.text(), "text/html");
    const data = page.getElementById("replay-data");
    document.getElementById("replay-data").textContent = data ? data.textContent : "";
    const script = document.createElement("script");
    script.src = "/static/replay.js";
    script.onload = async () => {
      await window.arenaReplay.ready;
      const game = window.arenaReplay.data().games[0];
      await window.arenaReplay.open(game.n, document.getElementById("live-line"));
      window.arenaReplay.go("game-end");
      live.stored = game.id;
      document.getElementById("live-conn").innerHTML = `game over: <a href="${esc(url)}">its page</a>`;
    };
    document.body.appendChild(script);
  }

  const source = new EventSource(`/live/${encodeURIComponent(id)}/events`);
  const conn = document.getElementById("live-conn");
  function on(kind) {
    source.addEventListener(kind, (e) => {
      received.push({ kind, data: e.data });
      const s = JSON.parse(e.data);
      live.last = s;
      if (kind === "end") {
        source.close();
        if (s.ended && s.ended.url) replay(s.ended.url);
        else conn.textContent = "this game was not stored (the ladder lost it)";
        return;
      }
      conn.textContent = kind === "resync" ? "caught up (some moves were skipped)" : "live";
      render(s);
    });
  }
  ["snapshot", "move", "resync", "end"].forEach(on);
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED && !live.stored) {
      live.error = "closed";
      conn.textContent = "the stream was refused or the game is over: reload the page, or see the recent games";
    }
  };
})();
