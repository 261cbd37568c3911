import assert from "node:assert/strict";
import faultsSource from "../browser/console/faults.js" with { type: "text" };
import { inlineModule } from "./console_script.ts";
import { createControlHandler, fakeDeps, jsonRequest } from "../control/_test_support.ts";
import { FAULT_KINDS, FaultQueue } from "../protocol/fault_queue.ts";
import { CONSOLE_BODY } from "./console_page.ts";

type Values = Record<string, unknown>;
type Listed = Values & { kind: string; endpoint: string; remaining: number; faultId: string };
interface FaultsModule {
  faultRequest(values: Values): Values;
  faultAnswer(fault: Listed): string;
  faultMatch(fault: Listed): string;
}

/**
 * The panel's pure functions, from the module as the page inlines it: its top-level wiring runs
 * against inert stand-ins of the core (no DOM here), which the functions under test never use.
 */
function loadModule(): FaultsModule {
  const inert = () => ({ addEventListener() {} });
  const factory = new Function(
    "$",
    "api",
    "bindForm",
    "el",
    "problemText",
    "readForm",
    "say",
    `${inlineModule(faultsSource)}\nreturn { faultRequest, faultAnswer, faultMatch };`,
  );
  return factory(inert, inert, inert, inert, inert, inert, inert) as FaultsModule;
}

const { faultRequest, faultAnswer, faultMatch } = loadModule();

/** Every field of the page's fault form filled, as `readForm` reads it. */
const FULL_FORM: Values = {
  endpoint: "token",
  issuer: "realms/x",
  count: 2,
  grantType: "client_credentials",
  clientId: "c",
  error: "temporarily_unavailable",
  errorDescription: "down",
  status: 503,
  body: "busy",
  contentType: "text/plain",
  delayMs: 1500,
  malformed: "bad_json",
};

Deno.test("faultRequest keeps the match fields and only what the kind takes", () => {
  const match = {
    endpoint: "token",
    issuer: "realms/x",
    count: 2,
    grantType: "client_credentials",
    clientId: "c",
  };
  assert.deepEqual(faultRequest({ ...FULL_FORM, kind: "oauth_error" }), {
    ...match,
    kind: "oauth_error",
    error: "temporarily_unavailable",
    errorDescription: "down",
    status: 503,
  });
  assert.deepEqual(faultRequest({ ...FULL_FORM, kind: "http" }), {
    ...match,
    kind: "http",
    status: 503,
    body: "busy",
    contentType: "text/plain",
  });
  assert.deepEqual(faultRequest({ ...FULL_FORM, kind: "delay" }), {
    ...match,
    kind: "delay",
    delayMs: 1500,
  });
  assert.deepEqual(faultRequest({ ...FULL_FORM, kind: "close" }), { ...match, kind: "close" });
  assert.deepEqual(faultRequest({ ...FULL_FORM, kind: "malformed" }), {
    ...match,
    kind: "malformed",
    malformed: "bad_json",
  });
});

Deno.test("faultRequest drops a grant type off the token endpoint; keeps all for an unknown kind", () => {
  const jwks = faultRequest({ endpoint: "jwks", kind: "close", grantType: "password" });
  assert.deepEqual(jwks, { endpoint: "jwks", kind: "close" });
  // Left for the control plane to refuse, beside the fields.
  assert.deepEqual(faultRequest({ endpoint: "jwks", kind: "other", delayMs: 5 }), {
    endpoint: "jwks",
    kind: "other",
    delayMs: 5,
  });
  assert.deepEqual(faultRequest({ endpoint: "jwks", delayMs: 5 }), {
    endpoint: "jwks",
    delayMs: 5,
  });
});

Deno.test("the full form of every kind is a body POST /_mock/faults accepts", async () => {
  const faults = new FaultQueue();
  const handle = createControlHandler(fakeDeps({ faults }).deps);
  for (const kind of FAULT_KINDS) {
    const body = faultRequest({ ...FULL_FORM, kind });
    const res = await handle(jsonRequest("POST", "/_mock/faults", body));
    assert.equal(res.status, 200, `${kind}: ${await res.clone().text()}`);
    await res.body?.cancel();
  }
  assert.equal(faults.size, FAULT_KINDS.length);
  // Unfiltered, the same form is refused: the filter is what makes it acceptable.
  const res = await handle(jsonRequest("POST", "/_mock/faults", { ...FULL_FORM, kind: "close" }));
  assert.equal(res.status, 422);
  assert.match(await res.text(), /not used by kind close/);
});

Deno.test("faultAnswer and faultMatch describe a listed fault", () => {
  const base = { faultId: "f", endpoint: "token", remaining: 1 };
  assert.equal(
    faultAnswer({ ...base, kind: "oauth_error", error: "invalid_grant" }),
    "oauth_error invalid_grant (400)",
  );
  assert.equal(
    faultAnswer({ ...base, kind: "oauth_error", error: "x", status: 503 }),
    "oauth_error x (503)",
  );
  assert.equal(faultAnswer({ ...base, kind: "http", status: 502 }), "http 502");
  assert.equal(faultAnswer({ ...base, kind: "delay", delayMs: 0 }), "delay 0 ms");
  assert.equal(faultAnswer({ ...base, kind: "close" }), "close");
  assert.equal(
    faultAnswer({ ...base, kind: "malformed", malformed: "jwks_without_keys" }),
    "malformed jwks_without_keys",
  );
  assert.equal(faultMatch({ ...base, kind: "close" }), "any call");
  assert.equal(
    faultMatch({ ...base, kind: "close", grantType: "password" }),
    "grant_type=password",
  );
  assert.equal(
    faultMatch({ ...base, kind: "close", grantType: "password", clientId: "c" }),
    "grant_type=password, client_id=c",
  );
});

Deno.test("the page has the faults panel: every form field, the list, clear", () => {
  const markup = String(CONSOLE_BODY);
  for (const id of ["faults", "faults-queued", "faults-clear", "fault"]) {
    assert.ok(markup.includes(` id="${id}"`), id);
  }
  for (const name of [...Object.keys(FULL_FORM), "kind"]) {
    assert.ok(markup.includes(` id="fault-${name}" name="${name}"`), name);
    assert.ok(markup.includes(`data-error-for="${name}"`), name);
  }
  assert.match(markup, /<option value="http">status \+ body<\/option>/);
  assert.match(markup, /<option value="oauth_error">OAuth error<\/option>/);
});
