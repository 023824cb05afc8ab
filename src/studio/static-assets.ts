/**
 * Serves the built UI (Vite output, `dist/studio/web` inside the package): the
 * page, its hashed assets, nothing else. No CDN, no network fonts; a missing
 * build answers with a page that says how to build it.
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { dirname, extname, join, normalize, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

/** The package root: the nearest parent of this module with stowage's package.json. */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "stowage")
          return dir;
      } catch {
        /* keep walking */
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Where the built UI lives: `<package>/dist/studio/web`. */
export function defaultAssetsDir(): string | undefined {
  const root = packageRoot();
  return root ? join(root, "dist", "studio", "web") : undefined;
}

const relativeParts = (root: string, file: string) => relative(root, file).split(sep);

const MISSING = `<!doctype html><meta charset="utf-8"><title>Stowage Studio</title>
<body style="font:15px system-ui;margin:3rem;max-width:40rem">
<h1>Studio's web assets are not built</h1>
<p>Build them from the package directory with <code>npm run build</code> (it runs <code>vite build</code>), then reload this page.</p>`;

/**
 * Answers GET for `/`, `/index.html` and `/assets/*`; returns false when the path is not an asset.
 * @example if (!(await serveAsset(dir, url.pathname, res, headers))) notFound(res);
 */
export async function serveAsset(
  assetsDir: string | undefined,
  pathname: string,
  res: ServerResponse,
  headers: Record<string, string>,
): Promise<boolean> {
  const isIndex = pathname === "/" || pathname === "/index.html";
  if (!isIndex && !pathname.startsWith("/assets/") && pathname !== "/favicon.svg") return false;
  if (!assetsDir || !existsSync(join(assetsDir, "index.html"))) {
    if (!isIndex) return false;
    res.writeHead(503, {
      ...headers,
      "content-type": TYPES[".html"]!,
      "cache-control": "no-store",
    });
    res.end(MISSING);
    return true;
  }
  const root = resolve(assetsDir);
  try {
    const file = resolve(
      root,
      "." + normalize(isIndex ? "/index.html" : decodeURIComponent(pathname)),
    );
    if (
      !file.startsWith(root + sep) ||
      relativeParts(root, file).some((part) => part.startsWith("."))
    )
      return false;
    const info = await stat(file);
    if (!info.isFile()) return false;
    const body = await readFile(file);
    res.writeHead(200, {
      ...headers,
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": isIndex ? "no-store" : "public, max-age=31536000, immutable",
      "content-length": String(body.length),
    });
    res.end(body);
    return true;
  } catch {
    return false;
  }
}
