// Play: the set-up form, the table, the legal moves (buttons, cards, keys), hints, the move log and the end summary.

import { api, clearError, pace, sleep } from "./api.js";
import { clearBanner, drawBanner } from "./banner.js";
import { isCard, moveCard, prettyAction, valueEl } from "./cards.js";
import { optionField, optionValue, readOptions } from "./form.js";
import { bar, drawFacts, drawTable, el, logEntry } from "./table.js";

const $ = (id) => document.getElementById(id);

// moves offered together: when one of a group is legal, the others are shown (disabled if not legal)
const GROUPS = [["draw", "take"], ["knock", "pass", "lura"], ["take_talon", "keep"]];

const state = {
  catalog: null,
  view: null,
  shown: 0, // log entries drawn
  busy: false, // a request or the opponents' moves are being shown
  token: 0, // bumps on every new game: stale animations stop
  hint: null,
};

/* ---------------- the set-up form ---------------- */

function gameDef() {
  const name = $("game-select").value;
  return state.catalog.games.find((g) => g.name === name);
}

function numPlayers() {
  const g = gameDef();
  let n = Number(optionValue($("options"), "num_players"));
  if (!Number.isInteger(n)) n = Number(g.options?.num_players?.default ?? g.players[0]);
  return Math.max(g.players[0], Math.min(g.players[1], n));
}

function drawOptions() {
  const g = gameDef();
  const box = $("options");
  box.replaceChildren(el("legend", { text: `Options of ${g.display_name || g.name}` }));
  const onChange = (name) => {
    if (name === "num_players") drawSeats();
  };
  for (const [name, opt] of Object.entries(g.options || {})) box.append(optionField(name, opt, onChange));
  $("game-players").textContent =
    g.players[0] === g.players[1] ? `${g.players[0]} players` : `${g.players[0]}–${g.players[1]} players`;
  drawSeats();
}

function drawSeats() {
  const n = numPlayers();
  const seat = $("seat-select");
  const old = seat.value;
  seat.replaceChildren();
  for (let k = 0; k < n; k++) seat.append(el("option", { value: `player_${k}`, text: `player_${k}` }));
  if ([...seat.options].some((o) => o.value === old)) seat.value = old;
  drawOpponents();
}

function drawOpponents() {
  const n = numPlayers();
  const me = $("seat-select").value;
  const box = $("opponents");
  const old = {};
  for (const i of box.querySelectorAll("input")) old[i.dataset.seat] = i.value;
  box.replaceChildren(el("legend", { text: "Opponents (an agent per seat)" }));
  const fallback = state.catalog.agents.includes("heuristic") ? "heuristic" : state.catalog.agents[0] || "random";
  for (let k = 0; k < n; k++) {
    const s = `player_${k}`;
    if (s === me) continue;
    const id = `agent-${s}`;
    const input = el("input", { id, type: "text", list: "agent-list", "data-testid": id, "data-seat": s });
    input.value = old[s] || fallback;
    box.append(el("div", { class: "row" }, el("label", { for: id, text: s }), input,
      el("span", { class: "hint", text: "random, heuristic, search, ppo:PATH …" })));
  }
}

async function start(ev) {
  ev.preventDefault();
  const g = gameDef();
  const me = $("seat-select").value;
  const opponents = [...$("opponents").querySelectorAll("input")].map((i) => i.value.trim() || "random");
  const { config, ok } = readOptions($("options"), g.options || {});
  if (!ok) {
    $("setup").reportValidity();
    return;
  }
  const body = { game: g.name, config, seat: me, opponents };
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  const button = $("start");
  button.disabled = true;
  try {
    const view = await api("POST", "/api/games", body);
    clearError();
    newGame(view);
  } catch {
    /* shown */
  } finally {
    button.disabled = false;
  }
}

/* ---------------- a game ---------------- */

