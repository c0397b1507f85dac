// Drawing a table (Engine.table(viewer) as JSON), its facts and the move log; shared by Play and Watch.

import { appendSymbols, cardEl, moveCard, prettyAction, suitSymbols, valueEl } from "./cards.js";

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else if (k in e && typeof v !== "string") e[k] = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function seatName(seat, seats, me) {
  const who = seats && seats[seat] ? seats[seat] : "";
  if (seat === me) return `${seat} (you)`;
  return who ? `${seat} (${who})` : seat;
}

/** The facts panel: phase, dealer, who is to move and every public fact (pot, trump, contract, scores). */
export function drawFacts(box, table, extra = {}) {
  box.replaceChildren();
  const facts = { ...extra };
  if (table) {
    if (table.phase !== undefined && table.phase !== null) facts.phase = table.phase;
    if (table.dealer !== undefined && table.dealer !== null) facts.dealer = table.dealer;
    facts["to move"] = table.to_move ?? "—";
    for (const [k, v] of Object.entries(table.facts || {})) {
      if (v === null || v === undefined || v === false) continue; // unset facts (no trump yet, not truncated)
      facts[k] = suitSymbols(k, v);
    }
  }
  const list = el("div", { class: "facts-list" });
  for (const [k, v] of Object.entries(facts)) {
    const key = k.replace(/_/g, " ");
    list.append(el("span", { class: "fact", "data-testid": `fact-${k}` }, el("span", { class: "fact-name", text: `${key}: ` }), valueEl(v)));
  }
  box.append(list);
}

/**
 * Draw the table into `box`.
 * opts.me: the seat drawn at the bottom (the viewer); opts.seats: seat → who plays it;
 * opts.playable: card code → action name for the viewer's cards that a legal move plays;
 * opts.onCard(name): called when a playable card is clicked.
 */
export function drawTable(box, table, opts = {}) {
  box.replaceChildren();
  if (!table) return;
  const seats = table.seats || [];
  const me = opts.me ?? null;
  const mine = seats.find((s) => s.seat === me);
  const others = seats.filter((s) => s.seat !== me);
  const top = el("div", { class: "seats others" });
  for (const s of others) top.append(seatPanel(s, table, opts, false));
  const center = el("div", { class: "center" });
  center.append(pilesEl(table), trickEl(table, opts));
  box.append(top, center);
  if (mine) box.append(el("div", { class: "seats mine" }, seatPanel(mine, table, opts, true)));
}

/** The action a click on the viewer's i-th card plays, if any: a legal move naming the card ("play:QS"),
 * or for a labelled slot the swap into it ("slot 2" → "swap:2") and for the card in hand "discard". */
function cardAction(code, label, playable) {
  if (!playable) return undefined;
  if (code && playable[code]) return playable[code];
  const m = /^slot (\d+)$/.exec(label || "");
  if (m && playable[`swap:${m[1]}`]) return `swap:${m[1]}`;
  if (label === "in hand" && playable.discard) return "discard";
  return undefined;
}

function seatPanel(s, table, opts, isMe) {
  const p = el("section", {
    class: "seat" + (isMe ? " me" : "") + (table.to_move === s.seat ? " to-move" : ""),
    "data-testid": `seat-${s.seat}`,
    "data-seat": s.seat,
    "aria-label": s.seat,
  });
  const head = el("header", { class: "seat-head" });
  head.append(el("strong", { text: seatName(s.seat, opts.seats, opts.me) }));
  if (s.role) head.append(el("span", { class: "role", "data-testid": "role", text: s.role }));
  if (s.status) head.append(el("span", { class: "status", "data-testid": "status", text: String(s.status) }));
  p.append(head);
  const hidden = (s.cards || []).length > 4 && (s.cards || []).every((c) => c === null) && !Array.isArray(s.labels);
  const cards = el("div", { class: "cards hand" + (hidden ? " stack backs" : ""), "data-testid": "hand" });
  const labels = Array.isArray(s.labels) ? s.labels : null;
  const flags = Array.isArray(s.flags) ? s.flags : null;
  (s.cards || []).forEach((code, i) => {
    const label = labels ? labels[i] : null;
    const name = isMe ? cardAction(code, label, opts.playable) : undefined;
    const c = cardEl(code, { button: Boolean(name), label: label || undefined });
    if (name) {
      c.classList.add("playable");
      c.dataset.action = name;
      c.title = `${prettyAction(name)} (click to play)`;
      c.setAttribute("aria-label", `${label ? label + ": " : ""}${prettyAction(name)}`);
      c.addEventListener("click", () => opts.onCard && opts.onCard(name));
    }
    const f = flags && Array.isArray(flags[i]) ? flags[i] : [];
    if (f.length) {
      c.title = `${c.title} (${f.join(", ")})`;
      for (const x of f) c.classList.add(`flag-${String(x).replace(/\s+/g, "-")}`);
    }
    if (label) {
      const wrap = el("span", { class: "slot" }, c, el("span", { class: "slot-label", text: label }));
      cards.append(wrap);
    } else cards.append(c);
  });
  if (!(s.cards || []).length) cards.append(el("span", { class: "empty", text: "no cards" }));
  p.append(cards);
  if (typeof s.labels === "string") p.append(el("div", { class: "labels", text: s.labels }));
  else if (labels === null && s.labels && typeof s.labels === "object") p.append(valueEl(s.labels));
  const stats = {};
  for (const [k, v] of Object.entries(s.stats || {})) stats[k] = suitSymbols(k, v);
  if (Object.keys(stats).length) p.append(el("div", { class: "stats", "data-testid": "stats" }, valueEl(stats)));
  const own = (table.piles || []).filter((pile) => pile.seat === s.seat);
  if (own.length) {
    const box = el("div", { class: "piles seat-piles" });
    for (const pile of own) box.append(pileEl(pile));
    p.append(box);
  }
  return p;
}

