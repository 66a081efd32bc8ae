/**
 * A SendMessage request carrying one text part, in the SDK's v1.0 (proto) shape: every field
 * set, since the gRPC transport serialises them all. Used by the continuity check and tests.
 */
import type { Client } from '@a2a-js/sdk/client';

export type SendMessageRequest = Parameters<Client['sendMessage']>[0];

export interface TextMessageOptions {
  messageId: string;
  /** Continue this task (empty: a new one). */
  taskId?: string;
  /** Ask for the task at once instead of waiting for it to end. */
  returnImmediately?: boolean;
}

export function textMessageRequest(text: string, opts: TextMessageOptions): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: opts.messageId,
      contextId: '',
      taskId: opts.taskId ?? '',
      role: 1, // ROLE_USER
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: opts.returnImmediately
      ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true }
      : undefined,
    metadata: undefined,
    // The SDK's generated request type has more optional fields than a caller needs to set.
  } as unknown as SendMessageRequest;
}
