import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readTurnMetadata } from './chatText';

/** The name of the feedback log in the extension's global storage. */
export const FEEDBACK_LOG_FILE = 'chat-feedback.jsonl';

/**
 * Records 👍/👎 on `@haiku` answers as JSON lines in the extension's global storage (run id, route, question,
 * verdict, time) and in the output channel. Local only: nothing is sent anywhere.
 */
export function createFeedbackLog(storageFolder: vscode.Uri, output: vscode.LogOutputChannel): (feedback: vscode.ChatResultFeedback) => void {
  const file = path.join(storageFolder.fsPath, FEEDBACK_LOG_FILE);
  let writes = Promise.resolve();
  return (feedback) => {
    const metadata = readTurnMetadata(feedback.result.metadata);
    const verdict = feedback.kind === vscode.ChatResultFeedbackKind.Helpful ? 'helpful' : 'unhelpful';
    const entry = { time: new Date().toISOString(), verdict, runId: metadata?.runId, route: metadata?.route, question: metadata?.question, errorCode: metadata?.errorCode };
    output.info(`Feedback on ${entry.runId ?? 'an answer'}: ${verdict}.`);
    // One write at a time, so lines never interleave.
    writes = writes.then(async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.appendFile(file, `${JSON.stringify(entry)}\n`, 'utf8');
    }).catch((error: unknown) => output.warn(`Could not record chat feedback in ${file}: ${String(error)}`));
  };
}
