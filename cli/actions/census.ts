// What `kraken-migrate supplier census` does (cli/commands/supplier.ts declares it): the tenant's
// import-process list beside the ledger, across every run, in bounded memory.
import { z } from 'zod';
import { createPlatformClient } from '../../clients/platform/client';
import { PlatformClientError } from '../../clients/platform/errors';
import { CENSUS_LISTED_CLASSES, DEFAULT_STUCK_PENDING_SECONDS, type CensusCounts } from '../../domain/census';
import type { CensusSession } from '../../ledger/census';
import { withCensus } from '../../activities/census';
import { loadCliContext, withServices } from '../context';
import { CliError, EXIT } from '../errors';
import { flagOption, parseOptions, positiveIntOption } from '../option-schema';
import { info, printLines, println, table } from '../output';

const censusOptionsSchema = z.object({
  json: flagOption,
  stuckAfterSeconds: positiveIntOption.default(DEFAULT_STUCK_PENDING_SECONDS),
});

const SHOWN = 20;

type Page = { lines: string; count: number };

/** The JSON document, written as the listed numbers are read back (never held whole). */
async function* censusJson(session: CensusSession, supplier: string, counts: CensusCounts, stuckAfterSeconds: number): AsyncGenerator<Page> {
  yield { lines: '{', count: 1 };
  for (const cls of CENSUS_LISTED_CLASSES) {
    yield { lines: `  ${JSON.stringify(cls)}: [`, count: 1 };
    let first = true;
    for await (const page of session.listed(cls)) {
      yield { lines: (first ? '' : ',\n') + page.map((n) => `    ${JSON.stringify(n)}`).join(',\n'), count: page.length };
      first = false;
    }
    yield { lines: '  ],', count: 1 };
  }
  const counted = JSON.stringify(counts, null, 2).replace(/\n/g, '\n  ');
  yield { lines: `  "counts": ${counted},\n  "supplier": ${JSON.stringify(supplier)},\n  "stuckAfterSeconds": ${stuckAfterSeconds}\n}`, count: 1 };
}

async function printHuman(session: CensusSession, supplier: string, counts: CensusCounts, stuckAfterSeconds: number): Promise<void> {
  println(
    `census of ${supplier}: the tenant lists ${counts.tenantImported} imported and ${counts.tenantPending} pending; the ledger completed ${counts.ledgerCompleted}`,
  );
  println(
    table(
      ['CLASS', 'ACCOUNTS', 'MEANING'],
      [
        ['matched', String(counts.matched), 'completed by a run and held by the tenant'],
        ['in flight', String(counts.inFlight), 'a run is creating it'],
        ['platform only', String(counts.platformOnly), 'held by the tenant, created by no run (imported elsewhere: a double-import risk)'],
        ['ledger only', String(counts.ledgerOnly), 'completed by a run, no longer held by the tenant'],
        ['stuck pending', String(counts.stuckPending), `pending at the tenant over ${stuckAfterSeconds} s since a run scheduled it`],
      ],
    ),
  );
  for (const cls of CENSUS_LISTED_CLASSES) {
    const total = counts[cls];
    if (total === 0) continue;
    const shown: string[] = [];
    for await (const page of session.listed(cls)) {
      shown.push(...page.slice(0, SHOWN - shown.length));
      if (shown.length >= SHOWN) break;
    }
    println(`${cls}: ${shown.join(' ')}${total > shown.length ? ` … and ${total - shown.length} more (--json lists them all)` : ''}`);
  }
}

export async function supplierCensusAction(supplier: string, options: unknown): Promise<void> {
  const opts = parseOptions(censusOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const platform = createPlatformClient(ctx.cfg);
    const onRetry = (e: { code: string }, attempt: number, ms: number) =>
      info(`reading the tenant's list failed (${e.code}, attempt ${attempt}); reading it again in ${Math.round(ms / 1000)} s`);
    try {
      await withCensus(
        { pool: await s.db(), platform },
        { supplierCode: supplier, stuckAfterSeconds: opts.stuckAfterSeconds, onRetry },
        async (session, counts) => {
          if (opts.json) await printLines(censusJson(session, supplier, counts, opts.stuckAfterSeconds));
          else await printHuman(session, supplier, counts, opts.stuckAfterSeconds);
          process.exitCode = counts.platformOnly + counts.ledgerOnly + counts.stuckPending > 0 ? EXIT.failures : EXIT.ok;
        },
      );
    } catch (e) {
      if (e instanceof PlatformClientError)
        throw new CliError(e.code, `cannot read the tenant's import processes for ${supplier}: ${e.message}`, e.retryable ? EXIT.unreachable : EXIT.failures);
      throw e;
    }
  });
}
