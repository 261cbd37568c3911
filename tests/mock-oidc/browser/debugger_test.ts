import assert from "node:assert/strict";
import { compactVerify, createRemoteJWKSet, decodeJwt } from "jose";
import type { BrowserContext, Page } from "puppeteer-core";
import { concurrentSteps } from "@svc/testing";
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
