import assert from "node:assert/strict";
import dpopSource from "../browser/console/dpop.js" with { type: "text" };
import requestsSource from "../browser/console/requests.js" with { type: "text" };
import { inlineModule } from "./console_script.ts";
import { createControlHandler, fakeDeps, jsonRequest } from "../control/_test_support.ts";
import { NonceChallenges } from "../protocol/dpop_challenges.ts";
import { CONSOLE_BODY } from "./console_page.ts";

type Note = { jkt?: string; verified: boolean; error?: string };
interface DpopModule {
  debuggerLink(issuer: string): string;
  challengeWho(challenge: { issuer: string; clientId?: string }): string;
}
interface RequestsModule {
  dpopBadge(dpop: Note): string;
  dpopRows(dpop: Note): Record<string, string>;
}

/** An element stand-in that takes listeners and properties and does nothing (no DOM here). */
const inert = () => ({ addEventListener() {}, value: "" });

/**
 * A panel's pure functions, from the module as the page inlines it: its top-level wiring runs
 * against inert stand-ins of the core, which the functions under test never use.
 */
function load<T>(source: string, names: string[], core: string[]): T {
  const factory = new Function(
    ...core,
    `${inlineModule(source)}\nreturn { ${names.join(", ")} };`,
  );
  return factory(...core.map(() => inert)) as T;
}

const { debuggerLink, challengeWho } = load<DpopModule>(
  dpopSource,
  ["debuggerLink", "challengeWho"],
  ["$", "api", "bindForm", "el", "problemText", "readForm", "say"],
);
const { dpopBadge, dpopRows } = load<RequestsModule>(
  requestsSource,
  ["dpopBadge", "dpopRows"],
  ["$", "api", "el", "problemText", "say", "tokenEntered"],
);

Deno.test("debuggerLink opens the issuer's debugger with PAR, DPoP and PKCE ticked", () => {
  const query = "/debugger?par=on&dpop=on&pkce=on";
  assert.equal(debuggerLink("default"), `/default${query}`);
  assert.equal(debuggerLink(" realms/x "), `/realms/x${query}`);
  assert.equal(debuggerLink("/realms/x/"), `/realms/x${query}`);
  // Each segment encoded on its own: no query or fragment can be smuggled in.
  assert.equal(debuggerLink("a b/c?d#e"), `/a%20b/c%3Fd%23e${query}`);
  assert.equal(debuggerLink(""), `/default${query}`);
});

Deno.test("challengeWho names the client a challenge applies to", () => {
  assert.equal(challengeWho({ issuer: "default" }), "any client");
  assert.equal(challengeWho({ issuer: "default", clientId: "app" }), "client_id=app");
});

Deno.test("the request log's DPoP facts: verified, or the error, with the key's jkt", () => {
  assert.equal(dpopBadge({ jkt: "k", verified: true }), "DPoP verified");
  assert.equal(
    dpopBadge({ jkt: "k", verified: false, error: "use_dpop_nonce" }),
    "DPoP use_dpop_nonce",
  );
  assert.equal(dpopBadge({ verified: false }), "DPoP refused");
  assert.deepEqual(dpopRows({ jkt: "k", verified: true }), { jkt: "k", verified: "yes" });
  assert.deepEqual(dpopRows({ jkt: "k", verified: false, error: "invalid_dpop_proof" }), {
    jkt: "k",
    verified: "no",
    error: "invalid_dpop_proof",
  });
  assert.match(dpopRows({ verified: false, error: "invalid_dpop_proof" }).jkt, /^none/);
});

Deno.test("the page has the DPoP panel: the challenge form, the list, clear, the debugger link", () => {
  const markup = String(CONSOLE_BODY);
  for (
    const id of [
      "dpop-section",
      "challenges",
      "challenges-waiting",
      "challenges-clear",
      "challenge",
    ]
  ) assert.ok(markup.includes(` id="${id}"`), id);
  for (const name of ["issuer", "clientId"]) {
    assert.ok(markup.includes(` id="challenge-${name}" name="${name}"`), name);
    assert.ok(markup.includes(`data-error-for="${name}"`), name);
  }
  assert.match(
    markup,
    /<a id="debugger-link" class="button" href="\/default\/debugger\?par=on&amp;dpop=on&amp;pkce=on"\s+target="_blank" rel="noopener">/,
  );
});

Deno.test("the challenge form's bodies are what POST /_mock/dpop/nonce-challenge takes", async () => {
  const challenges = new NonceChallenges();
  const handle = createControlHandler(fakeDeps({ dpopChallenges: challenges }).deps);
  for (const body of [{ issuer: "default" }, { issuer: "realms/x", clientId: "app" }]) {
    const res = await handle(jsonRequest("POST", "/_mock/dpop/nonce-challenge", body));
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  }
  assert.deepEqual(challenges.list(), [
    { issuer: "default" },
    { issuer: "realms/x", clientId: "app" },
  ]);
  // An empty client id is left out by the form (readForm skips empty fields); sent, it is a 422.
  const res = await handle(
    jsonRequest("POST", "/_mock/dpop/nonce-challenge", { issuer: "x", clientId: "" }),
  );
  assert.equal(res.status, 422);
  await res.body?.cancel();
});
