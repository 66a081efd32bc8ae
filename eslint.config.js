// Lint runs in CI (`npm run lint`): the recommended type-aware rules, plus a ban on
// floating promises, which is how async handler errors escape in operators, and the layers
// of src/ (README "Layout"): a lower folder never imports an upper one.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * What each folder of src/ may import besides itself (and packages). Leaves first; the
 * reconciler (controller) and the wiring (operator, cli) sit on top.
 */
const LAYERS = {
  text: [],
  api: [],
  kube: [],
  card: ['api', 'text'],
  observation: ['api', 'card', 'text'],
  probe: ['api', 'card', 'text'],
  routing: ['api', 'card', 'observation', 'text'],
  client: ['api', 'card', 'probe', 'text'],
  controller: ['api', 'card', 'client', 'kube', 'observation', 'probe', 'routing', 'text'],
  operator: ['api', 'card', 'client', 'controller', 'kube', 'observation', 'probe', 'routing', 'text'],
};
const FOLDERS = [
  'text',
  'api',
  'kube',
  'card',
  'observation',
  'probe',
  'routing',
  'client',
  'controller',
  'operator',
  'cli',
];
const layerRules = Object.entries(LAYERS).map(([folder, allowed]) => {
  const banned = FOLDERS.filter((f) => f !== folder && !allowed.includes(f));
  // The relative path into folder f, as written: `./` segments and a way back through `src/`
  // included; a path that goes down and up again (`../routing/../controller/`) is not seen.
  const into = (f) => `^(\\.\\.?/)*\\.\\./(src/)?${f}/`;
  const message = (f) =>
    `src/${folder} may not import src/${f} (eslint.config.js LAYERS): move what both need into a folder both may import.`;
  return {
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          // Relative paths only: a package subpath (`@a2a-js/sdk/client/...`) is not a folder of src/.
          patterns: banned.map((f) => ({ regex: into(f), message: message(f) })),
        },
      ],
      // no-restricted-imports sees neither `await import('...')` (a string or a template) nor a
      // type written as `import('...').T`: the same ban for those. A specifier with a part
      // computed at run time cannot be checked, so a layered folder may not have one.
      'no-restricted-syntax': [
        'error',
        ...banned.flatMap((f) => {
          // The same pattern as an esquery regex literal, its slashes escaped.
          const path = `/${into(f).replaceAll('/', '\\/')}/`;
          return [
            `ImportExpression[source.value=${path}]`,
            `ImportExpression > TemplateLiteral.source[quasis.0.value.cooked=${path}]`,
            `TSImportType[source.value=${path}]`,
          ].map((selector) => ({ selector, message: message(f) }));
        }),
        {
          selector:
            'ImportExpression:not([source.type="Literal"]):not([source.type="TemplateLiteral"][source.expressions.length=0])',
          message:
            'import() with a computed specifier: the layer rule (eslint.config.js LAYERS) cannot check it.',
        },
      ],
    },
  };
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'charts/**', 'test/controlplane/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's test()/describe() return promises the runner itself awaits.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...layerRules,
);
