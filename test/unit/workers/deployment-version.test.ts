import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { BuildIdMissingError, workerDeploymentVersion } from '../../../workers/deployment-version';

const ROOT = path.resolve(__dirname, '../../..');

describe('the worker deployment version', () => {
  it('is the package version and the checkout commit by default', () => {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(workerDeploymentVersion(parseConfig({}))).toEqual({ deploymentName: 'kraken-migrate', buildId: `${pkg.version}+${commit}` });
  });

  it('KRAKEN_BUILD_ID and KRAKEN_DEPLOYMENT_NAME win', () => {
    expect(workerDeploymentVersion(parseConfig({ KRAKEN_BUILD_ID: '1.4.0+abc1234', KRAKEN_DEPLOYMENT_NAME: 'migrate-eu' }))).toEqual({
      deploymentName: 'migrate-eu',
      buildId: '1.4.0+abc1234',
    });
  });

  it('without git and without KRAKEN_BUILD_ID (an image built without the argument) the worker refuses, naming the variable', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'km-build-id-'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ version: '0.1.0' }));
    expect(() => workerDeploymentVersion(parseConfig({}), dir)).toThrow(BuildIdMissingError);
    expect(() => workerDeploymentVersion(parseConfig({}), dir)).toThrow(/KRAKEN_BUILD_ID: required here \(no git commit readable/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the rule the server enforces when the deployment name has a dot or a colon', () => {
    expect(() => parseConfig({ KRAKEN_DEPLOYMENT_NAME: 'kraken.migrate' })).toThrow(
      /KRAKEN_DEPLOYMENT_NAME="kraken.migrate": letters, digits, '-' and '_' only \(no '.' or ':'\)/,
    );
    expect(() => parseConfig({ KRAKEN_DEPLOYMENT_NAME: '__internal' })).toThrow(/KRAKEN_DEPLOYMENT_NAME/);
    expect(() => parseConfig({ KRAKEN_BUILD_ID: 'a b' })).toThrow(/KRAKEN_BUILD_ID="a b"/);
  });
});
