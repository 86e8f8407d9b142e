import type { PublicApi } from '../src/http/app.js';
import { healthRouter, type HealthDeps } from './health.js';
import { queryRoutes } from './index.js';
import { accountTokenExists } from '../projections/access.js';
import { DOCUMENT_FILES_MOUNT, documentFilesRouter } from './documentFiles.js';
import { createMediaFilesRouter, MEDIA_FILES_MOUNT, type MediaFilesDeps } from './mediaFiles.js';
import { apiOpenApiYaml } from './openApi.js';
import { createQueryRouter, type QueryDeps } from './queryRoute.js';
import { Router } from 'express';
import { createProjectPdfRouter, type ProjectPdfDeps } from './projectPdf.js';

/** The read side of `/v1` as src/http/app.ts mounts it: the health check, the contract, every query route. */
export function createPublicApi(
  deps: HealthDeps &
    QueryDeps &
    Pick<MediaFilesDeps, 'blobs' | 'derivatives'> &
    Partial<Pick<MediaFilesDeps, 'accountTokenExists'>> & {
      /** POST /v1/projects/{project}/pdf beyond the stores, signer, clock and request limits. */
      pdf: Pick<ProjectPdfDeps, 'pdfLimits' | 'queue' | 'waitTimeoutMs' | 'currencyRates' | 'idempotency' | 'renderNotices'>;
    },
): PublicApi {
  const { readStore, linkSigner, clock, limits, publicBaseUrl, blobs, derivatives } = deps;
  return {
    health: healthRouter(deps),
    media: {
      path: MEDIA_FILES_MOUNT,
      router: createMediaFilesRouter({
        readStore,
        blobs,
        derivatives,
        accountTokenExists: deps.accountTokenExists ?? ((token) => accountTokenExists(readStore, token)),
      }),
    },
    documents: { path: DOCUMENT_FILES_MOUNT, router: documentFilesRouter({ blobs, linkSigner, clock }) },
    openApiYaml: () => apiOpenApiYaml(queryRoutes, { publicBaseUrl }),
    queries: Router()
      .use(
        createProjectPdfRouter({ ...deps.pdf, readStore, blobs, linkSigner, clock, limits, ...(publicBaseUrl ? { publicBaseUrl } : {}) }),
      )
      .use(createQueryRouter(queryRoutes, { readStore, linkSigner, clock, limits, ...(publicBaseUrl ? { publicBaseUrl } : {}) })),
  };
}
