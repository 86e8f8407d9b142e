import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';

/**
 * docker-compose.yml, .env.example, the Dockerfile and .dockerignore, checked without a Docker engine (see
 * test/deploy/README.md): the compose file as Compose would read it (YAML merge keys resolved, `${...}`
 * interpolated from .env.example) against the Compose Specification's schema and this project's rules.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const readText = (path: string) => readFileSync(`${root}${path}`, 'utf8');

const composeText = readText('docker-compose.yml');
const envExample = parseEnv(readText('.env.example'));
const dockerfile = readText('Dockerfile');
const dockerignore = readText('.dockerignore');

/** What the operator must fill in: .env.example leaves them empty, so that `up` refuses to start without them. */
const SECRET_VARIABLES = ['ADMIN_TOKEN', 'LINK_SIGNING_SECRET', 'WEBHOOK_SECRET_KEY'];
const filledInSecrets = Object.fromEntries(SECRET_VARIABLES.map((name) => [name, randomBytes(32).toString('hex')]));

/** The first Compose that knows `configs.content` (inline config files, which the proxy's configuration uses). */
const MINIMUM_COMPOSE_VERSION = [2, 23, 1];

interface Interpolation {
  value: string;
  /** Every variable named, set or not. */
  referenced: Set<string>;
  /** Variables marked required (`:?`, `?`) whose value is missing. */
  missing: Set<string>;
}

/**
 * Compose's interpolation of one value: `$$` is a literal `$`; `$VAR`, `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?message}`, `${VAR?message}`, `${VAR:+other}` and `${VAR+other}`. With a colon, an
 * empty value counts as unset. Anything else after a `$` is an error, as it is for Compose.
 */
function interpolate(text: string, variables: Record<string, string | undefined>): Interpolation {
  const referenced = new Set<string>();
  const missing = new Set<string>();
  const pattern = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))|\$/g;
  const value = text.replace(
    pattern,
    (_match, dollar?: string, braced?: string, colon?: string, operator?: string, word?: string, bare?: string) => {
      if (dollar) return '$';
      const name = braced ?? bare;
      if (!name) throw new Error(`Invalid interpolation in ${JSON.stringify(text)}: a lone $ (write $$ for a dollar sign).`);
      referenced.add(name);
      const current = variables[name];
      const isSet = colon ? current !== undefined && current !== '' : current !== undefined;
      if (operator === '-') return isSet ? current! : word!;
      if (operator === '+') return isSet ? word! : '';
      if (operator === '?' && !isSet) missing.add(name);
      return current ?? '';
    },
  );
  return { value, referenced, missing };
}

/** The compose file as Compose reads it: merge keys resolved, every string value interpolated. */
function resolveCompose(variables: Record<string, string | undefined>) {
  const referenced = new Set<string>();
  const missing = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const result = interpolate(node, variables);
      result.referenced.forEach((name) => referenced.add(name));
      result.missing.forEach((name) => missing.add(name));
      return result.value;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
    return node;
  };
  const document = walk(parse(composeText, { merge: true })) as ComposeFile;
  return { document, referenced, missing };
}

interface ComposeService {
  image?: string;
  build?: { context: string; target?: string };
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  profiles?: string[];
  restart?: string;
  configs?: Array<{ source: string; target: string }>;
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  configs?: Record<string, { content?: string }>;
}

const withSecrets = { ...envExample, ...filledInSecrets };
const compose = resolveCompose(withSecrets).document;
const services = Object.entries(compose.services);
const OWN_IMAGE = 'property-catalogue-api:';
const catalogueServices = services.filter(([, service]) => service.image?.startsWith(OWN_IMAGE));
const withRole = (role: string) => services.filter(([, service]) => service.command?.join(' ') === `--role ${role}`).map(([name]) => name);

/** The variables of README's configuration table: the only ones the service reads (it ignores any other). */
function documentedVariables(): Set<string> {
  const readme = readText('README.md');
  const section = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration\n') + 1));
  return new Set([...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]!));
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
const dockerInstructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const stages = dockerInstructions.filter((line) => /^FROM /i.test(line)).map((line) => /\bAS\s+(\S+)$/i.exec(line)?.[1]);

