import { ApplicationFailure } from '@temporalio/common';
import type { ActivityContext } from './deps';
import type { AccountActivities } from './types';

/** The supplier guard's ledger reads and writes (local activities). */
export function guardActivities(ctx: Pick<ActivityContext, 'ledger' | 'logger'>): Pick<AccountActivities, 'getSupplierStatus' | 'recordSupplierNotOngoing'> {
  const { ledger } = ctx;
  return {
    async getSupplierStatus({ supplierCode }) {
      const s = await ledger.supplier(supplierCode);
      if (!s) {
        throw ApplicationFailure.nonRetryable(
          `import supplier ${supplierCode} is unknown: register it with "kraken-migrate supplier set-root"`,
          'supplier_unknown',
        );
      }
      return s.status;
    },

    async recordSupplierNotOngoing({ supplierCode }) {
      ctx.logger.warn(
        { supplierCode, code: 'import_supplier_migration_not_ongoing' },
        'platform refused an account: supplier paused in the ledger until the operator resumes it',
      );
      await ledger.learnSupplierNotOngoing(supplierCode);
    },
  };
}
