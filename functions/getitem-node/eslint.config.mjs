// The function's linter configuration (ESLint 9, flat config): ESLint's recommended rules for
// every .mjs file here, the function's own, its broken builds' (broken/) and its tests (test/),
// all ES modules run by Node.js 24. Not bundled (harness/lambda/lambdazip's nodeLeftOut).

import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["**/*.mjs"],
    ...js.configs.recommended,
  },
  {
    files: ["**/*.mjs"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.node },
    },
    linterOptions: {
      reportUnusedDisableDirectives: "error",
    },
  },
];
