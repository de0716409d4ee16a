// Finding a program the tests drive on this machine: one lookup for Chromium (./chromium.ts) and the
// Prometheus tools (test/support/prometheus.ts). The harness's bottom layer, so tests and any
// harness folder may use it.
import fs from 'node:fs';
import path from 'node:path';

/** Whether `p` is a file this process may execute. */
export function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first of `names` found as an executable file in a PATH directory (each directory in turn), or undefined. */
export function onPath(names: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const n of names) {
      const file = path.join(dir, n);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}
