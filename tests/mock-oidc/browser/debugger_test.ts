import assert from "node:assert/strict";
import { compactVerify, createRemoteJWKSet, decodeJwt } from "jose";
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

const text = (page: Page, selector: string) =>
  inPage<string>(page, `document.querySelector(${JSON.stringify(selector)}).textContent`);

/** Log in on the mock's login page as `username` and wait for the debugger's result. */
async function logIn(page: Page, username: string): Promise<void> {
  await page.waitForSelector("#username");
  await page.type("#username", username);
  await page.click("button[type=submit]");
  await page.waitForSelector("#token-response");
}

/** The result page's id_token, checked against the issuer's JWKS by jose over HTTP. */
async function verifiedIdToken(page: Page, jwksUrl: string): Promise<Record<string, unknown>> {
  const response = await text(page, "#token-response");
  const body = JSON.parse(response.slice(response.indexOf("\n\n") + 2));
  await compactVerify(body.id_token, createRemoteJWKSet(new URL(jwksUrl)));
  return decodeJwt(body.id_token);
}

browserTest("the debugger completes a code flow in Chromium", async (context, t) => {
  const mock = await startMockForBrowser({ config: { interactiveLogin: true } });
  const jwks = `${mock.url}/default/jwks`;
  try {
    // Three flows side by side, each in its own incognito context (its own session cookie); the
    // reload runs after the narrow flow, in that flow's context.
    const lanes: [string, (browser: BrowserContext, t: Deno.TestContext) => Promise<void>][] = [
      ["defaults (client_secret_basic, no PKCE): typed name is the sub", async (browser) => {
        const page = await openPage(browser);
        await page.goto(`${mock.url}/default/debugger`);
        assert.equal(await inPage(page, `document.querySelector("#client_id").value`), "debugger");
        await page.click("button[type=submit]");
        await page.waitForSelector("#username");
        const authorize = new URL(page.url());
        assert.equal(authorize.pathname, "/default/authorize");
        assert.equal(authorize.searchParams.get("code_challenge"), null);
        const [cookie] = await page.cookies(`${mock.url}/default/debugger/callback`);
        assert.equal(cookie?.name, "debugger-session");
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, "Lax");
        assert.equal(cookie.path, "/default/debugger");
        await logIn(page, "alice");
        assert.match(await text(page, "#token-request"), /^Authorization: Basic /m);
        assert.equal(
          await inPage(page, `document.querySelector("#id_token").dataset.verified`),
          "true",
        );
        const claims = JSON.parse(await text(page, "#id_token-claims"));
        assert.equal(claims.sub, "alice");
        assert.equal(claims.nonce, "5678");
        const verified = await verifiedIdToken(page, jwks);
        assert.equal(verified.sub, "alice");
        assert.equal(verified.iss, `${mock.url}/default`);
        assert.ok(await isPng(await saveScreenshot(page, "debugger")));
        await page.close();
      }],
      ["PKCE, client_secret_post, form_post: a hostile name renders as text", async (browser) => {
        const page = await openPage(browser);
        await page.goto(`${mock.url}/default/debugger`);
        await page.click("#pkce");
        await page.select("#client_auth", "client_secret_post");
        await page.select("#response_mode", "form_post");
        await page.click("button[type=submit]");
        await page.waitForSelector("#username");
        const authorize = new URL(page.url());
        assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
        const name = `ålice <img src=x onerror="document.title='owned'">`;
        await logIn(page, name);
        const request = await text(page, "#token-request");
        assert.match(request, /code_verifier=[\w-]{43}/);
        assert.match(request, /client_secret=someSecret/);
        assert.doesNotMatch(request, /Authorization: Basic/);
        assert.equal(
          await inPage(page, `document.querySelector("#id_token").dataset.verified`),
          "true",
        );
        assert.equal(JSON.parse(await text(page, "#id_token-claims")).sub, name);
        assert.equal(await inPage(page, "document.querySelectorAll('main img').length"), 0);
        assert.notEqual(await page.title(), "owned");
        assert.equal((await verifiedIdToken(page, jwks)).sub, name);
        await page.close();
      }],
      ["a narrow flow, then a reload after it", async (browser, t) => {
        await t.step("on a 360 px screen neither page overflows sideways", async () => {
          const page = await openPage(browser, { width: 360, height: 740 });
          await page.goto(`${mock.url}/default/debugger`);
          const width = () => inPage<number>(page, "document.documentElement.scrollWidth");
          assert.ok(await width() <= 360, `form is ${await width()} px wide`);
          assert.ok(await isPng(await saveScreenshot(page, "debugger-form-narrow")));
          await page.click("button[type=submit]");
          await logIn(page, "narrow");
          assert.ok(await width() <= 360, `result is ${await width()} px wide`);
          await page.close();
        });
        await t.step("a reload after the flow shows a 4xx page, not a crash", async () => {
          const page = await openPage(browser);
          const res = await page.goto(`${mock.url}/default/debugger/callback?code=x&state=1234`);
          assert.equal(res?.status(), 400);
          assert.match(await text(page, "#error-detail"), /no debugger-session cookie/);
          await page.close();
        });
      }],
    ];
    await concurrentSteps(
      t,
      lanes,
      { concurrency: 3, name: ([name]) => name },
      async ([, fn], st) => {
        const own = await context.browser().createBrowserContext();
        try {
          await fn(own, st);
        } finally {
          await own.close();
        }
      },
    );
  } finally {
    await mock.stop();
  }
});

/** Waits until a page expression (a string: no DOM types here) is truthy. */
async function until(page: Page, expression: string): Promise<void> {
  await page.waitForFunction(expression, { timeout: 30_000, polling: 100 });
}

