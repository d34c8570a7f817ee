import type { ModelMessage } from 'ai';
import type { ConversationState } from '../../core/agent/conversationState';
import type { ParticipantCommand } from '../contributionIds';
import type { RunRoute } from '../../shared/runsProtocol';
import type { AgentMode } from '../../core/agent/instructions';
import { isPathInside } from '../../core/pathContainment';

/**
 * Pure helpers of the `@haiku` participant (no `vscode` import, unit-tested): citation markers in streamed
 * text, the metadata carried between turns, routes, the documents attachments select.
 */

export type AnswerSegment = { kind: 'text'; text: string } | { kind: 'citation'; index: number };

/**
 * Splits streamed answer text into text and `[n]` citation markers, across delta boundaries: a trailing `[`
 * or `[12` is held back until the next delta (or `flush`) shows whether it is a marker. `[1, 2]` and `[1][2]`
 * both yield one marker per number.
 */
export class CitationMarkerSplitter {
  private buffer = '';

  constructor(private readonly isKnown: (index: number) => boolean) {}

  push(delta: string): AnswerSegment[] {
    this.buffer += delta;
    const open = this.buffer.lastIndexOf('[');
    let ready = this.buffer;
    let held = '';
    if (open >= 0 && !this.buffer.slice(open).includes(']') && /^\[[\d,\s]*$/.test(this.buffer.slice(open)) && this.buffer.length - open < 24) {
      ready = this.buffer.slice(0, open);
      held = this.buffer.slice(open);
    }
    this.buffer = held;
    return this.split(ready);
  }

  flush(): AnswerSegment[] {
    const rest = this.buffer;
    this.buffer = '';
    return this.split(rest);
  }

  private split(text: string): AnswerSegment[] {
    const segments: AnswerSegment[] = [];
    let last = 0;
    for (const match of text.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
      const numbers = match[1].split(',').map((part) => Number(part.trim()));
      if (!numbers.every((number) => this.isKnown(number))) {
        continue;
      }
      const index = match.index ?? 0;
      if (index > last) {
        segments.push({ kind: 'text', text: text.slice(last, index) });
      }
      numbers.forEach((number) => segments.push({ kind: 'citation', index: number }));
      last = index + match[0].length;
    }
    if (last < text.length) {
      segments.push({ kind: 'text', text: text.slice(last) });
    }
    return segments;
  }
}

/**
 * The numbers one answer shows: the conversation numbers citations across questions (a follow-up's first
 * citation may be its 3rd), but each answer shows its own from [1], in the order they were registered, so the
 * text, the buttons and the runs panel agree with what the model writes. Citations keep their chunk as key.
 */
export class AnswerCitationNumbers<C extends { chunkId: string; index: number }> {
  private readonly byChunk = new Map<string, C>();
  private readonly byNumber = new Map<number, C>();

  /** The citation renumbered for this answer (the same number when its chunk was already numbered). */
  add(citation: C): C {
    const known = this.byChunk.get(citation.chunkId);
    if (known) {
      return known;
    }
    const numbered = { ...citation, index: this.byChunk.size + 1 };
    this.byChunk.set(citation.chunkId, numbered);
    this.byNumber.set(numbered.index, numbered);
    return numbered;
  }

  /** The answer's citations renumbered, in order (those not seen yet get the next numbers). */
  all(citations: readonly C[]): C[] {
    return citations.map((citation) => this.add(citation));
  }

  get(answerNumber: number): C | undefined {
    return this.byNumber.get(answerNumber);
  }
}

/** What one `@haiku` answer leaves in `ChatResult.metadata`, read back from `context.history` next turn. */
export interface HaikuTurnMetadata {
  runId: string;
  route: RunRoute;
  question: string;
  /** Conversation state after the answer (citation index, document filter). */
  state?: ConversationState;
  /** The answer's model messages (tool calls and results) for the next turn's history. */
  responseMessages?: ModelMessage[];
  /** Titles of cited documents (for follow-ups). */
  citedTitles: string[];
  errorCode?: string;
}

export const METADATA_KEY = 'haiku';

export function readTurnMetadata(metadata: unknown): HaikuTurnMetadata | undefined {
  if (typeof metadata !== 'object' || metadata === null) {
    return undefined;
  }
  const value = (metadata as Record<string, unknown>)[METADATA_KEY];
  if (typeof value !== 'object' || value === null || typeof (value as HaikuTurnMetadata).runId !== 'string') {
    return undefined;
  }
  return value as HaikuTurnMetadata;
}

/** Earlier turns as model messages: each question followed by what the agent answered with. */
export function historyMessages(turns: ReadonlyArray<{ question: string; metadata: HaikuTurnMetadata | undefined; answerText: string }>): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const turn of turns) {
    if (!turn.metadata || turn.metadata.route === 'search') {
      continue;
    }
    messages.push({ role: 'user', content: turn.question });
    if (turn.metadata.responseMessages && turn.metadata.responseMessages.length > 0) {
      messages.push(...turn.metadata.responseMessages);
    } else if (turn.answerText) {
      messages.push({ role: 'assistant', content: turn.answerText });
    }
  }
  return messages;
}

export function routeFor(command: string | undefined): RunRoute {
  return command === 'ask' ? 'ask' : command === 'analyze' ? 'analyze' : command === 'search' ? 'search' : 'both';
}

export function agentModeFor(route: RunRoute): AgentMode {
  return route === 'ask' ? 'rag' : route === 'analyze' ? 'analysis' : 'auto';
}

export function isParticipantCommand(command: string | undefined): command is ParticipantCommand {
  return command === 'ask' || command === 'analyze' || command === 'search';
}

/**
 * Ids of the indexed documents the attached files and folders select: a file its own document, a folder every
 * document below it (paths are file-system paths; a sibling `papers2` is not inside `papers`).
 */
export function attachedDocumentIds(attachments: ReadonlyArray<{ path: string; isFolder: boolean }>, documents: ReadonlyArray<{ id: string; path: string | undefined }>): string[] {
  return documents.filter((document) => document.path !== undefined && attachments.some((attachment) => (attachment.isFolder
    ? isPathInside(document.path!, attachment.path)
    : document.path === attachment.path))).map((document) => document.id);
}

/** Follow-up prompts after an answer. */
export function followupPrompts(metadata: HaikuTurnMetadata): Array<{ prompt: string; label: string; command?: string }> {
  const followups: Array<{ prompt: string; label: string; command?: string }> = [];
  if (metadata.errorCode) {
    return followups;
  }
  const title = metadata.citedTitles[0];
  if (metadata.route === 'search') {
    followups.push({ prompt: metadata.question, label: 'Answer this with citations', command: 'ask' });
    return followups;
  }
  if (title) {
    followups.push({ prompt: `What else does "${title}" say about this?`, label: `More from ${title}` });
  }
  if (metadata.route !== 'analyze') {
    followups.push({ prompt: metadata.question, label: 'Analyze across all documents', command: 'analyze' });
  }
  followups.push({ prompt: metadata.question, label: 'Show the search hits', command: 'search' });
  return followups;
}
