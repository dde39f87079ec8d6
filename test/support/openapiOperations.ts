// Reading operations out of the served OpenAPI document, for the suites that check every route.

export type HeaderObject = { required?: boolean; description?: string; schema: { type?: string } };

export type Operation = {
  operationId: string;
  summary?: string;
  security?: Record<string, string[]>[];
  requestBody?: unknown;
  parameters?: (HeaderObject & { name: string; in: string })[];
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, HeaderObject> }>;
  'x-required-scope'?: string;
  'x-required-role'?: 'ADMIN' | 'MEMBER';
};

export type OpenApiDocument = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, Record<string, string>>;
    schemas: Record<string, unknown>;
  };
};

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

export function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

/** An id of the right shape for a path parameter (`contactId` → `ct_…`), which no row has. */
export function fakeId(parameter: string): string {
  const prefixes: Record<string, string> = {
    user: 'usr',
    contact: 'ct',
    event: 'evt',
    segment: 'seg',
    rule: 'scr',
    campaign: 'cmp',
    enrollment: 'enr',
    webhook: 'whe',
    endpoint: 'whe',
    delivery: 'dlv',
    key: 'key',
    message: 'msg',
  };
  const kind = parameter.replace(/Id$/, '').toLowerCase();
  return `${prefixes[kind] ?? 'x'}_01JD2Z3K4M5N6P7Q8R9S0T1V2W`;
}

/** The path with {workspaceId} set and every other parameter filled with a fake id. */
export function fillPath(path: string, workspaceId: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === 'workspaceId' ? workspaceId : fakeId(name),
  );
}
