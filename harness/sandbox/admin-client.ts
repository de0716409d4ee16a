/**
 * A call to the sandbox's admin API (faults, suppliers, event targets, ground truth): for the
 * tools that drive the sandbox (chaos, bench, tests), never for the product, which only speaks
 * the platform's own API. Throws with the route and status when the sandbox refuses.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default of a caller-typed JSON answer
export async function sandboxAdmin<T = any>(sandboxUrl: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandboxUrl}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`sandbox ${method} ${route}: HTTP ${res.status}${text ? `: ${text.slice(0, 500)}` : ''}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
