// Live pages without a framework: the leaderboard's rows are fetched again every few seconds and swapped in
// (the page also reloads itself every 30 s when scripts are off); a game page opens its replay on request.
"use strict";
(function () {
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
      } catch (e) { /* the server restarts: try again at the next tick */ }
    }, 4000);
  }
  const button = document.getElementById("open-replay");
  if (button && window.arenaReplay) {
    button.hidden = false;
    button.addEventListener("click", () => window.arenaReplay.ready.then(() => window.arenaReplay.open(window.arenaReplay.data().games[0].n)));
  }
})();
