// What `kraken-migrate platform check` does. cli/commands/platform.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import { createAuth, createPlatformClient, runPlatformCheck } from '../../clients/platform';
import { loadCliContext } from '../context';
import { EXIT } from '../errors';
import { printJson, println } from '../output';
import { optionsSchema, parseOptions } from '../option-schema';
import { jsonOnly } from '../options/commands';

const platformCheckOptionsSchema = optionsSchema(jsonOnly());

export async function platformCheckAction(options: unknown): Promise<void> {
  const opts = parseOptions(platformCheckOptionsSchema, options);
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
}
