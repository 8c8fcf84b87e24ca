// ESLint (flat config) for the TypeScript sources: typescript-eslint's
// recommended rules; formatting is Prettier's (.prettierrc.json). Run by
// `npm run lint`, part of `npm test`.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'demo/media/**', 'demo/results/**', 'results/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // a leading underscore names what is deliberately unused (a rest-destructured field, a callback's argument)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
);
