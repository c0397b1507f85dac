// Watch: the list of records, uploads, and the replay player (step, jump, play/pause, the view of each seat).

import { api, clearError, pace, showError } from "./api.js";
import { prettyAction, valueEl } from "./cards.js";
import { bar, drawFacts, drawTable, el, logEntry } from "./table.js";

const $ = (id) => document.getElementById(id);

const state = {
  name: null, // the replay's name on the server
  record: null, // the record JSON (for the annotations)
  k: 0,
  moves: 0,
  timer: null,
  request: 0, // answers to older step requests are dropped
};

export async function loadRecords() {
  const body = $("records-body");
  let data;
  try {
    data = await api("GET", "/api/records");
  } catch {
    return;
  }
  body.replaceChildren();
  const n = data.records.length;
  $("records-count").textContent = n === 1 ? "1 record" : `${n} records`;
  if (!data.records.length) {
    body.append(el("tr", {}, el("td", { colspan: "6", class: "hint", text: "No records (start the server with --records DIR)." })));
  }
  for (const r of data.records) {
    const seats = r.seats && typeof r.seats === "object" && !Array.isArray(r.seats)
      ? Object.entries(r.seats).map(([s, a]) => `${s}: ${a ?? "?"}`).join(", ")
      : Array.isArray(r.seats) ? r.seats.join(", ") : String(r.seats ?? "");
    const button = el("button", { type: "button", "data-testid": "watch-record", "data-name": r.name, text: "Watch" });
    button.addEventListener("click", () => open(r.name, null));
    body.append(el("tr", { "data-testid": "record-row", "data-name": r.name },
      el("td", { text: r.name }), el("td", { text: r.game }), el("td", { text: r.status }),
      el("td", { text: String(r.moves) }), el("td", { text: seats }), el("td", {}, button)));
  }
}

async function upload() {
  const input = $("upload");
  const file = input.files && input.files[0];
  if (!file) return;
  const text = await file.text();
  let record = null;
  try {
    record = JSON.parse(text);
  } catch {
    const first = text.split("\n").find((l) => l.trim());
    try {
      record = JSON.parse(first);
    } catch {
      showError(`${file.name} is not a JSON record`);
      return;
    }
  }
  try {
    const { name } = await api("POST", "/api/replays", text);
    clearError();
    input.value = "";
    await open(name, record);
  } catch {
    /* shown */
  }
}

async function open(name, record) {
  pause();
  if (!record) {
    try {
      record = await api("GET", `/api/records/${encodeURIComponent(name)}`);
    } catch {
      return;
    }
  }
  state.name = name;
  state.record = record;
  state.k = 0;
  state.moves = (record.actions || []).length;
  $("replay-name").textContent = name;
  const view = $("r-view");
  view.replaceChildren(el("option", { value: "", text: "open view (all cards)" }));
  if (record.redacted_for) {
    // a redacted record has only its own seat's view
    view.replaceChildren(el("option", { value: record.redacted_for, text: `view of ${record.redacted_for}` }));
  } else {
    for (const s of Object.keys(record.seats || {})) view.append(el("option", { value: s, text: `view of ${s}` }));
  }
  const slider = $("r-slider");
  slider.max = String(state.moves);
  $("player").hidden = false;
  $("records-box").open = false; // the list folds away (its summary opens it again): the replay is in view
  await go(0);
  const top = $("player").getBoundingClientRect().top;
  if (top < 0 || top > window.innerHeight / 2) $("player").scrollIntoView({ block: "start" });
}

async function go(k) {
  if (state.name === null) return;
  k = Math.max(0, Math.min(state.moves, k));
  const seat = $("r-view").value;
  const id = ++state.request;
  const q = seat ? `?seat=${encodeURIComponent(seat)}` : "";
  let data;
  try {
    data = await api("GET", `/api/replays/${encodeURIComponent(state.name)}/step/${k}${q}`);
  } catch {
    pause();
    return;
  }
  if (id !== state.request) return;
  clearError();
  state.k = k;
  if (typeof data.moves === "number") {
    state.moves = data.moves;
    $("r-slider").max = String(data.moves);
  }
  draw(data, seat || null);
}

