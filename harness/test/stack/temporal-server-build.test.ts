import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { provisionTemporalServer, ServerBuildError, SERVER_TOOLS } from '../../stack/temporal-server-build';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'server-build-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A checkout and a PATH holding only the given fake commands (shell scripts). */
function machine(commands: Record<string, string>, inTools: string[] = [], systemPath = false): { root: string; env: NodeJS.ProcessEnv } {
  const root = fs.mkdtempSync(path.join(dir, 'root-'));
  const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
  for (const [name, script] of Object.entries(commands)) fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(root, '.tools', 'bin'), { recursive: true });
  for (const name of inTools) fs.writeFileSync(path.join(root, '.tools', 'bin', name), '#!/bin/sh\n', { mode: 0o755 });
  // With systemPath, the fake commands come first and the shell's tools (sed, chmod) stay reachable.
  return { root, env: { PATH: systemPath ? `${bin}${path.delimiter}${process.env.PATH}` : bin } };
}

describe('the server engine binaries', () => {
  it('are taken from .tools/bin when built, without calling Go', () => {
    const m = machine({ go: 'exit 99' }, ['temporal-server', 'temporal-sql-tool', 'temporal-ui-server']);
    expect(provisionTemporalServer({ ...m, quiet: true })).toEqual({
      server: path.join(m.root, '.tools', 'bin', 'temporal-server'),
      sqlTool: path.join(m.root, '.tools', 'bin', 'temporal-sql-tool'),
      uiServer: path.join(m.root, '.tools', 'bin', 'temporal-ui-server'),
    });
  });

  it('are built with go install <module>@<version> into a staging GOBIN and renamed (two are called `server`)', () => {
    // A fake Go that records its arguments and "builds" the binary go install would name.
    const log = path.join(dir, 'go-calls.log');
    const m = machine({ go: `echo "$@" >> ${log}; pkg="\${3%@*}"; out="$GOBIN/\${pkg##*/}"; printf '#!/bin/sh\\n' > "$out"; chmod +x "$out"` }, [], true);
    const paths = provisionTemporalServer({ ...m, quiet: true });
    expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toEqual(
      Object.values(SERVER_TOOLS).map((t) => `install -ldflags=-checklinkname=0 ${t.pkg}@${t.version}`),
    );
    for (const p of Object.values(paths)) expect(fs.statSync(p).isFile()).toBe(true);
    expect(fs.readdirSync(path.join(m.root, '.tools', 'bin')).sort()).toEqual(['temporal-server', 'temporal-sql-tool', 'temporal-ui-server']);
  });

  it('without them and without Go: one coded error naming Go and the module, nothing downloaded', () => {
    const m = machine({});
    let err: unknown;
    try {
      provisionTemporalServer({ ...m, quiet: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServerBuildError);
    expect((err as ServerBuildError).code).toBe('temporal_server_build_failed');
    expect((err as Error).message).toMatch(
      /temporal-server is not built and no Go toolchain is on PATH: install Go >= 1\.26\.8 \(it builds go\.temporal\.io\/server\/cmd\/server@v1\.32\.0\)/,
    );
  });

  it('a failing build says which module failed', () => {
    const m = machine({ go: 'exit 1' });
    expect(() => provisionTemporalServer({ ...m, quiet: true })).toThrow(/go install go\.temporal\.io\/server\/cmd\/server@v1\.32\.0 failed \(exit 1\)/);
  });
});
