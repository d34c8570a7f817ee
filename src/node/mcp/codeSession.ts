import type { CodeExecutionResult, CodeSandbox } from '../../core/agent/codeSandbox';
import { createKnowledgeBaseSandboxHost } from '../../core/analysis/knowledgeBaseSandboxHost';
import type { KnowledgeBase } from '../../core/model/search';
import { createCodeSandbox, type CodeSandboxLimits } from '../sandbox/codeSandbox';

/**
 * The `execute_code` state of one MCP session: one sandbox, started on first use, whose variables persist
 * between calls until the client asks for a reset (or the sandbox resets itself after a timeout or crash).
 */
export class CodeSession {
  private sandbox: Promise<CodeSandbox> | undefined;

  constructor(
    private readonly knowledgeBase: KnowledgeBase,
    private readonly limits: Partial<CodeSandboxLimits>,
    private readonly abortSignal: AbortSignal,
  ) {}

  async execute(code: string, abortSignal: AbortSignal): Promise<CodeExecutionResult> {
    // A fresh host per sandbox: its VFS caches then live exactly as long as the variables that may hold its data.
    this.sandbox ??= createCodeSandbox({ host: createKnowledgeBaseSandboxHost({ knowledgeBase: this.knowledgeBase }), limits: this.limits, abortSignal: this.abortSignal });
    const pending = this.sandbox;
    let sandbox: CodeSandbox;
    try {
      sandbox = await pending;
    } catch (error) {
      // A sandbox that failed to start is not kept: the next call tries again.
      if (this.sandbox === pending) {
        this.sandbox = undefined;
      }
      throw error;
    }
    return sandbox.execute(code, { abortSignal });
  }

  /** Forgets every variable: the next `execute` starts a new sandbox. */
  async reset(): Promise<void> {
    const current = this.sandbox;
    this.sandbox = undefined;
    await current?.then((sandbox) => sandbox.dispose(), () => undefined);
  }

  dispose(): Promise<void> {
    return this.reset();
  }
}
