import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../..');

describe("the CLI's codec warning (a dev key in use)", () => {
  it('goes to stderr, so a command that prints --json keeps stdout parseable', () => {
    const script = "require('./clients/temporal').codecWarnings.warn({ code: 'codec_dev_key' }, 'dev key in use'); process.stdout.write('{\"ok\":true}\\n');";
    const r = spawnSync(process.execPath, [require.resolve('tsx/cli'), '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true });
    expect(r.stderr).toContain('codec_dev_key');
  });
});
