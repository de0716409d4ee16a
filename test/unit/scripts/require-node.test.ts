import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../..');
const { checkNode } = createRequire(__filename)('../../../scripts/require-node.cjs') as {
  checkNode: (range: string, version: string, execPath?: string) => string | undefined;
};
const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

describe('a Node older than package.json engines stops at once', () => {
  it('compares major, minor and patch against the >= in engines', () => {
    expect(checkNode('>=24.11', '24.11.0')).toBeUndefined();
    expect(checkNode('>=24.11', '24.21.0')).toBeUndefined();
    expect(checkNode('>=24.11', '25.0.0')).toBeUndefined();
    expect(checkNode('>=24.11.2', '24.11.2')).toBeUndefined();
    expect(checkNode('>=24.11.2', '24.11.1')).toMatch(/^error \[node_too_old\]/);
    expect(checkNode('>=24.11', '24.10.9', '/opt/node')).toBe(
      'error [node_too_old]: kraken-migrate needs Node >=24.11 (package.json engines), and this is Node 24.10.9 (/opt/node): put Node 24.11 or later (.nvmrc) first on PATH',
    );
    expect(checkNode('>=24.11', '20.20.2')).toMatch(/needs Node >=24\.11.*this is Node 20\.20\.2/);
    expect(checkNode('>=24.11', '3.99.99')).toMatch(/node_too_old/);
    expect(checkNode('^24', '24.11.0')).toMatch(/^error \[node_engines_unreadable\]: package.json engines.node is "\^24"/);
  });

  // This machine's Node 20 (/usr/bin/node, with its npm): the real binaries a newcomer would have.
  const node20 = '/usr/bin/node';
  const old = fs.existsSync(node20) ? spawnSync(node20, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() : '';
  const env = { PATH: `${path.dirname(node20)}:/bin`, HOME: os.tmpdir() };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'node-gate-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it.skipIf(!old || checkNode(engines, old) === undefined).each([['demo'], ['dev'], ['test'], ['temporal:provision']])(
    'npm run %s on Node 20: one line naming the version needed, exit 1, nothing started',
    (script) => {
      const r = spawnSync(path.join(path.dirname(node20), 'npm'), ['run', '--silent', script], {
        cwd: ROOT,
        env: { ...env, DATA_DIR: path.join(tmp, 'data') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.stderr.trim().split('\n')).toEqual([
        `error [node_too_old]: kraken-migrate needs Node ${engines} (package.json engines), and this is Node ${old} (${node20}): put Node ${engines.slice(2)} or later (.nvmrc) first on PATH`,
      ]);
      expect(r.status).toBe(1);
      expect(fs.existsSync(path.join(tmp, 'data'))).toBe(false);
    },
  );

  it.skipIf(!old || checkNode(engines, old) === undefined)('npm ci on Node 20 refuses before installing anything (engine-strict in .npmrc)', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'ci-'));
    for (const f of ['package.json', 'package-lock.json', '.npmrc']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
    const r = spawnSync(path.join(path.dirname(node20), 'npm'), ['ci', '--no-audit', '--no-fund', '--offline'], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/EBADENGINE/);
    expect(r.stderr).toContain(`Required: {"node":"${engines}"}`);
    expect(fs.existsSync(path.join(dir, 'node_modules'))).toBe(false);
  });
});
