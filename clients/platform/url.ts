/**
 * URL joining for base URLs that may or may not end in `/` and may carry a path prefix
 * (`https://api.example-tenant.energy/v1/`, `http://127.0.0.1:8800/v1`). WHATWG resolution drops
 * the last base segment unless the base ends in `/`, and a leading `/` in the relative part
 * would drop the whole base path: both are normalised here.
 */
export function joinUrl(base: string, relative: string, query?: Record<string, string | number | boolean | undefined>): URL {
  const dir = base.endsWith('/') ? base : `${base}/`;
  const url = new URL(relative.replace(/^\/+/, ''), dir);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

/** One path segment; codes and identifiers may hold characters that are not URL-safe. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/** What errors and logs may show of a URL: its path only (no host credentials, no query). */
export function pathOf(url: URL | string): string {
  try {
    return (typeof url === 'string' ? new URL(url) : url).pathname;
  } catch {
    return '(invalid url)';
  }
}
