import { describe, expect, it } from 'vitest';
import { joinUrl, parseRetryAfter } from '../../../clients/platform';

describe('joinUrl', () => {
  it.each([
    ['https://api.example-tenant.energy/v1/', 'products/', 'https://api.example-tenant.energy/v1/products/'],
    ['https://api.example-tenant.energy/v1', 'products/', 'https://api.example-tenant.energy/v1/products/'],
    ['https://api.example-tenant.energy/v1/', '/products/', 'https://api.example-tenant.energy/v1/products/'],
    ['http://127.0.0.1:8800/v2/', 'data-import/accounts/validate/', 'http://127.0.0.1:8800/v2/data-import/accounts/validate/'],
    ['https://gw.example.com/tenant/v2', 'data-import/accounts/', 'https://gw.example.com/tenant/v2/data-import/accounts/'],
  ])('%s + %s', (base, rel, expected) => {
    expect(joinUrl(base, rel).href).toBe(expected);
  });

  it('adds defined query parameters only', () => {
    expect(joinUrl('https://x.test/v1/', 'products/', { brand: 'OCTOPUS', is_green: true, page_size: undefined }).href).toBe(
      'https://x.test/v1/products/?brand=OCTOPUS&is_green=true',
    );
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2030, 0, 1, 12, 0, 0);
  it('reads delta-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Tue, 01 Jan 2030 12:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 11:00:00 GMT', now)).toBe(0);
  });
  it('ignores absent or malformed values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});