function newGame(view) {
  state.token += 1;
  state.view = null;
  state.shown = 0;
  state.hint = null;
  $("log").replaceChildren();
  $("summary").hidden = true;
  $("summary").replaceChildren();
  clearBanner($("banner"));
  $("setup").hidden = true;
  $("game").hidden = false;
  $("game").dataset.gameId = view.id;
  $("hint-value").textContent = "";
  const agents = $("hint-agent");
  agents.replaceChildren(...state.catalog.agents.filter((a) => !a.includes("PATH")).map((a) => el("option", { value: a, text: a })));
  if (state.catalog.agents.includes("heuristic")) agents.value = "heuristic";
  show(view);
}

/** Show a new view: the moves new to the log one by one at the chosen pace, then the table and moves. */
async function show(view) {
  const token = state.token;
  const mine = view.seat;
  state.busy = true;
  const log = view.log || [];
  // the table before the opponents' moves is not known; keep the old one while they are replayed
  if (!state.view) drawView(view, { movesPending: true });
  else drawMoves(state.view, true);
  for (let i = state.shown; i < log.length; i++) {
    if (token !== state.token) return;
    const e = log[i];
    const li = logEntry(e, mine);
    const box = $("log");
    box.append(li);
    box.scrollTop = box.scrollHeight; // the log scrolls, not the page
    state.shown = i + 1;
    if (e.seat !== mine && pace() > 0 && i < log.length - 1) {
      li.classList.add("fresh");
      await sleep(pace());
    }
  }
  if (token !== state.token) return;
  state.view = view;
  state.hint = null;
  $("hint-value").textContent = "";
  state.busy = false;
  drawView(view);
}

function drawView(view, { movesPending = false } = {}) {
  const table = view.table;
  drawFacts($("facts"), table, { game: view.display_name || view.game, status: view.status });
  const playable = {};
  for (const m of view.legal || []) {
    const c = moveCard(m.name);
    if (c && !(c in playable)) playable[c] = m.name;
    if (!c) playable[m.name] = m.name; // "swap:2" and "discard": the slot and the card in hand
  }
  drawTable($("table"), table, { me: view.seat, seats: view.seats, playable: movesPending ? {} : playable, onCard: play });
  drawMoves(view, movesPending);
  drawTurn(view);
  $("text").textContent = view.text || "";
  if (view.status !== "playing" && !movesPending) {
    drawSummary(view);
    drawBanner($("banner"), view);
  }
}

function drawTurn(view) {
  const t = $("turn");
  if (view.status !== "playing") t.textContent = `game ${view.status}`;
  else if (view.to_move === view.seat) t.textContent = "your turn";
  else t.textContent = view.to_move ? `${view.to_move} to move` : "";
}

/** The moves of the current decision: the legal ones, and their disabled siblings (the rest of the hand, the rest of a group). */
function decisionMoves(view) {
  const legal = view.legal || [];
  const names = new Set(legal.map((m) => m.name));
  const extra = [];
  const add = (name) => {
    if (!names.has(name)) {
      names.add(name);
      extra.push({ name, label: prettyAction(name), index: null });
    }
  };
  const meSeat = (view.table?.seats || []).find((s) => s.seat === view.seat);
  const hand = (meSeat?.cards || []).filter((c) => c !== null && isCard(c));
  const prefixes = new Set();
  const numeric = {};
  for (const m of legal) {
    const i = m.name.indexOf(":");
    if (i < 0) continue;
    const prefix = m.name.slice(0, i);
    const arg = m.name.slice(i + 1);
    if (moveCard(m.name)) prefixes.add(prefix);
    else if (/^\d+$/.test(arg)) (numeric[prefix] ||= []).push(Number(arg));
  }
  for (const prefix of prefixes) for (const c of hand) add(`${prefix}:${c}`);
  for (const [prefix, nums] of Object.entries(numeric)) {
    for (let k = Math.min(...nums); k <= Math.max(...nums); k++) add(`${prefix}:${k}`);
  }
  for (const group of GROUPS) if (group.some((g) => names.has(g) && legal.some((m) => m.name === g))) group.forEach(add);
  return { legal, extra };
}

