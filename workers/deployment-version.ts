import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { Config } from '../config';

const ROOT = path.resolve(__dirname, '..');

/** No build ID can be derived: the worker refuses to start rather than share another build's ID. */
export class BuildIdMissingError extends Error {
  readonly code = 'build_id_missing';
  constructor(why: string) {
    super(`KRAKEN_BUILD_ID: required here (${why}); set it to the image's commit, e.g. --build-arg KRAKEN_BUILD_ID=$(git rev-parse --short=12 HEAD)`);
    this.name = 'BuildIdMissingError';
  }
}

/**
 * The worker deployment version this process's workers register (Worker Versioning): the
 * configured deployment name, and a build ID that changes whenever the code can: KRAKEN_BUILD_ID,
 * or `<package.json version>+<12-character git commit>` read from the checkout. Two processes of one
 * commit share it; a new commit is a new version the server keeps apart from the old one.
 */
export function workerDeploymentVersion(cfg: Pick<Config, 'KRAKEN_DEPLOYMENT_NAME' | 'KRAKEN_BUILD_ID'>, root = ROOT): WorkerDeploymentVersion {
  return { deploymentName: cfg.KRAKEN_DEPLOYMENT_NAME, buildId: cfg.KRAKEN_BUILD_ID ?? derivedBuildId(root) };
}

function derivedBuildId(root: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string };
  if (!pkg.version) throw new BuildIdMissingError('package.json has no version');
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    throw new BuildIdMissingError(`no git commit readable in ${root}`);
  }
  if (!/^[0-9a-f]{7,40}$/.test(commit)) throw new BuildIdMissingError(`git answered ${JSON.stringify(commit)} for the commit`);
  return `${pkg.version}+${commit}`;
}

/** `deployment:buildId`: how the server writes a version in the TemporalWorkerDeploymentVersion search attribute (1.29). */
export function versionString(v: WorkerDeploymentVersion): string {
  return `${v.deploymentName}:${v.buildId}`;
}
