import { createHash } from 'node:crypto';

/**
 * The body of `GET /v1/accounts/<number>/`. The reference says only "account record; the body is
 * not shown", so this shape is ours (sandbox/README.md lists it as an assumption): the public REST
 * account record of Kraken tenants (`number`, `properties[]` with addresses and meter points)
 * plus the customers' names and the balance, all built from the payload the account was created
 * from. The sandbox never imports the project's schemas: this mapping is independent of the
 * client's reconciliation, so the two can disagree.
 */
export interface AccountRecord {
  number: string;
  balance?: string;
  customers: Array<{ given_name?: string; family_name?: string }>;
  properties: Array<{
    address_line_1?: string;
    address_line_2?: string;
    address_line_3?: string;
    town?: string;
    county?: string;
    postcode?: string;
    moved_in_at?: string;
    moved_out_at?: string | null;
    electricity_meter_points: Array<{ mpan: string }>;
    gas_meter_points: Array<{ mprn: string }>;
  }>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Drops undefined members so the JSON shows only what the account has. */
function compact<T extends Obj>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function accountRecordFromPayload(number: string, payload: unknown): AccountRecord {
  const p = isObj(payload) ? payload : {};
  const record: AccountRecord = {
    number,
    customers: list(p.customers).map((c) => compact({ given_name: str(c.given_name), family_name: str(c.family_name) })),
    properties: list(p.supply_addresses).map((a) => {
      const points = list(a.meter_points);
      return compact({
        address_line_1: str(a.supply_address1),
        address_line_2: str(a.supply_address2),
        address_line_3: str(a.supply_address3),
        town: str(a.supply_address4),
        county: str(a.supply_address5),
        postcode: str(a.supply_postcode),
        moved_in_at: str(a.customer_at_supply_address_from_date),
        moved_out_at: str(a.customer_at_supply_address_to_date) ?? null,
        electricity_meter_points: points.filter((m) => m.supply_type === 'ELECTRICITY' && str(m.identifier)).map((m) => ({ mpan: String(m.identifier) })),
        gas_meter_points: points.filter((m) => m.supply_type === 'GAS' && str(m.identifier)).map((m) => ({ mprn: String(m.identifier) })),
      });
    }),
  };
  const balance = str(p.transfer_balance);
  if (balance !== undefined) record.balance = balance;
  return record;
}

/** Deterministic per account, so a second read (a re-check) sees the same alteration. */
export function isAltered(number: string, rate: number): boolean {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  const h = createHash('sha256').update(`alter:${number}`).digest().readUInt32BE(0);
  return h / 0x1_0000_0000 < rate;
}

/**
 * The "altered field" fault: the value at `path` (dot path, numeric parts are indexes) is changed
 * (strings get a suffix, numbers/booleans flip) or, when absent, appears. Returns a new record.
 */
export function alterField(record: AccountRecord, path: string): AccountRecord {
  const copy = structuredClone(record) as unknown as Obj;
  const parts = path.split('.');
  let node: unknown = copy;
  for (const part of parts.slice(0, -1)) {
    if (!isObj(node) && !Array.isArray(node)) return copy as unknown as AccountRecord;
    node = (node as Obj)[part];
  }
  if (!isObj(node) && !Array.isArray(node)) return copy as unknown as AccountRecord;
  const leaf = parts[parts.length - 1];
  const target = node as Obj;
  const old = target[leaf];
  target[leaf] = typeof old === 'string' ? `${old}-ALTERED` : typeof old === 'number' ? old + 1 : typeof old === 'boolean' ? !old : 'ALTERED';
  return copy as unknown as AccountRecord;
}
