// What `kraken-migrate workers` does. cli/commands/workers.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import { workerDeploymentVersion } from '../../workers/deployment-version';
import { loadCliContext, withServices } from '../context';
import { info, printJson, println, table } from '../output';
import { workerVersions } from '../worker-versions';
import { optionsSchema, parseOptions } from '../option-schema';
import { jsonOnly } from '../options/commands';

const workersOptionsSchema = optionsSchema(jsonOnly());

export async function workersAction(options: unknown): Promise<void> {
  const opts = parseOptions(workersOptionsSchema, options);
  const ctx = loadCliContext();
  const name = ctx.cfg.KRAKEN_DEPLOYMENT_NAME;
  const report = await withServices(ctx, async (s) => workerVersions(await s.temporal(), name));
  if (opts.json) return printJson(report ?? { deploymentName: name, currentBuildId: null, rampingBuildId: null, versions: [] });
  if (!report) {
    info(`No worker of deployment ${name} has polled Temporal yet (start one: kraken-migrate worker).`);
    return;
  }
  const mine = (() => {
    try {
      return workerDeploymentVersion(ctx.cfg).buildId;
    } catch {
      return undefined;
    }
  })();
  println(
    `Deployment ${name}: current version ${report.currentBuildId ?? '(none: new workflows wait for set-current-version)'}${report.rampingBuildId ? `, ramping ${report.rampingBuildId}` : ''}`,
  );
  println(
    table(
      ['build id', 'status', 'accounts running', 'carry-overs running', 'retire'],
      report.versions.map((v) => [
        v.buildId + (v.buildId === mine ? ' (this checkout)' : ''),
        v.status,
        String(v.accountsRunning),
        String(v.postImportRunning),
        v.retireable ? 'yes' : 'no',
      ]),
    ),
  );
}
