import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';

/**
 * The proving ground's browser: a headless Chromium the end-to-end tests drive through playwright-core
 * (a dependency of harness/package.json only) to read the HTML report and the Temporal UI as a user does.
 */

/** Flags for a headless Chromium that stays off the network. */
const CHROMIUM_ARGS = [
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
  const names = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const n of names) {
      const file = path.join(dir, n);
      if (isExecutable(file)) return file;
    }
  }
  try {
    const { chromium } = await import('playwright-core');
    const p = chromium.executablePath();
    if (p && isExecutable(p)) return p;
  } catch {
    /* no Playwright browser installed */
  }
  return undefined;
}

/** A headless, off-network Chromium at `executablePath` (from `findChromium`); the caller closes it. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
