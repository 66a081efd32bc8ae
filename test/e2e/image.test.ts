/**
 * The images the real-pod tests run (test/harness/images/build.ts), checked on what was built:
 * the operator image from the Dockerfile runs as a numeric non-root user, starts the CLI, runs on
 * Node 24 from a read-only root filesystem, and carries none of the build's TLS trust (the host CA
 * bundle and npm config are mounted into RUN steps only); the test-agent image starts both SDK
 * runtimes. Skipped, with the reason, only where buildah cannot be used.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildahMissing, inspectImage } from '../harness/images/buildah.js';
import { buildImages, type BuiltImages } from '../harness/images/build.js';
import { numericUser, runInImage } from '../harness/images/run-in-image.js';
import { imageEntrypoint } from '../harness/image-entrypoint.js';

const missing = buildahMissing();
const log = (line: string) => process.stderr.write(`[images] ${line}\n`);

/** Certificates the host added to its trust (the TLS-intercepting proxy's): one base64 line of each. */
function hostAddedCaLines(): string[] {
  const dir = '/usr/local/share/ca-certificates';
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.crt'))
    .map((f) => readFileSync(join(dir, f), 'utf8').split('\n')[3]?.trim() ?? '')
    .filter((line) => line.length >= 40);
}

/** Which of `needles` occur anywhere in the file (streamed; matches across chunk borders too). */
async function occurring(file: string, needles: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const keep = Math.max(...needles.map((n) => n.length));
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: 8 << 20 })) {
    const buf = Buffer.concat([tail, chunk as Buffer]);
    for (const n of needles) if (buf.includes(n)) found.add(n);
    tail = buf.subarray(Math.max(0, buf.length - keep));
  }
  return found;
}

/** File names in every layer of a docker-archive tar. */
function layerEntries(tar: string): string[] {
  const manifest = JSON.parse(execFileSync('tar', ['-xOf', tar, 'manifest.json'], { encoding: 'utf8' })) as {
    Layers: string[];
  }[];
  return manifest[0]!.Layers.flatMap((layer) =>
    execFileSync('sh', ['-c', 'tar -xOf "$1" "$2" | tar -t', 'sh', tar, layer], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    }).split('\n'),
  );
}

describe('images built with buildah from the local Node base', { skip: missing }, () => {
  let images: BuiltImages;
  before(() => {
    images = buildImages(log);
  });

  test('operator: a numeric non-root user and the CLI as entrypoint', () => {
    const config = inspectImage(images.operator.ref)!.config;
    assert.equal(config.User, '65532:65532');
    assert.equal(numericUser(config.User).uid, 65532);
    // The Dockerfile's, Node.js options included (test/integration/image-entrypoint.test.ts pins it).
    assert.deepEqual(config.Entrypoint, imageEntrypoint().argv);
    assert.deepEqual(config.Cmd, ['run']);
    assert.match(
      images.operator.ref,
      /^localhost\/a2a-operator:[0-9a-f]{16}$/,
      'a content-hash tag, not latest',
    );
  });

  test('operator: the tar is a docker-archive carrying that tag', () => {
    const manifest = JSON.parse(
      execFileSync('tar', ['-xOf', images.operator.tar, 'manifest.json'], { encoding: 'utf8' }),
    ) as { RepoTags: string[] }[];
    assert.deepEqual(manifest[0]!.RepoTags, [images.operator.ref]);
  });

  test('operator: no build trust (CA bundle, NODE_EXTRA_CA_CERTS, npm config) in the config or the layers', async () => {
    const raw = JSON.stringify(inspectImage(images.operator.ref)!.raw);
    for (const word of ['NODE_EXTRA_CA_CERTS', 'host-ca.crt', 'cafile', 'npm_config', 'SSL_CERT_FILE']) {
      assert.ok(!raw.includes(word), `image config/history mentions ${word}`);
    }
    const entries = layerEntries(images.operator.tar);
    assert.ok(entries.includes('app/dist/cli/main.js'), 'the layer listing sees the image files');
    const forbidden = entries.filter((e) =>
      /(^|\/)host-ca\.crt$|^usr\/local\/etc\/npmrc$|(^|\/)\.npmrc$|^etc\/ssl\/certs\/ca-certificates\.crt$/.test(
        e,
      ),
    );
    assert.deepEqual(forbidden, []);
    // The host's added CAs (the intercepting proxy's) appear in no byte of the archive; a string
    // the image does contain is found by the same search, so the search itself works.
    const caLines = hostAddedCaLines();
    const control = 'probe an agent';
    const found = await occurring(images.operator.tar, [control, ...caLines]);
    assert.ok(found.has(control), 'the search finds text the image holds');
    assert.deepEqual(
      caLines.filter((l) => found.has(l)),
      [],
    );
  });

  test('operator: Node 24, `--help` and `check --help` as uid 65532 on a read-only root filesystem', async () => {
    const ref = images.operator.ref;
    const version = await runInImage(ref, ['node', '--version']);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout.trim(), /^v24\.\d+\.\d+$/);

    const help = await runInImage(ref, ['node', 'dist/cli/main.js', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /usage: a2a-operator/);
    const check = await runInImage(ref, ['node', 'dist/cli/main.js', 'check', '--help']);
    assert.equal(check.code, 0, check.stderr);

    const id = await runInImage(ref, ['node', '-e', 'console.log(process.getuid(), process.getgid())']);
    assert.equal(id.stdout.trim(), '65532 65532');
    const write = await runInImage(ref, ['node', '-e', "require('fs').writeFileSync('/app/x', '')"]);
    assert.notEqual(write.code, 0);
    assert.match(write.stderr, /EROFS/, 'the root filesystem is read-only');
  });

  test('agent: both SDK runtimes start as uid 65532 on a read-only root filesystem', async () => {
    const ref = images.agent.ref;
    assert.equal(inspectImage(ref)!.config.User, '65532:65532');
    // HTTP and gRPC with the v0.3 compatibility layer: the bundle's gRPC parts load in the image too.
    const config = JSON.stringify({ host: '127.0.0.1', control: false, grpc: {}, legacyCompat: true });
    const ready = /^READY \{"ports":\{"http":\d+,"grpc":\d+/m;
    const js = await runInImage(ref, ['node', '/app/agent-server.mjs', config], { stopWhen: ready });
    assert.match(js.stdout, ready, js.stderr);
    const go = await runInImage(ref, ['/app/go-agent', config], { stopWhen: ready });
    assert.match(go.stdout, ready, go.stderr);
  });
});
