/**
 * `npm run image`'s options and printed instructions (scripts/image-usage.ts): the printed
 * `helm install --set` keys exist in the chart's values, the kind line matches the builder,
 * and a `latest` tag is refused.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../harness/binaries.js';
import { imageUsage, parseImageArgs } from '../../scripts/image-usage.js';

describe('npm run image', () => {
  test('defaults: localhost/a2a-operator, builder chosen at run time, registry base', () => {
    assert.deepEqual(parseImageArgs([]), {
      repository: 'localhost/a2a-operator',
      localBase: false,
      help: false,
    });
  });

  test('options', () => {
    assert.deepEqual(
      parseImageArgs([
        '--repository',
        'registry.example/a2a',
        '--tag',
        'v1.2.3',
        '--builder',
        'buildah',
        '--local-base',
      ]),
      { repository: 'registry.example/a2a', tag: 'v1.2.3', builder: 'buildah', localBase: true, help: false },
    );
  });

  test('refuses latest, unknown options, missing values and --local-base with docker', () => {
    assert.throws(() => parseImageArgs(['--tag', 'latest']), /latest/);
    assert.throws(() => parseImageArgs(['--push']), /unknown option --push/);
    assert.throws(() => parseImageArgs(['--tag']), /--tag needs a value/);
    assert.throws(() => parseImageArgs(['--tag', '--local-base']), /--tag needs a value/);
    assert.throws(() => parseImageArgs(['--builder', 'podman']), /docker or buildah/);
    assert.throws(() => parseImageArgs(['--builder', 'docker', '--local-base']), /--local-base needs/);
    assert.throws(() => parseImageArgs(['--tag', 'a b']), /invalid tag/);
  });

  test('the printed helm values exist in the chart and select the image built', () => {
    const values = parse(readFileSync(join(REPO_ROOT, 'charts', 'a2a-operator', 'values.yaml'), 'utf8')) as {
      image: Record<string, unknown>;
    };
    const text = imageUsage({ repository: 'localhost/a2a-operator', tag: '0.1.0-abc', builder: 'docker' });
    const sets = [...text.matchAll(/--set ([\w.]+)=(\S+)/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(sets, [
      ['image.repository', 'localhost/a2a-operator'],
      ['image.tag', '0.1.0-abc'],
    ]);
    for (const [key] of sets)
      assert.ok(key!.slice('image.'.length) in values.image, `${key} is a chart value`);
    assert.equal(
      values.image.pullPolicy,
      'IfNotPresent',
      'a loaded image with a non-latest tag is used as is',
    );
  });

  test('kind: docker-image after docker, image-archive of the tar after buildah', () => {
    const docker = imageUsage({ repository: 'localhost/a2a-operator', tag: 't1', builder: 'docker' });
    assert.match(docker, /^ {2}kind load docker-image localhost\/a2a-operator:t1$/m);
    const buildah = imageUsage({
      repository: 'localhost/a2a-operator',
      tag: 't1',
      builder: 'buildah',
      archive: '/x/a.tar',
    });
    assert.match(buildah, /^ {2}kind load image-archive \/x\/a\.tar$/m);
    assert.match(buildah, /^archive: \/x\/a\.tar$/m);
  });
});
