import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import dockerignore from '@balena/dockerignore';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../..');

const rules = () => dockerignore({ ignorecase: false }).add(fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n'));

/** The files `COPY . .` puts in the production image: the repository's files less what .dockerignore drops. */
function imageFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  return rules().filter(tracked);
}

describe('the production image', () => {
  it('holds none of the proving ground, tests or docs', () => {
    const files = imageFiles();
    expect(files.filter((f) => /^(harness|test|docs)\//.test(f))).toEqual([]);
  });

  it('starts from an allow-list: a new file or folder stays out until it is listed, a secret or log even inside a shipped folder', () => {
    const image = rules();
    for (const f of [
      'new-tool.ts',
      'notes/plan.md',
      'harness/package.json',
      'scripts/contract-update.ts',
      'kraken-migrate.env',
      'cli/.env',
      'cli/x.env',
      'db/debug.log',
    ])
      expect(image.ignores(f), f).toBe(true);
    for (const f of ['package.json', 'scripts/require-node.cjs', 'cli/main.ts', 'db/migrations/x.sql']) expect(image.ignores(f), f).toBe(false);
  });

  it('holds what its commands run: the CLI, the worker, the events receiver, the codec server and the migrations', () => {
    const files = imageFiles();
    for (const f of [
      'bin/kraken-migrate.js',
      'cli/main.ts',
      'workers/main.ts',
      'events/main.ts',
      'codec/main.ts',
      'db/migrate.ts',
      'package.json',
      'package-lock.json',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.startsWith('db/migrations/'))).toBe(true);
  });

  it('copies the sources with `COPY . .`, so .dockerignore is what decides', () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^COPY \. \.$/m);
    // Only the product's dependencies: the harness workspace (harness/package.json) is not even in the context.
    expect(dockerfile).toMatch(/npm ci --omit=dev --workspaces=false/);
  });
});
