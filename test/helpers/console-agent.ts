import assert from "node:assert/strict";
import { ADMIN_TOKEN, type TestApp } from "./app.ts";

/** A console page as a browser got it. */
export interface ConsolePage {
  status: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
  location: string | undefined;
  setCookies: string[];
}

/** A cookie-keeping client of one app's console, as a browser would be. */
export class ConsoleAgent {
  readonly cookies = new Map<string, string>();
  constructor(private readonly t: TestApp) {}

  async request(
    method: "GET" | "POST",
    url: string,
    form?: Record<string, string | string[]>,
  ): Promise<ConsolePage> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
    let payload: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(form))
        for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      payload = params.toString();
      headers["content-type"] = "application/x-www-form-urlencoded";
    }
    const res = await this.t.runtime.app.inject({ method, url, headers, payload });
    const raw = res.headers["set-cookie"];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    for (const cookie of setCookies) {
      const [pair] = cookie.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = decodeURIComponent(pair.slice(eq + 1));
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: res.statusCode,
      body: res.body,
      headers: res.headers,
      location: res.headers.location as string | undefined,
      setCookies,
    };
  }
  get(url: string) {
    return this.request("GET", url);
  }
  post(url: string, form: Record<string, string | string[]>) {
    return this.request("POST", url, form);
  }

  /** The operator's sign-in with the admin token. */
  async login(token = ADMIN_TOKEN): Promise<ConsolePage> {
    const form = await this.get("/console/login");
    return this.post("/console/login", {
      _csrf: hiddenValue(form.body, "_csrf"),
      token,
      next: "/console/stores",
    });
  }

  /** A staff member's sign-in with email and password. */
  async staffLogin(email: string, password: string, next = ""): Promise<ConsolePage> {
    const form = await this.get("/console/login");
    return this.post("/console/login", { _csrf: hiddenValue(form.body, "_csrf"), email, password, next });
  }

  /** The CSRF token the forms of a signed-in operator's pages carry. */
  async csrf(): Promise<string> {
    return hiddenValue((await this.get("/console/stores")).body, "_csrf");
  }

  /** Opens a page and posts its form (the one whose action is `action`) with the page's own CSRF token. */
  async submit(
    pageUrl: string,
    action: string,
    fields: Record<string, string | string[]>,
  ): Promise<ConsolePage> {
    const page = await this.get(pageUrl);
    assert.equal(page.status, 200, `${pageUrl} answered ${page.status}`);
    return this.post(action, { _csrf: hiddenValue(page.body, "_csrf"), ...fields });
  }
}

/** The value of the first hidden input of that name in a page. */
export function hiddenValue(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  assert.ok(match, `no hidden ${name} in the page`);
  return match[1];
}

/** The text of a page without tags (assertions about what a person reads). */
export function pageText(html: string): string {
  return html
    .replace(/<\/?(strong|span|code|em|b|a|time)\b[^>]*>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ");
}