function drawMoves(view, pending) {
  const box = $("moves");
  box.replaceChildren();
  const yours = view.status === "playing" && (view.legal || []).length > 0;
  $("hint-button").disabled = pending || !yours;
  if (!yours) {
    box.append(el("p", { class: "hint", text: view.status === "playing" ? "Waiting for the other players…" : "The game is over." }));
    return;
  }
  const { legal, extra } = decisionMoves(view);
  legal.forEach((m, i) => {
    const b = el("button", {
      type: "button",
      class: "move",
      "data-testid": "move",
      "data-action": m.name,
      "data-legal": "1",
      "aria-keyshortcuts": i < 9 ? String(i + 1) : undefined,
    });
    if (i < 9) b.append(el("kbd", { text: String(i + 1) }));
    b.append(valueEl(m.label || prettyAction(m.name)));
    b.disabled = pending;
    b.addEventListener("click", () => play(m.name));
    const row = el("div", { class: "move-row" }, b, el("span", { class: "hint-slot", "data-hint-for": m.name }));
    box.append(row);
  });
  for (const m of extra) {
    const b = el("button", {
      type: "button",
      class: "move illegal",
      "data-testid": "move",
      "data-action": m.name,
      "data-legal": "0",
      title: "not legal now",
      disabled: true,
    });
    b.append(valueEl(m.label));
    b.addEventListener("click", () => play(m.name)); // never fires: the button is disabled
    box.append(el("div", { class: "move-row" }, b));
  }
  if (state.hint) drawHint(state.hint);
}

async function play(name) {
  const view = state.view;
  if (!view || state.busy || view.status !== "playing") return;
  if (!(view.legal || []).some((m) => m.name === name)) return; // an illegal move is never sent
  state.busy = true;
  drawMoves(view, true);
  try {
    const next = await api("POST", `/api/games/${encodeURIComponent(view.id)}/actions`, { action: name });
    clearError();
    await show(next);
  } catch {
    state.busy = false;
    drawMoves(view, false);
  }
}

/* ---------------- hints ---------------- */

async function hint() {
  const view = state.view;
  if (!view || state.busy) return;
  const agent = $("hint-agent").value;
  const button = $("hint-button");
  button.disabled = true;
  try {
    const h = await api("GET", `/api/games/${encodeURIComponent(view.id)}/hint?agent=${encodeURIComponent(agent)}`);
    if (view !== state.view) return;
    state.hint = h;
    drawHint(h);
  } catch {
    /* shown */
  } finally {
    button.disabled = state.busy || view !== state.view;
  }
}

function drawHint(h) {
  for (const slot of $("moves").querySelectorAll("[data-hint-for]")) {
    slot.replaceChildren();
    const p = h.policy ? h.policy[slot.dataset.hintFor] : undefined;
    if (p !== undefined) {
      const b = bar(p);
      b.dataset.testid = "hint-bar";
      slot.append(b);
    }
  }
  const v = h.value;
  $("hint-value").textContent = v === null || v === undefined ? `${h.agent}` : `${h.agent}: value ${Number(v).toFixed(2)}`;
}

/* ---------------- the end ---------------- */

function drawSummary(view) {
  const box = $("summary");
  box.replaceChildren();
  box.append(el("h2", { text: `Game ${view.status}` }));
  if (view.rewards) {
    const t = el("table", { class: "results", "data-testid": "results" });
    t.append(el("thead", {}, el("tr", {}, el("th", { text: "Seat" }), el("th", { text: "Player" }), el("th", { text: "Reward" }))));
    const body = el("tbody");
    for (const [seat, r] of Object.entries(view.rewards)) {
      body.append(el("tr", { class: seat === view.seat ? "mine" : "" }, el("td", { text: seat }),
        el("td", { text: view.seats?.[seat] ?? "" }), el("td", { text: String(+Number(r).toFixed(3)) })));
    }
    t.append(body);
    box.append(t);
  }
  if (view.summary) box.append(el("h3", { text: "Hands as dealt" }), summaryEl(view.summary));
  if (view.infos && Object.keys(view.infos).length) {
    box.append(el("h3", { text: "Results" }), infosEl(view.infos));
  }
  box.append(el("p", {}, el("a", {
    href: `/api/games/${encodeURIComponent(view.id)}/record`,
    download: `${view.game}-${view.id.slice(0, 8)}.json`,
    "data-testid": "download-record",
    text: "Download record",
  })));
  box.hidden = false;
}

