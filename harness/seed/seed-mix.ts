/**
 * The outcome mix `db seed-ledger` writes: what a large run of real legacy data leaves in the ledger,
 * so operator commands can be timed on a ledger of the size a real migration reaches. Codes, stages
 * and attrs are those the pipeline records (the generator's planted defects in
 * synthetic/generator.ts, the guards in activities/run.ts, the await stage's timeouts); shares are
 * per 10,000 accounts. Pure: the seed and its tests compute the same counts from it.
 */

export interface SeedError {
  stage: string;
  code: string;
  attr: string;
  detail: string;
}

export interface SeedSegment {
  /** `null`: the attempt is still open (in progress at `stage`). */
  outcome: 'completed' | 'completed_with_differences' | 'failed' | 'not_attempted' | null;
  stage: string;
  code: string | null;
  attr: string | null;
  source: string | null;
  /** Error rows of a failed account (the first names its recorded code and attr). */
  errors: SeedError[];
  /** Differing paths of a reconciled account (completed_with_differences only). */
  differences: Array<{ path: string; field: string }>;
  perTenThousand: number;
}

const MP0 = 'supply_addresses.0.meter_points.0';

/** Fields a read-back compares (indexes as `*`, as reconcile/compare.ts names them). */
export const SEED_RECONCILED_FIELDS = [
  'customers.*.given_name',
  'customers.*.family_name',
  'customers.*.email',
  'customers.*.mobile',
  'billing_address.postcode',
  'supply_addresses.*.postcode',
  'supply_addresses.*.meter_points.*.identifier',
  'supply_addresses.*.meter_points.*.agreements.*.tariff_code',
] as const;

const failed = (stage: string, code: string, attr: string, detail: string, perTenThousand: number, more: SeedError[] = []): SeedSegment => ({
  outcome: 'failed',
  stage,
  code,
  attr,
  source: stage === 'platform' || stage === 'await' ? 'event' : 'local',
  errors: [{ stage, code, attr, detail }, ...more],
  differences: [],
  perTenThousand,
});

const plain = (outcome: SeedSegment['outcome'], stage: string, code: string | null, source: string | null, perTenThousand: number): SeedSegment => ({
  outcome,
  stage,
  code,
  attr: null,
  source,
  errors: [],
  differences: [],
  perTenThousand,
});

/** 92.7% completed, 1% completed with differences, 4% failed over 7 codes, 1.3% not attempted, 1% still open. */
export const SEED_MIX: readonly SeedSegment[] = [
  plain('completed', 'done', null, 'event', 8_600),
  plain('completed', 'done', null, 'poll', 670),
  {
    ...plain('completed_with_differences', 'done', null, 'event', 100),
    differences: [
      { path: 'customers.0.family_name', field: 'customers.*.family_name' },
      { path: `${MP0}.agreements.0.tariff_code`, field: 'supply_addresses.*.meter_points.*.agreements.*.tariff_code' },
    ],
  },
  failed('validate', 'invalid_phone_number', 'customers.0.mobile', 'not a valid GB phone number', 110, [
    { stage: 'validate', code: 'invalid_phone_number', attr: 'customers.0.landline', detail: 'not a valid GB phone number' },
  ]),
  failed('validate', 'required', `${MP0}.meters.0.meter_serial_number`, 'this field is required', 70),
  failed('validate', 'start_date_later_than_end_date', `${MP0}.agreements.0.effective_to`, 'effective_to is before effective_from', 50),
  failed('transform', 'invalid_date', 'customers.0.date_of_birth', 'not a date: 31/02/1970', 40),
  failed('documents', 'path_does_not_exist_in_file_store', 'statements.0.statement_path', 'no such file in the source documents', 40),
  failed('platform', 'tariff_code_not_found', `${MP0}.agreements.0.tariff_code`, 'tariff code is not in the catalogue', 60),
  failed('await', 'import_cancelled', '', 'the platform cancelled the import at the end of its schedule window', 30),
  plain('not_attempted', 'guard', 'import_supplier_migration_not_ongoing', 'local', 100),
  plain('not_attempted', 'guard', 'account_in_flight_in_another_run', 'local', 30),
  plain(null, 'await', null, null, 70),
  plain(null, 'schedule', null, null, 20),
  plain(null, 'documents', null, null, 10),
];

export interface PlannedSegment extends SeedSegment {
  /** Accounts of this segment: positions [lo, hi) of the run's permuted account order. */
  lo: number;
  hi: number;
}

/** Exact counts for `accounts` (largest remainder: they add up to `accounts`). */
export function planSeed(accounts: number, mix: readonly SeedSegment[] = SEED_MIX): PlannedSegment[] {
  const total = mix.reduce((s, m) => s + m.perTenThousand, 0);
  const exact = mix.map((m) => (accounts * m.perTenThousand) / total);
  const counts = exact.map(Math.floor);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0, left = accounts - counts.reduce((s, n) => s + n, 0); k < left; k++) counts[order[k].i] += 1;
  let lo = 0;
  return mix.map((m, i) => {
    const seg = { ...m, lo, hi: lo + counts[i] };
    lo += counts[i];
    return seg;
  });
}

/** Accounts by outcome (`in_progress` for open ones) and failed / not-attempted accounts by code. */
export function seedCounts(plan: readonly PlannedSegment[]): { byOutcome: Record<string, number>; byCode: Record<string, number> } {
  const byOutcome: Record<string, number> = {};
  const byCode: Record<string, number> = {};
  for (const s of plan) {
    const n = s.hi - s.lo;
    const o = s.outcome ?? 'in_progress';
    byOutcome[o] = (byOutcome[o] ?? 0) + n;
    if ((s.outcome === 'failed' || s.outcome === 'not_attempted') && s.code) byCode[s.code] = (byCode[s.code] ?? 0) + n;
  }
  return { byOutcome, byCode };
}

/**
 * A multiplier coprime with `n`: position = (i × m) mod n visits every position once, so each
 * segment's accounts are spread over the account numbers instead of sitting in one block.
 */
export function spreadMultiplier(n: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  for (const m of [7919, 104_729, 1_299_709, 15_485_863]) if (gcd(m, n) === 1) return m;
  return 1;
}
