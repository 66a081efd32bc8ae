// The layer rule of eslint.config.js (README, Layout): a lower folder of src/ may not import an
// upper one, by a static import, an `import()` with a string or template specifier, or an
// `import('...')` type; and a layered folder may not have an `import()` whose specifier is
// computed, which the rule could not check. Linted as text with the project's own config.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({
  cwd: root,
  // The text is no file of the TypeScript project: without type information, so the rules
  // that need it are off here (the layer rules need none).
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false } },
      rules: {
        '@typescript-eslint/no-floating-promises': 'off',
        '@typescript-eslint/no-misused-promises': 'off',
        '@typescript-eslint/consistent-type-imports': 'off',
      },
    },
  ],
});

async function layerErrors(folder: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, 'src', folder, 'layer-probe.ts') });
  // A snippet that no longer parses would report no layer error: fail instead of passing.
  const fatal = result!.messages.find((m) => m.fatal);
  assert.equal(fatal, undefined, `${code}\n${fatal?.message}`);
  return result!.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

const upward = 'src/routing may not import src/controller';

test('routing may not reach into controller, by any form of import', async () => {
  const forms = [
    `import { stillRoutable } from '../controller/reconciler.js';\nexport const x = stillRoutable;`,
    `export type { AgentObject } from '../controller/reconciler.js';`,
    `export const x = () => import('../controller/reconciler.js');`,
    'export const x = () => import(`../controller/reconciler.js`);',
    `export type X = import('../controller/reconciler.js').AgentObject;`,
    // Spelled another way: a `./` segment first, an escape in a template (Node imports the
    // cooked text), the way up to the repository and back down into src/.
    `import { stillRoutable } from './../controller/reconciler.js';\nexport const x = stillRoutable;`,
    'export const x = () => import(`../controll\\u0065r/reconciler.js`);',
    `import { stillRoutable } from '../../src/controller/reconciler.js';\nexport const x = stillRoutable;`,
    `export const x = () => import('../../src/controller/reconciler.js');`,
  ];
  for (const code of forms) {
    const errors = await layerErrors('routing', code);
    assert.equal(errors.length, 1, code);
    assert.match(errors[0]!, new RegExp(upward), code);
  }
});

test('an import() whose specifier is computed is refused in a layered folder', async () => {
  for (const code of [
    'export const x = (f: string) => import(`../${f}/reconciler.js`);',
    'export const x = (f: string) => import(f);',
  ]) {
    const errors = await layerErrors('routing', code);
    assert.deepEqual(errors.length, 1, code);
    assert.match(errors[0]!, /computed specifier/, code);
  }
});

test('what the layers allow passes: downward, within the folder, packages, and the CLI on top', async () => {
  assert.deepEqual(
    await layerErrors(
      'routing',
      [
        `import { parseCard } from '../card/index.js';`,
        `import { cardText } from './objects.js';`,
        `export const x = [parseCard, cardText, () => import('@a2a-js/sdk'), () => import(\`./inventory.js\`)];`,
        `export type Y = import('./objects.js').Owner;`,
      ].join('\n'),
    ),
    [],
  );
  assert.deepEqual(
    await layerErrors('controller', `export const x = () => import('../routing/objects.js');`),
    [],
  );
  assert.deepEqual(await layerErrors('cli', `export const x = () => import('../operator/manager.js');`), []);
});

test('each lower folder is refused the folders above it', async () => {
  const refused: [string, string][] = [
    ['text', 'api'],
    ['api', 'kube'],
    ['kube', 'controller'],
    ['card', 'probe'],
    ['observation', 'routing'],
    ['probe', 'client'],
    ['routing', 'client'],
    ['client', 'controller'],
    ['controller', 'operator'],
    ['operator', 'cli'],
  ];
  for (const [from, to] of refused) {
    const errors = await layerErrors(from, `export const x = () => import('../${to}/index.js');`);
    assert.equal(errors.length, 1, `${from} -> ${to}`);
    assert.match(errors[0]!, new RegExp(`src/${from} may not import src/${to}`));
  }
});