/** view.summary: {deals: [{deal, dealer, hands: {holder: [cards]}}]} as one table per deal. */
function summaryEl(summary) {
  const box = el("div", { "data-testid": "summary-hands" });
  const deals = summary && Array.isArray(summary.deals) ? summary.deals : null;
  if (!deals) {
    box.append(valueEl(summary));
    return box;
  }
  for (const d of deals) {
    const sec = el("section", { class: "deal", "data-testid": "summary-deal" });
    sec.append(el("h4", { text: `Deal ${Number(d.deal) + 1}${d.dealer ? `, dealt by ${d.dealer}` : ""}` }));
    const t = el("table", { class: "hands" });
    for (const [holder, cards] of Object.entries(d.hands || {})) {
      t.append(el("tr", {}, el("th", { scope: "row", text: holder }), el("td", {}, valueEl(cards))));
    }
    sec.append(t);
    box.append(sec);
  }
  return box;
}

/** view.infos: {seat: {field: value}} as a table with a column per seat. */
function infosEl(infos) {
  const seats = Object.keys(infos);
  const fields = [];
  for (const s of seats) for (const k of Object.keys(infos[s] || {})) if (!fields.includes(k)) fields.push(k);
  if (!fields.length) return el("p", { class: "hint", text: "no results" });
  const t = el("table", { class: "results infos", "data-testid": "infos" });
  t.append(el("thead", {}, el("tr", {}, el("th", { text: "" }), ...seats.map((s) => el("th", { scope: "col", text: s })))));
  const body = el("tbody");
  for (const k of fields) {
    body.append(el("tr", {}, el("th", { scope: "row", text: k.replace(/_/g, " ") }),
      ...seats.map((s) => el("td", {}, valueEl((infos[s] || {})[k])))));
  }
  t.append(body);
  return t;
}

/* ---------------- keys ---------------- */

function onKey(ev) {
  if ($("play").hidden || $("game").hidden) return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const buttons = [...$("moves").querySelectorAll('button[data-legal="1"]:not(:disabled)')];
  if (/^[1-9]$/.test(ev.key)) {
    const b = buttons[Number(ev.key) - 1];
    if (b) {
      b.focus();
      ev.preventDefault();
    }
    return;
  }
  if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(ev.key) && buttons.length) {
    const i = buttons.indexOf(document.activeElement);
    const step = ev.key === "ArrowLeft" || ev.key === "ArrowUp" ? -1 : 1;
    const j = i < 0 ? (step > 0 ? 0 : buttons.length - 1) : (i + step + buttons.length) % buttons.length;
    buttons[j].focus();
    ev.preventDefault();
  }
  // Enter on a focused button plays it (the button's own behaviour)
}

export function initPlay(catalog) {
  state.catalog = catalog;
  const sel = $("game-select");
  sel.replaceChildren(...catalog.games.map((g) => el("option", { value: g.name, text: g.display_name || g.name })));
  $("agent-list").replaceChildren(...catalog.agents.map((a) => el("option", { value: a })));
  sel.addEventListener("change", drawOptions);
  $("seat-select").addEventListener("change", drawOpponents);
  $("setup").addEventListener("submit", start);
  $("hint-button").addEventListener("click", hint);
  $("new-game").addEventListener("click", () => {
    state.token += 1;
    state.view = null;
    state.busy = false;
    $("game").hidden = true;
    $("setup").hidden = false;
  });
  document.addEventListener("keydown", onKey);
  drawOptions();
}
