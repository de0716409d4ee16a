import { PREFLIGHT_STAGE, tariffAttrFor } from '../source/catalogue-check';
import { claimInboxEvent, platformErrorDetail } from '../ledger';
import type { ImportEventSignal } from '../workflows/inputs';
import { attemptRef, type ActivityContext } from './deps';
import type { AccountActivities } from './types';

/** Await-the-outcome and record: the inbox read of the fallback path and the one recorded outcome. */
export function outcomeActivities(ctx: ActivityContext): Pick<AccountActivities, 'claimInboxEvent' | 'recordOutcome'> {
  const { ledger, pool } = ctx;
  return {
    async claimInboxEvent(input) {
      const e = await claimInboxEvent(pool, attemptRef(input));
      if (!e) return undefined;
      const signal: ImportEventSignal = { eventId: e.eventId, type: e.eventType };
      if (e.identifier) signal.identifier = e.identifier;
      if (e.errorCode) signal.errorCode = e.errorCode;
      return signal;
    },

    async recordOutcome(input) {
      const ref = attemptRef(input);
      let o = input.outcome;
      // tariff_code_not_found names no field: the one tariff the pre-flight could not confirm is it.
      if (o.outcome === 'failed' && !o.attr && o.code === 'tariff_code_not_found') {
        const attr = tariffAttrFor(o.code, await ledger.errorsOf(ref, PREFLIGHT_STAGE));
        if (attr) o = { ...o, attr };
      }
      // import_process_failed_validation: explainFailedValidation has recorded the field errors already.
      if (o.outcome === 'failed' && (o.source === 'event' || o.source === 'poll') && o.code && o.code !== 'import_process_failed_validation') {
        const detail = await platformErrorDetail(pool, input.externalAccountNumber, o.code);
        await ledger.replaceErrors(ref, 'platform', [{ stage: 'platform', code: o.code, attr: o.attr, detail }]);
      }
      const set = await ledger.recordOutcome(ref, o);
      ctx.logger.info({ runId: ref.runId, account: ref.externalAccountNumber, outcome: o.outcome, stage: o.stage, code: o.code, source: o.source, recorded: set }, 'account outcome');
    },
  };
}
