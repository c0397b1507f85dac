// The options form: one field per game option, built from the catalog's `form` of each option
// (kortmiljo/server/views.py, option_form): choices as a select (True and False as a checkbox, one
// value alone shown, not asked), numbers as bounded inputs, lists as several inputs or names. Each
// field reads back the typed value the server expects, or marks its input invalid (the browser then
// refuses to submit the form and says why). The server checks every value again.

import { el } from "./table.js";

const OTHER = "__input__"; // the select's entry for the free input beside the choices
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The words of `allowed` for None ("None (no cap) or …" → "none (no cap)"). */
function noneLabel(allowed) {
  const m = /\bNone \(([^)]{1,60})\)/.exec(allowed || "");
  return m ? `none (${m[1]})` : "none";
}

function choiceLabel(v, opt) {
  if (v === null) return noneLabel(opt.allowed);
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

function otherLabel(form) {
  if (form.input === "int") return `a number (${form.min}–${form.max})`;
  if (form.input === "ints") return `${form.length} numbers`;
  if (form.input === "names") return "a list of names";
  return "other (JSON)";
}

function numberInput(attrs, form) {
  return el("input", { type: "number", min: String(form.min), max: String(form.max), step: "1", inputmode: "numeric", ...attrs });
}

/**
 * The free input of a form (int, ints, names, json): {node, inputs, set(value), read() → {value} or {error}}.
 * `nullable`: a blank input is None.
 */
function freeInput(id, name, form, nullable) {
  const data = { "data-option-input": name };
  if (form.input === "int") {
    const input = numberInput({ id, "data-testid": id, ...data, placeholder: nullable ? "none" : "" }, form);
    input.required = !nullable;
    return {
      node: input,
      inputs: [input],
      set: (v) => (input.value = v === null || v === undefined ? "" : String(v)),
      read: () => {
        if (input.value.trim() === "") return input.validity.badInput ? { error: "a whole number" } : nullable ? { value: null } : { error: "a number" };
        const n = Number(input.value);
        if (!Number.isInteger(n) || n < form.min || n > form.max) return { error: `a whole number from ${form.min} to ${form.max}` };
        return { value: n };
      },
    };
  }
  if (form.input === "ints") {
    const inputs = [];
    const box = el("span", { class: "ints", id, "data-testid": id, ...data });
    for (let i = 0; i < form.length; i++) {
      const input = numberInput({ id: `${id}-${i}`, "data-testid": `${id}-${i}`, "aria-label": `${name.replace(/_/g, " ")} ${i + 1}`, placeholder: nullable ? "—" : "" }, form);
      input.required = !nullable;
      inputs.push(input);
      box.append(input);
    }
    return {
      node: box,
      inputs,
      set: (v) => inputs.forEach((input, i) => (input.value = Array.isArray(v) && v[i] !== undefined ? String(v[i]) : "")),
      read: () => {
        const texts = inputs.map((i) => i.value.trim());
        if (nullable && texts.every((t) => t === "") && inputs.every((i) => !i.validity.badInput)) return { value: null };
        const ns = texts.map(Number);
        if (texts.some((t) => t === "") || ns.some((n) => !Number.isInteger(n) || n < form.min || n > form.max)) {
          return { error: `${form.length} whole numbers from ${form.min} to ${form.max}${nullable ? ", or all blank" : ""}` };
        }
        return { value: ns };
      },
    };
  }
  if (form.input === "names") {
    const input = el("input", {
      id, type: "text", "data-testid": id, ...data, spellcheck: "false",
      maxlength: String(form.most * (form.longest + 2)), placeholder: nullable ? "none (all)" : "a, b, c",
    });
    return {
      node: input,
      inputs: [input],
      set: (v) => (input.value = Array.isArray(v) ? v.join(", ") : ""),
      read: () => {
        const names = input.value.split(",").map((s) => s.trim()).filter((s) => s !== "");
        if (!names.length && nullable) return { value: null };
        if (names.length > form.most || names.some((s) => s.length > form.longest)) {
          return { error: `at most ${form.most} names of at most ${form.longest} characters, separated by commas` };
        }
        return { value: names };
      },
    };
  }
  const input = el("input", { id, type: "text", "data-testid": id, ...data, spellcheck: "false", maxlength: "2000", placeholder: nullable ? "none" : "JSON" });
  return {
    node: input,
    inputs: [input],
    set: (v) => (input.value = v === null || v === undefined ? "" : JSON.stringify(v)),
    read: () => {
      const text = input.value.trim();
      if (text === "") return nullable ? { value: null } : { error: "a JSON value" };
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: "a JSON value (strings in double quotes)" };
      }
    },
  };
}

