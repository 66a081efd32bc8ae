/**
 * TLS trust for `npm ci` inside an image build, for the build only.
 *
 * Package downloads from these machines pass a TLS-intercepting proxy whose CA is only in the
 * host's CA bundle, so `npm ci` in a RUN step fails with SELF_SIGNED_CERT_IN_CHAIN. The bundle is
 * bind-mounted read-only into every RUN step together with an npm global config file
 * (`$PREFIX/etc/npmrc`, which npm reads on its own) naming it as `cafile`. Neither is written into
 * a layer: bind mounts are not committed, and the Dockerfile's final stage has no RUN step.
 *
 * Why not NODE_EXTRA_CA_CERTS: the Dockerfile (kept unmodified) declares no ARG for it, so
 * `--build-arg` does not reach RUN steps, and buildah's `bud --env` writes the variable into the
 * final image's config (both checked with buildah 1.28).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The host bundle (Debian's path); the build mounts it when present. */
export const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/** Where RUN steps see it. */
export const BUILD_CA_PATH = '/etc/ssl/host-ca.crt';
/** npm's global config file in the base (prefix /usr/local). */
const BUILD_NPMRC_PATH = '/usr/local/etc/npmrc';

/**
 * `buildah bud` arguments that mount the host's trust into RUN steps; writes the npmrc into
 * `scratchDir` (the caller's temporary folder). Empty when the host has no bundle.
 */
export function buildTrustArgs(scratchDir: string, caBundle = HOST_CA_BUNDLE): string[] {
  if (!existsSync(caBundle)) return [];
  const npmrc = join(scratchDir, 'npmrc');
  writeFileSync(npmrc, `cafile=${BUILD_CA_PATH}\n`);
  return ['--volume', `${caBundle}:${BUILD_CA_PATH}:ro`, '--volume', `${npmrc}:${BUILD_NPMRC_PATH}:ro`];
}
