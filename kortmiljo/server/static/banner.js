// The end of a game in words: won, lost or a tie, and by how much, from the view's final rewards.

import { el } from "./table.js";

const EPS = 1e-9;

/** A reward as text: "+2", "−1.5", "0". */
export function signed(x) {
  const v = +Number(x).toFixed(3);
  if (Math.abs(v) < EPS) return "0";
  return v > 0 ? `+${v}` : `−${Math.abs(v)}`;
}

const amount = (x) => String(+Math.abs(Number(x)).toFixed(3));

function ordinal(k) {
  const tail = k % 100 >= 11 && k % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[k % 10] || "th");
  return `${k}${tail}`;
}

const names = (seats) => (seats.length <= 1 ? seats.join("") : `${seats.slice(0, -1).join(", ")} and ${seats[seats.length - 1]}`);

/**
 * The outcome for seat `me` of final rewards {seat: reward}: {kind, title, detail, margin, place, of}.
 * kind: "won" (more than every other seat), "lost" (less than some seat), "tie" (level with the best);
 * margin: how far ahead of the next best ("won"), behind the best ("lost"), 0 for a tie; place: 1 = best.
 * status "truncated": the game was cut short, and the title says so.
 */
export function outcome(rewards, me, status = "finished") {
  const seats = Object.keys(rewards || {});
  const mine = Number(rewards[me]);
  const others = seats.filter((s) => s !== me).map((s) => [s, Number(rewards[s])]);
  const of = seats.length;
  const place = 1 + others.filter(([, r]) => r > mine + EPS).length;
  const cut = status === "truncated";
  if (!others.length || !Number.isFinite(mine)) {
    return { kind: "over", title: cut ? "The game was cut short" : "The game is over", detail: `Your reward ${signed(mine)}.`, margin: 0, place: 1, of };
  }
  const best = Math.max(...others.map(([, r]) => r));
  const leaders = others.filter(([, r]) => Math.abs(r - best) < EPS).map(([s]) => s);
  const yours = `Your reward ${signed(mine)}`;
  const placed = of > 2 ? ` You placed ${ordinal(place)} of ${of}.` : "";
  if (mine > best + EPS) {
    const margin = mine - best;
    return {
      kind: "won", margin, place, of,
      title: cut ? "Cut short: you were ahead" : "You won",
      detail: `${yours}: ${amount(margin)} ahead of ${names(leaders)} (${signed(best)})${of > 2 ? ", the next best" : ""}.`,
    };
  }
  if (mine < best - EPS) {
    const margin = best - mine;
    return {
      kind: "lost", margin, place, of,
      title: cut ? "Cut short: you were behind" : "You lost",
      detail: `${yours}: ${amount(margin)} behind ${names(leaders)} (${signed(best)})${of > 2 ? `, the ${leaders.length > 1 ? "best" : "winner"}` : ""}.${placed}`,
    };
  }
  const all = others.every(([, r]) => Math.abs(r - mine) < EPS);
  return {
    kind: "tie", margin: 0, place, of,
    title: cut ? "Cut short: level" : all ? "A tie" : "A tie for first",
    detail: all ? `Every seat's reward is ${signed(mine)}.` : `${yours}, level with ${names(leaders)}.${placed}`,
  };
}

/** Draw the banner of a finished view into `box` (and bring it into sight). */
export function drawBanner(box, view) {
  const o = outcome(view.rewards, view.seat, view.status);
  box.replaceChildren(
    el("strong", { class: "banner-title", "data-testid": "banner-title", text: o.title }),
    el("p", { class: "banner-detail", "data-testid": "banner-detail", text: o.detail }),
  );
  box.className = `panel banner ${o.kind}`;
  Object.assign(box.dataset, { outcome: o.kind, margin: String(+o.margin.toFixed(6)), place: String(o.place) });
  box.hidden = false;
  const r = box.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
}

export function clearBanner(box) {
  box.hidden = true;
  box.replaceChildren();
  delete box.dataset.outcome;
}
