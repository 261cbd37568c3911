/**
 * The console script's entry: it wires the panels, which import only `core.js` and never each
 * other. It binds reset (which empties every panel), refreshes every panel when a control token
 * is entered, loads them once and keeps them live through the request log's long poll.
 *
 * Browser code, inlined into the page last, after its siblings (see `core.js`).
 */
import { $, api, onTokenEntered, problemText, say } from "./core.js";
import { loadClients } from "./clients.js";
import { loadChallenges } from "./dpop.js";
import { loadFaults } from "./faults.js";
import { loadRequests, watchRequests } from "./requests.js";
import { loadClock, loadScenarios } from "./panels.js";

function refreshPanels() {
  loadClock();
  loadScenarios();
  loadRequests();
  loadClients();
  loadFaults();
  loadChallenges();
}

$("reset-ask").addEventListener("click", () => {
  $("reset-confirm").hidden = false;
  $("reset-ask").hidden = true;
  $("reset-no").focus();
});

function closeReset() {
  $("reset-confirm").hidden = true;
  $("reset-ask").hidden = false;
}

$("reset-no").addEventListener("click", closeReset);

$("reset-yes").addEventListener("click", async () => {
  closeReset();
  const res = await api("POST", "/_mock/reset");
  if (res.status === 200) {
    say("Reset: queue, request log, faults and nonce challenges flushed, clock unfrozen.");
  } else if (res.status !== 401) say(problemText(res), true);
  refreshPanels();
});

onTokenEntered(refreshPanels);

loadClock();
loadScenarios();
loadClients();
loadFaults();
loadChallenges();
// A logged request may change the queue (a token takes a scenario), the clients (a
// registration adds one), the faults (a call one answers uses it up) and the nonce challenges
// (a DPoP token request uses one up).
watchRequests(() => Promise.all([loadScenarios(), loadClients(), loadFaults(), loadChallenges()]));
