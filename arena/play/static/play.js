// arena play: one seat's table, drawn from the seat's own view (the one a bot in the seat gets) and its news.
// The state comes from GET /api/state, long-polled with the version the page has; a move is POST /api/move,
// refused by the server with its reason when it is not legal (the page only offers legal ones).
"use strict";
(function () {
  const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const SUITNAME = { C: "clubs ♣", D: "diamonds ♦", H: "hearts ♥", S: "spades ♠", NT: "no trumps" };
  const PHASE = {
    TWO_CHOICE: "name trump blind, or expose a card", JOKER_NAME: "the Joker is up: name trump",
    EXPOSE_NAME: "name trump after the exposure", BID_ROUND_1: "bidding, round 1", BID_ROUND_2: "bidding, round 2",
    DISCARD: "the dealer discards", CALL: "the maker calls a partner or goes alone", PLAY: "play",
    GAME_OVER: "game over",
  };
  // arena play: the API at /api, the key in the page's address. On the competition server the page is given
  // its game's API (data-api) and the visitor's CSRF token (data-key), and its game is kept on the server.
  const key = document.body.dataset.key || new URLSearchParams(location.search).get("key") || "";
  const base = document.body.dataset.api || "/api";
  let st = null, version = -1, shownDecision = 0, tick = null, receivedAt = 0, done = false;

  function esc(s) { return String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";"); }
  function cardHtml(code, extra) {
    if (code === "JKR") return `<span class="card joker ${extra || ""}" data-card="JKR" title="the Joker, highest trump">★<small>Joker</small></span>`;
    const rank = code[0] === "T" ? "10" : code[0], suit = code[1];
    const red = suit === "D" || suit === "H", two = rank === "2";
    return `<span class="card ${red ? "red" : ""} ${two ? "two" : ""} ${extra || ""}" data-card="${code}" title="${code}">` +
      `${rank}${SUIT[suit]}${two ? "<small>trump</small>" : ""}</span>`;
  }
  function cardWords(code) {
    if (code === "JKR") return "the Joker";
    return `${code[0] === "T" ? "10" : code[0]}${SUIT[code[1]]}`;
  }
  function back(count) { return Array.from({ length: Math.max(0, count) }, () => '<span class="card back" aria-hidden="true">▮</span>').join(""); }
  function parse(text) {
    const m = /^([A-Z_]+)(?:\(([^()]*)\))?$/.exec(text);
    return { kind: m[1], arg: m[2] || null };
  }
  // An action as a button says it (the text form is its title and data-action, as a bot would return it).
  function label(text) {
    const { kind, arg } = parse(text);
    const suit = arg && SUITNAME[arg];
    switch (kind) {
      case "PASS": return "pass";
      case "ORDER_UP": return "order up";
      case "TAKE_UP": return "take up";
      case "NAME": return `name ${suit}`;
      case "JOKER_NAME": return `name ${suit}`;
      case "BLIND_NAME": return `name ${suit} blind`;
      case "EXPOSE": return "expose a card";
      case "EXPOSE_NAME": return `name ${suit}`;
      case "ALONE": return "go alone";
      case "PARTNER": return "play with partner";
      case "CALL": return `call ${cardWords(arg)}`;
      case "PLAY": return `play ${cardWords(arg)}`;
      case "DISCARD": return `discard ${cardWords(arg)}`;
      default: return text;
    }
  }
  function keyOf(i) { return i < 9 ? String(i + 1) : i === 9 ? "0" : ""; }
  function name(s) { return s === st.seat ? "you" : st.seats[s]; }

  async function api(path, body) {
    const init = { headers: { "X-Play-Key": key } };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    try { data = await response.json(); } catch (e) { data = { error: `${response.status} ${response.statusText}` }; }
    return { ok: response.ok, status: response.status, data };
  }

  function notice(text) {
    const el = document.getElementById("notice");
    el.textContent = text || "";
    el.hidden = !text;
  }

  async function move(action) {
    const { ok, data } = await api(`${base}/move`, { action, decision: st.decision });
    notice(ok ? "" : `refused: ${data.error}`);
  }

  function played(v) {
    const count = new Array(st.seats.length).fill(0);
    for (const t of v.tricks) for (const p of t.plays) count[p.seat] += 1;
    if (v.current_trick) for (const p of v.current_trick.plays) count[p.seat] += 1;
    return count;
  }

  function drawTable() {
    const v = st.view, n = st.seats.length, felt = document.getElementById("felt");
    if (!v) { felt.innerHTML = '<div class="centre">dealing…</div>'; return; }
    const out = played(v);
    const trick = v.current_trick && v.current_trick.plays.length ? v.current_trick : null;
    const shown = trick || (st.last_trick && v.phase === "PLAY" ? st.last_trick : null);
    const rx = felt.clientWidth < 520 ? 36 : 40;
    let html = "";
    for (let s = 0; s < n; s++) {
      const angle = Math.PI / 2 + ((s - st.seat + n) % n) * 2 * Math.PI / n;
      const x = 50 + rx * Math.cos(angle), y = 50 + 38 * Math.sin(angle);
      const roles = [];
      if (s === v.dealer) roles.push('<span class="role">dealer</span>');
      if (s === v.maker) roles.push('<span class="role maker">maker</span>');
      if (s === v.partner) roles.push('<span class="role partner">partner</span>');
      if (s === v.sitting_out) roles.push('<span class="role out">sits out</span>');
      const cards = s === st.seat ? "" : `<div class="hand">${back(5 - out[s] - (s === v.sitting_out ? 5 : 0))}</div>`;
      html += `<div class="pseat${v.to_act === s ? " turn" : ""}${s === st.seat ? " viewer" : ""}" data-seat="${s}" style="left:${x}%;top:${y}%">` +
        `<div class="who">${esc(name(s))} <span class="meta">seat ${s}</span> ${roles.join("")}</div>` +
        `<div class="meta">score ${v.scores[s]}${v.tricks_won[s] ? ` · tricks ${v.tricks_won[s]}` : ""}</div>${cards}</div>`;
      const p = shown && shown.plays.find((q) => q.seat === s);
      if (p) {
        const tx = 50 + 17 * Math.cos(angle), ty = 50 + 17 * Math.sin(angle);
        html += `<div class="trick${shown === trick ? "" : " old"}" style="left:${tx}%;top:${ty}%">${cardHtml(p.card, "big" + (shown.winner === s ? " win" : ""))}</div>`;
      }
    }
    let centre = "";
    if (!trick && v.phase !== "PLAY") {
      centre += `<div class="label">up-card</div>${cardHtml(v.up_card, "big")}`;
      if (v.up_card_fate === "taken") centre += '<div class="label">taken by the dealer</div>';
      if (v.up_card_fate === "turned_down") centre += '<div class="label">turned down</div>';
    }
    if (shown && shown !== trick) centre += `<div class="label">last trick: ${esc(name(shown.winner))}</div>`;
    if (v.exposed_card) centre += `<div class="label">exposed</div>${cardHtml(v.exposed_card)}`;
    if (v.trump) centre += `<div class="label">trump ${esc(SUITNAME[v.trump])}</div>`;
    if (v.called_card) centre += `<div class="label">called</div>${cardHtml(v.called_card)}`;
    if (st.final) {
      const order = st.seats.map((_, s) => s).sort((a, b) => st.final.ranks[a] - st.final.ranks[b]);
      centre = `<div class="final" data-scores="${st.final.scores.join(",")}"><strong>Final</strong><br>` +
        order.map((s) => `${st.final.ranks[s]}. ${esc(name(s))} ${st.final.scores[s]}`).join("<br>") + "</div>";
    }
    html += `<div class="centre">${centre}</div>`;
    felt.innerHTML = html;
  }

  function drawHand(legal) {
    const v = st.view, box = document.getElementById("hand");
    if (!v) { box.textContent = ""; return; }
    if (v.hand === null) { box.innerHTML = '<p class="note">Your cards are face down: this decision is blind.</p>'; return; }
    const byCard = {};
    legal.forEach((a, i) => { const { kind, arg } = parse(a); if (kind === "PLAY" || kind === "DISCARD") byCard[arg] = [a, i]; });
    box.innerHTML = v.hand.map((c) => {
      const hit = byCard[c];
      if (!hit) return `<span class="slot">${cardHtml(c, "big")}</span>`;
      const k = keyOf(hit[1]);
      return `<button type="button" class="cardbtn" data-action="${hit[0]}" title="${esc(label(hit[0]))}${k ? ` (key ${k})` : ""}">` +
        `${cardHtml(c, "big")}${k ? `<kbd>${k}</kbd>` : ""}</button>`;
    }).join("") + (v.discard ? `<span class="note"> you discarded ${cardHtml(v.discard)}</span>` : "");
  }

  function drawActions(legal) {
    const box = document.getElementById("actions");
    box.innerHTML = legal.map((a, i) => {
      const k = keyOf(i);
      return `<button type="button" class="act" data-action="${a}" title="${a}">${k ? `<kbd>${k}</kbd> ` : ""}${esc(label(a))}</button>`;
    }).join("");
  }

  function drawStatus() {
    const v = st.view, lines = [];
    if (v) {
      lines.push(`<strong>Hand ${v.hand_index + 1}</strong> · dealer ${esc(name(v.dealer))} · ${esc(PHASE[v.phase] || v.phase)}`);
      lines.push(`scores: ${st.seats.map((s, i) => `${esc(name(i))} ${v.scores[i]}`).join(" · ")}`);
      if (v.maker !== null && v.trump) lines.push(`maker ${esc(name(v.maker))}, trump ${esc(SUITNAME[v.trump])}${v.alone ? ", alone" : ""}`);
      if (v.teammates.length) lines.push(`on your side: ${v.teammates.map((s) => esc(name(s))).join(", ")}`);
    }
    const h = st.last_hand;
    if (h && v && (h.hand_index === v.hand_index - 1 || st.final)) {
      const pts = h.points.map((p, s) => p ? `${esc(name(s))} +${p}` : "").filter(Boolean).join(", ") || "nobody scores";
      lines.push(`<span class="handpoints">Hand ${h.hand_index + 1}: ${esc(h.outcome.replace("_", " "))} — ${pts}</span>`);
    }
    if (st.final) lines.push("<strong>Game over</strong>");
    else if (st.decision) lines.push(`<strong class="yourturn">Your turn</strong> <span id="clock" class="clock"></span>`);
    else if (v && v.to_act === st.seat && st.away) lines.push(`the autopilot (${esc(st.autopilot)}) plays for you`);
    else if (v && v.to_act >= 0 && v.to_act !== st.seat) lines.push(`waiting for ${esc(name(v.to_act))}`);
    document.getElementById("status").innerHTML = lines.join("<br>");
  }

  function clock() {
    const el = document.getElementById("clock");
    if (!el || st.remaining_s === null) return;
    const left = Math.max(0, st.remaining_s - (Date.now() - receivedAt) / 1000);
    el.textContent = `${Math.ceil(left)} s left`;
  }

  function render() {
    const v = st.view;
    const legal = st.decision && v ? v.legal_actions : [];
    document.getElementById("sub").textContent =
      `${st.config.variant}, ${st.seats.length} seats, to ${st.config.target} points · you are seat ${st.seat}: ${st.seats[st.seat]}`;
    document.getElementById("rule").textContent =
      `You have ${st.deadline_s} s for each decision; after that the autopilot (the ${st.autopilot} bot) plays your seat ` +
      "until you take it back. The arena's engine judges every move, as it judges a bot's.";
    drawTable(); drawHand(legal); drawActions(legal); drawStatus();
    const away = document.getElementById("away");
    away.hidden = !st.away || !!st.final;
    document.getElementById("away-text").textContent = `The autopilot (the ${st.autopilot} bot) is playing your seat.`;
    const over = document.getElementById("over");
    over.hidden = !st.final;
    document.getElementById("finish").hidden = !!document.body.dataset.api;  // the server's game needs no Finish
    if (st.error) { over.hidden = false; document.getElementById("over-text").textContent = `The game stopped: ${st.error}`; }
    else if (st.final) {
      document.getElementById("over-text").innerHTML = !st.stored ? "Storing the game…"
        : st.stored.url ? `Kept on the server, unrated: <a id="stored-link" href="${esc(st.stored.url)}">the game's page</a>.`
        : `Stored in <code>${esc(st.stored.directory)}</code>. Replay it with <code>${esc(st.stored.replay)}</code>.`;

    }
    const log = document.getElementById("log");
    log.innerHTML = st.log.map((l) => `<li>${esc(l)}</li>`).join("");
    log.scrollTop = log.scrollHeight;
    document.getElementById("viewjson").textContent = v ? JSON.stringify(v, null, 1) : "";
    document.body.dataset.decision = String(st.decision);
    document.body.dataset.over = st.final ? (st.stored ? "stored" : "over") : "";
    clearInterval(tick);
    if (st.decision) {
      tick = setInterval(clock, 500); clock();
      // A new decision: focus its first action, so Tab and Enter (or a number key) answer it at once.
      if (st.decision !== shownDecision) {
        const first = document.querySelector("#actions button");
        if (first && !document.activeElement.closest(".viewjson")) first.focus({ preventScroll: true });
      }
    }
    shownDecision = st.decision;
  }

  let away = false;  // the notice says the server is not answering
  async function poll() {
    while (!done) {
      try {
        const { ok, data } = await api(`${base}/state?since=${version}`);
        if (!ok) { notice(data.error); await new Promise((r) => setTimeout(r, 2000)); continue; }
        st = data; version = data.version; receivedAt = Date.now();
        render();
        if (away) { notice(""); away = false; }  // answering again: what the notice said is over
        if (data.stopping) {  // the server is stopping: say so, and ask again once it may be back
          notice("The server is stopping: this page tries again every 2 s, and carries on if it comes back.");
          away = true;
          await new Promise((r) => setTimeout(r, 2000));
        }
      } catch (e) {
        if (done) return;
        notice(document.body.dataset.api ? "The server is not answering (restarting?): this page tries again every 2 s."
          : "arena play is not answering (stopped?)");
        away = true;
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  document.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-action]");
    if (b) { move(b.dataset.action); return; }
    if (e.target.id === "take-back") api(`${base}/back`, {}).then(({ ok, data }) => notice(ok ? "" : data.error));
    if (e.target.id === "finish") {
      done = true;
      api(`${base}/finish`, {}).then(() => { notice(""); document.getElementById("over-text").textContent += " arena play has stopped: you may close this page."; });
    }
  });
  document.addEventListener("keydown", (e) => {
    if (!st || !st.decision || e.ctrlKey || e.altKey || e.metaKey) return;
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const i = e.key === "0" ? 9 : "123456789".indexOf(e.key);
    const legal = st.view ? st.view.legal_actions : [];
    if (i >= 0 && i < legal.length) { e.preventDefault(); move(legal[i]); }
  });
  window.arenaPlay = { state: () => st, move };
  poll();
})();
