/**
 * The console script's core: DOM building through `textContent` only, the control-token
 * prompt, one `api()` for every call, and the forms' reading and 422 error placement. It imports
 * nothing; the panels import it, and `main.js` wires them.
 *
 * Browser code in a workspace member of its own (`../deno.json`: `checkJs` with the DOM
 * library, kept apart from the Deno code, whose types the DOM library would change), so the
 * root `deno check` and `deno lint` cover it. `services/mock-oidc/console/console_script.ts`
 * inlines it with its siblings into the page as one function scope (import lines dropped,
 * `export` keywords dropped), so it imports only from its siblings.
 */

/**
 * The answer of {@linkcode api}: status 0 when the server cannot be reached; `data` is the
 * parsed JSON body (the text when it is not JSON, undefined when empty).
 * @typedef {{ status: number, data: any }} ApiAnswer
 */

const TOKEN_KEY = "mock-oidc.control-token";
/**
 * The page's element of this id. Typed loosely: the ids are the page's own (console_page.ts),
 * of several element kinds (forms, inputs, lists).
 * @param {string} id
 * @returns {any}
 */
export const $ = (id) => document.getElementById(id);

/**
 * Builds an element; strings become text nodes, never markup.
 * @param {string} tag
 * @param {string} className
 * @param {...(Node | string | number)} children
 */
export function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

/**
 * @param {string} message
 * @param {boolean} [isError]
 */
export function say(message, isError = false) {
  const status = $("status");
  status.textContent = message;
  status.className = isError ? "error" : "";
}

/** @param {ApiAnswer} res */
export function problemText(res) {
  const d = res.data;
  if (d && typeof d === "object") {
    return res.status + " " + (d.title ?? "") + ": " + (d.detail ?? "");
  }
  return res.status ? "HTTP " + res.status : "the server cannot be reached";
}

/** @type {(() => void)[]} */
let tokenWaiters = [];

/** Resolves once a control token has been entered. */
export function tokenEntered() {
  return new Promise((resolve) => tokenWaiters.push(() => resolve(undefined)));
}

/** @type {(() => void)[]} */
const tokenListeners = [];

/**
 * Calls `listener` each time a control token is entered (`main.js` refreshes the panels).
 * @param {() => void} listener
 */
export function onTokenEntered(listener) {
  tokenListeners.push(listener);
}

/** @param {string | null} sentToken */
function askToken(sentToken) {
  const invalid = Boolean(sentToken);
  $("token-reason").textContent = invalid
    ? "The control token was refused (401). Enter it again."
    : "This control plane needs its control token: every call gets 401 without it. " +
      "Enter it once; it stays in this tab's session storage only.";
  say("401: the control plane needs the control token", true);
  if (invalid) sessionStorage.removeItem(TOKEN_KEY);
  const form = $("token-form");
  if (form.hidden) {
    form.hidden = false;
    $("token").focus();
  }
}

$("token-form").addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
  event.preventDefault();
  const value = $("token").value.trim();
  if (!value) return;
  sessionStorage.setItem(TOKEN_KEY, value);
  $("token").value = "";
  $("token-form").hidden = true;
  say("Control token set for this tab.");
  const waiters = tokenWaiters;
  tokenWaiters = [];
  for (const wake of waiters) wake();
  for (const listener of tokenListeners) listener();
});

/**
 * One control-plane call; a 401 asks for the token.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<ApiAnswer>}
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = "Bearer " + token;
  /** @type {RequestInit} */
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    say("Cannot reach the server: " + /** @type {Error} */ (err).message, true);
    return { status: 0, data: undefined };
  }
  const text = await res.text();
  let data = text;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch { /* keep the text */ }
  if (res.status === 401) askToken(token);
  return { status: res.status, data };
}

/** @param {HTMLFormElement} form */
function clearErrors(form) {
  for (const line of form.querySelectorAll(".field-error, .form-error")) line.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) {
    input.removeAttribute("aria-invalid");
  }
}

/**
 * @param {HTMLFormElement} form
 * @param {string} name
 * @param {string} message
 */
function fieldError(form, name, message) {
  const line = form.querySelector('[data-error-for="' + name + '"]');
  if (!line) return false;
  line.append(el("span", "", message), " ");
  /** @type {Element} */ (form.elements.namedItem(name)).setAttribute("aria-invalid", "true");
  return true;
}

/**
 * Places each 422 error beside the field its location names ("body.claims.x" → claims).
 * @param {HTMLFormElement} form
 * @param {ApiAnswer} res
 */
function showErrors(form, res) {
  const errors = res.data && Array.isArray(res.data.errors) ? res.data.errors : [];
  const general = [];
  for (const e of errors) {
    const location = String(e.location ?? "");
    const m = /^body\.([A-Za-z]+)(.*)$/.exec(location);
    const message = String(e.message ?? "invalid") + (m && m[2] ? " (at " + m[1] + m[2] + ")" : "");
    if (!m || !fieldError(form, m[1], message)) general.push(location + ": " + message);
  }
  if (errors.length === 0) general.push(problemText(res));
  /** @type {Element} */ (form.querySelector(".form-error")).textContent = general.join("; ");
  say(problemText(res), true);
}

/**
 * The form's non-empty fields as a JSON body, or undefined when one is not valid JSON.
 * @param {HTMLFormElement} form
 * @returns {Record<string, unknown> | undefined}
 */
export function readForm(form) {
  /** @type {Record<string, unknown>} */
  const body = {};
  let ok = true;
  for (const node of form.querySelectorAll("[data-kind]")) {
    const input = /** @type {HTMLInputElement} */ (node); // inputs and textareas: value, name
    const raw = input.value.trim();
    if (raw === "") continue;
    const kind = input.dataset.kind;
    if (kind === "list") body[input.name] = raw.split(/[\s,]+/).filter(Boolean);
    else if (kind === "number") body[input.name] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    else if (kind === "json") {
      try {
        body[input.name] = JSON.parse(raw);
      } catch (err) {
        const why = /** @type {Error} */ (err).message;
        ok = fieldError(form, input.name, "not valid JSON: " + why) && false;
      }
    } else body[input.name] = raw;
  }
  return ok ? body : undefined;
}

/**
 * Binds a form: submit → build the body → call → errors beside fields, or onOk(data).
 * @param {string} id
 * @param {string} method
 * @param {string} path
 * @param {(form: HTMLFormElement) => unknown} build
 * @param {(data: any) => void} onOk
 */
export function bindForm(id, method, path, build, onOk) {
  const form = $(id);
  form.addEventListener("submit", async (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    clearErrors(form);
    const body = build(form);
    if (body === undefined) return;
    const res = await api(method, path, body);
    if (res.status === 200) onOk(res.data);
    else if (res.status !== 401) showErrors(form, res);
  });
}