/** The instructions of one stage, from its FROM to the next. */
function stageInstructions(stage: string): string[] {
  const start = dockerInstructions.findIndex((line) => new RegExp(`^FROM .* AS ${stage}$`, 'i').test(line));
  const next = dockerInstructions.findIndex((line, index) => index > start && /^FROM /i.test(line));
  return dockerInstructions.slice(start, next === -1 ? undefined : next);
}

describe('docker-compose.yml against the Compose Specification', () => {
  const require = createRequire(import.meta.url);
  const schema = JSON.parse(readText('test/deploy/compose-spec.schema.json')) as { $schema: string };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The schema names its meta-schema by https and without the fragment: the same draft-07 Ajv ships.
  ajv.addMetaSchema({ ...(require('ajv/dist/refs/json-schema-draft-07.json') as object), $id: schema.$schema });
  const validate = ajv.compile(schema);

  it('when the vendored schema is read, then it is a valid draft-07 schema', () => {
    expect(ajv.validateSchema(schema)).toBe(true);
  });

  it('when the compose file is resolved with .env.example and its secrets filled in, then the schema accepts it', () => {
    const valid = validate(compose);

    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('when a service carries a key the specification does not know, then the schema refuses it (the check is live)', () => {
    const broken = { ...compose, services: { ...compose.services, proxy: { ...compose.services.proxy, replicas: 2 } } };

    expect(validate(broken)).toBe(false);
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/services/proxy', keyword: 'additionalProperties' }));
  });
});

describe('docker-compose.yml and .env.example', () => {
  it('when .env.example is used as it is, then exactly the three secrets are reported missing, so `up` refuses to start', () => {
    const { missing } = resolveCompose(envExample);

    expect([...missing].sort()).toEqual([...SECRET_VARIABLES].sort());
    for (const name of SECRET_VARIABLES) expect(envExample[name]).toBe('');
  });

  it('when the compose file names a variable, then .env.example defines it, and .env.example defines nothing the compose file does not use', () => {
    const { referenced } = resolveCompose(withSecrets);
    const defined = new Set(Object.keys(envExample));

    expect([...referenced].filter((name) => !defined.has(name))).toEqual([]);
    expect([...defined].filter((name) => !referenced.has(name))).toEqual([]);
  });

  it("when a catalogue service's environment is checked, then every variable in it is one the service reads (README's configuration table)", () => {
    const documented = documentedVariables();

    expect(catalogueServices.length).toBeGreaterThan(0);
    for (const [name, service] of catalogueServices) {
      const unknown = Object.keys(service.environment ?? {}).filter((variable) => !documented.has(variable));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
    }
  });

  it("when each catalogue service's environment is loaded by the service's own configuration check, then it passes in server mode", () => {
    for (const [name, service] of catalogueServices) {
      const config = loadConfig(service.environment);

      expect({ service: name, mode: config.mode }).toEqual({ service: name, mode: 'distributed' });
      expect(config.eventStoreUrl).toBe(envExample.EVENTSTORE_URL);
      expect(config.mongodbUrl).toBe(envExample.MONGODB_URL);
      expect(config.redisUrl).toBe(envExample.REDIS_URL);
      expect(config.adminToken).toBe(filledInSecrets.ADMIN_TOKEN);
      expect(config.publicBaseUrl).toBe(envExample.PUBLIC_BASE_URL);
    }
  });

  it('when an image is named, then it carries a version tag, never latest', () => {
    for (const [name, service] of services) {
      const image = service.image ?? '';
      const tag = /:([^/:]+)$/.exec(image)?.[1];
      expect({ service: name, image, pinned: tag !== undefined && tag !== 'latest' && /\d/.test(tag) }).toEqual({
        service: name,
        image,
        pinned: true,
      });
    }
  });

  it('when the roles are counted, then there are two api replicas, an active and a standby projector, a worker and a one-shot seed', () => {
    expect(withRole('api')).toEqual(['api-1', 'api-2']);
    expect(withRole('projector')).toEqual(['projector', 'projector-standby']);
    expect(withRole('worker')).toEqual(['worker']);
    expect(compose.services.worker!.build?.target).toBe('worker');

    const seed = compose.services.seed!;
    expect(seed.entrypoint).toEqual(['npm', 'run', 'seed', '--']);
    expect(seed.command).toEqual(['--projects', envExample.SEED_PROJECTS]);
    expect(seed.restart).toBe('no');
    expect(seed.profiles).toEqual(['seed']);
  });

  it('when the proxy is configured, then it routes to both api replicas on the port the image listens on, and waits for both to be healthy', () => {
    const proxy = compose.services.proxy!;
    const site = compose.configs?.[proxy.configs![0]!.source]?.content ?? '';
    const imagePort = /^ENV .*\bPORT=(\d+)/m.exec(dockerInstructions.join('\n'))?.[1];
    const upstream = /upstream (\S+) \{([^}]*)\}/.exec(site);

    expect(proxy.configs![0]!.target).toBe('/etc/nginx/conf.d/default.conf');
    expect(upstream).not.toBeNull();
    const servers = [...upstream![2]!.matchAll(/^\s*server (\S+)/gm)].map((match) => match[1]);
    expect(servers).toEqual(withRole('api').map((name) => `${name}:${imagePort}`));
    expect(site).toContain(`proxy_pass http://${upstream![1]};`);
    // Compose turns $$ into $: nginx's variables reach it intact.
    expect(site).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    expect(proxy.depends_on).toEqual(Object.fromEntries(withRole('api').map((name) => [name, { condition: 'service_healthy' }])));
  });

  it('when a catalogue process starts, then it waits for healthy stores, and each store has a healthcheck', () => {
    const stores = ['eventstore', 'mongodb', 'redis'];
    for (const store of stores) expect(compose.services[store]!.healthcheck?.test?.length).toBeGreaterThan(1);
    for (const [name, service] of catalogueServices) {
      const awaited = Object.entries(service.depends_on ?? {}).filter(([, dependency]) => dependency.condition === 'service_healthy');
      const needed = name === 'seed' ? ['eventstore', 'mongodb'] : stores;
      expect({ service: name, awaits: awaited.map(([store]) => store) }).toEqual({ service: name, awaits: needed });
    }
  });

  it("when a long-running catalogue process is checked, then it keeps the image's /livez check, served on METRICS_PORT in every role", () => {
    const imagePort = /^ENV .*\bPORT=(\d+)/m.exec(dockerInstructions.join('\n'))?.[1];
    const longRunning = catalogueServices.filter(([name]) => name !== 'seed');

    expect(longRunning.map(([name]) => name)).toEqual([...withRole('api'), ...withRole('projector'), ...withRole('worker')]);
    for (const [name, service] of longRunning) {
      const metricsPort = service.environment?.METRICS_PORT;
      expect({ service: name, healthcheck: service.healthcheck, metricsPortSet: /^\d+$/.test(metricsPort ?? '') }).toEqual({
        service: name,
        healthcheck: undefined,
        metricsPortSet: true,
      });
      expect(metricsPort).not.toBe(imagePort);
    }
    // The seed is a command line: it serves nothing to check.
    expect(compose.services.seed!.healthcheck).toEqual({ disable: true });
  });

  it('when MongoDB starts, then it runs as the replica set MONGODB_URL names, initiated with the member name the services resolve', () => {
    const mongodb = compose.services.mongodb!;
    const replicaSet = new URL(envExample.MONGODB_URL!).searchParams.get('replicaSet');

    expect(mongodb.command).toEqual(['mongod', '--replSet', replicaSet, '--bind_ip_all']);
    expect(mongodb.healthcheck?.test?.join(' ')).toContain(
      `rs.initiate({ _id: '${replicaSet}', members: [{ _id: 0, host: 'mongodb:27017' }] })`,
    );
    expect(new URL(envExample.MONGODB_URL!).host).toBe('mongodb:27017');
  });
});

describe('Dockerfile', () => {
  it('when it is read, then it builds in stages: dependencies apart from the service and the worker with Chromium', () => {
    expect(stages).toEqual(['deps', 'service', 'worker']);
    for (const [, service] of catalogueServices) expect(stages).toContain(service.build?.target);
  });

  it('when the base image is named, then it is Node 20 with a full version', () => {
    const baseImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerInstructions.join('\n'))?.[1];

    expect(baseImage).toMatch(/^node:20\.\d+\.\d+-bookworm-slim$/);
    expect(
      dockerInstructions
        .filter((line) => /^FROM /i.test(line))
        .every((line) => line.startsWith('FROM ${NODE_IMAGE} ') || / service AS /.test(line)),
    ).toBe(true);
  });

  it('when dependencies are installed, then only the production ones are', () => {
    const installs = dockerInstructions.filter((line) => /\bnpm (ci|install)\b/.test(line));

    expect(installs).toEqual(['RUN npm ci --omit=dev --no-audit --no-fund']);
  });

  it('when an image runs, then its user is not root, it starts the service through tsx, and it checks /livez', () => {
    for (const stage of ['service', 'worker']) {
      const users = stageInstructions(stage).filter((line) => /^USER /i.test(line));
      expect({ stage, lastUser: users.at(-1) }).toEqual({ stage, lastUser: 'USER node' });
    }
    expect(dockerInstructions).toContain('ENTRYPOINT ["node", "--import", "tsx", "src/main.ts"]');
    expect(dockerInstructions.find((line) => line.startsWith('HEALTHCHECK '))).toMatch(
      /CMD \["node", "-e", ".*process\.env\.METRICS_PORT \|\| process\.env\.PORT.*'\/livez'.*"\]$/,
    );
  });

  it('when the worker image is built, then it has Chromium and CHROMIUM_PATH names it', () => {
    const worker = stageInstructions('worker');

    expect(worker.some((line) => /apt-get install .*\bchromium\b/.test(line))).toBe(true);
    expect(worker).toContain('ENV CHROMIUM_PATH=/usr/bin/chromium');
  });

  it('when the build context is sent, then .dockerignore leaves out everything but what the Dockerfile copies', () => {
    const rules = dockerignore.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
    const copied = dockerInstructions
      .filter((line) => /^COPY /i.test(line) && !/--from=/.test(line))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));

    expect(rules[0]).toBe('*');
    expect(copied.filter((path) => !rules.includes(`!${path}`) && !rules.includes(`!${path}/`))).toEqual([]);
  });
});

