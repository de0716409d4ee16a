import { Command } from 'commander';
import { createAuth, createPlatformClient, runPlatformCheck } from '../../clients/platform';
import { loadCliContext } from '../context';
import { EXIT } from '../errors';
import { printJson, println } from '../output';

export function platformCommand(): Command {
  const platform = new Command('platform').description('the platform (a tenant or the sandbox) as PLATFORM_* configures it');
  platform
    .command('check')
    .description('before the first run: obtain a token, read the catalogue, validate a generated payload, read an import status')
    .option('--json', 'print {ok, steps:[{step, ok, status, reason}]} as JSON')
    .addHelpText(
      'after',
      `
Nothing is created on the platform: the payload goes to the validate endpoint only, and the import
status is read for an identifier no import uses (404 is a pass). Exit 0 only when every step passes.

Examples:
  $ kraken-migrate platform check
  $ PLATFORM_BASE_URL=https://<tenant>/v1/ … kraken-migrate platform check --json`,
    )
    .action(async (opts: { json?: boolean }) => {
      const { cfg } = loadCliContext();
      const auth = createAuth(cfg);
      const client = createPlatformClient(cfg, { auth });
      const result = await runPlatformCheck({ client, auth, authMode: cfg.PLATFORM_AUTH_MODE, supplierCode: cfg.IMPORT_SUPPLIER_CODE });
      if (opts.json) printJson(result);
      else {
        for (const s of result.steps) println(`${s.ok ? 'ok    ' : 'FAILED'} ${s.step.padEnd(13)} ${s.status ?? '-'}  ${s.reason}`);
        println(result.ok ? 'platform check passed' : 'platform check failed');
      }
      process.exitCode = result.ok ? EXIT.ok : EXIT.failures;
    });
  return platform;
}
