/**
 * The console script's core (browser JavaScript, kept as a string): DOM building through
 * `textContent` only, the control-token prompt, one `api()` for every call, and the forms'
 * reading and 422 error placement.
 * @module
 */

/** Part of the console script. */
export const SCRIPT_CORE = String.raw`
const TOKEN_KEY = "mock-oidc.control-token";
const $ = (id) => document.getElementById(id);

/** Builds an element; strings become text nodes, never markup. */
function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function say(message, isError = false) {
  const status = $("status");
  status.textContent = message;
  status.className = isError ? "error" : "";
}

function problemText(res) {
  const d = res.data;
  if (d && typeof d === "object") {
    return res.status + " " + (d.title ?? "") + ": " + (d.detail ?? "");
  }
  return res.status ? "HTTP " + res.status : "the server cannot be reached";
}

let tokenWaiters = [];

/** Resolves once a control token has been entered. */
function tokenEntered() {
  return new Promise((resolve) => tokenWaiters.push(resolve));
}

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

$("token-form").addEventListener("submit", (event) => {
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
  refreshPanels();
});

/** One control-plane call; a 401 asks for the token. Answers {status, data}. */
async function api(method, path, body) {
  const headers = { accept: "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = "Bearer " + token;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    say("Cannot reach the server: " + err.message, true);
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

function clearErrors(form) {
  for (const line of form.querySelectorAll(".field-error, .form-error")) line.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) {
    input.removeAttribute("aria-invalid");
  }
}

function fieldError(form, name, message) {
  const line = form.querySelector('[data-error-for="' + name + '"]');
  if (!line) return false;
  line.append(el("span", "", message), " ");
  form.elements[name].setAttribute("aria-invalid", "true");
  return true;
}

/** Places each 422 error beside the field its location names ("body.claims.x" → claims). */
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
  form.querySelector(".form-error").textContent = general.join("; ");
  say(problemText(res), true);
}

/** The form's non-empty fields as a JSON body, or undefined when one is not valid JSON. */
function readForm(form) {
  const body = {};
  let ok = true;
  for (const input of form.querySelectorAll("[data-kind]")) {
    const raw = input.value.trim();
    if (raw === "") continue;
    const kind = input.dataset.kind;
    if (kind === "list") body[input.name] = raw.split(/[\s,]+/).filter(Boolean);
    else if (kind === "number") body[input.name] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    else if (kind === "json") {
      try {
        body[input.name] = JSON.parse(raw);
      } catch (err) {
        ok = fieldError(form, input.name, "not valid JSON: " + err.message) && false;
      }
    } else body[input.name] = raw;
  }
  return ok ? body : undefined;
}

/** Binds a form: submit → build the body → call → errors beside fields, or onOk(data). */
function bindForm(id, method, path, build, onOk) {
  const form = $(id);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const body = build(form);
    if (body === undefined) return;
    const res = await api(method, path, body);
    if (res.status === 200) onOk(res.data);
    else if (res.status !== 401) showErrors(form, res);
  });
}
`;
