/**
 * Runs `fn` over `items` with at most `parallel` calls at once (the history readers fetch one
 * workflow history each: Temporal and this machine set how many at once is sensible).
 */
export async function eachInParallel<T>(items: readonly T[], parallel: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, parallel), Math.max(1, items.length)) }, lane));
}
