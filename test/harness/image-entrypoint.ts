/**
 * The container image's entrypoint, read from the Dockerfile, so that what the tests and the
 * bench run from `dist` is what the image runs: the same Node.js options before the same script.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './binaries.js';

export interface DockerfileStage {
  from: string;
  instructions: { op: string; args: string }[];
}

/** Dockerfile stages: FROM lines and the instructions after them (continuations joined). */
export function parseDockerfile(text: string): DockerfileStage[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: DockerfileStage[] = [];
  for (const line of lines) {
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    if (op === 'FROM') stages.push({ from: m[2]!, instructions: [] });
    else stages.at(-1)?.instructions.push({ op, args: m[2]! });
  }
  return stages;
}

export function dockerfileStages(): DockerfileStage[] {
  return parseDockerfile(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
}

/** The args of the final stage's last `op` instruction (ENTRYPOINT, CMD, USER...), if any. */
export function finalInstruction(stages: DockerfileStage[], op: string): string | undefined {
  return stages
    .at(-1)
    ?.instructions.filter((i) => i.op === op)
    .at(-1)?.args;
}

export interface ImageEntrypoint {
  /** The whole exec-form list, as the image's config carries it. */
  argv: string[];
  /** The program, `node`. */
  program: string;
  /** Node.js options between the program and the script. */
  nodeOptions: string[];
  /** The script, relative to the image's WORKDIR (`dist/cli/main.js`). */
  script: string;
}

/** The final stage's exec-form ENTRYPOINT: `[program, ...nodeOptions, script]`. */
export function imageEntrypoint(stages: DockerfileStage[] = dockerfileStages()): ImageEntrypoint {
  const args = finalInstruction(stages, 'ENTRYPOINT');
  if (!args) throw new Error('the Dockerfile has no ENTRYPOINT in its final stage');
  let argv: unknown;
  try {
    argv = JSON.parse(args);
  } catch {
    argv = undefined; // shell form
  }
  if (!Array.isArray(argv) || argv.length < 2 || argv.some((e) => typeof e !== 'string'))
    throw new Error(`the ENTRYPOINT is not an exec-form list of a program and a script: ${args}`);
  const entry = argv as string[];
  return { argv: entry, program: entry[0]!, nodeOptions: entry.slice(1, -1), script: entry.at(-1)! };
}
