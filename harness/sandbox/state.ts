import type { EventTargets, Faults } from './options';

/** What operators change at run time through /admin; shared by routes, processor and delivery. */
export interface RuntimeState {
  faults: Faults;
  targets: EventTargets;
}

export type TargetName = 'webhook' | 'sqs';

export function configuredTargets(t: EventTargets): TargetName[] {
  const out: TargetName[] = [];
  if (t.webhookUrl) out.push('webhook');
  if (t.sqsQueueUrl) out.push('sqs');
  return out;
}
