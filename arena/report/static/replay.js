// The visual replay of the report. The games arrive packed (arena/report/encode.py): gzipped JSON, base64.
// Each step re-deals the hand from the deck and replays its actions up to the step, so stepping back is as
// cheap as stepping on. "View as seat S" draws only what S knew at that moment: its own cards, the up-card,
// what was played and announced; other hands, the kitty, the dealer's discard, fault details that list
// another seat's legal moves, and a secret partner stay hidden (not merely covered: they are not in the page).
"use strict";
(function () {
  const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠", N: "NT" };
  const SUITNAME = { C: "clubs ♣", D: "diamonds ♦", H: "hearts ♥", S: "spades ♠", N: "no trumps", NT: "no trumps" };
  const KIND = { p: "PASS", o: "ORDER_UP", t: "TAKE_UP", e: "EXPOSE", a: "ALONE", r: "PARTNER",
    n: "NAME", j: "JOKER_NAME", b: "BLIND_NAME", x: "EXPOSE_NAME", d: "DISCARD", c: "CALL", y: "PLAY" };
  const SUITED = "njbx", CARDED = "dcy";
  const OUTCOME = { t: "thrown in", e: "euchred", m: "made", M: "march" };
  let data = null, cards = null, game = null, gameIndex = 0, hand = 0, step = 0, viewer = -1;
  let timer = null, speed = 1, opener = null;

  function esc(s) { return String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";"); }

  async function load() {
    const text = document.getElementById("replay-data").textContent.trim();
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    data = JSON.parse(await new Response(stream).text());
    const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    cards = {};
    data.cards.forEach((c, i) => { cards[alphabet[i]] = c; });
    return data;
  }

  function decodeActions(code) {
    const out = [];
    for (let i = 0; i < code.length;) {
      const seat = +code[i], k = code[i + 1];
      i += 2;
      let arg = null;
      if (SUITED.includes(k)) arg = code[i++];
      else if (CARDED.includes(k)) arg = cards[code[i++]];
      const text = KIND[k] + (arg === null ? "" : "(" + (arg === "N" ? "NT" : arg) + ")");
      out.push({ seat, k, arg, text });
    }
    return out;
  }

  function build(g) {
    const n = g.seats.length;
    const scores = new Array(n).fill(0);
    const hands = g.hands.map((h, index) => {
      const [dealer, deckCode, actionCode, trump, maker, partner, out, winners, outcome, points] = h;
      const deck = Array.from(deckCode, (c) => cards[c]);
      const dealt = Array.from({ length: n }, () => []);
      for (const [from, count] of [[0, 2], [2 * n, 3]]) {
        for (let i = 0; i < n; i++) {
          const seat = (dealer + 1 + i) % n, at = from + i * count;
          dealt[seat].push(...deck.slice(at, at + count));
        }
      }
      const before = scores.slice();
      points.forEach((p, s) => { scores[s] += p; });
      return { index, dealer, deck, dealt, up: deck[5 * n], kitty: deck.slice(5 * n + 1), actions: decodeActions(actionCode),
        trump, maker, partner, out, winners: Array.from(winners, Number), outcome: OUTCOME[outcome], points,
        before, after: scores.slice(), faults: [], times: g.times ? g.times[index] : null,
        decisions: g.decisions ? g.decisions[index] || [] : [] };
    });
    const loose = [];
    for (const [h, i, seat, kind, detail, substitute, decision] of g.faults) {
      const f = { h, i, seat, kind, detail, substitute, decision };
      if (hands[h]) hands[h].faults.push(f); else loose.push(f);
    }
    return { ...g, np: n, hands, loose };
  }

  function cardHtml(code, extra) {
    if (code === "JKR") return `<span class="card joker ${extra || ""}" data-card="JKR" title="JKR: the Joker, highest trump">★<small>Joker</small></span>`;
    const rank = code[0] === "T" ? "10" : code[0], suit = code[1];
    const red = suit === "D" || suit === "H";
    const two = rank === "2";
    const title = two ? `${code}: a five-handed two, ${suit === "S" ? "the highest" : "the second"} trump` : code;
    return `<span class="card ${red ? "red" : ""} ${two ? "two" : ""} ${extra || ""}" data-card="${code}" title="${title}">` +
      `${rank}${SUIT[suit]}${two ? "<small>trump</small>" : ""}</span>`;
  }
  function back(count) { return Array.from({ length: count }, () => '<span class="card back" aria-label="hidden card">▮</span>').join(""); }
  function suit(s) { return SUITNAME[s] || s; }

  // Everything the table shows after `k` actions of hand `h`, as seen by `v` (-1: omniscient).
  function state(h, k, v) {
    const H = game.hands[h], n = game.np, all = v < 0;
    const held = H.dealt.map((c) => c.slice());
    const perTrick = H.out === null ? n : n - 1;
    const st = { held, trick: [], trickWinner: null, won: new Array(n).fill(0), log: [], trumpKnown: false,
      maker: null, called: null, alone: false, exposed: null, upTaken: false, discard: null, partnerShown: null,
      outShown: null, done: 0 };
    const seatName = (s) => game.seats[s];
    for (let i = 0; i < k; i++) {
      const a = H.actions[i], who = seatName(a.seat);
      let line;
      switch (a.k) {
        case "p": line = `${who} passes`; break;
        case "o": case "t": line = `${who} ${a.k === "o" ? "orders up" : "takes up"} ${H.up && cardText(H.up)}`; st.trumpKnown = true; st.maker = a.seat; break;
        case "n": line = `${who} names ${suit(a.arg)}`; st.trumpKnown = true; st.maker = a.seat; break;
        case "j": line = `${who} (dealer, Joker up) names ${suit(a.arg)}`; st.trumpKnown = true; st.maker = a.seat; break;
        case "b": line = `${who} (dealer) names ${suit(a.arg)} blind`; break;
        case "e": st.exposed = H.dealt[H.dealer][0]; line = `${who} (dealer) exposes ${cardText(st.exposed)}`; break;
        case "x": line = `${who} names ${suit(a.arg)} after the exposure`; st.trumpKnown = true; st.maker = a.seat; break;
        case "d": {
          held[H.dealer].push(H.up);
          held[H.dealer].splice(held[H.dealer].indexOf(a.arg), 1);
          st.upTaken = true; st.discard = a.arg;
          line = all || v === H.dealer ? `${who} picks up and discards ${cardText(a.arg)}` : `${who} picks up and discards a card`;
          break;
        }
        case "c": st.called = a.arg; line = `${who} calls ${cardText(a.arg)} as partner`; break;
        case "a": st.alone = true; line = `${who} goes alone`; if (H.out !== null) st.outShown = H.out; break;
        case "r": line = `${who} plays with a partner`; st.partnerShown = H.partner; break;
        case "y": {
          if (st.trick.length === perTrick) { st.trick = []; st.trickWinner = null; }
          const hs = held[a.seat];
          if (hs.includes(a.arg)) hs.splice(hs.indexOf(a.arg), 1);
          st.trick.push({ seat: a.seat, card: a.arg });
          if (a.arg === st.called) st.partnerShown = a.seat === H.maker ? null : a.seat;
          line = `${who} plays ${cardText(a.arg)}`;
          if (st.trick.length === perTrick) {
            st.trickWinner = H.winners[st.done];
            st.won[st.trickWinner] += 1;
            st.done += 1;
            line += ` — trick ${st.done} to ${seatName(st.trickWinner)}`;
          }
          break;
        }
        default: line = `${who} ${a.text}`;
      }
      const ms = H.times ? H.times[i] : null;
      // The server's game page, for the seats whose requests the visitor may take (arena ask): a link beside
      // each of their moves to the decision's page.
      const d = H.decisions[i], ask = game.ask && d && game.ask.seats.includes(a.seat) ? game.ask.url + d : null;
      st.log.push({ text: line, i, ms: ms === null || ms === undefined ? null : ms, ask, d });
      for (const f of H.faults.filter((f) => f.i === i)) {
        const mine = all || v === f.seat;
        const at = f.decision ? ` at decision ${f.decision}` : "";
        st.log.push({ text: `fault: ${seatName(f.seat)} ${f.kind}${mine ? " — " + f.detail : ""}; the arena played for it${at}`, fault: true });
      }
    }
    if (all && st.called !== null) st.partnerShown = H.partner;
    if (!all && v === H.partner && st.called !== null) st.partnerShown = v;
    return st;
  }

  function cardText(code) {
    if (code === "JKR") return "JKR (Joker)";
    return `${code} (${code[0] === "T" ? "10" : code[0]}${SUIT[code[1]]})`;
  }

  function render() {
    const H = game.hands[hand], n = game.np, A = H.actions.length, all = viewer < 0;
    const st = state(hand, step, viewer);
    const last = hand === game.hands.length - 1 && step === A;
    const bottom = all ? 0 : viewer;
    const felt = document.getElementById("replay-table");
    const turn = step < A ? H.actions[step].seat : null;
    let html = "";
    const rx = felt.clientWidth < 520 ? 34 : 40;  // on a phone the seats' boxes are a third of the felt wide
    for (let s = 0; s < n; s++) {
      const angle = Math.PI / 2 + ((s - bottom + n) % n) * 2 * Math.PI / n;
      const x = 50 + rx * Math.cos(angle), y = 50 + 38 * Math.sin(angle);
      const roles = [];
      if (s === H.dealer) roles.push('<span class="role">dealer</span>');
      if (st.trumpKnown && s === H.maker) roles.push('<span class="role maker">maker</span>');
      if (st.partnerShown === s) roles.push('<span class="role partner">partner</span>');
      if (st.outShown === s) roles.push('<span class="role out">sits out</span>');
      const sees = all || s === viewer;
      const cardsHtml = sees ? st.held[s].map((c) => cardHtml(c)).join("") : back(st.held[s].length);
      const score = step === A ? H.after[s] : H.before[s];
      html += `<div class="pseat${turn === s ? " turn" : ""}${s === viewer ? " viewer" : ""}" data-seat="${s}" style="left:${x}%;top:${y}%">` +
        `<div class="who">${esc(game.seats[s])} <span class="meta">seat ${s}</span> ${roles.join("")}</div>` +
        `<div class="meta">score ${score}${st.won[s] ? ` · tricks ${st.won[s]}` : ""}${step === A && H.points[s] ? ` · +${H.points[s]}` : ""}</div>` +
        `<div class="hand" data-hand-of="${s}">${cardsHtml}</div></div>`;
      const play = st.trick.find((p) => p.seat === s);
      if (play) {
        const tx = 50 + 17 * Math.cos(angle), ty = 50 + 17 * Math.sin(angle);
        html += `<div class="trick" style="left:${tx}%;top:${ty}%">${cardHtml(play.card, "big" + (st.trickWinner === s ? " win" : ""))}</div>`;
      }
    }
    let centre = "";
    if (st.trick.length === 0) {
      centre += `<div class="label">up-card</div>${cardHtml(H.up, "big")}${st.upTaken ? '<div class="label">taken by the dealer</div>' : ""}`;
      if (all) centre += `<div class="label">kitty</div>${H.kitty.map((c) => cardHtml(c)).join("")}`;
    }
    if (st.exposed) centre += `<div class="label">exposed</div>${cardHtml(st.exposed)}`;
    if (st.trumpKnown && H.trump) centre += `<div class="label">trump ${esc(suit(H.trump))}</div>`;
    if (st.called) centre += `<div class="label">called</div>${cardHtml(st.called)}`;
    if (last) {
      const order = game.seats.map((_, s) => s).sort((a, b) => game.ranks[a] - game.ranks[b]);
      centre += `<div class="final" data-scores="${game.scores.join(",")}"><strong>Final</strong> (${esc(game.termination.replace(/_/g, " "))})<br>` +
        order.map((s) => `${game.ranks[s]}. ${esc(game.seats[s])} ${game.scores[s]}`).join("<br>") + "</div>";
    }
    html += `<div class="centre">${centre}</div>`;
    felt.innerHTML = html;
    const status = [];
    status.push(`<strong>Hand ${hand + 1} of ${game.hands.length}</strong> · dealer ${esc(game.seats[H.dealer])}`);
    status.push(`scores before: ${H.before.join(" / ")}`);
    if (st.trumpKnown && H.maker !== null) status.push(`maker ${esc(game.seats[H.maker])}, trump ${esc(suit(H.trump))}${st.alone ? ", alone" : ""}`);
    if (st.called) {
      const partner = st.partnerShown !== null ? esc(game.seats[st.partnerShown])
        : all || step === A ? "nobody (the card is in the kitty)" : "not known yet";
      status.push(`called ${cardText(st.called)}: partner ${partner}`);
    }
    if (st.done || st.trick.length) status.push(`trick ${Math.min(st.done + (st.trickWinner === null ? 1 : 0), 5)} of 5`);
    if (step === A) {
      status.push(`<strong>${H.outcome}</strong>${H.maker !== null ? ` (making side ${H.winners.filter((w) => w === H.maker || w === H.partner).length} tricks)` : ""}`);
      status.push(`scores after: ${H.after.join(" / ")}`);
    }
    document.getElementById("replay-status").innerHTML = status.join("<br>");
    const log = st.log.map((l) => `<li class="${l.fault ? "fault" : ""}${l.i === step - 1 ? " now" : ""}">${esc(l.text)}` +
      `${l.ms !== null && l.ms !== undefined ? `<span class="ms" title="time the bot took to answer">${fmtMs(l.ms)}</span>` : ""}` +
      `${l.ask ? ` <a class="ask" href="${esc(l.ask)}" title="decision ${l.d}: the request this seat received, for arena ask">ask again</a>` : ""}</li>`);
    if (step === A) {
      for (const f of H.faults.filter((f) => f.i < 0)) {
        log.push(`<li class="fault">fault: ${esc(game.seats[f.seat])} ${esc(f.kind)}${all || viewer === f.seat ? " — " + esc(f.detail) : ""}</li>`);
      }
      log.push(`<li class="now">hand over: ${esc(H.outcome)}; points ${H.points.join(" / ")}</li>`);
    }
    const ol = document.getElementById("replay-log");
    ol.innerHTML = log.join("");
    ol.scrollTop = ol.scrollHeight;
    const pos = document.getElementById("replay-pos");
    pos.textContent = `hand ${hand + 1}/${game.hands.length} · action ${step}/${A}`;
    pos.dataset.hand = hand; pos.dataset.step = step; pos.dataset.last = last ? "true" : "false";
    const scrub = document.getElementById("replay-scrub"), at = globalStep();
    scrub.max = String(totalSteps() - 1); scrub.value = String(at);
    pos.dataset.global = at;
    const link = `#game-${game.id}/step-${at}`;
    document.getElementById("replay-link").href = link;
    if (location.hash !== link) history.replaceState(null, "", link);
    const botlog = document.getElementById("replay-botlog");
    if (botlog) botlog.textContent = (game.log || []).length ? game.log.join("\n") : "no log lines from this game's bots";
    if (last) pause();
  }

  function fmtMs(ms) { return ms < 0.1 ? "<0.1 ms" : ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`; }
  function totalSteps() { return game.hands.reduce((n, h) => n + h.actions.length + 1, 0); }
  function globalStep() { let n = 0; for (let h = 0; h < hand; h++) n += game.hands[h].actions.length + 1; return n + step; }
  function seek(k) {
    let rest = Math.max(0, Math.min(totalSteps() - 1, k));
    for (let h = 0; h < game.hands.length; h++) {
      const size = game.hands[h].actions.length + 1;
      if (rest < size) { hand = h; step = rest; break; }
      rest -= size;
    }
    render();
  }

  function play() {
    if (!game || !game.hands.length) return;
    if (document.getElementById("replay-pos").dataset.last === "true") { hand = 0; step = 0; render(); }
    clearTimeout(timer);
    const button = document.getElementById("replay-play");
    button.textContent = "❚❚ pause"; button.setAttribute("aria-pressed", "true");
    const tick = () => { go("next"); if (timer !== null) timer = setTimeout(tick, 1000 / speed); };
    timer = setTimeout(tick, 1000 / speed);
  }
  function pause() {
    clearTimeout(timer); timer = null;
    const button = document.getElementById("replay-play");
    if (button) { button.textContent = "▶ play"; button.setAttribute("aria-pressed", "false"); }
  }
  function toggle() { if (timer === null) play(); else pause(); }

  function open(index, from) {
    pause();
    if (from !== undefined) opener = from;
    gameIndex = Math.max(0, Math.min(data.games.length - 1, index));
    game = build(data.games[gameIndex]);
    hand = 0; step = 0;
    if (viewer >= game.np) viewer = -1;
    const sel = document.getElementById("replay-view");
    sel.innerHTML = '<option value="-1">everything (spectator)</option>' +
      game.seats.map((s, i) => `<option value="${i}">seat ${i}: ${esc(s)}</option>`).join("");
    sel.value = String(viewer);
    document.getElementById("replay-title").textContent =
      `Game ${game.id} · round ${game.round}, table ${game.table}`;
    const box = document.getElementById("replay");
    const wasHidden = box.hidden;
    box.hidden = false;
    shelter(box);
    if (wasHidden) box.querySelector(".replay-box").focus();
    if (!game.hands.length) { document.getElementById("replay-table").textContent = "no hands stored"; return; }
    render();
  }

  function go(cmd) {
    if (!game || !game.hands.length) return;
    const A = () => game.hands[hand].actions.length, H = game.hands.length;
    switch (cmd) {
      case "next": if (step < A()) step++; else if (hand < H - 1) { hand++; step = 0; } break;
      case "back": if (step > 0) step--; else if (hand > 0) { hand--; step = A(); } break;
      case "hand-next": if (hand < H - 1) { hand++; step = 0; } else step = A(); break;
      case "hand-back": if (step > 0) step = 0; else if (hand > 0) hand--; break;
      case "game-start": hand = 0; step = 0; break;
      case "game-end": hand = H - 1; step = A(); break;
      case "next-game": open(gameIndex + 1); return;
      case "prev-game": open(gameIndex - 1); return;
      case "toggle": toggle(); return;
    }
    render();
  }

  // While the replay is open everything else on the page is inert: every sibling of the replay and of each
  // of its ancestors up to <body> (the report has the replay beside <main>, the server's game page inside
  // it), so Tab stays in the replay and nothing behind it can be clicked; closing restores exactly those.
  let sheltered = [];
  function shelter(box) {
    unshelter();
    for (let node = box; node.parentElement && node !== document.body; node = node.parentElement) {
      for (const other of node.parentElement.children) {
        if (other !== node && !other.inert && other.tagName !== "SCRIPT") { other.inert = true; sheltered.push(other); }
      }
    }
  }
  function unshelter() {
    for (const el of sheltered) el.inert = false;
    sheltered = [];
  }

  // Closing gives the page back and puts focus where the replay was opened from (the game's row in the list,
  // so Tab goes on from there), scrolled into view if it went out.
  function close() {
    pause();
    const box = document.getElementById("replay");
    if (box.hidden) return;
    box.hidden = true;
    unshelter();
    if (location.hash.startsWith("#game")) history.replaceState(null, "", "#games");
    let back = opener && opener.isConnected ? opener : null;
    if (!back && game) back = document.querySelector(`#game-table tr[data-n="${game.n}"] a`);
    if (back) { back.focus(); back.scrollIntoView({ block: "nearest" }); }
  }

  // Tab and shift-Tab go round the dialog's own controls, never to the page behind it.
  function trapTab(e) {
    const box = document.querySelector(".replay-box");
    const items = [...box.querySelectorAll("button, select, input, a[href]")].filter((el) => !el.disabled && el.offsetParent !== null);
    if (!items.length) return;
    const first = items[0], lastItem = items[items.length - 1], here = document.activeElement;
    if (e.shiftKey && (here === first || here === box || !box.contains(here))) { e.preventDefault(); lastItem.focus(); }
    else if (!e.shiftKey && (here === lastItem || !box.contains(here))) { e.preventDefault(); first.focus(); }
  }

  const ready = load();
  window.arenaReplay = {
    ready,
    data: () => data,
    // a game by its id ("r001-t01"), or by its place in the schedule (a number: older links, tests)
    open: async (key, from, at) => {
      await ready;
      const i = data.games.findIndex((g) => (typeof key === "number" ? g.n === key : g.id === key));
      open(i < 0 ? 0 : i, from === undefined ? document.activeElement : from);
      if (at !== undefined && game.hands.length) seek(at);
    },
    go, close, play, pause, seek,
    playing: () => timer !== null,
    speed: (x) => { speed = x; document.getElementById("replay-speed").value = String(x); },
    view: (v) => { viewer = v; document.getElementById("replay-view").value = String(v); render(); },
    state: () => ({ hand, step, viewer, game: game && game.id, n: game && game.n, global: game && game.hands.length ? globalStep() : 0 }),
  };
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll(".controls button").forEach((b) => b.addEventListener("click", () => {
      if (b.dataset.go !== "toggle") pause();
      go(b.dataset.go);
    }));
    document.getElementById("replay-close").addEventListener("click", close);
    document.getElementById("replay-view").addEventListener("change", (e) => {
      window.arenaReplay.view(+e.target.value);
      e.target.blur();  // give the arrow keys back to the replay
    });
    document.getElementById("replay").addEventListener("click", (e) => { if (e.target.id === "replay") close(); });
    document.getElementById("replay-speed").addEventListener("change", (e) => {
      speed = +e.target.value;
      if (timer !== null) play();
    });
    document.getElementById("replay-scrub").addEventListener("input", (e) => { pause(); seek(+e.target.value); });
    document.addEventListener("keydown", (e) => {
      if (document.getElementById("replay").hidden) return;
      if (e.key === "Escape") { e.preventDefault(); close(); return; }
      if (e.key === "Tab") { trapTab(e); return; }
      const tag = e.target.tagName;
      if (tag === "SELECT" || tag === "INPUT") return;
      if (e.key === " " && tag !== "BUTTON") { e.preventDefault(); toggle(); return; }
      const key = { ArrowRight: "next", ArrowLeft: "back", ArrowDown: "hand-next", PageDown: "hand-next",
        ArrowUp: "hand-back", PageUp: "hand-back", Home: "game-start", End: "game-end", "]": "next-game", "[": "prev-game" }[e.key];
      if (key) { e.preventDefault(); pause(); go(key); }
    });
  });
})();
