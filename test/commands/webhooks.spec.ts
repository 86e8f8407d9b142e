import { describe, expect, it } from 'vitest';
import { decide as createWebhook, createWebhookSchema, type CreateWebhook } from '../../commands/webhooks/createWebhook.js';
import { decide as deleteWebhook } from '../../commands/webhooks/deleteWebhook.js';
import { decide as disableWebhook } from '../../commands/webhooks/disableWebhook.js';
import { decide as enableWebhook } from '../../commands/webhooks/enableWebhook.js';
import { decide as rotateWebhookSecret } from '../../commands/webhooks/rotateWebhookSecret.js';
import { decide as updateWebhook, updateWebhookSchema } from '../../commands/webhooks/updateWebhook.js';
import type { Aggregate } from '../../src/domain/decider.js';
import { MAX_WEBHOOKS_PER_CLIENT, webhookAggregate, webhookStream, type Webhook, type WebhookEvent } from '../../src/webhooks/webhook.js';
import type { WebhookFacts } from '../../src/webhooks/webhookReferences.js';
import { createWebhookSecretBox, generateWebhookSecret } from '../../src/webhooks/webhookSecrets.js';
import { issuesToFields } from '../../src/http/validation.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const WEBHOOK_ID = 'wh_0123456789abcdef01234567';
const at = defaultMeta.now;
const box = createWebhookSecretBox(Buffer.alloc(32, 1));
const SEALED = box.seal(WEBHOOK_ID, generateWebhookSecret());
const SEALED_NEXT = box.seal(WEBHOOK_ID, generateWebhookSecret());

/** The webhook aggregate as deciderSpec takes one: its streams are named by public id, which the spec never asks. */
const aggregate: Aggregate<Webhook | null, WebhookEvent> = {
  ...webhookAggregate,
  streamName: () => webhookStream(WEBHOOK_ID),
};

const facts = (webhookCount: number | null = null): WebhookFacts => ({ webhookCount });
const meta = { webhookId: WEBHOOK_ID, references: facts() };

const aCreate = (overrides: Partial<CreateWebhook> = {}): CreateWebhook => ({
  client_id: 4,
  name: 'CRM sync',
  url: 'https://hooks.example.com/catalogue',
  events: ['project.created', 'project.updated'],
  sealed_secret: SEALED,
  ...overrides,
});

const created: WebhookEvent = {
  type: 'WebhookCreated',
  data: {
    webhook_id: WEBHOOK_ID,
    client_id: 4,
    name: 'CRM sync',
    url: 'https://hooks.example.com/catalogue',
    events: ['project.created', 'project.updated'],
    sealed_secret: SEALED,
    at: '2024-04-01T00:00:00.000Z',
  },
};
const disabledBy = (reason: 'client' | 'admin' | 'gone' | 'failing'): WebhookEvent => ({
  type: 'WebhookDisabled',
  data: { webhook_id: WEBHOOK_ID, client_id: 4, reason, at: '2024-04-02T00:00:00.000Z' },
});
const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { webhook_id: WEBHOOK_ID, client_id: 4, at: '2024-04-03T00:00:00.000Z' } };

describe('createWebhook', () => {
  const spec = deciderSpec(aggregate, createWebhook, { ...meta, references: facts(3) });

  it('when a client with fewer webhooks than the cap creates one, then WebhookCreated carries its fields and the sealed secret only', () => {
    spec
      .given([])
      .when(aCreate())
      .then([{ ...created, data: { ...created.data, at } }]);
  });

  it(`when the client already has ${MAX_WEBHOOKS_PER_CLIENT} webhooks, then it is refused with WEBHOOK_LIMIT_REACHED naming the limit`, () => {
    const error = spec
      .given([])
      .when(aCreate(), { references: facts(MAX_WEBHOOKS_PER_CLIENT) })
      .thenThrows('WEBHOOK_LIMIT_REACHED');
    expect((error as { details?: unknown }).details).toEqual({ limit: MAX_WEBHOOKS_PER_CLIENT });
  });

  it('when the secret is passed in clear where its sealed form belongs, then the decider refuses to record it', () => {
    expect(() =>
      createWebhook(aCreate({ sealed_secret: generateWebhookSecret() }), null, { ...defaultMeta, ...meta, references: facts(0) }),
    ).toThrow(/sealed/);
  });

  it('when the webhook id is already taken, then it is refused with CONFLICT', () => {
    spec.given([created]).when(aCreate()).thenThrows('CONFLICT');
  });
});

