// Card codes → card elements and readable text (French ♠ ♥ ♦ ♣ and the kille deck's Swedish names).

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["♥", "♦"]);
const FRENCH = /^([A2-9TJQK])([SHDC])$/;

export const KILLE = {
  blaren: "Blaren", blompotta: "Blompottan", kransen: "Kransen",
  1: "1", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10", 11: "11", 12: "12",
  vardshus: "Värdshuset", kavall: "Kavallen", husu: "Husun", husar: "Husaren", kuku: "Kuku", kille: "Killen",
};
const KILLE_ORDER = Object.keys(KILLE);

/** Whether a string is a card code of either deck. */
export function isCard(code) {
  return typeof code === "string" && (FRENCH.test(code) || Object.prototype.hasOwnProperty.call(KILLE, code));
}

/** {rank, suit, red, kille, text} of a card code. */
export function cardInfo(code) {
  const m = FRENCH.exec(code);
  if (m) {
    const rank = m[1] === "T" ? "10" : m[1];
    const suit = SUITS[m[2]];
    return { rank, suit, red: RED.has(suit), kille: false, text: rank + suit };
  }
  if (Object.prototype.hasOwnProperty.call(KILLE, code)) {
    const name = KILLE[code];
    const short = /^\d+$/.test(name) ? name : name.slice(0, 4);
    return { rank: name, short, suit: "", red: false, kille: true, text: name, order: KILLE_ORDER.indexOf(code) };
  }
  return { rank: String(code), suit: "", red: false, kille: false, text: String(code) };
}

/** The readable text of a card code ("Q♠", "Kuku"); other text unchanged. */
export function prettyCard(code) {
  return isCard(code) ? cardInfo(code).text : String(code);
}

/** An action name made readable: "play:QS" → "play Q♠", "swap:2" → "swap 2", "bet:3" → "bet 3". */
export function prettyAction(name) {
  if (typeof name !== "string") return String(name);
  return name
    .split(":")
    .map((part) => (isCard(part) && !/^\d+$/.test(part) ? prettyCard(part) : part.replace(/_/g, " ")))
    .join(" ");
}

// moves whose argument is a card even where it reads as a number (the kille ranks 1 … 12);
// other numbered moves ("swap:2", "bet:3") name a slot or an amount
const CARD_VERBS = new Set(["play", "discard", "lead", "throw", "show", "give"]);

/** The card a move plays or discards from the hand (its code), or null. */
export function moveCard(name) {
  const i = name.indexOf(":");
  if (i < 0) return null;
  const verb = name.slice(0, i);
  const arg = name.slice(i + 1);
  if (FRENCH.test(arg)) return arg;
  if (isCard(arg) && (!/^\d+$/.test(arg) || CARD_VERBS.has(verb))) return arg;
  return null;
}

/**
 * A card element. code null → a face-down card back.
 * opts.button: a <button> (a card that can be played), opts.label: extra text for screen readers.
 */
export function cardEl(code, opts = {}) {
  const el = document.createElement(opts.button ? "button" : "span");
  if (opts.button) el.type = "button";
  el.classList.add("card");
  if (code === null || code === undefined) {
    el.classList.add("back");
    el.dataset.testid = "card-back";
    el.setAttribute("aria-label", "face-down card");
    el.title = "face-down card";
    return el;
  }
  const info = cardInfo(code);
  el.dataset.testid = "card";
  el.dataset.card = code;
  if (info.red) el.classList.add("red");
  if (info.kille) el.classList.add("kille");
  el.setAttribute("aria-label", opts.label ? `${opts.label} ${info.text}` : info.text);
  el.title = info.text;
  const r = document.createElement("span");
  r.className = "rank";
  r.textContent = info.rank;
  el.append(r);
  if (info.kille && !/^\d+$/.test(info.rank)) {
    // small cards (the log, the summary, piles) show the first letters; the full name is the title
    r.classList.add("long");
    const sh = document.createElement("span");
    sh.className = "rank short";
    sh.setAttribute("aria-hidden", "true");
    sh.textContent = info.short;
    el.append(sh);
  }
  if (info.suit) {
    const s = document.createElement("span");
    s.className = "suit";
    s.textContent = info.suit;
    el.append(s);
  }
  return el;
}

