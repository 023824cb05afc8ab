/**
 * The page's API client: every call carries the session token (from the URL,
 * kept in sessionStorage for this tab); failures become ApiFailure with the
 * server's category, message and hint.
 */
import type {
  ApiError,
  ApiErrorCategory,
  InfoResponse,
  LoadResponse,
  SourceContextResponse,
} from "../../api-types.js";

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly category: ApiErrorCategory | "network",
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const KEY = "stowage-studio-token";

/** The token from `?token=` (remembered for this tab), or null. */
export function findToken(search: string): string | null {
  const fromUrl = new URLSearchParams(search).get("token");
  try {
    if (fromUrl) sessionStorage.setItem(KEY, fromUrl);
    return fromUrl ?? sessionStorage.getItem(KEY);
  } catch {
    return fromUrl;
  }
}

export class ApiClient {
  constructor(private readonly token: string) {}

  private async call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        cache: "no-store",
        credentials: "omit",
      });
    } catch {
      throw new ApiFailure(
        0,
        "network",
        "Studio's server is not reachable",
        "is `stowage studio` still running in the terminal?",
      );
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ApiFailure(
        res.status,
        "storage",
        `unexpected answer from Studio's server (HTTP ${res.status})`,
      );
    }
    if (!res.ok) {
      const e = (json as ApiError).error ?? { category: "storage", message: `HTTP ${res.status}` };
      throw new ApiFailure(res.status, e.category, e.message, e.hint);
    }
    return json as T;
  }

  info(): Promise<InfoResponse> {
    return this.call("GET", "/api/info");
  }
  load(from: number, to: number): Promise<LoadResponse> {
    return this.call("POST", "/api/load", { from, to });
  }
  more(loadId: number): Promise<LoadResponse> {
    return this.call("POST", "/api/more", { loadId });
  }
  refresh(loadId: number): Promise<LoadResponse> {
    return this.call("POST", "/api/refresh", { loadId });
  }
  sourceContext(q: { caller?: string; stack?: string }): Promise<SourceContextResponse> {
    const p = new URLSearchParams();
    if (q.caller) p.set("caller", q.caller);
    else if (q.stack) p.set("stack", q.stack.slice(0, 4000));
    return this.call("GET", `/api/source-context?${p.toString()}`);
  }
}
