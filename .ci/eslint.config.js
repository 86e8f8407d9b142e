// ESLint for `npm run lint`: the type-aware rules that catch what the compiler does not (a promise nobody
// awaits, a promise where a callback's result is ignored), plus type-only imports spelled as such.
// Import circles and layer arrows are dependency-cruiser's (.ci/dependency-cruiser.cjs).
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('..', import.meta.url));

export default tseslint.config(
  { basePath: root, ignores: ['node_modules/**', 'data/**', '.ci/**'] },
  {
    basePath: root,
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: root } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
);
