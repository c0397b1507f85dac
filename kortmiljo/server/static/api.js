// The JSON API of docs/web.md, and the page's error line.

const errorBox = () => document.getElementById("error");

export function showError(message) {
  const box = errorBox();
  box.textContent = message;
  box.hidden = false;
}

export function clearError() {
  const box = errorBox();
  box.hidden = true;
  box.textContent = "";
}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** A JSON request; resolves to the parsed answer, rejects with ApiError (shown on the page). */
export async function api(method, path, body, { quiet = false } = {}) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (!quiet) showError(`The server cannot be reached: ${err.message}`);
    throw err;
  }
  let data = null;
  const text = await res.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text };
  }
  if (!res.ok) {
    const err = new ApiError(res.status, data);
    if (!quiet) showError(err.message);
    throw err;
  }
  return data;
}

export const pace = () => Number(document.getElementById("pace").value);
export const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));
