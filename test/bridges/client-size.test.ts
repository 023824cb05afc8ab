/**
 * `stowage/client` bundles for the browser (no Node module, no
 * `process`) under 5 KB min+gzip. The bundle is built here with Vite (rolldown
 * + oxc minifier), as an application's bundler would.
 */
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { clientBundle } from "./fixtures/client-bundle.js";

it("§4 stowage/client is under 5 KB min+gzip and imports nothing from Node", async () => {
  const code = await clientBundle();
  const gz = gzipSync(code, { level: 9 }).length;
  console.log(`stowage/client: ${code.length} B minified, ${gz} B min+gzip`);
  expect(gz).toBeLessThan(5 * 1024);
  expect(code).not.toMatch(/\bfrom\s*["']node:|require\(|\bprocess\./);
  expect(code).toContain("sendBeacon");
});
