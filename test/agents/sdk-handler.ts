/**
 * The SDK request handler behind every test agent: a trivial executor, an in-memory store (so
 * every GetTask for a random id is TaskNotFound), and a record of the GetTask calls it saw.
 */
import { Role, TaskState, type AgentCard, type AgentInterface } from '@a2a-js/sdk';
import { ExtensionSupportRequiredError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import type { CancelTaskRequest, GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk';
import type { AgentConfig, SeenGetTask } from './agent-config.js';

/** Answers every message with one agent message (`text`): what a real client's sendMessage gets back. */
const echoExecutor = (text: string): AgentExecutor => ({
  execute: async (ctx, bus) => {
    bus.publish({
      kind: 'message',
      data: {
        messageId: `m-${ctx.taskId}`,
        contextId: ctx.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: [
          { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    });
    bus.finished();
    return Promise.resolve();
  },
  cancelTask: () => Promise.resolve(),
});

/** Answers every message with a completed Task kept in the handler's store (GetTask finds it). */
const taskExecutor: AgentExecutor = {
  execute: async (ctx, bus) => {
    bus.publish({
      kind: 'task',
      data: {
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [],
        metadata: undefined,
      },
    });
    bus.finished();
    return Promise.resolve();
  },
  cancelTask: () => Promise.resolve(),
};

export class RecordingRequestHandler extends DefaultRequestHandler {
  readonly seen: SeenGetTask[] = [];
  /**
   * `card` is what the agent publishes; `served` (default: the same) is what the SDK's checks
   * follow (streaming, push, extended card): a lying card when they differ.
   */
  /** Every call the handler received, by A2A method name, oldest first (to count replays). */
  readonly calls: string[] = [];
  constructor(
    private readonly card: AgentCard,
    private readonly requireTenant: string | undefined,
    private readonly getTaskError?: AgentConfig['getTaskError'],
    served: AgentCard = card,
    replyWithTask = false,
    replyText = 'ok',
  ) {
    // The extended card (when served) is the published one: enough to show the method is there.
    super(
      served,
      new InMemoryTaskStore(),
      replyWithTask ? taskExecutor : echoExecutor(replyText),
      undefined,
      undefined,
      undefined,
      card,
    );
  }

  override getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.card);
  }

  override sendMessage(params: SendMessageRequest, context: ServerCallContext) {
    this.calls.push('SendMessage');
    return super.sendMessage(params, context);
  }

  override sendMessageStream(params: SendMessageRequest, context: ServerCallContext) {
    this.calls.push('SendStreamingMessage');
    return super.sendMessageStream(params, context);
  }

  override cancelTask(params: CancelTaskRequest, context: ServerCallContext) {
    this.calls.push('CancelTask');
    return super.cancelTask(params, context);
  }

  override async getTask(params: GetTaskRequest, context: ServerCallContext) {
    this.calls.push('GetTask');
    // JSON-RPC and gRPC carry the tenant in the request; the REST handler puts the path's tenant in the context.
    const tenant = params.tenant || context.tenant || '';
    this.seen.push({ tenant, id: params.id });
    // The JS SDK checks required extensions on message calls only; a2a-go checks them on every
    // call (a2asrv checkRequiredExtensions), and so does this agent, so both runtimes answer alike.
    const requested = new Set(context.requestedExtensions ?? []);
    const missing = (this.card.capabilities?.extensions ?? [])
      .filter((e) => e.required && !requested.has(e.uri))
      .map((e) => e.uri);
    if (missing.length > 0) {
      throw new ExtensionSupportRequiredError(
        `Client must declare support for required extensions: ${missing.join(', ')}`,
      );
    }
    if (this.requireTenant !== undefined && tenant !== this.requireTenant) {
      throw new UnsupportedOperationError(`tenant ${JSON.stringify(tenant)} is not served here`);
    }
    if (this.getTaskError) {
      const err = new UnsupportedOperationError(
        this.getTaskError.message.replaceAll('{{TASK_ID}}', params.id),
      );
      // `reason` is a class field (read-only in the types): a hostile server says what it likes.
      if (this.getTaskError.reason !== undefined)
        Object.defineProperty(err, 'reason', { value: this.getTaskError.reason });
      throw err;
    }
    return super.getTask(params, context);
  }
}

export function sdkCard(
  interfaces: AgentInterface[],
  capabilities: AgentConfig['capabilities'] = {},
): AgentCard {
  return {
    name: 'test-agent',
    description: 'A2A test agent (official SDK)',
    version: '1.0.0',
    supportedInterfaces: interfaces,
    provider: undefined,
    capabilities: {
      streaming: capabilities.streaming ?? false,
      pushNotifications: capabilities.pushNotifications ?? false,
      extendedAgentCard: capabilities.extendedAgentCard ?? false,
      extensions: (capabilities.extensions ?? []).map((e) => ({
        uri: e.uri,
        description: '',
        required: e.required ?? false,
        params: undefined,
      })),
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
}