browserTest(
  "a DPoP + PAR flow from the console: a forced nonce challenge, the debugger, the log's jkt",
  async (context, t) => {
    const mock = await startMockForBrowser({ config: { interactiveLogin: true } });
    try {
      const cspViolations: string[] = [];
      const watch = (page: Page) =>
        page.on("console", (m) => {
          if (/Content Security Policy/.test(m.text())) cspViolations.push(m.text());
        });
      const panel = await openPage(context, { width: 1200, height: 900 });
      watch(panel);
      await panel.goto(`${mock.url}/_mock/ui`);
      await until(panel, `document.querySelector("#challenges-waiting").textContent === "(0)"`);

      await t.step("the console forces a nonce challenge for the debugger's client", async () => {
        await panel.type("#challenge-clientId", "debugger");
        await panel.click("#challenge button[type=submit]");
        await until(panel, `document.querySelector("#challenges-waiting").textContent === "(1)"`);
        assert.match(await text(panel, "#challenges"), /default.*client_id=debugger/);
        assert.deepEqual(
          (await control(mock.url, "GET", "/_mock/dpop/nonce-challenge")).body.challenges,
          [{ issuer: "default", clientId: "debugger" }],
        );
      });

      let jkt = "";
      await t.step(
        "its link opens the debugger with PAR and DPoP; the flow binds the tokens",
        async () => {
          const opened = context.waitForTarget((target) => target.url().includes("/debugger?"));
          await panel.click("#debugger-link");
          const page = (await (await opened).page())!;
          page.setDefaultTimeout(30_000);
          watch(page);
          await page.waitForSelector("#dpop");
          for (const box of ["par", "dpop", "pkce"]) {
            assert.equal(
              await inPage(page, `document.querySelector("#${box}").checked`),
              true,
              box,
            );
          }
          await page.click("button[type=submit]");
          await page.waitForSelector("#username");
          // Pushed: authorize carries the client id and the request_uri only.
          const authorize = new URL(page.url());
          assert.deepEqual([...authorize.searchParams.keys()], ["client_id", "request_uri"]);
          await logIn(page, "dpop-user");
          assert.match(await text(page, "#par-summary"), /answered 201;/);
          // The challenge: the first token request is answered use_dpop_nonce, the retry succeeds.
          assert.match(await text(page, "#token-nonce-response"), /use_dpop_nonce/);
          assert.match(await text(page, "#token-response"), /^HTTP\/1.1 200/);
          jkt = await text(page, "#dpop-jkt");
          assert.match(jkt, /^[\w-]{43}$/);
          assert.equal(await text(page, "#dpop-cnf-jkt"), jkt);
          assert.equal(await text(page, "#dpop-token-type"), "DPoP");
          assert.equal(await text(page, "#dpop-binding"), "bound to this key");
          const userinfo = await text(page, "#userinfo-response");
          assert.match(userinfo, /^HTTP\/1.1 200/);
          assert.equal(JSON.parse(userinfo.slice(userinfo.indexOf("\n\n") + 2)).sub, "dpop-user");
          assert.match(await text(page, "#userinfo-request"), /^Authorization: DPoP /m);
          // The key's private half is nowhere on the page, nor in a cookie the page can read.
          assert.doesNotMatch(await inPage<string>(page, "document.body.innerHTML"), /"d"/);
          assert.equal(await inPage(page, "document.cookie"), "");
          assert.ok(await isPng(await saveScreenshot(page, "debugger-dpop")));
          await page.close();
        },
      );

      await t.step(
        "the console's log shows the proofs' jkt, verified; the challenge is used",
        async () => {
          await until(
            panel,
            `document.querySelector("#challenges-waiting").textContent === "(0)"`,
          );
          // The debugger's four calls listed, each once its proof's outcome is noted.
          const ours = `[...document.querySelectorAll("#requests summary")]
            .map((s) => s.textContent)
            .filter((text) => /\\/default\\/(token|userinfo|par) /.test(text))`;
          await until(panel, `${ours}.length === 4 && ${ours}.every((t) => t.includes("DPoP "))`);
          const summaries = await inPage<string[]>(panel, ours);
          // Newest first: userinfo, the retried token request, the refused one, then /par.
          assert.equal(summaries.length, 4, summaries.join("\n"));
          assert.match(summaries[0], /\/default\/userinfo.*DPoP verified/);
          assert.match(summaries[1], /\/default\/token.*DPoP verified/);
          assert.match(summaries[2], /\/default\/token.*DPoP use_dpop_nonce/);
          assert.match(summaries[3], /\/default\/par.*DPoP verified/);
          // The retried token request's detail names the key.
          await inPage(
            panel,
            `[...document.querySelectorAll("#requests details")]
            .filter((d) => d.querySelector("summary").textContent.includes("/default/token"))[0]
            .open = true`,
          );
          await until(panel, `document.querySelector("#requests table.dpop")`);
          const facts = await text(panel, "#requests table.dpop");
          assert.ok(facts.includes(jkt), facts);
          assert.match(facts, /verifiedyes/);
          // The control plane's log says the same.
          const logged = (await control(mock.url, "GET", "/_mock/requests?endpoint=token")).body;
          assert.deepEqual(
            logged.requests.map((e: { dpop?: unknown }) => e.dpop),
            [{ jkt, verified: false, error: "use_dpop_nonce" }, { jkt, verified: true }],
          );
          await panel.click("#challenges-clear");
          await until(
            panel,
            `/Nonce challenges cleared/.test(document.querySelector("#status").textContent)`,
          );
        },
      );
      assert.deepEqual(cspViolations, []);
      await panel.close();
    } finally {
      await mock.stop();
    }
  },
);
