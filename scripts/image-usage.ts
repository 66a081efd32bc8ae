/**
 * `npm run image`'s pure part: its options and what it prints after a build (the ref, how to get
 * the image into a cluster, and the chart values that select it: `image.repository` and
 * `image.tag` in charts/a2a-operator/values.yaml).
 */

export type Builder = 'docker' | 'buildah';

export interface ImageOptions {
  repository: string;
  /** Undefined: `<package version>-<hash of the build inputs>`. */
  tag?: string;
  /** Undefined: docker when an engine answers, else buildah. */
  builder?: Builder;
  /** buildah only: build against the Node base made here (no registry), as CI does. */
  localBase: boolean;
  help: boolean;
}

export const IMAGE_HELP = `usage: npm run image -- [options]

Builds the operator image from the Dockerfile: with docker when a Docker engine answers,
with buildah otherwise (buildah also writes a docker-archive tar).

  --repository <name>   image name (default localhost/a2a-operator)
  --tag <tag>           image tag (default <version>-<hash of the build inputs>; never "latest",
                        so the chart's imagePullPolicy IfNotPresent uses the loaded image)
  --builder <b>         docker | buildah (default: docker if its engine answers)
  --local-base          buildah: build node:24-bookworm-slim here (Debian minbase + Node 24
                        from npm) instead of pulling it, and never pull (what CI does)
`;

export function parseImageArgs(argv: string[]): ImageOptions {
  const opts: ImageOptions = { repository: 'localhost/a2a-operator', localBase: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--repository') opts.repository = value();
    else if (arg === '--tag') opts.tag = value();
    else if (arg === '--builder') {
      const b = value();
      if (b !== 'docker' && b !== 'buildah') throw new Error(`--builder must be docker or buildah, not ${b}`);
      opts.builder = b;
    } else if (arg === '--local-base') opts.localBase = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else throw new Error(`unknown option ${arg} (see --help)`);
  }
  if (opts.tag !== undefined && !/^[\w][\w.-]{0,127}$/.test(opts.tag))
    throw new Error(`invalid tag ${opts.tag}`);
  if (opts.tag === 'latest')
    throw new Error('--tag latest would make IfNotPresent pulls ambiguous: pick another tag');
  if (opts.localBase && opts.builder === 'docker') throw new Error('--local-base needs --builder buildah');
  return opts;
}

/** What to do with the image once built; `archive` is the docker-archive tar buildah wrote. */
export function imageUsage(o: {
  repository: string;
  tag: string;
  builder: Builder;
  archive?: string;
}): string {
  const ref = `${o.repository}:${o.tag}`;
  const kind =
    o.builder === 'docker'
      ? `kind load docker-image ${ref}`
      : `kind load image-archive ${o.archive ?? '<archive>'}`;
  const other =
    o.builder === 'docker'
      ? `docker push ${ref}   (after tagging it for a registry your nodes pull from)`
      : `buildah push ${ref} docker://<registry>/a2a-operator:${o.tag}   or, on each node: ctr -n k8s.io images import ${o.archive ?? '<archive>'}`;
  return `built ${ref} (${o.builder})${o.archive ? `\narchive: ${o.archive}` : ''}

Load it into a kind cluster:
  ${kind}
Any other cluster:
  ${other}
Install the chart with it:
  helm install a2a-operator charts/a2a-operator --namespace a2a-system --create-namespace \\
    --set image.repository=${o.repository} --set image.tag=${o.tag}
`;
}