/** A row of card elements. */
export function cardRow(codes, opts = {}) {
  const row = document.createElement("div");
  row.className = "cards";
  for (const c of codes) row.append(cardEl(c, opts));
  return row;
}

const SUIT_KEYS = /(^|_)(trump|suit|suits|voids|void)$/;

/** A fact or stat whose name says it holds suits ("trump": "S", "voids": ["H"]) with ♠ ♥ ♦ ♣ for the letters. */
export function suitSymbols(key, value) {
  if (!SUIT_KEYS.test(key)) return value;
  const one = (v) => (typeof v === "string" && SUITS[v] ? SUITS[v] : v);
  return Array.isArray(value) ? value.map(one) : one(value);
}

const SYMBOL_RE = /(10|[A2-9JQK])([♠♥♦♣])/g;

/** A text with its card symbols coloured (red hearts and diamonds), as DOM nodes appended to `el`. */
export function appendSymbols(el, text) {
  text = String(text ?? "");
  let last = 0;
  for (const m of text.matchAll(SYMBOL_RE)) {
    if (m.index > last) el.append(text.slice(last, m.index));
    const span = document.createElement("span");
    span.className = "sym" + (RED.has(m[2]) ? " red" : "");
    span.textContent = m[0];
    el.append(span);
    last = m.index + m[0].length;
  }
  if (last < text.length) el.append(text.slice(last));
  return el;
}

/** {seat, card}: a card a seat played (a trick's entry). */
function isSeatCard(v) {
  return Boolean(v) && typeof v === "object" && !Array.isArray(v) && isCard(v.card) && typeof v.seat === "string"
    && Object.keys(v).length === 2;
}

/** A readable rendering of any JSON value: card lists as card rows, objects as definition lists. */
export function valueEl(value) {
  if (Array.isArray(value)) {
    if (value.length && value.every((v) => v === null || isCard(v))) return cardRow(value);
    if (value.length && value.every(isSeatCard)) {
      const span = document.createElement("span");
      span.className = "seat-cards";
      for (const v of value) span.append(valueEl(v));
      return span;
    }
    if (value.every((v) => v === null || typeof v !== "object")) {
      const span = document.createElement("span");
      appendSymbols(span, value.map((v) => (v === null ? "—" : prettyAction(String(v)))).join(", ") || "—");
      return span;
    }
    const list = document.createElement("ol");
    list.className = "value-list";
    for (const v of value) {
      const li = document.createElement("li");
      li.append(valueEl(v));
      list.append(li);
    }
    return list;
  }
  if (value && typeof value === "object" && typeof value.winner === "string" && Array.isArray(value.cards)
      && value.cards.every(isSeatCard) && Object.keys(value).length === 2) {
    // a finished trick: {winner, cards: [{seat, card}]}
    const span = document.createElement("span");
    span.className = "seat-cards";
    span.append(valueEl(value.cards), ` won by ${value.winner}`);
    return span;
  }
  if (isSeatCard(value)) {
    const span = document.createElement("span");
    span.className = "seat-card";
    span.append(`${value.seat} `, cardEl(value.card));
    return span;
  }
  if (value && typeof value === "object") {
    const dl = document.createElement("dl");
    dl.className = "kv";
    for (const [k, v] of Object.entries(value)) {
      const dt = document.createElement("dt");
      dt.textContent = k.replace(/_/g, " ");
      const dd = document.createElement("dd");
      dd.append(valueEl(suitSymbols(k, v)));
      dl.append(dt, dd);
    }
    return dl;
  }
  const span = document.createElement("span");
  if (value === null || value === undefined) span.textContent = "—";
  else if (typeof value === "number") span.textContent = Number.isInteger(value) ? String(value) : String(+value.toFixed(3));
  else if (typeof value === "boolean") span.textContent = value ? "yes" : "no";
  else if (isCard(value) && !/^\d+$/.test(value)) span.append(cardEl(value));
  else appendSymbols(span, value);
  return span;
}
