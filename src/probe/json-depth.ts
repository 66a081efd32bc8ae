/**
 * Nesting depth of parsed JSON, measured without recursion. V8's JSON.parse accepts any depth,
 * but JSON.stringify, canonical JSON and every recursive walk after it overflow the stack on a
 * card nested a few thousand levels deep; a fetched card is rejected before any of them runs.
 */
export function exceedsDepth(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
