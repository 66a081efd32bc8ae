/**
 * The verdicts of answers already classified, per interface. In steady state a pod answers every
 * probe with the same bytes but for the random task id it may echo, and classifying them again
 * (JSON parse, the printable/clip passes over message and evidence, the task-id and credential
 * rewrites) was about a third of a JSON-RPC probe's own CPU (`bench:probe`, docs/benchmarks.md).
 * Every answer is still read in full and compared byte for byte with the one classified (the
 * task id aside): only the classification is reused, and only for the same exchange.
 */
import type { Verdict } from './probe-result.js';
import { settledVerdict } from './settled-verdict.js';

/**
 * Answers longer than this (an A2A error is a few hundred bytes) are classified every time.
 * With PER_INTERFACE it bounds the memo: 4 KiB per interface of a card held in memory (about
 * 0.5 KiB for the SDKs' answers), whatever a pod answers.
 */
const MAX_MEMO_KEY = 2048;
/**
 * Answer forms kept per interface (a card interface is one pod's: each pod's card is parsed on
 * its own): the steady one, and one more for a pod that flaps between two answers.
 */
const PER_INTERFACE = 2;
/**
 * Stands for the task id in a key. NUL never appears in a request line or a header value, and an
 * answer that holds one is not kept, so a mark in a key always stood for the task id.
 */
const TASK_ID_MARK = '\u0000';

/** An answer as the memo compares it: an HTTP answer, or a gRPC status in the same three parts. */
export interface MemoAnswer {
  /** HTTP status, or gRPC status code. */
  status: number;
  contentType: string;
  /** The bytes (read as latin1), or a text that already holds every other part of the answer. */
  body: Buffer | string;
}

export interface MemoExchange {
  /** Binding, version, URL, dialled address: the verdict's message names them. */
  what: string;
  /** The request as a verdict quotes it (may hold the task id: a REST path). */
  request: string;
  bearerSent: boolean;
}

export class AnswerMemo {
  /** Keyed by the card's interface object: a new card (new objects) drops its forms with it. */
  private readonly byInterface = new WeakMap<object, Map<string, Verdict>>();
  private readonly stored = new WeakSet<Verdict>();

  /**
   * The key of this exchange and answer with `taskId` abstracted, or undefined when the answer
   * is too long to be worth keeping or holds a NUL (see TASK_ID_MARK). A Buffer body is read as
   * latin1: one char per byte, so two keys are equal exactly when the bytes are.
   */
  key(exchange: MemoExchange, answer: MemoAnswer, taskId: string): string | undefined {
    if (answer.body.length + exchange.what.length + exchange.request.length > MAX_MEMO_KEY) return undefined;
    const text = typeof answer.body === 'string' ? answer.body : answer.body.toString('latin1');
    if (text.includes(TASK_ID_MARK)) return undefined;
    const body = text.replaceAll(taskId, TASK_ID_MARK);
    return `${answer.status}\n${answer.contentType}\n${exchange.bearerSent}\n${exchange.what}\n${exchange.request.replaceAll(taskId, TASK_ID_MARK)}\n${body}`;
  }

  /** The verdict kept for `key` (none for an answer `key` would not keep). */
  get(iface: object, key: string | undefined): Verdict | undefined {
    return key === undefined ? undefined : this.byInterface.get(iface)?.get(key);
  }

  /**
   * Keeps `classified` (the verdict of the answer `key` was made from, with `taskId`) for `key`,
   * settled (no task id, no credential in it) and frozen, as it is handed to every later probe
   * with the same answer: no holder may change it under another. Returns what it kept.
   */
  set(iface: object, key: string, classified: Verdict, taskId: string): Verdict {
    const v = settledVerdict(classified, taskId);
    let forms = this.byInterface.get(iface);
    if (!forms) {
      forms = new Map();
      this.byInterface.set(iface, forms);
    }
    // Past the bound the oldest form goes: a pod replaced, or an answer that changes each time.
    if (forms.size >= PER_INTERFACE) forms.delete(forms.keys().next().value!);
    Object.freeze(v.evidence);
    const kept = Object.freeze(v);
    forms.set(key, kept);
    this.stored.add(kept);
    return kept;
  }

  /** True for a verdict this memo handed out: settled already. */
  holds(v: Verdict): boolean {
    return this.stored.has(v);
  }
}
