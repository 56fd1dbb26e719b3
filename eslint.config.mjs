import * as effectEslint from "@effect/eslint-plugin"
import eslint from "@eslint/js"
import globals from "globals"
import tseslint from "typescript-eslint"

// Effect's own house format (dprint through @effect/eslint-plugin) over the TypeScript we write.
export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "**/*.js"] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    rules: {
      // Relay's rules match control characters on purpose: unstorable text, secret folding, escaping.
      "no-control-regex": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  },
  // scripts/*.mjs and this file are plain Node ESM, run as they are: Node's globals, no TypeScript program.
  {
    files: ["**/*.mjs"],
    languageOptions: { sourceType: "module", globals: globals.node }
  },
  // The layering (docs/contract.md): domain <- services <- layers. Interfaces and tools never see an implementation.
  {
    files: ["src/services/**/*.ts", "src/tools/**/*.ts", "src/policies/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          regex: "(^|/)layers(/|$)",
          message: "services, tools and policies see services only, never src/layers"
        }]
      }]
    }
  },
  // A CLI picks its stack from the composition root (src/layers/assembly) and reaches the rest through services.
  {
    files: ["src/cli/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          regex: "(^|/)layers/(?!assembly/)",
          message: "src/cli may import src/layers only via src/layers/assembly"
        }]
      }]
    }
  },
  {
    files: ["src/domain/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{ regex: "^\\.\\./", message: "src/domain imports nothing outside src/domain" }]
      }]
    }
  },
  {
    files: ["src/domain/*/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{ regex: "^\\.\\./\\.\\./", message: "src/domain imports nothing outside src/domain" }]
      }]
    }
  }
)
