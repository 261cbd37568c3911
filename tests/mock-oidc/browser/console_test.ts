import assert from "node:assert/strict";
import type { BrowserContext, Page } from "puppeteer-core";
import { concurrentSteps } from "@svc/testing";
import { control } from "../_test_support.ts";
import {
  browserTest,
  inPage,
  isPng,
  openPage,
  saveScreenshot,
  startMockForBrowser,
} from "./_test_support.ts";

const HOSTILE_BODY = `<script>alert(1)</script><img src=x onerror="alert(2)">`;

/** Waits until a page expression (a string: no DOM types here) is truthy. */
async function until(page: Page, expression: string): Promise<void> {
  await page.waitForFunction(expression, { timeout: 30_000, polling: 100 });
}

function text(page: Page, selector: string): Promise<string> {
  return inPage<string>(page, `document.querySelector(${JSON.stringify(selector)}).textContent`);
}

/** Replaces a field's value as a user would (clear, then type). */
async function fill(page: Page, selector: string, value: string): Promise<void> {
  await inPage(page, `document.querySelector(${JSON.stringify(selector)}).value = ""`);
  if (value) await page.type(selector, value);
}

function summaryShown(path: string): string {
  return `[...document.querySelectorAll("#requests summary")]
    .some((s) => s.textContent.includes(${JSON.stringify(path)}))`;
}

function claimsOf(jwt: string): Record<string, unknown> {
  const part = jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
}