function pilesEl(table) {
  const box = el("div", { class: "piles", "data-testid": "piles" });
  for (const pile of table.piles || []) if (!pile.seat) box.append(pileEl(pile));
  return box;
}

/** A pile's heading, its count said to be cards ("cards won 15", next to a seat's "tricks 5"). */
function pileTitle(name, count) {
  const what = String(name).replace(/_/g, " ");
  if (what === "won") return `cards won ${count}`;
  return `${what} (${count} ${count === 1 ? "card" : "cards"})`;
}

function pileEl(pile) {
  const cards = pile.cards || [];
  const count = pile.count ?? cards.length;
  const id = pile.seat ? `pile-${pile.seat}-${pile.name}` : `pile-${pile.name}`;
  const p = el("section", { class: "pile", "data-testid": id.replace(/\s+/g, "-"), "aria-label": `${pile.name} ${pile.seat || ""}`.trim() });
  p.append(el("header", { "data-testid": "pile-title", text: pileTitle(pile.name, count) }));
  const known = cards.filter((c) => c !== null);
  const row = el("div", { class: "cards" + (cards.length > 5 ? " stack" : "") });
  if (cards.length) {
    // a face-down pile is drawn as one back with its count; known cards are all shown, overlapping
    if (known.length === 0) row.append(cardEl(null));
    else for (const c of cards) row.append(cardEl(c));
    if (pile.seat === null || pile.seat === undefined) row.classList.add("top-last");
  } else if (count > 0) row.append(cardEl(null));
  else row.append(el("span", { class: "empty", text: "empty" }));
  p.append(row);
  return p;
}

function trickEl(table) {
  const box = el("section", { class: "trick", "data-testid": "trick", "aria-label": "trick" });
  const trick = table.trick || [];
  if (!trick.length) return box;
  box.append(el("header", { text: "Trick" }));
  const row = el("div", { class: "cards" });
  for (const t of trick) row.append(el("figure", { class: "played" }, cardEl(t.card), el("figcaption", { text: t.seat })));
  box.append(row);
  return box;
}

/** One move-log entry (a view's `log` item) as an <li>. */
export function logEntry(entry, me) {
  const li = el("li", { "data-testid": "log-entry", "data-n": entry.n, class: entry.seat === me ? "mine" : "" });
  const who = el("span", { class: "who", text: entry.seat === me ? `${entry.seat} (you)` : entry.seat });
  const what = el("span", { class: "what" });
  appendSymbols(what, entry.label || prettyAction(entry.action));
  li.append(who, " ", what);
  const card = moveCard(entry.action || "");
  if (card) li.dataset.card = card;
  // what the move showed the viewer, unless it is just the card the move names
  const seen = (entry.seen || []).filter((c, i, all) => !(all.length === 1 && c === card));
  if (seen.length) {
    const box = el("span", { class: "seen", text: " saw " });
    for (const c of seen) box.append(cardEl(c));
    li.append(box);
  }
  return li;
}

/** Probability bars (policy: name → p), as a <span>. */
export function bar(p) {
  const pct = Math.round(Math.max(0, Math.min(1, Number(p) || 0)) * 100);
  const b = el("span", { class: "bar", "data-testid": "prob-bar", title: `${pct}%` });
  const fill = el("span", { class: "fill" });
  fill.style.width = `${pct}%`; // through the CSSOM: no inline style attribute (CSP)
  b.append(fill, el("span", { class: "pct", text: `${pct}%` }));
  return b;
}
