import { z } from 'zod';
import { WEBHOOKS, type WebhookDoc } from '../../../projections/webhooks.js';
import { staleRevision } from '../../domain/commandHandler.js';
import { ApiError, NotFound } from '../../domain/errors.js';
import type { JobQueue } from '../../jobQueue/jobQueue.js';
import { DELIVERY_ID_PATTERN } from '../../webhooks/webhookDeliveries.js';
import type { AdminRoute } from '../adminRoute.js';
import { webhookIdSchema } from '../webhookApi.js';

const deliveryParams = z
  .object({
    webhookId: webhookIdSchema,
    deliveryId: z
      .string()
      .regex(DELIVERY_ID_PATTERN, 'must be a delivery id: the event id and the webhook id joined by a dot')
      .meta({ description: 'The `delivery_id` of GET /v1/webhooks/{id}/deliveries.' }),
  })
  .strict();

const retriedSchema = z.object({ delivery_id: z.string(), status: z.literal('queued') }).meta({
  id: 'WebhookDeliveryRetried',
  description: 'The failed delivery is queued again: its next attempt runs now, with the same event id and body.',
});

/**
 * The spec's manual retry: a failed delivery (its last attempt failed, a 410, or its webhook disabled for
 * failing) back to the queue with the same event id and body. Its attempt then counts on from the log, so
 * one more failure fails it again. The queue keeps failed jobs as long as completed ones (JOB_* retention).
 */
export function webhookDeliveryAdminRoutes(queue: JobQueue): AdminRoute[] {
  const retryDeliveryRoute: AdminRoute<typeof deliveryParams> = {
    method: 'post',
    path: '/webhooks/:webhookId/deliveries/:deliveryId/retry',
    operationId: 'retryWebhookDelivery',
    summary:
      "Retry a failed delivery now, with the same event id (409 unless it failed; the webhook must be active; If-Match names the webhook's revision)",
    tag: 'Webhooks',
    params: deliveryParams,
    successStatus: 200,
    response: retriedSchema,
    async handle({ params, expectedRevision }, deps) {
      const { webhookId, deliveryId } = params;
      const webhook = await deps.readStore.get<WebhookDoc>(WEBHOOKS, webhookId);
      if (!webhook || webhook.deleted || !deliveryId.endsWith(`.${webhookId}`)) throw new NotFound();
      // If-Match names the webhook's revision: the retry is asked for the webhook as the caller read it.
      if (expectedRevision !== undefined && expectedRevision !== webhook.revision) throw staleRevision(expectedRevision, webhook.revision);
      if (webhook.status !== 'active') {
        throw new ApiError(409, 'CONFLICT', 'The webhook is disabled: enable it before retrying its deliveries.');
      }
      if (!(await queue.retry(deliveryId))) {
        throw new ApiError(409, 'CONFLICT', 'The delivery has not failed (it succeeded, is still being retried, or is no longer kept).');
      }
      return { data: { delivery_id: deliveryId, status: 'queued' } };
    },
  };
  return [retryDeliveryRoute];
}
