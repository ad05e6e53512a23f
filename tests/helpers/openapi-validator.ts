/**
 * A small validator for the subset of OpenAPI 3.0 / JSON Schema that
 * lib/api/openapi.ts uses: $ref, type, nullable, properties, required,
 * additionalProperties, items, minItems, enum, pattern, format (date-time,
 * uri), minimum, maximum, oneOf (exactly one) and anyOf (at least one). Anything else in a schema
 * is an error, so the document cannot silently use a keyword nobody checks.
 */

type Schema = Record<string, unknown>;
type Document = {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
};

const KNOWN = new Set([
  '$ref',
  'type',
  'nullable',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'enum',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'oneOf',
  'anyOf',
  'description',
  'default',
  'example',
]);

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function resolve(doc: Document, schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; typeof current.$ref === 'string'; depth++) {
    if (depth > 20) throw new Error('$ref loop');
    const parts = current.$ref.replace(/^#\//, '').split('/');
    let target: unknown = doc;
    for (const part of parts) target = (target as Record<string, unknown>)?.[part];
    if (!target || typeof target !== 'object')
      throw new Error(`unresolved ${String(current.$ref)}`);
    current = target as Schema;
  }
  return current;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function validate(doc: Document, schemaIn: Schema, value: unknown, at = '$'): string[] {
  const schema = resolve(doc, schemaIn);
  const errors: string[] = [];
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) errors.push(`${at}: schema uses unsupported keyword ${key}`);
  }
  if (Array.isArray(schema.oneOf)) {
    const matching = (schema.oneOf as Schema[]).filter(
      (option) => validate(doc, option, value, at).length === 0,
    );
    if (matching.length !== 1) {
      const details = (schema.oneOf as Schema[])
        .map((option) => validate(doc, option, value, at).slice(0, 3).join('; '))
        .join(' | ');
      errors.push(`${at}: matches ${matching.length} of oneOf (${details})`);
    }
    return errors;
  }
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf as Schema[];
    const results = options.map((option) => validate(doc, option, value, at));
    if (!results.some((result) => result.length === 0)) {
      const details = results.map((result) => result.slice(0, 3).join('; ')).join(' | ');
      errors.push(`${at}: matches none of anyOf (${details})`);
    }
    return errors;
  }
  if (value === null) {
    if (!schema.nullable) errors.push(`${at}: null not allowed`);
    return errors;
  }
  const actual = typeOf(value);
  const expected = schema.type as string | undefined;
  if (expected) {
    const ok = expected === actual || (expected === 'number' && actual === 'integer');
    if (!ok) return [...errors, `${at}: expected ${expected}, got ${actual}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  }
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) {
      errors.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
    }
    if (schema.format === 'date-time' && !DATE_TIME.test(value)) {
      errors.push(`${at}: ${JSON.stringify(value)} is not a date-time`);
    }
    if (schema.format === 'uri' && !URL.canParse(value)) {
      errors.push(`${at}: ${JSON.stringify(value)} is not a URI`);
    }
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      errors.push(`${at}: below minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      errors.push(`${at}: above maximum`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      errors.push(`${at}: fewer than ${schema.minItems} items`);
    }
    if (schema.items) {
      value.forEach((item, i) =>
        errors.push(...validate(doc, schema.items as Schema, item, `${at}[${i}]`)),
      );
    }
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[]) {
      if (!(name in object)) errors.push(`${at}: missing required ${name}`);
    }
    for (const [name, inner] of Object.entries(object)) {
      if (properties[name]) errors.push(...validate(doc, properties[name], inner, `${at}.${name}`));
      else if (schema.additionalProperties === false)
        errors.push(`${at}: unexpected property ${name}`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        errors.push(
          ...validate(doc, schema.additionalProperties as Schema, inner, `${at}.${name}`),
        );
      }
    }
  }
  return errors;
}

/** The documented operation for a concrete path (relative to the server URL), or null. */
export function findOperation(
  doc: Document,
  method: string,
  path: string,
): { template: string; operation: Record<string, unknown> } | null {
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(
      `^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`,
    );
    const operation = item[method.toLowerCase()];
    if (pattern.test(path) && operation)
      return { template, operation: operation as Record<string, unknown> };
  }
  return null;
}

export type DocumentedResponse = {
  schema: Schema;
  headers: string[];
};

/** The documented schema and header names for a status and content type of an operation. */
export function documentedResponse(
  doc: Document,
  operation: Record<string, unknown>,
  status: number,
  contentType: string,
): DocumentedResponse {
  const responses = operation.responses as Record<string, Schema>;
  const entry = responses[String(status)];
  if (!entry) throw new Error(`status ${status} is not documented`);
  const response = resolve(doc, entry);
  const content = response.content as Record<string, { schema: Schema }> | undefined;
  const media = content?.[contentType];
  if (!media) throw new Error(`content type ${contentType} is not documented for ${status}`);
  return { schema: media.schema, headers: Object.keys((response.headers ?? {}) as object) };
}
