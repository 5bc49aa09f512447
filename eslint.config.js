import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'dist-clients/**', 'build/**', 'node_modules/**', 'engine/**', 'bench/results/**', 'clients/typescript/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The console's plain ES modules run in the browser.
  { files: ['console/**/*.js'], languageOptions: { globals: globals.browser } },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
