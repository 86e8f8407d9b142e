/**
 * The import rules of README's architecture map, checked by `npm run lint` (dependency-cruiser).
 * Layers, top to bottom: the composition root (src/main.ts, src/service.ts, src/cli/) wires everything;
 * delivery (src/http/, queries/, workers/, src/seed/) answers requests and runs jobs, handling files through
 * src/uploads/ and src/media/; the write side (commands/) and the read side (projections/ on
 * src/projectionEngine/) sit on the domain (src/domain/, src/catalogue/, src/access/, src/limits/, src/webhooks/, src/pdf/); ports and
 * adapters (src/eventStore/, src/readStore/, src/blobStore/, src/jobQueue/, src/cache/) and the foundation (src/vocabulary/,
 * config, logger, dataDir) are at the bottom.
 * Arrows point down only, adapters are chosen by the composition root alone, and there are no circles.
 */
const ours = '^(src|commands|queries|projections|workers)/';
const compositionRoot = '^src/(main|service)[.]ts$|^src/cli/';
const delivery = '^(src/http|queries|workers|src/seed)/';
const files = '^src/(uploads|media)/';
const readSide = '^(projections|src/projectionEngine)/';
const domain = '^(src/domain|src/catalogue|src/access|src/limits|src/webhooks|src/pdf)/';
const foundation = '^src/vocabulary/|^src/(config|logger|dataDir|typeScriptWorker)[.]ts$';
const stores = '^src/(eventStore|readStore|blobStore|jobQueue|cache)/';
// The blob garbage collector is no adapter: it works on the two ports (blobs, events), for src/cli/blobGc.ts.
const adapters =
  '^src/eventStore/(?!eventStore[.]ts$)|^src/readStore/(?!readStore[.]ts$)|^src/blobStore/(?!blobStore[.]ts$|garbageCollection[.]ts$)|^src/jobQueue/(?!jobQueue[.]ts$)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle makes two modules one: put what both need in a leaf (src/vocabulary/) or invert one arrow.',
      severity: 'error',
      from: { path: ours },
      to: { circular: true },
    },
    {
      name: 'foundation-is-a-leaf',
      comment: 'src/vocabulary/, config, logger and dataDir are imported by every layer, so they import none of ours but each other.',
      severity: 'error',
      from: { path: foundation },
      to: { path: ours, pathNot: foundation },
    },
    {
      name: 'nothing-imports-the-composition-root',
      comment: 'src/main.ts, src/service.ts and src/cli/ wire the service together; nothing below may reach back up to them.',
      severity: 'error',
      from: { path: ours, pathNot: compositionRoot },
      to: { path: compositionRoot },
    },
    {
      name: 'adapters-are-chosen-by-the-composition-root',
      comment:
        'Code depends on the ports (src/eventStore/eventStore.ts, src/readStore/readStore.ts, src/blobStore/blobStore.ts, src/jobQueue/jobQueue.ts); only the composition root and the adapters themselves name an adapter.',
      severity: 'error',
      from: { path: ours, pathNot: `${compositionRoot}|^src/eventStore/|^src/readStore/|^src/blobStore/|^src/jobQueue/` },
      to: { path: adapters },
    },
    {
      name: 'domain-knows-no-delivery-or-read-side',
      comment:
        'The domain (and commands/, which decide on it) never imports HTTP, queries, workers, uploads, image derivatives, read models or the projection engine.',
      severity: 'error',
      from: { path: `${domain}|^commands/` },
      to: { path: `${delivery}|${files}|${readSide}|^src/readStore/(?!readStore[.]ts$)` },
    },
    {
      name: 'domain-knows-no-commands',
      comment: 'commands/ is built on the domain, not the other way round.',
      severity: 'error',
      from: { path: domain },
      to: { path: '^commands/' },
    },
    {
      name: 'read-side-never-writes',
      comment: 'Read models and queries are built from events; they never import a command slice.',
      severity: 'error',
      from: { path: `${readSide}|^queries/` },
      to: { path: '^commands/' },
    },
    {
      name: 'read-models-know-no-delivery',
      comment: 'projections/ and the engine are served by queries/ and src/http/, and never import them (nor what handles files for them).',
      severity: 'error',
      from: { path: readSide },
      to: { path: `${delivery}|${files}` },
    },
    {
      name: 'files-are-handled-below-delivery',
      comment:
        'src/uploads/ (staging, sniffing, storing what editors send) and src/media/ (image widths) serve src/http/, queries/ and src/seed/ on the domain and the blob store port; they never import delivery, read models or command slices.',
      severity: 'error',
      from: { path: files },
      to: { path: `${delivery}|${readSide}|^commands/` },
    },
    {
      name: 'engine-knows-no-read-model',
      comment: 'src/projectionEngine/ runs any projection it is handed; the list of read models lives in projections/index.ts.',
      severity: 'error',
      from: { path: '^src/projectionEngine/' },
      to: { path: '^projections/' },
    },
    {
      name: 'http-shell-is-handed-the-queries',
      comment:
        'queries/ uses src/http/ helpers, so src/http/ takes the read routes from the composition root (PublicApi) instead of importing queries/.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^queries/' },
    },
    {
      name: 'workers-are-started-by-the-composition-root',
      comment: 'Workers run beside the HTTP server: only the composition root starts them, and no request path imports one.',
      severity: 'error',
      from: { path: ours, pathNot: `${compositionRoot}|^workers/` },
      to: { path: '^workers/' },
    },
    {
      name: 'the-receiver-verifier-stands-alone',
      comment:
        "src/webhooks/receiver/ is copied into receivers' own code: it imports Node's built-in modules only, nothing of ours and no package.",
      severity: 'error',
      from: { path: '^src/webhooks/receiver/' },
      to: { pathNot: '^src/webhooks/receiver/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'ports-and-adapters-know-no-domain-rules',
      comment:
        'Stores keep bytes and documents; they know no aggregate, command, read model, file handling or request path (src/domain/ helpers such as assertNever are fine).',
      severity: 'error',
      from: { path: stores },
      to: { path: `${delivery}|${files}|${readSide}|^commands/|^src/(catalogue|access|limits|webhooks|pdf)/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