describe('updateWebhook', () => {
  const spec = deciderSpec(aggregate, updateWebhook, meta);

  it('when name, url and events change, then one WebhookRevised carries only what differs', () => {
    spec
      .given([created])
      .when({ client_id: 4, name: 'CRM sync', url: 'https://hooks.example.com/v2', events: ['project.deleted'] })
      .then([
        {
          type: 'WebhookRevised',
          data: { webhook_id: WEBHOOK_ID, client_id: 4, changes: { url: 'https://hooks.example.com/v2', events: ['project.deleted'] }, at },
        },
      ]);
  });

  it('when what is sent is already there, then nothing is emitted', () => {
    spec
      .given([created])
      .when({ client_id: 4, name: 'CRM sync', events: ['project.created', 'project.updated'], status: 'active' })
      .then([]);
  });

  it('when the client disables it, then WebhookDisabled has the reason client; enabling it again emits WebhookEnabled by client', () => {
    spec
      .given([created])
      .when({ client_id: 4, status: 'disabled' })
      .then([{ type: 'WebhookDisabled', data: { webhook_id: WEBHOOK_ID, client_id: 4, reason: 'client', at } }]);
    for (const reason of ['client', 'gone', 'failing'] as const) {
      spec
        .given([created, disabledBy(reason)])
        .when({ client_id: 4, status: 'active' })
        .then([{ type: 'WebhookEnabled', data: { webhook_id: WEBHOOK_ID, client_id: 4, by: 'client', at } }]);
    }
  });

  it('when the client enables a webhook an administrator disabled, then it is refused with CONFLICT', () => {
    spec
      .given([created, disabledBy('admin')])
      .when({ client_id: 4, status: 'active' })
      .thenThrows('CONFLICT');
  });

  it("when another client's, a deleted or an unknown webhook is named, then the one NOT_FOUND", () => {
    spec.given([created]).when({ client_id: 5, name: 'Mine now' }).thenThrows('NOT_FOUND');
    spec.given([created, deleted]).when({ client_id: 4, name: 'Back' }).thenThrows('NOT_FOUND');
    spec.given([]).when({ client_id: 4, name: 'Nothing' }).thenThrows('NOT_FOUND');
  });
});

describe('deleteWebhook', () => {
  const spec = deciderSpec(aggregate, deleteWebhook, meta);

  it('when its client deletes it, then WebhookDeleted; a second delete is NOT_FOUND', () => {
    spec
      .given([created])
      .when({ client_id: 4 })
      .then([{ type: 'WebhookDeleted', data: { webhook_id: WEBHOOK_ID, client_id: 4, at } }]);
    spec.given([created, deleted]).when({ client_id: 4 }).thenThrows('NOT_FOUND');
    spec.given([created]).when({ client_id: 5 }).thenThrows('NOT_FOUND');
  });
});

describe('rotateWebhookSecret', () => {
  const spec = deciderSpec(aggregate, rotateWebhookSecret, meta);

  it('when the secret is rotated, then the previous one retires after the overlap, and the state holds both, the new one first', () => {
    const rotated: WebhookEvent = {
      type: 'WebhookSecretRotated',
      data: { webhook_id: WEBHOOK_ID, client_id: 4, sealed_secret: SEALED_NEXT, previous_retire_at: '2024-05-02T10:00:00.000Z', at },
    };
    spec.given([created]).when({ client_id: 4, sealed_secret: SEALED_NEXT, overlap_seconds: 86_400 }).then([rotated]);
    const state = [created, rotated].reduce(aggregate.evolve, aggregate.initialState());
    expect(state?.secrets).toEqual([
      { sealed: SEALED_NEXT, retire_at: null },
      { sealed: SEALED, retire_at: '2024-05-02T10:00:00.000Z' },
    ]);
  });

  it('when it is rotated again within the overlap, then the oldest secret is dropped: never more than two', () => {
    const third = box.seal(WEBHOOK_ID, generateWebhookSecret());
    const rotations: WebhookEvent[] = [SEALED_NEXT, third].map((sealed, index) => ({
      type: 'WebhookSecretRotated',
      data: { webhook_id: WEBHOOK_ID, client_id: 4, sealed_secret: sealed, previous_retire_at: `2024-05-0${index + 2}T10:00:00.000Z`, at },
    }));
    const state = [created, ...rotations].reduce(aggregate.evolve, aggregate.initialState());
    expect(state?.secrets).toEqual([
      { sealed: third, retire_at: null },
      { sealed: SEALED_NEXT, retire_at: '2024-05-03T10:00:00.000Z' },
    ]);
  });

  it("when another client's webhook or a secret in clear is given, then it is refused", () => {
    spec.given([created]).when({ client_id: 5, sealed_secret: SEALED_NEXT, overlap_seconds: 60 }).thenThrows('NOT_FOUND');
    expect(() =>
      rotateWebhookSecret({ client_id: 4, sealed_secret: generateWebhookSecret(), overlap_seconds: 60 }, null, { ...defaultMeta, ...meta }),
    ).toThrow(/sealed/);
  });
});

