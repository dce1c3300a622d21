// The report's page behaviour: the rating plot (Vega-Lite, compiled in the page), the fault and game filters,
// and opening a game's replay from the lists or from the address (#game=N).
"use strict";
(function () {
  async function plot() {
    const spec = JSON.parse(document.getElementById("rating-spec").textContent);
    const box = document.getElementById("rating-plot");
    if (box.clientWidth < 600) spec.config.legend = { orient: "bottom", columns: 2, labelLimit: 140 };
    const compiled = vegaLite.compile(spec).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: "svg", container: "#rating-plot", hover: true });
    window.ratingView = view;
    await view.runAsync();
    const pick = document.getElementById("rating-pick");
    pick.addEventListener("change", () => view.signal("focus", pick.value).runAsync());
    return view;
  }

  function filterRows(table, tests) {
    let shown = 0;
    document.querySelectorAll(`#${table} tbody tr`).forEach((tr) => {
      const ok = tests.every(([attr, value]) => !value || tr.dataset[attr] === value ||
        (attr === "seats" && tr.dataset.seats.split("|").includes(value)));
      tr.hidden = !ok;
      shown += ok;
    });
    return shown;
  }

  function faultFilter() {
    const entrant = document.getElementById("fault-entrant"), kind = document.getElementById("fault-kind");
    if (!entrant) return;
    const apply = () => {
      const shown = filterRows("fault-table", [["entrant", entrant.value], ["kind", kind.value]]);
      document.getElementById("fault-count").textContent = `${shown} shown`;
    };
    entrant.addEventListener("change", apply);
    kind.addEventListener("change", apply);
    apply();
  }

  // The list is drawn from the packed replays, so a 2,000-game event does not carry its games twice.
  async function gameList() {
    await window.arenaReplay.ready;
    const esc = (t) => String(t).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
    const rows = window.arenaReplay.data().games.map((g) => {
      const seats = g.seats.map((s, i) => {
        const won = g.ranks[i] === 1, out = g.forfeited.includes(i);
        return `<span class="seat${won ? " won" : ""}${out ? " forfeit" : ""}">${esc(s)} ${g.scores[i]}${won ? "★" : ""}${out ? " F" : ""}</span>`;
      }).join("");
      const tags = (g.forfeited.length ? '<span class="tag bad">forfeit</span>' : "") + (g.rated ? "" : '<span class="tag">void</span>') +
        (g.termination !== "target_reached" ? `<span class="tag">${esc(g.termination.replace(/_/g, " "))}</span>` : "");
      return `<tr class="open-game" data-n="${g.n}" data-seats="${esc(g.seats.join("|"))}">` +
        `<td><a href="#game-${esc(g.id)}">${esc(g.id)}</a></td><td class="num">${g.round}</td><td>${seats}</td>` +
        `<td class="num">${g.hands.length}</td><td class="num">${g.faults.length || ""}</td><td>${tags}</td></tr>`;
    });
    const body = document.querySelector("#game-table tbody");
    body.innerHTML = rows.join("");
    body.querySelectorAll(".open-game").forEach(opener);
  }

  function gameFilter() {
    const entrant = document.getElementById("game-entrant");
    entrant.addEventListener("change", () => filterRows("game-table", [["seats", entrant.value]]));
  }

  // A game opens from its row (click, or Enter on its link); closing the replay gives focus back to that
  // link, so the reader keeps their place in the list.
  function opener(el) {
    el.addEventListener("click", (e) => {
      e.preventDefault();
      const back = el.tagName === "A" ? el : el.querySelector("a") || el;
      window.arenaReplay.open(+el.dataset.n, back);
    });
  }

  // #game-r001-t01 opens that game (a game is named by its id, as in arena games and arena replay),
  // #game-r001-t01/step-40 its 41st step (counted over the whole game, as the scrubber counts). The older
  // links by number, #game-12 and #game=12, still open the game of that place in the schedule.
  function fromAddress() {
    const m = /^#game[-=]([\w.+-]+?)(?:\/step-(\d+))?$/.exec(location.hash);
    if (!m) return;
    const key = /^\d+$/.test(m[1]) ? +m[1] : m[1];
    const games = window.arenaReplay.data().games;
    const found = games.find((g) => (typeof key === "number" ? g.n === key : g.id === key));
    const back = found && document.querySelector(`#game-table tr[data-n="${found.n}"] a`);
    window.arenaReplay.open(key, back || document.getElementById("games"), m[2] === undefined ? undefined : +m[2]);
  }

  function openers() {
    document.querySelectorAll(".open-game").forEach(opener);
  }

  document.addEventListener("DOMContentLoaded", () => {
    window.reportReady = plot().catch((err) => { document.getElementById("rating-plot").textContent = `plot failed: ${err}`; throw err; });
    faultFilter();
    window.gamesReady = gameList().then(fromAddress);
    gameFilter();
    openers();
    window.addEventListener("hashchange", () => { if (document.getElementById("replay").hidden) fromAddress(); });
  });
})();