/**
 * One option's row of the form. `onChange()` is called when its value changes.
 * The row's `read()` is {value} (the typed value) or {error} (the input is marked invalid).
 */
export function optionField(name, opt, onChange) {
  const form = opt.form && (opt.form.input || (opt.form.choices || []).length) ? opt.form : { input: "json", choices: [] };
  const choices = form.choices || [];
  const id = `opt-${name}`;
  const hintId = `${id}-hint`;
  const row = el("div", { class: "row option", "data-field": name });
  const title = name.replace(/_/g, " ");
  const hint = el("span", { id: hintId, class: "hint", text: opt.allowed ? String(opt.allowed) : "" });
  const attrs = { id, "data-testid": id, "data-option": name, "aria-describedby": hintId };
  let read;
  let inputs;

  if (form.input === null && choices.length === 1) {
    // one value: shown, not asked (a game for exactly three players)
    row.append(el("label", { for: id, text: title }),
      el("output", { ...attrs, class: "fixed", "data-fixed": "1", text: choiceLabel(choices[0], opt) }), hint);
    row.read = () => ({ value: choices[0] });
    return row;
  }
  if (form.input === null && choices.length === 2 && choices.every((v) => typeof v === "boolean")) {
    const box = el("input", { ...attrs, type: "checkbox" });
    box.checked = opt.default === true;
    inputs = [box];
    read = () => ({ value: box.checked });
    if (/^True or False$/i.test(hint.textContent)) hint.textContent = ""; // the checkbox says as much
    row.append(el("label", { for: id, text: title }), box, hint);
  } else {
    // a select of the choices, with the free input as its last entry; a free input alone where
    // None is the only choice (blank is None) or there is none
    const alone = form.input !== null && (choices.length === 0 || same(choices, [null]));
    const free = form.input !== null ? freeInput(alone ? id : `${id}-value`, name, form, alone && choices.length > 0) : null;
    if (alone) {
      free.set(opt.default);
      inputs = free.inputs;
      read = free.read;
      free.node.dataset.option = name;
      free.node.setAttribute("aria-describedby", hintId);
      // a group of inputs is named by its text (a <label> names one input)
      const head = form.input === "ints" ? el("span", { class: "label", text: title }) : el("label", { for: id, text: title });
      row.append(head, free.node, hint);
    } else {
      const select = el("select", attrs);
      for (const v of choices) select.append(el("option", { value: JSON.stringify(v), text: choiceLabel(v, opt) }));
      if (free) select.append(el("option", { value: OTHER, text: otherLabel(form) }));
      const initial = choices.some((v) => same(v, opt.default)) ? JSON.stringify(opt.default) : OTHER;
      select.value = initial;
      if (free) free.set(initial === OTHER ? opt.default : null);
      const sync = () => {
        if (!free) return;
        const on = select.value === OTHER;
        free.node.hidden = !on;
        for (const i of free.inputs) i.disabled = !on; // a disabled input is not validated
      };
      sync();
      select.addEventListener("change", sync);
      inputs = [select, ...(free ? free.inputs : [])];
      read = () => (select.value === OTHER ? free.read() : { value: JSON.parse(select.value) });
      row.append(el("label", { for: id, text: title }), select);
      if (free) row.append(free.node);
      row.append(hint);
    }
  }

  row.read = () => {
    const r = read();
    for (const i of inputs) i.setCustomValidity("");
    const target = inputs.find((i) => !i.disabled && i.tagName === "INPUT") || inputs[0];
    if (r.error !== undefined) target.setCustomValidity(`${title}: ${r.error}`);
    return r;
  };
  const changed = () => {
    row.read();
    if (onChange) onChange(name);
  };
  for (const i of inputs) {
    i.addEventListener("input", changed);
    i.addEventListener("change", changed);
  }
  row.read();
  return row;
}

/** The options changed from their defaults ({name: value}), and whether every field is valid. */
export function readOptions(box, options) {
  const config = {};
  let ok = true;
  for (const row of box.querySelectorAll("[data-field]")) {
    const name = row.dataset.field;
    const r = row.read();
    if (r.error !== undefined) ok = false;
    else if (!same(r.value, options[name]?.default)) config[name] = r.value;
  }
  return { config, ok };
}

/** One option's value as read now (undefined: invalid or no such option). */
export function optionValue(box, name) {
  const row = box.querySelector(`[data-field="${CSS.escape(name)}"]`);
  if (!row) return undefined;
  const r = row.read();
  return r.error === undefined ? r.value : undefined;
}
