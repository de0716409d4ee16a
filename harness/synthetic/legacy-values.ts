import { isValidPhoneNumber } from 'libphonenumber-js/max';
import { mpanCheckDigit } from '../../source/mpan';
import type { Rng } from './prng';

/**
 * The values a legacy CRM holds, as its agents typed them: calendar helpers (no clock is read),
 * name, address and note pools, and the messy spellings of phones, postcodes and dates that the
 * transform must clean (synthetic/generator.ts builds accounts from them).
 */

// ---------------------------------------------------------------------------------------------
// Calendar helpers (UTC day numbers; no clock is read: the dataset lives before REFERENCE_DAY)

export const DAY = 86_400_000;
/** The generated history ends before this day, so nothing is "in the future" for validation. */
export const REFERENCE_DAY = '2025-06-01';
export const refDays = Date.parse(`${REFERENCE_DAY}T00:00:00Z`) / DAY;
export const iso = (days: number) => new Date(days * DAY).toISOString().slice(0, 10);
export const daysOf = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`) / DAY;
export const addMonths = (isoDate: string, months: number) => {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
};
export const firstOfMonth = (isoDate: string) => `${isoDate.slice(0, 8)}01`;

/** `YYYY-MM-DD` → legacy `DD/MM/YYYY`, sometimes with a padding slip (`3/7/2021`, trailing space). */
export function legacyDate(rng: Rng, isoDate: string): string {
  const [y, m, d] = isoDate.split('-');
  const r = rng.next();
  if (r < 0.08) return `${Number(d)}/${Number(m)}/${y}`;
  if (r < 0.12) return `${d}/${m}/${y} `;
  return `${d}/${m}/${y}`;
}

// ---------------------------------------------------------------------------------------------
// Value pools

export const GIVEN = [
  'Olivia',
  'Amelia',
  'Isla',
  'Ava',
  'Mia',
  'Grace',
  'Freya',
  'Sophie',
  'Oliver',
  'George',
  'Harry',
  'Noah',
  'Jack',
  'Leo',
  'Arthur',
  'Oscar',
  'Priya',
  'Mohammed',
  'Wojciech',
  'Siobhán',
  'Aoife',
  'Rhys',
  'Eilidh',
  'Chidi',
];
export const FAMILY = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Williams',
  'Wilson',
  'Johnson',
  'Davies',
  'Patel',
  'Wright',
  'Evans',
  'Thomas',
  'Roberts',
  'Khan',
  'Walker',
  'Hughes',
  "O'Neill",
  'Jabłoński',
  'MacLeod',
  'Okafor',
  'Nguyen',
  'Ellis-Barker',
];
export const TITLES = ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr', 'Mx', null];
export const STREETS = [
  'High Street',
  'Station Road',
  'Church Lane',
  'Victoria Road',
  'Green Lane',
  'Manor Road',
  'Park Avenue',
  'Mill Lane',
  'Kings Road',
  'Queens Drive',
  'The Crescent',
  'Orchard Close',
];
export const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.co.uk'];
/** Outward codes with their town and distribution region (first two MPAN digits). */
export const PLACES: Array<{ outward: string; town: string; county: string | null; distributor: string }> = [
  { outward: 'W1F', town: 'London', county: null, distributor: '12' },
  { outward: 'SW1A', town: 'London', county: null, distributor: '12' },
  { outward: 'E14', town: 'London', county: null, distributor: '12' },
  { outward: 'CB2', town: 'Cambridge', county: 'Cambridgeshire', distributor: '10' },
  { outward: 'NR1', town: 'Norwich', county: 'Norfolk', distributor: '10' },
  { outward: 'B33', town: 'Birmingham', county: 'West Midlands', distributor: '14' },
  { outward: 'NG1', town: 'Nottingham', county: 'Nottinghamshire', distributor: '11' },
  { outward: 'L1', town: 'Liverpool', county: 'Merseyside', distributor: '13' },
  { outward: 'M1', town: 'Manchester', county: 'Greater Manchester', distributor: '16' },
  { outward: 'NE1', town: 'Newcastle upon Tyne', county: 'Tyne and Wear', distributor: '15' },
  { outward: 'LS1', town: 'Leeds', county: 'West Yorkshire', distributor: '23' },
  { outward: 'BS1', town: 'Bristol', county: null, distributor: '22' },
  { outward: 'EX1', town: 'Exeter', county: 'Devon', distributor: '22' },
  { outward: 'CF10', town: 'Cardiff', county: null, distributor: '21' },
  { outward: 'BN1', town: 'Brighton', county: 'East Sussex', distributor: '19' },
  { outward: 'RG1', town: 'Reading', county: 'Berkshire', distributor: '20' },
  { outward: 'G2', town: 'Glasgow', county: null, distributor: '18' },
  { outward: 'EH1', town: 'Edinburgh', county: null, distributor: '18' },
  { outward: 'AB10', town: 'Aberdeen', county: null, distributor: '17' },
];
export const INWARD_LETTERS = 'ABDEFGHJLNPQRSTUWXYZ';
export const MOBILE_PREFIXES = ['071', '073', '074', '075', '077', '078', '079'];
export const LANDLINE_AREAS = ['020', '0161', '0113', '0117', '0121', '0131', '0141', '0114', '01223', '01392', '01603'];
export const NOTE_BODIES = [
  'Customer called about their direct debit amount.',
  'Meter reading provided by phone.',
  'Moving home enquiry - advised of process.',
  'Complaint about estimated bill; reading requested.  ',
  'PSR check completed, no changes.',
  'Customer asked for paper bills.\nFollow-up letter sent.',
];

// ---------------------------------------------------------------------------------------------
// Messy value generators

export function postcode(rng: Rng, outward: string): { clean: string; messy: string } {
  const inward = `${rng.int(0, 9)}${rng.pick([...INWARD_LETTERS])}${rng.pick([...INWARD_LETTERS])}`;
  const clean = `${outward} ${inward}`;
  const r = rng.next();
  const messy =
    r < 0.25
      ? clean.toLowerCase()
      : r < 0.45
        ? `${outward}${inward}`
        : r < 0.55
          ? `${outward}  ${inward} `
          : r < 0.65
            ? ` ${clean.toLowerCase().replace(' ', '')}`
            : clean;
  return { clean, messy };
}

export function nationalMobile(rng: Rng): string {
  for (;;) {
    const n = `${rng.pick(MOBILE_PREFIXES)}${rng.digits(8)}`;
    if (isValidPhoneNumber(n, 'GB')) return n;
  }
}

export function nationalLandline(rng: Rng): string {
  for (;;) {
    const area = rng.pick(LANDLINE_AREAS);
    const n = `${area}${area === '020' ? rng.pick(['7', '8']) : String(rng.int(2, 9))}${rng.digits(10 - area.length)}`;
    if (n.length === 11 && isValidPhoneNumber(n, 'GB')) return n;
  }
}

/** A valid national number written the ways legacy agents typed them. */
export function messyPhone(rng: Rng, national: string): string {
  const intl = national.slice(1);
  const mobile = national.startsWith('07');
  const spaced = national.startsWith('020')
    ? `${national.slice(0, 3)} ${national.slice(3, 7)} ${national.slice(7)}`
    : national.length === 11 && (mobile || /^01\d{3}/.test(national))
      ? `${national.slice(0, 5)} ${national.slice(5)}`
      : `${national.slice(0, 4)} ${national.slice(4, 7)} ${national.slice(7)}`;
  switch (rng.int(0, 6)) {
    case 0:
      return spaced;
    case 1:
      return `+44 ${spaced.slice(1)}`;
    case 2:
      return `0044${intl}`;
    case 3:
      return national.startsWith('020')
        ? `(020) ${national.slice(3, 7)} ${national.slice(7)}`
        : `(${spaced.split(' ')[0]}) ${spaced.split(' ').slice(1).join(' ')}`;
    case 4:
      return `${national} `;
    case 5:
      return `+44 (0)${spaced.slice(1)}`;
    default:
      return national.replace(/(\d{5})(\d{3})(\d{3})/, '$1-$2-$3');
  }
}

export function invalidPhone(rng: Rng): string {
  for (;;) {
    const n = `07${rng.digits(rng.pick([6, 7, 10]))}`;
    if (!isValidPhoneNumber(n, 'GB')) return `${n.slice(0, 5)} ${n.slice(5)}`;
  }
}

export function impossibleDate(rng: Rng, year: number): string {
  const [d, m] = rng.pick([
    [31, 2],
    [30, 2],
    [31, 4],
    [31, 6],
    [31, 9],
    [31, 11],
  ] as const);
  return `${d}/${String(m).padStart(2, '0')}/${year}`;
}

/** Name → e-mail local part: accents folded, letters only. */
export function ascii(name: string): string {
  return name
    .normalize('NFD')
    .toLowerCase()
    .replace(/ł/g, 'l')
    .replace(/[^a-z]/g, '');
}

export function messyName(rng: Rng, name: string): string {
  const r = rng.next();
  return r < 0.1 ? name.toUpperCase() : r < 0.2 ? `${name} ` : r < 0.25 ? ` ${name}` : name;
}

export function mpan(rng: Rng, distributor: string): string {
  const body = `${distributor}${rng.int(1, 9)}${rng.digits(9)}`;
  return `${body}${mpanCheckDigit(body)}`;
}

export function mprn(rng: Rng): string {
  return `${rng.int(1, 9)}${rng.digits(rng.pick([7, 9]))}`;
}

/** `DD/MM/YYYY` (possibly unpadded) → sortable `YYYY-MM-DD`. */
export function sortKey(legacy: string | null): string {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec((legacy ?? '').trim());
  return m ? `${m[3]}-${m[2].padStart(2, '0')}-${m[1].padStart(2, '0')}` : '';
}
