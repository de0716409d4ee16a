import fs from 'node:fs';
import { isExecutable, onPath } from './executable';

/** Flags for a headless Chromium that stays off the network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A Chromium-family browser for the report test: `CHROMIUM_PATH`, else the first of the usual names
 * on PATH, else Playwright's own download (if one was installed). Undefined when none is found.
 */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (env.CHROMIUM_PATH) return fs.existsSync(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : undefined;
  const found = onPath(['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'], env);
  if (found) return found;
  try {
    const { chromium } = await import('playwright-core');
    const p = chromium.executablePath();
    if (p && isExecutable(p)) return p;
  } catch {
    /* no Playwright browser installed */
  }
  return undefined;
}
