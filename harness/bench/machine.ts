import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { provisionTemporalCli } from '../stack/temporal-cli';
import type { BenchResults } from './results';

export function machineInfo(): BenchResults['machine'] {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${os.platform()}-${os.arch()}`,
    kernel: os.release(),
  };
}

function packageVersion(name: string): string {
  try {
    // Not every package exports its package.json; walk up from its entry point instead.
    let dir = path.dirname(require.resolve(name));
    for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (fs.existsSync(file)) {
        const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name && pkg.version) return pkg.version;
      }
    }
  } catch {
    /* reported as unknown */
  }
  return 'unknown';
}

export function versions(root: string): BenchResults['versions'] {
  let temporalCli = 'unknown';
  try {
    const cli = provisionTemporalCli({ root, quiet: true });
    temporalCli = execFileSync(cli.path, ['--version'], { encoding: 'utf8' })
      .trim()
      .replace(/^temporal version /, '');
  } catch {
    /* stays unknown */
  }
  const sdk = [...new Set(['@temporalio/client', '@temporalio/worker', '@temporalio/workflow'].map(packageVersion))];
  return { node: process.version, temporalCli, temporalio: sdk.join(' / ') };
}
