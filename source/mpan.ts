/**
 * MPAN core check digit, as published by the MRA (MRASCo): the first 12 digits are weighted by
 * the primes 3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43, summed, and the check digit is
 * (sum mod 11) mod 10.
 */
const PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

export function mpanCheckDigit(first12: string): number {
  if (!/^\d{12}$/.test(first12)) throw new Error(`MPAN core body must be 12 digits, got "${first12}"`);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (first12.charCodeAt(i) - 48) * PRIMES[i];
  return (sum % 11) % 10;
}

export function isValidMpanCore(value: string): boolean {
  return /^\d{13}$/.test(value) && mpanCheckDigit(value.slice(0, 12)) === value.charCodeAt(12) - 48;
}

/** Distribution network operator id (first two MPAN digits) → GSP group letter (tariff region). */
export const DISTRIBUTOR_REGIONS: Readonly<Record<string, string>> = {
  '10': 'A',
  '11': 'B',
  '12': 'C',
  '13': 'D',
  '14': 'E',
  '15': 'F',
  '16': 'G',
  '17': 'P',
  '18': 'N',
  '19': 'J',
  '20': 'H',
  '21': 'K',
  '22': 'L',
  '23': 'M',
};
