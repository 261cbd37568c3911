/**
 * The console's registered clients: the RFC 7591 registrations `GET /_mock/clients` lists
 * (never their secrets: the control plane leaves them out), a refresh, and forgetting them all
 * (`DELETE /_mock/clients`) behind a confirmation.
 *
 * Browser code, inlined into the page with its siblings (see `core.js`).
 */
import { $, api, el, problemText, say } from "./core.js";

/**
 * A registration as `/_mock/clients` lists it.
 * @typedef {{
 *   issuer: string, clientId: string, clientIdIssuedAt: number, clientName: string | null,
 *   tokenEndpointAuthMethod: string, redirectUris: string[], grantTypes: string[],
 * }} RegisteredClient
 */

/**
 * @param {string} name
 * @param {Node | string} value
 */
function row(name, value) {
  return el("tr", "", el("th", "", name), el("td", "", value));
}

/** @param {string[] | undefined} values */
function listed(values) {
  const items = (values ?? []).map((v) => el("li", "", el("code", "", v)));
  return items.length ? el("ul", "values", ...items) : "none";
}

/** @param {RegisteredClient} client */
function clientItem(client) {
  const issuedAt = new Date(client.clientIdIssuedAt * 1000).toISOString();
  const item = el(
    "li",
    "client",
    el(
      "table",
      "",
      row("client_id", el("code", "", client.clientId)),
      row("client_name", client.clientName ?? "none"),
      row("issuer", client.issuer),
      row("redirect_uris", listed(client.redirectUris)),
      row("grant_types", listed(client.grantTypes)),
      row("token_endpoint_auth_method", client.tokenEndpointAuthMethod),
      row("issued at", issuedAt.replace(".000Z", "Z")),
    ),
  );
  item.dataset.clientId = client.clientId;
  return item;
}

export async function loadClients() {
  const res = await api("GET", "/_mock/clients");
  if (res.status !== 200) {
    if (res.status !== 401) say(problemText(res), true);
    return;
  }
  /** @type {RegisteredClient[]} */
  const clients = res.data.clients ?? [];
  $("client-count").textContent = "(" + res.data.count + ")";
  // Newest first, as the request log.
  const items = clients.slice().reverse().map(clientItem);
  $("clients").replaceChildren(
    ...(items.length
      ? items
      : [el("li", "note", "No client registered (POST /{issuer}/register).")]),
  );
}

$("clients-refresh").addEventListener("click", loadClients);

$("clients-clear-ask").addEventListener("click", () => {
  $("clients-clear-confirm").hidden = false;
  $("clients-clear-ask").hidden = true;
  $("clients-clear-no").focus();
});

function closeClear() {
  $("clients-clear-confirm").hidden = true;
  $("clients-clear-ask").hidden = false;
}

$("clients-clear-no").addEventListener("click", closeClear);

$("clients-clear-yes").addEventListener("click", async () => {
  closeClear();
  const res = await api("DELETE", "/_mock/clients");
  if (res.status === 200) say("Registered clients forgotten.");
  else if (res.status !== 401) say(problemText(res), true);
  loadClients();
});
