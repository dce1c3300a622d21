// Live pages without a framework: the leaderboard's rows (with its state line) are fetched again every few
// seconds and swapped in, and its recent games when the games count moved (the page also reloads itself
// every 30 s when scripts are off); a game page opens its replay on request.
"use strict";
(function () {
  // The recent games are fetched only when the games count has moved, and marked with the count they were
  // fetched for only once swapped in: a failed fetch is tried again at the next tick.
  async function recent(count) {
    const reply = await fetch("/leaderboard/recent", { credentials: "same-origin" });
    if (!reply.ok) return;
    const holder = document.createElement("div");
    holder.innerHTML = await reply.text();  // our own server-rendered, escaped fragment
    const fresh = holder.querySelector("#recent-games");
    if (!fresh) return;
    fresh.dataset.games = count;
    document.getElementById("recent-games").replaceWith(fresh);
  }
  const rows = document.getElementById("board-rows");
  if (rows) {
    setInterval(async () => {
      try {
        const reply = await fetch("/leaderboard/rows", { credentials: "same-origin" });
        if (!reply.ok) return;
        const holder = document.createElement("table");
        holder.innerHTML = await reply.text();  // our own server-rendered, escaped fragment
        const fresh = holder.querySelector("tbody");
        if (fresh) document.getElementById("board-rows").replaceWith(fresh);
        const state = fresh && fresh.querySelector("tr.state");
        const line = document.getElementById("ladder-state");
        if (state && line) {
          line.dataset.games = state.dataset.games;
          line.textContent = state.dataset.line;  // games played, bots on the ladder, playing now
        }
        const verdict = document.getElementById("board-verdict");
        if (state && verdict) verdict.textContent = state.dataset.sentence;  // who is first, the tiers
        const games = document.getElementById("recent-games");
        if (state && games && games.dataset.games !== state.dataset.games) await recent(state.dataset.games);
      } catch (e) { /* the server restarts: try again at the next tick */ }
    }, 4000);
  }
  const button = document.getElementById("open-replay");
  if (button && window.arenaReplay) {
    button.hidden = false;
    button.addEventListener("click", () => window.arenaReplay.ready.then(() => window.arenaReplay.open(window.arenaReplay.data().games[0].n)));
  }
})();
