// The setting the console's browser suites share: the console and the gateway in this process,
// the workers a suite names as processes, the processor simulator, two merchants; chromium contexts
// and the sign-in every journey starts with.
import { join } from 'node:path';
import type { BrowserContext, Browser, Page } from 'playwright-core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@kessai/config';
import { listenLocally, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { createConsoleApp } from '../../apps/console/src/app.factory';

/** Where the suites' screenshots go. */
export const CONSOLE_SHOTS = join(__dirname, '..', '..', 'test-results', 'console');
/** The longest one browser step may wait (a busy machine's page load included). */
const STEP_MS = 20_000;

/**
 * The suite of a console browser test: merchants `shop` and `other`, both PCI DSS compliant;
 * `variables` over the suite's.
 */
export function useConsoleSuite(workers: string[], variables: Record<string, string> = {}) {
  return useSuite({
    variables,
    simulator: (callbackSecret) =>
      startProcessorSimulator({ latencyMs: 0, callbackSecret, callbackRetryBaseDelayMs: 50 }),
    gateway: (config) => createGatewayApp(config),
    merchants: { shop: { pci: true }, other: { pci: true } },
    workers,
    callbacks: true,
  });
}

type ConsoleSuite = ReturnType<typeof useConsoleSuite>;

/** A console of the suite's settings (`variables` over them), listening locally until the suite ends. */
export async function startConsole(
  suite: ConsoleSuite,
  variables: Record<string, string> = {},
): Promise<string> {
  const config = loadConfig({ ...suite.env.variables, ...variables }, 'console');
  const app: NestFastifyApplication = await createConsoleApp(config);
  suite.cleanup(() => app.close());
  return listenLocally(app);
}

/** A browser context of its own (its own cookies), closed when the suite ends. */
export async function newContext(suite: ConsoleSuite, browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-US' });
  context.setDefaultTimeout(STEP_MS);
  suite.cleanup(() => context.close());
  return context;
}

/** Signs in on the console at `base` in a new page of `context`; the page shows the overview. */
export async function signIn(
  context: BrowserContext,
  base: string,
  email: string,
  password: string,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  return page;
}

/** The CSRF token a signed-in page's forms carry. */
export function csrfOf(page: Page): Promise<string> {
  return page.locator('form[action="/sign-out"] input[name="_csrf"]').inputValue();
}
