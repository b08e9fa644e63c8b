// A raw request to an in-process sandbox for the API server tests: JSON in (a string body is sent
// as is), the parsed body out when it is JSON (watch streams and plain text stay text).
export interface RawResponse {
  status: number;
  body: any;
  headers: Headers;
  text: string;
}

export type RawCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<RawResponse>;

/** `call(method, path, body?, headers?)` against the server whose base URL `url()` gives (read per call: set in `before`). */
export function rawApi(url: () => string): RawCall {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(url() + path, {
      method,
      headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* a stream or plain text */
    }
    return { status: res.status, body: parsed, headers: res.headers, text };
  };
}