function draw(data, seat) {
  const k = state.k;
  $("r-slider").value = String(k);
  $("r-pos").textContent = `${k} / ${state.moves}`;
  $("player").dataset.step = String(k);
  $("player").dataset.view = seat || "open";
  drawFacts($("r-facts"), data.table, { move: `${k} / ${state.moves}` });
  drawTable($("r-table"), data.table, { me: seat, seats: state.record?.seats });
  const log = $("r-log");
  log.replaceChildren();
  const entries = data.log || [];
  entries.forEach((e, i) => {
    const li = logEntry(e, seat);
    if (i === entries.length - 1) {
      li.classList.add("current");
      li.setAttribute("aria-current", "step");
    }
    log.append(li);
  });
  const cur = log.querySelector(".current");
  if (cur) log.scrollTop = Math.max(0, cur.offsetTop - log.clientHeight / 2); // the log scrolls, not the page
  drawAnnotations(k);
  $("r-text").textContent = data.text || "";
  $("r-back").disabled = $("r-first").disabled = k <= 0;
  $("r-fwd").disabled = $("r-last").disabled = k >= state.moves;
}

/** The annotations (policy, value) of the move that led to position k (the k-th move). */
function drawAnnotations(k) {
  const box = $("r-annot");
  box.replaceChildren();
  const a = k > 0 ? (state.record?.actions || [])[k - 1] : null;
  if (!a) {
    box.append(el("p", { class: "hint", text: k > 0 ? "" : "The deal: no move yet." }));
    return;
  }
  const head = el("h2", {});
  head.append(`Move ${k}: ${a.seat} `);
  head.append(valueEl(prettyAction(a.action)));
  box.append(head);
  if (!a.policy && (a.value === undefined || a.value === null)) {
    box.append(el("p", { class: "hint", "data-testid": "no-annotations", text: "No annotations for this move." }));
    return;
  }
  if (a.value !== undefined && a.value !== null) {
    box.append(el("p", { "data-testid": "annotation-value", text: `value ${Number(a.value).toFixed(3)}` }));
  }
  if (a.policy) {
    const list = el("ul", { class: "policy", "data-testid": "annotation-policy" });
    const items = Object.entries(a.policy).sort((x, y) => y[1] - x[1]);
    for (const [name, p] of items) {
      const li = el("li", { class: name === a.action ? "chosen" : "", "data-action": name });
      li.append(el("span", { class: "policy-name" }, valueEl(prettyAction(name))), bar(p));
      list.append(li);
    }
    box.append(list);
  }
}

function pause() {
  if (state.timer !== null) clearTimeout(state.timer);
  state.timer = null;
  const b = $("r-play");
  b.textContent = "▶ Play";
  b.setAttribute("aria-label", "Play");
  b.setAttribute("aria-pressed", "false");
}

function playPause() {
  if (state.timer !== null) return pause();
  if (state.k >= state.moves) go(0);
  const b = $("r-play");
  b.textContent = "⏸ Pause";
  b.setAttribute("aria-label", "Pause");
  b.setAttribute("aria-pressed", "true");
  // stop as the last move is drawn, not one tick later: the button never says "Pause" at the end
  const tick = async () => {
    if (state.k < state.moves) await go(state.k + 1);
    if (state.k >= state.moves) return pause();
    if (state.timer !== null) state.timer = setTimeout(tick, Math.max(0.05, pace()) * 1000);
  };
  state.timer = setTimeout(tick, Math.max(0.05, pace()) * 1000);
}

function onKey(ev) {
  if ($("watch").hidden || $("player").hidden) return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if (ev.key === "ArrowRight") go(state.k + 1);
  else if (ev.key === "ArrowLeft") go(state.k - 1);
  else if (ev.key === " ") playPause();
  else return;
  ev.preventDefault();
}

export function initWatch() {
  $("upload").addEventListener("change", upload);
  $("r-first").addEventListener("click", () => (pause(), go(0)));
  $("r-back").addEventListener("click", () => (pause(), go(state.k - 1)));
  $("r-fwd").addEventListener("click", () => (pause(), go(state.k + 1)));
  $("r-last").addEventListener("click", () => (pause(), go(state.moves)));
  $("r-play").addEventListener("click", playPause);
  $("r-slider").addEventListener("input", (e) => (pause(), go(Number(e.target.value))));
  $("r-view").addEventListener("change", () => go(state.k));
  document.addEventListener("keydown", onKey);
}

export { pause as pauseReplay };
