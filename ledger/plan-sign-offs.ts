import type { Pool } from '../clients/db';

/** A gate's sign-off as the ledger keeps it (migrate.plan_sign_offs): who, when, and their note. */
export interface SignOff {
  planId: string;
  wave: string;
  gate: 'entry' | 'exit';
  signedBy: string;
  note: string | null;
  signedAt: string;
}

/** Records a sign-off once; a retry (or a second approve) gets the first one back. */
export async function recordSignOff(pool: Pool, s: Omit<SignOff, 'signedAt'>): Promise<SignOff> {
  await pool.query(
    `insert into migrate.plan_sign_offs (plan_id, wave, gate, signed_by, note) values ($1, $2, $3, $4, $5)
     on conflict (plan_id, wave, gate) do nothing`,
    [s.planId, s.wave, s.gate, s.signedBy, s.note],
  );
  const r = await pool.query(`select * from migrate.plan_sign_offs where plan_id = $1 and wave = $2 and gate = $3`, [s.planId, s.wave, s.gate]);
  return toSignOff(r.rows[0]);
}

export async function planSignOffs(pool: Pool, planId: string): Promise<SignOff[]> {
  const r = await pool.query(`select * from migrate.plan_sign_offs where plan_id = $1 order by signed_at`, [planId]);
  return r.rows.map(toSignOff);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toSignOff(row: any): SignOff {
  return {
    planId: row.plan_id,
    wave: row.wave,
    gate: row.gate,
    signedBy: row.signed_by,
    note: row.note,
    signedAt: new Date(row.signed_at).toISOString(),
  };
}
