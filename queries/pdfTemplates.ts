import { z } from 'zod';
import { ACCESS_CLIENTS, type AccessClientDoc } from '../projections/access.js';
import type { AccessContext } from '../src/access/accessContext.js';
import { AccessRefused } from '../src/access/accessRefusals.js';
import { PDF_TEMPLATE_DESCRIPTIONS, PDF_TEMPLATES } from '../src/pdf/pdfOptions.js';
import type { EffectivePdfSettings } from '../src/pdf/pdfSettings.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import type { QueryRoute } from './queryRoute.js';

export const pdfTemplateSchema = z
  .object({
    template: z.enum(PDF_TEMPLATES).meta({ description: 'The key to send as `template` (the name works too, in any case).' }),
    name: z.string(),
    description: z.string(),
    is_default: z.boolean().meta({ description: "The account's default: used when a request names no template." }),
  })
  .meta({ id: 'PdfTemplate', description: 'A brochure design the key may use.' });

/**
 * The caller's brochure settings from the access read model (its plan's, with the client's own default and
 * limits): the document lookupAccess read a moment ago, so it is there.
 */
export async function pdfSettingsOf(readStore: ReadStore, access: AccessContext): Promise<EffectivePdfSettings> {
  const client = await readStore.get<AccessClientDoc>(ACCESS_CLIENTS, access.clientId);
  if (!client) throw new Error(`Client ${access.clientId} has no access document.`);
  return client.pdf;
}

const noParams = z.object({}).strict();

const listPdfTemplates: QueryRoute<typeof noParams, typeof noParams> = {
  path: '/pdf-templates',
  operationId: 'listPdfTemplates',
  summary: 'List the brochure designs the key may use',
  description:
    "The authoritative list for the key: the designs its plan enables, in a fixed order, the account's default marked. " +
    'In Evaluation Mode the answer is 403 EVALUATION_PREVIEW_ONLY, as generated PDFs are refused there.',
  tag: 'Project PDF generation',
  scopes: ['project-pdf:generate'],
  entitlements: ['project_pdf'],
  params: noParams,
  query: noParams,
  response: z.array(pdfTemplateSchema),
  errors: ['evaluationPreviewOnly'],
  async handle({ access }, { readStore }) {
    if (access.evaluation) throw new AccessRefused('EVALUATION_PREVIEW_ONLY');
    const settings = await pdfSettingsOf(readStore, access);
    return {
      data: settings.templates.map((template) => ({
        template,
        ...PDF_TEMPLATE_DESCRIPTIONS[template],
        is_default: template === settings.default_template,
      })),
    };
  },
};

export const pdfTemplateQueryRoutes = [listPdfTemplates] as QueryRoute[];
