// A scripted person at a browser, for the demo's OAuth scene and the tests: one cookie jar (cookies
// are per host, any port, as browsers keep them), no automatic redirects, forms posted as a browser
// posts them. It lives beside the sandbox because it is the other side of the web pages, as the
// sandbox is the other side of the API.

export interface BrowserResponse {
  status: number;
  location: string | null;
  body: string;
  url: string;
}

/** A scripted browser: one cookie jar (cookies are per host, any port, as browsers keep them), no automatic redirects. */
export class ScriptedBrowser {
  readonly cookies = new Map<string, string>();

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location === null ? null : new URL(location, url).toString(),
      body: await response.text(),
      url,
    };
  }

  /** Follows redirects until a page answers or the location starts with one of `stopAt` (e.g. the client's redirect URI). */
  async follow(url: string, ...stopAt: string[]): Promise<BrowserResponse> {
    let response = await this.request(url);
    for (let hops = 0; response.location !== null && hops < 10; hops++) {
      const location = response.location;
      if (stopAt.some((prefix) => location.startsWith(prefix))) return response;
      response = await this.request(response.location);
    }
    return response;
  }
}

/** A hidden field's value in a page, or undefined. */
export function fieldOf(html: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match?.[1]
    ?.replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}
