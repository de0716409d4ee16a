import type { Config } from '../config';
import type { RunProgress } from '../domain/messages';
import { accountWorkflowId } from '../domain/workflow-ids';
import { workflowUiUrl } from './context';

/** Stop the line as `run status` shows it: whether it tripped, why, and links to the sample accounts. */
export interface StopLineView {
  enabled: boolean;
  thresholds: { maxSameCode: number; maxFailureRate: number; overLast: number };
  tripped: boolean;
  reason: {
    rule: 'max_same_code' | 'max_failure_rate';
    code: string;
    count: number;
    over?: number;
    message: string;
    samples: Array<{ externalAccountNumber: string; code: string; url: string }>;
  } | null;
  /** Platform-side failures with one code in a row, now. */
  streak: { code: string; count: number };
  /** Failures found locally (validation, documents): data errors, counted apart; they never stop the line. */
  dataErrors: number;
  platformFailures: number;
}

export function stopLineView(cfg: Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_NAMESPACE'>, p: RunProgress): StopLineView | null {
  if (!p.stopLine) return null;
  const { settings, state } = p.stopLine;
  const t = state.tripped;
  return {
    enabled: settings.enabled,
    thresholds: { maxSameCode: settings.maxSameCode, maxFailureRate: settings.maxFailureRate, overLast: settings.overLast },
    tripped: t !== undefined,
    reason: t
      ? {
          rule: t.rule,
          code: t.code,
          count: t.count,
          ...(t.over !== undefined ? { over: t.over } : {}),
          message: t.message,
          samples: t.samples.map((x) => ({
            ...x,
            url: workflowUiUrl(cfg, accountWorkflowId(p.supplierCode, x.externalAccountNumber, p.dryRun, p.runId)),
          })),
        }
      : null,
    streak: state.streak,
    dataErrors: state.dataErrors,
    platformFailures: state.platformFailures,
  };
}

/** The lines `run status` prints. */
export function stopLineLines(v: StopLineView, runId: string): string[] {
  if (!v.reason) {
    return [
      `Stop the line: watching (max_same_code ${v.thresholds.maxSameCode}, max_failure_rate ${Math.round(v.thresholds.maxFailureRate * 100)}% over ${v.thresholds.overLast}); platform failures ${v.platformFailures}, data errors ${v.dataErrors}`,
    ];
  }
  return [
    `STOPPED THE LINE: ${v.reason.message}`,
    ...v.reason.samples.map((x) => `  ${x.externalAccountNumber} ${x.code} ${x.url}`),
    `Accounts in flight finish; the rest wait. Fix the cause, then: kraken-migrate run resume ${runId}`,
  ];
}

/** The watch line's state: `paused` says it was the line that stopped. */
export function stateWithStopLine(p: RunProgress | undefined, fallback: string): string {
  if (!p) return fallback;
  const t = p.stopLine?.state.tripped;
  return p.state === 'paused' && t ? `paused (stop the line: ${t.code} ×${t.count})` : p.state;
}
