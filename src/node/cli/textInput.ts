import { CancelledError, throwIfAborted } from '../../core/errors';
import { UsageError, type CommandContext } from './command';

/**
 * The query or question from the positional words; a lone `-` reads it from standard input instead
 * (`echo "…" | haiku ask -`), so long or scripted questions need no shell quoting.
 */
export async function textArgument(context: CommandContext, what: 'query' | 'question', example: string): Promise<string> {
  const words = context.positionals;
  const text = words.length === 1 && words[0] === '-' ? await readStandardInput(context) : words.join(' ');
  if (text.trim() === '') {
    throw new UsageError(`Give a ${what}${words[0] === '-' ? ' on standard input' : ''}, e.g. \`${example}\`.`);
  }
  return text.trim();
}

/** All of standard input as UTF-8 (empty when there is none); stops at the abort signal. */
export async function readStandardInput(context: CommandContext): Promise<string> {
  const stream = context.io.stdin;
  if (!stream) {
    return '';
  }
  throwIfAborted(context.abortSignal, 'Reading standard input');
  const chunks: Buffer[] = [];
  const read = (async () => {
    for await (const chunk of stream) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    }
  })();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new CancelledError('Reading standard input'));
    context.abortSignal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([read, aborted]);
  } finally {
    context.abortSignal.removeEventListener('abort', onAbort!);
  }
  return Buffer.concat(chunks).toString('utf8');
}
