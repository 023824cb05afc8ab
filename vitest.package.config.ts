// The tarball test (issue 15 §2): `npm run test:package`. No MinIO: it tests the package
// as installed, and `npm test` stays free of the pack-and-install round trip.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/package/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
