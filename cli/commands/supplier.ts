import { declareOptions } from '../option-table';
import { jsonOnly, SET_SUPPLIER_STATUS_OPTIONS } from '../options/commands';
import { Command, InvalidArgumentError } from 'commander';
import { SUPPLIER_STATUSES, type SupplierStatus } from '../../domain/supplier-status';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const supplierActions = (): typeof import('../actions/supplier') => require('../actions/supplier');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
const censusActions = (): typeof import('../actions/census') => require('../actions/census');

const parseStatus = (v: string): SupplierStatus => {
  const up = v.toUpperCase();
  if (!(SUPPLIER_STATUSES as readonly string[]).includes(up)) throw new InvalidArgumentError(`expected one of ${SUPPLIER_STATUSES.join(', ')}`);
  return up as SupplierStatus;
};

export function supplierCommand(): Command {
  const supplier = new Command('supplier').description("the operator's mirror of import-supplier state (status, document root)");
  declareOptions(supplier.command('list'), jsonOnly())
    .description('every supplier the ledger knows')
    .addHelpText('after', '\nExample:\n  $ kraken-migrate supplier list --json')
    .action(async (opts) => supplierActions().listSuppliersAction(opts));

  declareOptions(supplier.command('show <code>'), jsonOnly())
    .description("one supplier's status, document root and running runs")
    .addHelpText('after', '\nExample:\n  $ kraken-migrate supplier show DEMO-SUPPLIER')
    .action(async (code: string, opts) => supplierActions().showSupplierAction(code, opts));

  declareOptions(supplier.command('set-status <code>'), SET_SUPPLIER_STATUS_OPTIONS)
    .description('set ONGOING, PAUSED or COMPLETE in the ledger and wake every running run of the supplier')
    .argument('<status>', 'ONGOING | PAUSED | COMPLETE', parseStatus)
    .addHelpText(
      'after',
      `
PAUSED makes runs wait (accounts in flight finish); ONGOING wakes them; COMPLETE ends them, recording
the rest as not attempted.

Examples:
  $ kraken-migrate supplier set-status DEMO-SUPPLIER PAUSED --reason "platform maintenance"
  $ kraken-migrate supplier set-status DEMO-SUPPLIER ONGOING`,
    )
    .action(async (code: string, status: SupplierStatus, opts) => supplierActions().setSupplierStatusAction(code, status, opts));

  declareOptions(supplier.command('set-root <code> <root>'), jsonOnly())
    .description("set the supplier's document root (where its documents go on the platform)")
    .addHelpText('after', '\nExample:\n  $ kraken-migrate supplier set-root DEMO-SUPPLIER migrations/demo-supplier')
    .action(async (code: string, root: string, opts) => supplierActions().setSupplierRootAction(code, root, opts));

  supplier
    .command('census <code>')
    .description("the tenant's import processes for the supplier beside the ledger, across every run")
    .option('--stuck-after-seconds <n>', 'an account pending at the tenant longer than this since a run scheduled it is stuck (default 86400)')
    .option('--json', 'machine-readable output: {platformOnly, ledgerOnly, stuckPending, counts}')
    .addHelpText(
      'after',
      `
platformOnly: accounts the tenant holds that no run created (imported elsewhere: a double-import risk).
ledgerOnly: accounts a run completed that the tenant no longer holds. stuckPending: accounts a run
scheduled that are still pending at the tenant past --stuck-after-seconds. Exit 1 when any is found.
The tenant's list is read as it streams and compared in Postgres: memory stays bounded at a million.

Examples:
  $ kraken-migrate supplier census DEMO-SUPPLIER
  $ kraken-migrate supplier census DEMO-SUPPLIER --json --stuck-after-seconds 3600`,
    )
    .action(async (code: string, opts) => censusActions().supplierCensusAction(code, opts));

  return supplier;
}
