import { Command } from 'commander';
import { workerDeploymentVersion } from '../../workers/deployment-version';
import { loadCliContext, withServices } from '../context';
import { info, printJson, println, table } from '../output';
import { workerVersions } from '../worker-versions';

export function workersCommand(): Command {
  return new Command('workers')
    .description("the worker deployment's versions: which is current, how many accounts are still pinned to each")
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
A version whose "retire" column says yes gets no new workflow and has none left: stop its workers,
then delete it (temporal worker deployment delete-version). See README, "Upgrading during a migration".

Example:
  $ kraken-migrate workers`,
    )
    .action(async (opts: { json?: boolean }) => {
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
    });
}
