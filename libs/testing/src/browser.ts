import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Frame, Page } from 'playwright-core';

/** Debian's chromium, which the browser suites drive through playwright-core (scripts/test.sh installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * A headless Debian chromium for a browser suite. launch() gives the browser a new empty profile
 * directory of its own (a --user-data-dir argument is refused: that is launchPersistentContext's);
 * nothing in the background (updates, sync, QUIC probes) talks to the outside world.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: npm test (scripts/test.sh) installs Debian's chromium with apt`);
  }
  // loaded here, so that the suites without a browser do not load playwright-core
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface AxeViolation {
  id: string;
  impact: string;
  /** the offending elements' selectors */
  nodes: unknown[];
}

/** The part of axe-core's global this uses. */
interface Axe {
  run(context: object): Promise<{
    violations: { id: string; impact: string; nodes: { target: unknown }[] }[];
  }>;
}

let axeSource: string | undefined;

/**
 * What axe-core finds wrong in the page or frame, outside the `exclude` selectors. Evaluated by the
 * browser's debugger: the page's Content-Security-Policy does not apply to it.
 */
export async function axeViolations(target: Page | Frame, exclude: string[] = []): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await target.evaluate(axeSource);
  return target.evaluate(async (excluded) => {
    const { axe } = globalThis as unknown as { axe: Axe };
    const result = await axe.run(excluded.length > 0 ? { exclude: excluded.map((s) => [s]) } : {});
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target),
    }));
  }, exclude);
}
