import { z } from 'zod';
import * as removeCurrencyRate from '../../../commands/currencyRates/removeCurrencyRate.js';
import * as setCurrencyRate from '../../../commands/currencyRates/setCurrencyRate.js';
import { currentRates } from '../../../projections/currencyRates.js';
import { putWithSlice, type CommandSlice, type FactsReader } from '../../domain/commandSlice.js';
import { NotFound, ValidationFailed } from '../../domain/errors.js';
import {
  currencyRateAggregate,
  currencyRateId,
  RATED_CURRENCIES,
  type CurrencyRate,
  type CurrencyRateEvent,
  type RatedCurrency,
} from '../../pdf/currencyRate.js';
import { effectiveRates, type EffectiveRate } from '../../pdf/currencyRates.js';
import { PDF_CURRENCIES } from '../../pdf/pdfOptions.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { revisionSchema, timestampSchema } from './adminSchemas.js';

const TAG = 'Currency rates';

const currencyRateResponseSchema = z
  .object({
    code: z.enum(PDF_CURRENCIES),
    per_aed: z
      .number()
      .nullable()
      .meta({ description: 'How many units of the currency one AED buys; null = no rate, so a brochure asked in it is refused with 422.' }),
    source: z.enum(['base', 'peg', 'editor']).nullable().meta({
      description: 'base: AED itself (always 1); peg: the dollar peg of USD and SAR, used until an editor sets a rate; editor: set here.',
    }),
    revision: revisionSchema.nullable().meta({ description: 'The revision of its rate history (ETag, If-Match); null = never set.' }),
    updated_at: timestampSchema.nullable().meta({ description: 'When an editor last set or removed its rate; null = never.' }),
  })
  .meta({
    id: 'AdminCurrencyRate',
    description: "A brochure currency's rate against AED, which brochures convert prices with (a change makes new brochures).",
  });

type Representation = z.input<typeof currencyRateResponseSchema>;

const currencyParams = z
  .object({
    currencyCode: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code')
      .transform((code) => code.toUpperCase()),
  })
  .strict();

/** The currency a path names: one of the rated ones (404 otherwise); AED is the base and takes no rate. */
function ratedCurrency(code: string): RatedCurrency {
  if (code === 'AED') {
    throw new ValidationFailed({ 'params.currencyCode': 'AED is the base of every rate (always 1) and takes no rate of its own' });
  }
  const rated = RATED_CURRENCIES.find((candidate) => candidate === code);
  if (rated === undefined) throw new NotFound(`${code} is not a brochure currency; rates are kept for ${RATED_CURRENCIES.join(', ')}.`);
  return rated;
}

function representation(rate: EffectiveRate, stored: { revision: number; updated_at: string } | null): Representation {
  return { ...rate, revision: stored?.revision ?? null, updated_at: stored?.updated_at ?? null };
}

/** The rate slices judge nothing outside their own stream. */
const noFacts: FactsReader<undefined, undefined> = { read: async () => undefined, none: undefined };

type RateSlice<Command> = CommandSlice<Command, CurrencyRate | null, CurrencyRateEvent, undefined, undefined>;

/** A command on a currency's rate stream (started by its first rate), answered with the rate it leaves in force. */
function rateCommand<Body extends z.ZodType>(options: {
  method: 'put' | 'delete';
  operationId: string;
  summary: string;
  body?: Body;
  slice: RateSlice<z.infer<Body>>;
}): AdminRoute<typeof currencyParams, Body> {
  return {
    method: options.method,
    path: '/currency-rates/:currencyCode',
    operationId: options.operationId,
    summary: options.summary,
    tag: TAG,
    params: currencyParams,
    ...(options.body ? { body: options.body } : {}),
    successStatus: 200,
    response: currencyRateResponseSchema,
    async handle({ params, body, expectedRevision, actor }, deps): Promise<AdminRouteResult> {
      const code = ratedCurrency(params.currencyCode);
      const result = await putWithSlice(deps, noFacts, {
        aggregate: currencyRateAggregate,
        id: currencyRateId(code),
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
        actor,
        command: (body ?? {}) as z.infer<Body>,
        slice: options.slice,
      });
      const rate = result.state!;
      const inForce = effectiveRates(rate.per_aed === null ? {} : { [code]: rate.per_aed }).find((entry) => entry.code === code)!;
      return { data: representation(inForce, { revision: result.revision, updated_at: rate.updated_at }), revision: result.revision };
    },
  };
}

const listCurrencyRatesRoute: AdminRoute = {
  method: 'get',
  path: '/currency-rates',
  operationId: 'listCurrencyRates',
  summary:
    'List every brochure currency with the rate in force: AED (the base), the pegs of USD and SAR, the rates editors set (from the read model: a write shows once projected)',
  tag: TAG,
  params: z.object({}).strict(),
  successStatus: 200,
  response: z.array(currencyRateResponseSchema),
  async handle(_input, deps) {
    const { rates, docs } = await currentRates(deps.readStore);
    return { data: rates.map((rate) => representation(rate, docs.find((doc) => doc.code === rate.code) ?? null)) };
  },
};

/** Admin operations on the currency rates brochures print prices with (POST /v1/projects/{project}/pdf `currency`). */
export const currencyRateRoutes: AdminRoute[] = [
  listCurrencyRatesRoute,
  rateCommand({
    method: 'put',
    operationId: 'setCurrencyRate',
    summary: "Set a currency's rate against AED (USD and SAR: overrides the peg); brochures asked in it from then on convert with it",
    body: setCurrencyRate.setCurrencyRateSchema,
    slice: setCurrencyRate,
  }),
  rateCommand({
    method: 'delete',
    operationId: 'removeCurrencyRate',
    summary: "Remove an editor's rate: USD and SAR go back to their peg, another currency has no rate (its brochures get 422)",
    slice: removeCurrencyRate,
  }),
];
