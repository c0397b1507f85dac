// The page's entry point: the Play and Watch tabs, the pace slider, and the catalog.

import { api } from "./api.js";
import { initPlay } from "./play.js";
import { initWatch, loadRecords, pauseReplay } from "./watch.js";

const $ = (id) => document.getElementById(id);

function setMode(mode) {
  for (const tab of document.querySelectorAll(".tab")) tab.setAttribute("aria-pressed", String(tab.dataset.mode === mode));
  $("play").hidden = mode !== "play";
  $("watch").hidden = mode !== "watch";
  if (mode === "watch") loadRecords();
  else pauseReplay();
  document.body.dataset.mode = mode;
}

async function main() {
  const paceInput = $("pace");
  const asked = new URLSearchParams(location.search).get("pace"); // ?pace=0: no waiting between moves
  if (asked !== null && Number.isFinite(Number(asked))) paceInput.value = String(Math.max(0, Math.min(2, Number(asked))));
  const showPace = () => ($("pace-out").textContent = `${Number(paceInput.value).toFixed(1)} s`);
  paceInput.addEventListener("input", showPace);
  showPace();
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => setMode(tab.dataset.mode));
  initWatch();
  const catalog = await api("GET", "/api/catalog");
  initPlay(catalog);
  setMode(location.hash === "#watch" ? "watch" : "play");
  document.body.dataset.ready = "1";
}

main();
