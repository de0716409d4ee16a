import { createHash } from 'node:crypto';
import { londonMidnightIso } from '../time';

/**
 * The body of `GET /v1/accounts/<number>/`. The reference says only "account record; the body is
 * not shown"; the tenant's public developer documentation shows it (REST guide, "Account endpoint"
 * example), and that is the shape served here: `number` and `properties[]` with the address, the
 * electricity meter points (meters, registers, agreements) and the gas meter points, datetimes as
 * local Europe/London midnights with their offset. All of it is built from the payload the account
 * was created from. `customers` and `balance` are not in the documented record: served only with
 * `extras` on (sandbox/README.md, "Assumed, not documented"). The sandbox never imports the
 * project's schemas: this mapping is independent of the client's reconciliation, so the two can
 * disagree.
 */
export interface AccountRecord {
  number: string;
  balance?: string;
  customers?: Array<{ given_name?: string; family_name?: string }>;
  properties: PropertyRecord[];
}

export interface AgreementRecord {
  tariff_code: string;
  valid_from: string | null;
  valid_to: string | null;
}

export interface PropertyRecord {
  id: number;
  moved_in_at: string | null;
  moved_out_at: string | null;
  address_line_1: string;
  address_line_2: string;
  address_line_3: string;
  town: string;
  county: string;
  postcode: string;
  electricity_meter_points: Array<{
    mpan: string;
    profile_class: number | null;
    consumption_standard: number | null;
    meters: Array<{ serial_number: string; registers: Array<{ identifier: string; rate: string; is_settlement_register: boolean }> }>;
    agreements: AgreementRecord[];
    is_export: boolean;
  }>;
  gas_meter_points: Array<{
    mprn: string;
    consumption_standard: number | null;
    meters: Array<{ serial_number: string }>;
    agreements: AgreementRecord[];
  }>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
/** A payload date as the record shows it: that day's local midnight in Europe/London, with its offset. */
const midnight = (v: unknown): string | null => (str(v) ? londonMidnightIso(String(v)) : null);

/** Drops undefined members so the JSON shows only what the account has. */
function compact<T extends Obj>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** A stable numeric property id per account and address (the platform's own, never the payload's). */
function propertyId(number: string, index: number): number {
  return createHash('sha256').update(`property:${number}:${index}`).digest().readUInt32BE(0) % 10_000_000;
}

function agreements(mp: Obj): AgreementRecord[] {
  return list(mp.agreements).map((a) => ({
    tariff_code: String(a.tariff_code ?? ''),
    valid_from: midnight(a.effective_from),
    valid_to: midnight(a.effective_to),
  }));
}

/** The documented record (plus, with `extras`, customers and balance) for the account created from `payload`. */
export function accountRecordFromPayload(number: string, payload: unknown, opts: { extras?: boolean } = {}): AccountRecord {
  const p = isObj(payload) ? payload : {};
  const record: AccountRecord = {
    number,
    properties: list(p.supply_addresses).map((a, i) => {
      const points = list(a.meter_points);
      return {
        id: propertyId(number, i),
        moved_in_at: midnight(a.customer_at_supply_address_from_date),
        moved_out_at: midnight(a.customer_at_supply_address_to_date),
        address_line_1: str(a.supply_address1) ?? '',
        address_line_2: str(a.supply_address2) ?? '',
        address_line_3: str(a.supply_address3) ?? '',
        town: str(a.supply_address4) ?? '',
        county: str(a.supply_address5) ?? '',
        postcode: str(a.supply_postcode) ?? '',
        electricity_meter_points: points
          .filter((m) => m.supply_type === 'ELECTRICITY' && str(m.identifier))
          .map((m) => ({
            mpan: String(m.identifier),
            profile_class: typeof m.profile_class === 'number' ? m.profile_class : null,
            consumption_standard: null,
            meters: list(m.meters).map((meter) => ({
              serial_number: String(meter.meter_serial_number ?? ''),
              registers: list(meter.registers).map((r) => ({
                identifier: String(r.register_id ?? ''),
                rate: 'STANDARD',
                is_settlement_register: r.is_settlement !== false,
              })),
            })),
            agreements: agreements(m),
            is_export: m.export_type === 'EXPORT_ONLY',
          })),
        gas_meter_points: points
          .filter((m) => m.supply_type === 'GAS' && str(m.identifier))
          .map((m) => ({
            mprn: String(m.identifier),
            consumption_standard: null,
            meters: list(m.meters).map((meter) => ({ serial_number: String(meter.meter_serial_number ?? '') })),
            agreements: agreements(m),
          })),
      };
    }),
  };
  if (opts.extras) {
    record.customers = list(p.customers).map((c) => compact({ given_name: str(c.given_name), family_name: str(c.family_name) }));
    const balance = str(p.transfer_balance);
    if (balance !== undefined) record.balance = balance;
  }
  return record;
}

/** Deterministic per account, so a second read (a re-check) sees the same alteration. */
export function isAltered(number: string, rate: number): boolean {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  const h = createHash('sha256').update(`alter:${number}`).digest().readUInt32BE(0);
  return h / 0x1_0000_0000 < rate;
}

/** The parent of the value at a dot path (numeric parts are indexes), or undefined when the path does not exist. */
function parentOf(root: unknown, parts: string[]): Obj | undefined {
  let node: unknown = root;
  for (const part of parts.slice(0, -1)) {
    if (!isObj(node) && !Array.isArray(node)) return undefined;
    node = (node as Obj)[part];
  }
  return isObj(node) || Array.isArray(node) ? (node as Obj) : undefined;
}

/**
 * The "altered field" fault: the value at `path` (dot path, numeric parts are indexes) is changed
 * (strings get a suffix, numbers/booleans flip) or, when absent, appears. A path whose parent the
 * record does not have changes nothing. Returns a new record.
 */
export function alterField(record: AccountRecord, path: string): AccountRecord {
  const copy = structuredClone(record) as unknown as Obj;
  const parts = path.split('.');
  const target = parentOf(copy, parts);
  if (!target) return copy as unknown as AccountRecord;
  const leaf = parts[parts.length - 1];
  const old = target[leaf];
  target[leaf] = typeof old === 'string' ? `${old}-ALTERED` : typeof old === 'number' ? old + 1 : typeof old === 'boolean' ? !old : 'ALTERED';
  return copy as unknown as AccountRecord;
}

/** The "omitted section" fault: the record without the member at each dot path (a tenant whose record lacks it). */
export function omitFields(record: AccountRecord, paths: string[]): AccountRecord {
  if (!paths.length) return record;
  const copy = structuredClone(record) as unknown as Obj;
  for (const path of paths) {
    const parts = path.split('.');
    // `*` stands for every index: `properties.*.gas_meter_points` leaves it out of every property.
    const expand = (node: unknown, rest: string[]) => {
      if (rest.length === 1) {
        if (isObj(node)) delete node[rest[0]];
        return;
      }
      if (rest[0] === '*' && Array.isArray(node)) for (const item of node) expand(item, rest.slice(1));
      else if (isObj(node) || Array.isArray(node)) expand((node as Obj)[rest[0]], rest.slice(1));
    };
    expand(copy, parts);
  }
  return copy as unknown as AccountRecord;
}
