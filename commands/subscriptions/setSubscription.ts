import { z } from 'zod';
import { existingClient, type AccessFacts, type AccessLookup } from '../../src/access/accessReferences.js';
import { SUBSCRIPTION_STATUSES, type Subscription, type SubscriptionEvent } from '../../src/access/subscription.js';
import type { CommandMeta } from '../../src/domain/decider.js';

const instant = (description: string) =>
  z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value).toISOString())
    .meta({ description });

export const setSubscriptionSchema = z
  .object({
    status: z
      .enum(SUBSCRIPTION_STATUSES)
      .meta({ description: 'Only active grants access; draft, suspended and cancelled give 403 SUBSCRIPTION_INACTIVE.' }),
    period_start: instant('Before it: 403 SUBSCRIPTION_NOT_STARTED (details.starts_at).'),
    period_end: instant('From it on: 403 SUBSCRIPTION_EXPIRED (details.expired_at); null = open-ended.').nullable(),
    trial_ends_at: instant('A trial: from it on, unless paid, 403 TRIAL_ENDED; null = not a trial.').nullable(),
    payment_due_at: instant(
      'An invoice due: from grace_days after it, unless paid, 403 GRACE_PERIOD_ENDED; null = nothing due.',
    ).nullable(),
    grace_days: z.number().int().min(0).max(90).meta({ description: 'Days after payment_due_at that access continues unpaid.' }),
    paid: z.boolean().meta({ description: 'The current invoice (or the trial conversion) is paid.' }),
  })
  .strict()
  .superRefine((body, context) => {
    if (body.period_end !== null && body.period_end <= body.period_start) {
      context.addIssue({ code: 'custom', path: ['period_end'], message: 'must be after period_start' });
    }
  });

/** The body and the client whose subscription it is (its stream is the client's own). */
export type SetSubscription = z.infer<typeof setSubscriptionSchema> & { client_id: number };

export function references(command: SetSubscription): AccessLookup {
  return { clients: [command.client_id] };
}

/** The client must exist. The whole subscription is replaced (PUT semantics); sending what is stored records nothing. */
export function decide(
  command: SetSubscription,
  subscription: Subscription | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): SubscriptionEvent[] {
  existingClient(command.client_id, meta.references);
  const { client_id: _client, ...fields } = command;
  const next: Subscription = { client_id: meta.id, ...fields };
  if (subscription && JSON.stringify(subscription) === JSON.stringify(next)) return [];
  return [{ type: 'SubscriptionSet', data: { ...next, at: meta.now } }];
}
