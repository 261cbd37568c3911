import assert from "node:assert/strict";
import { html, pageResponse } from "../../../services/mock-oidc/ui/mod.ts";
import {
  browserTest,
  inPage,
  isPng,
  openPage,
  saveScreenshot,
  startMockForBrowser,
} from "./_test_support.ts";

/** Serves one handler on a loopback port 0 for the length of `fn`. */
async function withServer(
  handler: (req: Request) => Response,
  fn: (origin: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

const ALLOWED = "document.body.dataset.ran = 'allowed';";
const LONG = "x".repeat(400);

browserTest(
  "tool pages in Chromium: CSP runs only hashed code, narrow screens fit",
  async (b, t) => {
    await withServer(() =>
      pageResponse({
        title: "harness",
        body: html`
          <h1>Harness</h1>
          <pre>${LONG}</pre>
          <table>
            <tr>
              <td>${LONG}</td>
            </tr>
          </table>
        `,
        scripts: [ALLOWED],
      }), async (origin) => {
      const page = await openPage(b, { width: 360, height: 640 });
      const blocked: string[] = [];
      page.on("console", (m) => blocked.push(m.text()));
      await t.step("the hashed inline script runs and the hashed stylesheet applies", async () => {
        await page.goto(`${origin}/`);
        assert.equal(await inPage(page, "document.body.dataset.ran"), "allowed");
        const bg = await inPage(
          page,
          `getComputedStyle(document.querySelector("main")).backgroundColor`,
        );
        assert.equal(bg, "rgb(255, 255, 255)");
      });
      await t.step("a script the CSP does not list does not run", async () => {
        const ran = await inPage(
          page,
          `(() => { const s = document.createElement("script");
            s.textContent = "document.body.dataset.evil = 'ran'"; document.body.append(s);
            return document.body.dataset.evil ?? "blocked"; })()`,
        );
        assert.equal(ran, "blocked");
        assert.ok(blocked.some((m) => /Content Security Policy/.test(m)), blocked.join("\n"));
      });
      await t.step(
        "at 360 px nothing overflows sideways (long text wraps or scrolls inside)",
        async () => {
          const width = await inPage<number>(page, "document.documentElement.scrollWidth");
          assert.ok(width <= 360, `page is ${width} px wide`);
        },
      );
      await t.step("a screenshot is a PNG", async () => {
        assert.ok(await isPng(await saveScreenshot(page, "harness")));
      });
    });
  },
);

browserTest(
  "a real mock-oidc login page: the typed username reaches the redirect",
  async (b, t) => {
    const seen: URL[] = [];
    await withServer((req) => {
      seen.push(new URL(req.url));
      return new Response("back at the client");
    }, async (client) => {
      const mock = await startMockForBrowser({ config: { interactiveLogin: true } });
      try {
        const page = await openPage(b);
        await t.step("login page, typed username, redirect with a code", async () => {
          const query = new URLSearchParams({
            client_id: "c",
            response_type: "code",
            redirect_uri: `${client}/cb`,
            state: "s1",
          });
          await page.goto(`${mock.url}/default/authorize?${query}`);
          await page.type("#username", "alice");
          await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
          const back = seen.find((u) => u.pathname === "/cb");
          assert.ok(back, "the browser came back to the client");
          assert.equal(back.searchParams.get("state"), "s1");
          assert.ok(back.searchParams.get("code"));
        });
      } finally {
        await mock.stop();
      }
    });
  },
);
