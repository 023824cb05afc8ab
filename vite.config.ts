/**
 * Builds Studio's web UI (src/studio/web, Preact + uPlot) into dist/studio/web,
 * which the Studio server serves from the package. Run after `tsc`:
 * `tsc -p tsconfig.build.json && vite build`.
 */
import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

export default defineConfig({
  root: "src/studio/web",
  base: "/",
  plugins: [preact()],
  logLevel: "warn",
  build: {
    outDir: "../../../dist/studio/web",
    emptyOutDir: true,
    target: "es2022",
    assetsDir: "assets",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 300,
  },
});
