// A small HTTP client for tests: JSON in and out, a cookie jar for sessions, and API keys.
import { server } from './server.ts';

export type TestResponse = {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
  text: string;
};

export type RequestOptions = {
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
  key?: string;
};

/** A fetch response as tests read it: status, headers, the text, and the JSON it holds if any. */
export async function readResponse(response: Response): Promise<TestResponse> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: response.status, headers: response.headers, body, text };
}

export class Client {
  private cookies = new Map<string, string>();
  readonly apiKey?: string;

  constructor(apiKey?: string) {
    this.apiKey = apiKey;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader;
    const key = options.key ?? this.apiKey;
    if (key && !headers.authorization) headers.authorization = `Bearer ${key}`;
    let body: string | Buffer | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(server().baseUrl + path, {
      method,
      headers,
      body: body as BodyInit | undefined,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...rest] = pair.split('=');
      const value = rest.join('=');
      if (/expires=Thu, 01 Jan 1970/i.test(cookie) || value === '') this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    return readResponse(response);
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request('POST', path, { ...options, json });
  }
  patch(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request('PATCH', path, { ...options, json });
  }
  put(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request('PUT', path, { ...options, json });
  }
  delete(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request('DELETE', path, { ...options, json });
  }
}
