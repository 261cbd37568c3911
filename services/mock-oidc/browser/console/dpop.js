/**
 * The console's DPoP panel: nonce challenges (`/_mock/dpop/nonce-challenge`: the next token
 * request with a DPoP proof to an issuer, from one client when named, must carry a server nonce),
 * listed, forced from a small form and cleared, and a link that opens the issuer's debugger with
 * PAR, DPoP and PKCE ticked. A token request uses a challenge up and is a logged request, so
 * `main.js` reloads the list on every change of the log, after reset and when a control token is
 * entered.
 *
 * Browser code, inlined into the page with its siblings (see `core.js`).
 */
import { $, api, bindForm, el, problemText, readForm, say } from "./core.js";

/**
 * A waiting challenge as `GET /_mock/dpop/nonce-challenge` lists it.
 * @typedef {{ issuer: string, clientId?: string }} NonceChallenge
 */

/**
 * The path of `issuer`'s debugger with PAR, DPoP and PKCE ticked: each segment of a
 * multi-segment issuer (`realms/x`) percent-encoded on its own; an empty issuer is `default`.
 * @param {string} issuer
 */
export function debuggerLink(issuer) {
  const id = issuer.trim().replace(/^\/+|\/+$/g, "") || "default";
  return "/" + id.split("/").map(encodeURIComponent).join("/") +
    "/debugger?par=on&dpop=on&pkce=on";
}

/**
 * Who a waiting challenge applies to: `any client`, or `client_id=…`.
 * @param {NonceChallenge} challenge
 */
export function challengeWho(challenge) {
  return challenge.clientId === undefined ? "any client" : "client_id=" + challenge.clientId;
}

/** @param {NonceChallenge} challenge */
function challengeItem(challenge) {
  return el(
    "li",
    "challenge",
    "issuer ",
    el("code", "", challenge.issuer),
    " · " + challengeWho(challenge) + " · next DPoP token request must carry a nonce",
  );
}

export async function loadChallenges() {
  const res = await api("GET", "/_mock/dpop/nonce-challenge");
  if (res.status !== 200) {
    if (res.status !== 401) say(problemText(res), true);
    return;
  }
  /** @type {NonceChallenge[]} */
  const challenges = res.data.challenges ?? [];
  $("challenges-waiting").textContent = "(" + res.data.count + ")";
  const items = challenges.map(challengeItem);
  $("challenges").replaceChildren(
    ...(items.length ? items : [el("li", "note", "No nonce challenge waits.")]),
  );
}

function updateLink() {
  $("debugger-link").href = debuggerLink($("challenge-issuer").value);
}

bindForm("challenge", "POST", "/_mock/dpop/nonce-challenge", readForm, (data) => {
  say(
    "Nonce challenge set for issuer " + data.issuer +
      (data.clientId === undefined ? "" : ", client " + data.clientId) + " (" + data.pending +
      " waiting).",
  );
  loadChallenges();
});

$("challenges-clear").addEventListener("click", async () => {
  const res = await api("DELETE", "/_mock/dpop/nonce-challenge");
  if (res.status === 200) say("Nonce challenges cleared.");
  else if (res.status !== 401) say(problemText(res), true);
  loadChallenges();
});

$("challenge-issuer").addEventListener("input", updateLink);
updateLink();