/** `docker compose` (the plugin) or `docker-compose`, with its version; null when neither runs. */
function findComposeCli(): { command: string[]; version: number[] } | null {
  for (const command of [['docker', 'compose'], ['docker-compose']]) {
    try {
      const printed = execFileSync(command[0]!, [...command.slice(1), 'version', '--short'], {
        encoding: 'utf8',
        timeout: 10_000,
        stdio: 'pipe',
      });
      const version = /(\d+)\.(\d+)\.(\d+)/.exec(printed);
      if (version) return { command, version: version.slice(1).map(Number) };
    } catch {
      // Not installed, or not this spelling.
    }
  }
  return null;
}

const atLeast = (version: number[], minimum: number[]) => {
  const differing = version.findIndex((part, index) => part !== minimum[index]);
  return differing === -1 || version[differing]! > minimum[differing]!;
};

const composeCli = findComposeCli();
const composeCliUsable = composeCli !== null && atLeast(composeCli.version, MINIMUM_COMPOSE_VERSION);
if (!composeCliUsable) {
  console.warn(
    composeCli === null
      ? 'docker compose config skipped: neither `docker compose` nor `docker-compose` runs on this machine (the schema checks above still ran).'
      : `docker compose config skipped: ${composeCli.command.join(' ')} ${composeCli.version.join('.')} is older than ${MINIMUM_COMPOSE_VERSION.join('.')}, the first that knows configs.content (the schema checks above still ran).`,
  );
}

describe.skipIf(!composeCliUsable)('docker compose config', () => {
  it('when Compose itself reads the file with .env.example and the secrets filled in, then it finds nothing wrong', () => {
    const [program, ...prefix] = composeCli!.command;

    expect(() =>
      execFileSync(program!, [...prefix, '--project-directory', root, '--env-file', `${root}.env.example`, 'config', '--quiet'], {
        cwd: root,
        env: { ...process.env, ...filledInSecrets },
        encoding: 'utf8',
        timeout: 60_000,
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });
});
