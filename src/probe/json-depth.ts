/**
 * Nesting depth of parsed JSON, measured without recursion: lives with the other card-document
 * limits in src/card/card-json.ts (one walk, one rule for the operator and the CLI).
 */
export { exceedsDepth } from '../card/card-json.js';