describe('disableWebhook and enableWebhook (administrators, the delivery worker)', () => {
  const disable = deciderSpec(aggregate, disableWebhook, meta);
  const enable = deciderSpec(aggregate, enableWebhook, meta);

  it('when an active webhook is disabled for any reason, then WebhookDisabled records it', () => {
    for (const reason of ['admin', 'gone', 'failing'] as const) {
      disable
        .given([created])
        .when({ reason })
        .then([{ type: 'WebhookDisabled', data: { webhook_id: WEBHOOK_ID, client_id: 4, reason, at } }]);
    }
  });

  it('when a disabled webhook is disabled again, then nothing changes, except that an administrator takes over another reason', () => {
    disable
      .given([created, disabledBy('gone')])
      .when({ reason: 'failing' })
      .then([]);
    disable
      .given([created, disabledBy('admin')])
      .when({ reason: 'admin' })
      .then([]);
    disable
      .given([created, disabledBy('client')])
      .when({ reason: 'admin' })
      .then([{ type: 'WebhookDisabled', data: { webhook_id: WEBHOOK_ID, client_id: 4, reason: 'admin', at } }]);
  });

  it('when an administrator enables a disabled webhook, whatever disabled it, then WebhookEnabled by admin; an active one stays as it is', () => {
    for (const reason of ['client', 'admin', 'gone', 'failing'] as const) {
      enable
        .given([created, disabledBy(reason)])
        .when({})
        .then([{ type: 'WebhookEnabled', data: { webhook_id: WEBHOOK_ID, client_id: 4, by: 'admin', at } }]);
    }
    enable.given([created]).when({}).then([]);
  });

  it('when the webhook is deleted or unknown, then NOT_FOUND', () => {
    disable.given([created, deleted]).when({ reason: 'gone' }).thenThrows('NOT_FOUND');
    enable.given([]).when({}).thenThrows('NOT_FOUND');
  });
});

describe('webhook command schemas', () => {
  const fieldsOf = (result: { success: boolean; error?: { issues: Parameters<typeof issuesToFields>[1] } }) =>
    result.success ? {} : issuesToFields('body', result.error!.issues);

  it('when the body has an unknown field, an empty or multi-line name, an unknown, repeated or no event type, then each field is named', () => {
    expect(
      fieldsOf(
        createWebhookSchema.safeParse({ name: ' ', url: 'https://a.example', events: ['project.moved', 'project.created'], extra: 1 }),
      ),
    ).toEqual({
      'body.name': expect.any(String),
      'body.events.0': expect.any(String),
      'body.extra': 'is not a known field',
    });
    expect(fieldsOf(createWebhookSchema.safeParse({ name: 'a\nb', url: 'x'.repeat(2049), events: [] }))).toEqual({
      'body.name': expect.stringMatching(/one line/),
      'body.url': expect.any(String),
      'body.events': 'must name at least one event type',
    });
    expect(fieldsOf(updateWebhookSchema.safeParse({ events: ['project.created', 'project.created'], status: 'paused' }))).toEqual({
      'body.events': 'must not name an event type twice',
      'body.status': expect.any(String),
    });
    expect(createWebhookSchema.safeParse({ name: 'x'.repeat(100), url: 'https://a.example', events: ['community.updated'] }).success).toBe(
      true,
    );
    expect(createWebhookSchema.safeParse({ name: 'x'.repeat(101), url: 'https://a.example', events: ['community.updated'] }).success).toBe(
      false,
    );
  });
});

describe('webhook secret box', () => {
  it('when a secret is sealed, then it opens for its webhook only, under its key only, and the sealed text never holds the secret', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const sealed = box.seal(WEBHOOK_ID, secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(WEBHOOK_ID, sealed)).toBe(secret);
    expect(box.seal(WEBHOOK_ID, secret)).not.toBe(sealed);
    expect(() => box.open('wh_ffffffffffffffffffffffff', sealed)).toThrow();
    expect(() => createWebhookSecretBox(Buffer.alloc(32, 2)).open(WEBHOOK_ID, sealed)).toThrow();
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(() => box.open(WEBHOOK_ID, tampered)).toThrow();
  });
});