async function clientCredentials(base: string, issuer: string) {
  const res = await fetch(`${base}/${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&client_id=c&client_secret=s",
  });
  assert.equal(res.status, 200);
  return await res.json();
}

/** The two consoles, each on its own service in its own incognito context: side by side. */
const CASES: [string, (browser: BrowserContext, t: Deno.TestContext) => Promise<void>][] = [
  [
    "the control-plane console drives /_mock in Chromium",
    async (browser, t) => {
      const mock = await startMockForBrowser();
      try {
        const page = await openPage(browser, { width: 1200, height: 900 });
        const dialogs: string[] = [];
        page.on("dialog", (d) => {
          dialogs.push(d.message());
          d.dismiss().catch(() => {});
        });
        const cspViolations: string[] = [];
        page.on("console", (m) => {
          if (/Content Security Policy/.test(m.text())) cspViolations.push(m.text());
        });
        await page.goto(`${mock.url}/_mock/ui`);
        await until(page, `document.querySelector("#clock-now").textContent !== ""`);

        await t.step("a request made after the page opened appears without a reload", async () => {
          const jwks = await fetch(`${mock.url}/live/jwks`);
          await jwks.body?.cancel();
          await until(page, summaryShown("/live/jwks"));
          assert.match(await text(page, "#request-count"), /\(1\)/);
        });

        await t.step("a captured <script> body renders as text, and nothing runs", async () => {
          const res = await fetch(`${mock.url}/xss/token?q=${encodeURIComponent("<b>q</b>")}`, {
            method: "POST",
            headers: { "content-type": "text/plain" },
            body: HOSTILE_BODY,
          });
          await res.body?.cancel();
          await until(page, summaryShown("/xss/token"));
          // Newest first: the hostile request is the first entry.
          await page.click("#requests li:first-child summary");
          await until(page, `document.querySelector("#requests li:first-child pre.body")`);
          assert.equal(await text(page, "#requests li:first-child pre.body"), HOSTILE_BODY);
          assert.match(await text(page, "#requests li:first-child table"), /<b>q<\/b>/);
          assert.equal(
            await inPage(
              page,
              `document.querySelectorAll(
            "#requests script, #requests img, #requests b:not(summary b)").length`,
            ),
            0,
          );
          assert.deepEqual(dialogs, []);
        });

        await t.step("the list filters by issuer and by endpoint", async () => {
          await page.type("#filter-issuer", "live");
          await until(page, `!(${summaryShown("/xss/token")}) && ${summaryShown("/live/jwks")}`);
          await fill(page, "#filter-issuer", "");
          await page.select("#filter-endpoint", "token");
          await until(page, `!(${summaryShown("/live/jwks")}) && ${summaryShown("/xss/token")}`);
          await page.select("#filter-endpoint", "");
          await until(page, `${summaryShown("/live/jwks")} && ${summaryShown("/xss/token")}`);
        });

        await t.step("a scenario enqueued in the console shapes the next token", async () => {
          await fill(page, "#scenario-issuer", "scen");
          await fill(page, "#scenario-subject", "from-console");
          await fill(page, "#scenario-claims", '{"team": "browsers"}');
          await page.click("#scenario button[type=submit]");
          await until(page, `document.querySelector("#queue-depth").textContent === "(1)"`);
          const token = await clientCredentials(mock.url, "scen");
          const claims = claimsOf(token.access_token);
          assert.equal(claims.sub, "from-console");
          assert.equal(claims.team, "browsers");
          // The token request is a change of the log: the queue view follows on its own.
          await until(page, `document.querySelector("#queue-depth").textContent === "(0)"`);
        });

        await t.step(
          "mint shows the decoded token; advancing the clock shrinks expires_in",
          async () => {
            await fill(page, "#mint-subject", "minted-in-browser");
            await page.click("#mint button[type=submit]");
            await until(page, `!document.querySelector("#minted").hidden`);
            assert.match(await text(page, "#minted-claims"), /"sub": "minted-in-browser"/);
            assert.match(await text(page, "#minted-header"), /"alg": "RS256"/);
            const before = Number(await text(page, "#minted-expires-in"));
            assert.ok(before > 3500 && before <= 3600, `expires_in ${before}`);
            await fill(page, "#advance-duration", "10m");
            await page.click("#advance button[type=submit]");
            await until(page, `document.querySelector("#clock-mode").textContent === "frozen"`);
            const after = Number(await text(page, "#minted-expires-in"));
            assert.ok(after <= before - 590 && after >= before - 610, `${before} → ${after}`);
            assert.equal((await control(mock.url, "GET", "/_mock/clock")).body.frozen, true);
          },
        );

        await t.step("the README screenshot (a hostile body expanded, as text)", async () => {
          await inPage(
            page,
            `[...document.querySelectorAll("#requests details")]
          .find((d) => d.textContent.includes("/xss/token")).open = true`,
          );
          await until(page, `document.querySelector("#requests pre.body")`);
          assert.ok(await isPng(await saveScreenshot(page, "console")));
        });

        await t.step(
          "the same page at 360 px: one column, nothing overflows sideways",
          async () => {
            await page.setViewport({ width: 360, height: 740 });
            await until(page, `document.documentElement.scrollWidth <= 360`);
            const columns = await inPage<string>(
              page,
              `getComputedStyle(document.querySelector(".console")).gridTemplateColumns`,
            );
            assert.equal(columns.split(" ").length, 1, columns);
            assert.ok(await isPng(await saveScreenshot(page, "console-narrow")));
            await page.setViewport({ width: 1200, height: 900 });
          },
        );

        await t.step(
          "422 errors appear beside their fields: a bad scenario, a bad duration",
          async () => {
            await fill(page, "#scenario-issuer", "_mock-bad");
            await fill(page, "#scenario-expirySeconds", "soon");
            await page.click("#scenario button[type=submit]");
            await until(
              page,
              `document.querySelector("#scenario-issuer-error").textContent !== ""`,
            );
            assert.notEqual(await text(page, "#scenario-expirySeconds-error"), "");
            assert.match(await text(page, "#scenario-expirySeconds-error"), /number/);
            assert.equal(await text(page, "#scenario-subject-error"), "");
            assert.equal(
              await inPage(
                page,
                `document.querySelector("#scenario-issuer").getAttribute("aria-invalid")`,
              ),
              "true",
            );
            assert.match(await text(page, "#status"), /422/);
            assert.equal((await control(mock.url, "GET", "/_mock/scenarios")).body.queueDepth, 0);
            await fill(page, "#scenario-claims", "{not json");
            await page.click("#scenario button[type=submit]");
            await until(
              page,
              `/not valid JSON/.test(document.querySelector("#scenario-claims-error").textContent)`,
            );
            await fill(page, "#advance-duration", "later");
            await page.click("#advance button[type=submit]");
            await until(
              page,
              `document.querySelector("#advance-duration-error").textContent !== ""`,
            );
            assert.match(await text(page, "#advance-duration-error"), /Go duration/);
          },
        );

        await t.step("a client registered at POST /default/register appears, as text", async () => {
          assert.match(await text(page, "#clients"), /No client registered/);
          assert.equal(await text(page, "#client-count"), "(0)");
          const res = await fetch(`${mock.url}/default/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              redirect_uris: ["http://127.0.0.1:9/cb", "http://127.0.0.1:9/other"],
              client_name: HOSTILE_BODY,
              grant_types: ["authorization_code", "refresh_token"],
              token_endpoint_auth_method: "client_secret_post",
            }),
          });
          assert.equal(res.status, 201);
          const reg = await res.json();
          // The registration is a change of the request log: the panel follows on its own.
          await until(page, `document.querySelector("#client-count").textContent === "(1)"`);
          const shown = await text(page, "#clients");
          for (
            const part of [
              reg.client_id,
              HOSTILE_BODY,
              "http://127.0.0.1:9/cb",
              "http://127.0.0.1:9/other",
              "refresh_token",
              "client_secret_post",
              new Date(reg.client_id_issued_at * 1000).toISOString().replace(".000Z", "Z"),
            ]
          ) assert.ok(shown.includes(part), `${part} in ${shown}`);
          assert.ok(!shown.includes(reg.client_secret), "no secret");
          assert.ok(!shown.includes(reg.registration_access_token), "no registration token");
          assert.equal(
            await inPage(page, `document.querySelectorAll("#clients script, #clients img").length`),
            0,
          );
          assert.deepEqual(dialogs, []);
        });

        await t.step("the refresh button lists again; forget-all asks first", async () => {
          // Forgotten behind the page's back: the list changes only on refresh (no request logged).
          await control(mock.url, "DELETE", "/_mock/clients");
          assert.equal(await text(page, "#client-count"), "(1)");
          await page.click("#clients-refresh");
          await until(page, `document.querySelector("#client-count").textContent === "(0)"`);
          const res = await fetch(`${mock.url}/default/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/cb"] }),
          });
          assert.equal(res.status, 201);
          const reg = await res.json();
          await until(page, `document.querySelector("#client-count").textContent === "(1)"`);
          assert.match(await text(page, "#clients"), /client_namenone/);
          await page.click("#clients-clear-ask");
          assert.equal(
            await inPage(page, `document.querySelector("#clients-clear-confirm").hidden`),
            false,
          );
          await page.click("#clients-clear-no");
          assert.equal(
            await inPage(page, `document.querySelector("#clients-clear-confirm").hidden`),
            true,
          );
          assert.equal((await control(mock.url, "GET", "/_mock/clients")).body.count, 1);
          await page.click("#clients-clear-ask");
          await page.click("#clients-clear-yes");
          await until(page, `document.querySelector("#client-count").textContent === "(0)"`);
          assert.equal((await control(mock.url, "GET", "/_mock/clients")).body.count, 0);
          assert.match(await text(page, "#status"), /forgotten/);
          assert.ok(!(await text(page, "#clients")).includes(reg.client_id));
        });

        await t.step(
          "a fault injected in the console is listed, fails the matching call, and clears",
          async () => {
            assert.equal(await text(page, "#faults-queued"), "(0)");
            assert.match(await text(page, "#faults"), /No fault queued/);
            await page.select("#fault-endpoint", "token");
            await fill(page, "#fault-issuer", "faulty");
            await page.select("#fault-kind", "oauth_error");
            await fill(page, "#fault-count", "2");
            await fill(page, "#fault-error", "invalid_grant");
            await fill(page, "#fault-errorDescription", "<b>from the console</b>");
            await page.click("#fault button[type=submit]");
            await until(page, `document.querySelector("#faults-queued").textContent === "(1)"`);
            const listed = await text(page, "#faults");
            for (const part of ["token", "faulty", "any call", "oauth_error invalid_grant (400)"]) {
              assert.ok(listed.includes(part), `${part} in ${listed}`);
            }
            assert.equal(await text(page, "#faults .remaining"), "2 left");
            const [queued] = (await control(mock.url, "GET", "/_mock/faults")).body.faults;
            assert.deepEqual(
              { ...queued, faultId: undefined },
              {
                faultId: undefined,
                endpoint: "token",
                issuer: "faulty",
                kind: "oauth_error",
                error: "invalid_grant",
                errorDescription: "<b>from the console</b>",
                remaining: 2,
              },
            );
            // The form sends only what the kind takes: the default malformed choice is left out.
            assert.equal(queued.malformed, undefined);

            const failed = await fetch(`${mock.url}/faulty/token`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: "grant_type=client_credentials&client_id=c&client_secret=s",
            });
            assert.equal(failed.status, 400);
            assert.equal(failed.headers.get("x-mock-oidc-fault"), queued.faultId);
            assert.deepEqual(await failed.json(), {
              error: "invalid_grant",
              error_description: "<b>from the console</b>",
            });
            // The failed call is a change of the log: the panel follows on its own.
            await until(
              page,
              `document.querySelector("#faults .remaining")?.textContent === "1 left"`,
            );
            // Another issuer is not matched.
            await clientCredentials(mock.url, "other");

            // A kind's required field left empty: the 422 appears beside it, nothing is queued.
            await page.select("#fault-kind", "http");
            await fill(page, "#fault-status", "");
            await page.click("#fault button[type=submit]");
            await until(page, `document.querySelector("#fault-status-error").textContent !== ""`);
            assert.match(await text(page, "#fault-status-error"), /required for kind http/);
            assert.equal((await control(mock.url, "GET", "/_mock/faults")).body.count, 1);

            await page.click("#faults-clear");
            await until(page, `document.querySelector("#faults-queued").textContent === "(0)"`);
            assert.match(await text(page, "#status"), /Faults cleared/);
            assert.equal((await control(mock.url, "GET", "/_mock/faults")).body.count, 0);
            await clientCredentials(mock.url, "faulty");
            assert.equal(
              await inPage(page, `document.querySelectorAll("#faults b b, #faults script").length`),
              0,
            );
          },
        );

        await t.step("unfreeze, then reset behind a confirmation", async () => {
          await page.click("#clock-unfreeze");
          await until(
            page,
            `document.querySelector("#clock-mode").textContent.startsWith("running")`,
          );
          await page.click("#reset-ask");
          assert.equal(
            await inPage(page, `document.querySelector("#reset-confirm").hidden`),
            false,
          );
          await page.click("#reset-no");
          assert.equal(await inPage(page, `document.querySelector("#reset-confirm").hidden`), true);
          assert.ok((await control(mock.url, "GET", "/_mock/requests")).body.count > 0);
          await page.select("#fault-kind", "close");
          await page.click("#fault button[type=submit]");
          await until(page, `document.querySelector("#faults-queued").textContent === "(1)"`);
          await page.click("#reset-ask");
          await page.click("#reset-yes");
          await until(page, `document.querySelector("#request-count").textContent === "(0)"`);
          // Reset drops the faults, and the panel lists again.
          await until(page, `document.querySelector("#faults-queued").textContent === "(0)"`);
          assert.equal((await control(mock.url, "GET", "/_mock/faults")).body.count, 0);
          assert.equal((await control(mock.url, "GET", "/_mock/requests")).body.count, 0);
        });

        await t.step("after the reset, still nothing overflows at 360 px", async () => {
          await page.setViewport({ width: 360, height: 740 });
          await until(page, `document.documentElement.scrollWidth <= 360`);
        });

        assert.deepEqual(dialogs, []);
        assert.deepEqual(cspViolations, []);
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "with --control-token the console asks once and sends it as a Bearer token",
    async (browser, t) => {
      const mock = await startMockForBrowser({ args: ["--control-token", "browser-secret"] });
      try {
        const page = await openPage(browser);
        await page.goto(`${mock.url}/_mock/ui`);
        await t.step("without the token every call is 401 and the page says so", async () => {
          await until(page, `!document.querySelector("#token-form").hidden`);
          assert.match(await text(page, "#status"), /401/);
          assert.match(await text(page, "#token-reason"), /control token/);
          assert.equal(await text(page, "#clock-now"), "");
        });
        await t.step("a wrong token is refused and asked again", async () => {
          await page.type("#token", "wrong");
          await page.click("#token-form button[type=submit]");
          await until(page, `/refused/.test(document.querySelector("#token-reason").textContent)`);
          await until(page, `!document.querySelector("#token-form").hidden`);
        });
        await t.step("the right token unlocks the page, kept in session storage only", async () => {
          await page.type("#token", "browser-secret");
          await page.click("#token-form button[type=submit]");
          await until(page, `document.querySelector("#clock-now").textContent !== ""`);
          // Every panel lists once the token is entered, the faults too.
          await until(page, `document.querySelector("#faults-queued").textContent === "(0)"`);
          assert.equal(await inPage(page, `document.querySelector("#token-form").hidden`), true);
          assert.equal(
            await inPage(page, `sessionStorage.getItem("mock-oidc.control-token")`),
            "browser-secret",
          );
          assert.equal(await inPage(page, `localStorage.length`), 0);
          const jwks = await fetch(`${mock.url}/gated/jwks`);
          await jwks.body?.cancel();
          await until(page, summaryShown("/gated/jwks"));
        });
        await t.step("a reload in the same tab does not ask again", async () => {
          await page.reload();
          await until(page, `document.querySelector("#clock-now").textContent !== ""`);
          await until(page, summaryShown("/gated/jwks"));
          assert.equal(await inPage(page, `document.querySelector("#token-form").hidden`), true);
        });
      } finally {
        await mock.stop();
      }
    },
  ],
];

browserTest("the control-plane console in Chromium", async (context, t) => {
  await concurrentSteps(
    t,
    CASES,
    { concurrency: 2, name: ([name]) => name },
    async ([, fn], st) => {
      const own = await context.browser().createBrowserContext();
      try {
        await fn(own, st);
      } finally {
        await own.close();
      }
    },
  );
});
