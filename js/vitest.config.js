import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { environment: "jsdom", include: ["test/**/*.test.js"], testTimeout: 20000 },
});
