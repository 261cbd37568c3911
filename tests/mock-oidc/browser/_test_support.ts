/**
 * The browser harness of the mock-oidc suites: headless Chromium (Debian's `chromium`, or
 * `CHROMIUM_PATH`) driven by `puppeteer-core`, bounded in time, always closed; suites skip
 * loudly with the reason when no browser starts here; screenshots for the README.
 */
import puppeteer, { type Browser, type BrowserContext, type Page } from "puppeteer-core";
import { type ServiceProcess, skipSuite } from "@svc/testing";
import { startMock } from "../_test_support.ts";

/** The browser binary: `CHROMIUM_PATH`, else Debian's. */
const CHROMIUM_PATH: string = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

/** Where README screenshots live (written only with `UPDATE_SCREENSHOTS=1`). */
const SCREENSHOT_DIR: string =
  new URL("../../../services/mock-oidc/screenshots/", import.meta.url).pathname;

/** Generous bounds: the machine is shared and slow under load. */
const LAUNCH_TIMEOUT_MS = 60_000;
const STEP_TIMEOUT_MS = 30_000;
const TEST_TIMEOUT_MS = 180_000;

/** Start headless Chromium; the caller closes it. */
async function launchBrowser(): Promise<Browser> {
  return await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--headless=new", "--disable-dev-shm-usage", "--disable-gpu"],
    timeout: LAUNCH_TIMEOUT_MS,
    protocolTimeout: LAUNCH_TIMEOUT_MS,
  });
}

/** The file's one browser (launched by the probe), or why none starts here. */
type Probe = { browser: Browser; why?: undefined } | { browser?: undefined; why: string };

async function probeBrowser(): Promise<Probe> {
  try {
    await Deno.stat(CHROMIUM_PATH);
  } catch {
    return {
      why: `no browser at ${CHROMIUM_PATH} (install Debian's chromium or set CHROMIUM_PATH)`,
    };
  }
  try {
    return { browser: await launchBrowser() };
  } catch (err) {
    return { why: `${CHROMIUM_PATH} does not start: ${(err as Error).message.split("\n")[0]}` };
  }
}

/**
 * One browser per test file, launched once (a launch costs seconds on a loaded machine); each
 * test gets its own incognito context (its own cookies and storage), closed after it. The
 * browser closes when the file's last browser test ends, and is killed when the process unloads
 * (a filtered run, a test that never ran).
 */
const probe: Probe = await probeBrowser();
const browserUnavailable: string | undefined = probe.why;
let browserTestsLeft = 0;
if (probe.browser) {
  const shared = probe.browser;
  globalThis.addEventListener("unload", () => shared.process()?.kill("SIGKILL"));
}

/**
 * A browser test: skipped loudly (a warning naming the reason) where no browser starts; it runs
 * in a fresh incognito context of the file's browser, closed afterwards whatever happens, and
 * closed early (failing the test) when the test runs past its bound.
 */
export function browserTest(
  name: string,
  fn: (browser: BrowserContext, t: Deno.TestContext) => Promise<void>,
  options: { timeoutMs?: number } = {},
): void {
  if (!browserUnavailable) browserTestsLeft++;
  Deno.test({
    name,
    ignore: skipSuite({
      module: new URL(".", import.meta.url).href,
      part: name,
      needs: browserUnavailable && `a headless Chromium that starts (${browserUnavailable})`,
    }),
    // puppeteer keeps its pipe and timers until the browser process is reaped.
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const limit = options.timeoutMs ?? TEST_TIMEOUT_MS;
      const browser = probe.browser!;
      try {
        const context = await browser.createBrowserContext();
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          context.close().catch(() => {});
        }, limit);
        try {
          await fn(context, t);
        } catch (err) {
          if (timedOut) throw new Error(`Cannot finish "${name}": it ran past ${limit} ms`);
          throw err;
        } finally {
          clearTimeout(timer);
          await context.close().catch(() => {});
        }
      } finally {
        if (--browserTestsLeft === 0) await browser.close().catch(() => {});
      }
    },
  });
}

/** A new tab with bounded waits and a viewport (`width` 360 emulates a phone). */
export async function openPage(
  browser: Browser | BrowserContext,
  options: { width?: number; height?: number } = {},
): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.setDefaultNavigationTimeout(STEP_TIMEOUT_MS);
  await page.setViewport({ width: options.width ?? 1000, height: options.height ?? 800 });
  return page;
}

/** Start mock-oidc (real process, deployed permissions) with `config` as JSON_CONFIG. */
export function startMockForBrowser(
  options: { config?: Record<string, unknown>; args?: string[] } = {},
): Promise<ServiceProcess> {
  return startMock({
    args: options.args,
    env: { JSON_CONFIG: JSON.stringify(options.config ?? {}) },
  });
}

/**
 * Screenshot the whole page as `<name>.png`: into {@linkcode SCREENSHOT_DIR} (the README's
 * images) with `UPDATE_SCREENSHOTS=1`, else into a temporary directory so ordinary runs leave the
 * worktree clean. Returns the file written.
 */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const update = Deno.env.get("UPDATE_SCREENSHOTS") === "1";
  const dir = update ? SCREENSHOT_DIR : await Deno.makeTempDir({ prefix: "mock-oidc-shots-" });
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}${dir.endsWith("/") ? "" : "/"}${name}.png`;
  const bytes = await page.screenshot({ fullPage: true, type: "png" });
  await Deno.writeFile(path, bytes);
  return path;
}

/** True when `path` holds a PNG of at least `minBytes` bytes. */
export async function isPng(path: string, minBytes = 1000): Promise<boolean> {
  const bytes = await Deno.readFile(path);
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  return bytes.length >= minBytes && signature.every((b, i) => bytes[i] === b);
}

/**
 * Evaluate a JavaScript expression in the page (a string: the test files are type-checked
 * without the DOM library, and the expression runs in the browser anyway).
 */
export async function inPage<T>(page: Page, expression: string): Promise<T> {
  return await page.evaluate(expression) as T;
}
