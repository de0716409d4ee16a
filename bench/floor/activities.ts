/** The floor's one activity: does nothing, so what is measured is Temporal's own cost per account. */
export async function floorNoop(account: string): Promise<string> {
  return account;
}

export const floorActivities = { floorNoop };
export type FloorActivities = typeof floorActivities;
