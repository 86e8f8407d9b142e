// Reading an OpenAPI document for the rules both of ours follow (src/http/openApiCommon.ts): open responses,
// integers bounded and formatted, every object a named component.

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface DocumentedOperation {
  path: string;
  method: string;
  operation: any;
}

/** Every operation of the document's paths. */
export function operationsOf(document: any): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** Follows a local `$ref` (`#/components/...`), and the one it lands on, inside the document. */
export function resolveIn(document: any, node: any): any {
  if (typeof node?.$ref !== 'string') return node;
  const target = node.$ref
    .slice(2)
    .split('/')
    .reduce((current: any, segment: string) => current[segment.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  return resolveIn(document, target);
}

/** The schemas, followed through `$ref`, that describe some response's body and say `additionalProperties: false`. */
export function closedResponseSchemas(document: any): unknown[] {
  const reachable = new Set<any>();
  const collect = (node: any): void => {
    if (typeof node !== 'object' || node === null || reachable.has(node)) return;
    reachable.add(node);
    if (typeof node.$ref === 'string') collect(resolveIn(document, node));
    for (const value of Object.values(node)) collect(value);
  };
  for (const { operation } of operationsOf(document)) {
    for (const response of Object.values(operation.responses)) collect(resolveIn(document, response).content);
  }
  return [...reachable].filter((schema) => schema.additionalProperties === false);
}

/** The operations with a JSON request body whose schema (each of its alternatives) does not refuse unknown fields. */
export function openRequestBodies(document: any): string[] {
  const strict = (node: any): boolean => {
    const schema = resolveIn(document, node);
    const alternatives = schema.anyOf ?? schema.oneOf;
    return Array.isArray(alternatives) ? alternatives.every(strict) : schema.additionalProperties === false;
  };
  return operationsOf(document)
    .filter(({ operation }) => operation.requestBody?.content?.['application/json'])
    .filter(({ operation }) => !strict(operation.requestBody.content['application/json'].schema))
    .map(({ operation }) => operation.operationId);
}

/** Every integer schema, with the property it describes (the items of `x_ids` are `x_id`s). */
export function integersOf(document: any): Array<{ name: string; schema: any }> {
  const integers: Array<{ name: string; schema: any }> = [];
  const walk = (node: any, name: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, name));
    if (typeof node !== 'object' || node === null) return;
    if (node.type === 'integer') integers.push({ name, schema: node });
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties') for (const [property, schema] of Object.entries(value as object)) walk(schema, property);
      else walk(value, key === 'anyOf' || key === 'oneOf' ? name : key === 'items' && name.endsWith('_ids') ? name.slice(0, -1) : '');
    }
  };
  walk(document, '');
  return integers;
}

/** Where an object schema with properties is written inline rather than being a component of its own. */
export function inlineObjects(document: any): string[] {
  const inline: string[] = [];
  const walk = (node: any, where: string, named: boolean): void => {
    if (typeof node !== 'object' || node === null) return;
    if (!named && node.type === 'object' && Object.keys(node.properties ?? {}).length > 0) inline.push(where);
    // A component `X | null` names the object in it.
    for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`, named && (key === 'anyOf' || /^\d+$/.test(key)));
  };
  for (const [name, schema] of Object.entries(document.components.schemas)) walk(schema, name, true);
  walk(document.paths, 'paths', false);
  return inline;
}
