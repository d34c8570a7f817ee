/**
 * Document filters: the one place a filter becomes SQL over the documents table.
 *
 * - `parseDocumentFilter` takes a user's raw SQL (the CLI's `--filter`, the MCP tools' `filter`) and accepts it
 *   only when the whole text is one boolean expression over the allowed columns; anything else is a typed
 *   `invalid_filter` error naming what could not be parsed. What LanceDB receives is a canonical re-rendering
 *   of the parsed expression, never the user's text, so nothing the parser did not understand can reach it.
 * - `compileDocumentFilter` turns a typed filter (ids, a folder, formats) into SQL with correct quoting and
 *   `LIKE` escaping; code builds these instead of concatenating SQL.
 *
 * LanceDB 0.31.0 facts this relies on (checked on a real table, see test/unit/search/documentFilter.test.ts):
 * strings are single-quoted with `''` as the only escape (a backslash is an ordinary character); `LIKE`
 * escapes with a backslash by default and accepts no other `ESCAPE` character; about 700 chained `OR`s crash
 * the process (exit 139) and more than about 50 nested parentheses are refused by its SQL parser.
 */
import { HaikuError } from '../errors';
import { FILTER_MAX_CHARS, FILTER_MAX_CONDITIONS, FILTER_MAX_DEPTH } from '../limits';

/** A filter built by code (attachments, folders, formats); every field narrows the selection (AND). */
export interface DocumentFilter {
  /** Keep only these document ids. */
  documentIds?: readonly string[];
  /** Keep documents whose root-relative path is this folder or lies below it ('/'-separated, no leading './'). */
  pathPrefix?: string;
  /** Keep documents of these formats (`markdown`, `html`, `pdf`, `docx`, `text`). */
  formats?: readonly string[];
  /** Raw SQL typed by a user, validated by `parseDocumentFilter` before use. */
  sql?: string;
}

/** Columns of the documents table a user's filter may name (all text). */
export const DOCUMENT_FILTER_COLUMNS: readonly string[] = ['id', 'uri', 'relative_path', 'title', 'format', 'metadata', 'created_at', 'updated_at'];

/** Functions a filter may call: text in, text out. */
const FILTER_FUNCTIONS = new Set(['lower', 'upper']);

const FILTER_EXAMPLE = "format = 'pdf' AND relative_path LIKE 'notes/%'";

/** Validates a user's SQL filter as a whole expression; returns the text to hand to LanceDB. Throws `HaikuError('invalid_filter')`. */
export function parseDocumentFilter(filter: string): string {
  if (filter.trim() === '') {
    throw new HaikuError('invalid_filter', `The filter is empty. Write a condition over the document columns (${DOCUMENT_FILTER_COLUMNS.join(', ')}), for example: ${FILTER_EXAMPLE}; or leave the filter out to search everything.`);
  }
  if (filter.length > FILTER_MAX_CHARS) {
    throw new HaikuError('invalid_filter', `The filter is ${filter.length} characters long; at most ${FILTER_MAX_CHARS} are accepted. Shorten it, for example with IN (…) lists or a LIKE pattern instead of many OR conditions.`);
  }
  return renderExpression(new FilterParser(filter).parseWhole());
}

/** SQL for a typed filter, or undefined when it selects everything. */
export function compileDocumentFilter(filter: DocumentFilter): string | undefined {
  const clauses: string[] = [];
  if (filter.documentIds !== undefined) {
    clauses.push(sqlIn('id', filter.documentIds));
  }
  const prefix = filter.pathPrefix === undefined ? '' : normalizePathPrefix(filter.pathPrefix);
  if (prefix !== '') {
    clauses.push(`(relative_path = ${sqlString(prefix)} OR relative_path LIKE ${sqlString(`${escapeLikePattern(prefix)}/%`)} ESCAPE '\\')`);
  }
  if (filter.formats !== undefined) {
    clauses.push(sqlIn('format', filter.formats));
  }
  if (filter.sql !== undefined) {
    clauses.push(`(${parseDocumentFilter(filter.sql)})`);
  }
  return clauses.length > 0 ? clauses.join(' AND ') : undefined;
}

/** A SQL string literal: single quotes, a quote inside doubled (LanceDB treats backslashes literally). */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Makes `%`, `_` and the escape character itself match literally in a `LIKE` pattern (backslash escape). */
export function escapeLikePattern(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** `column IN (…)`; an empty list selects nothing (`IN ()` is a syntax error in LanceDB). */
export function sqlIn(column: string, values: Iterable<string>): string {
  const literals = [...values].map(sqlString);
  return literals.length === 0 ? 'FALSE' : `${column} IN (${literals.join(', ')})`;
}

/** Forward slashes, no leading `./` or `/`, no trailing `/`; `.` (the root itself) becomes empty. */
function normalizePathPrefix(prefix: string): string {
  const forward = prefix.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  const trimmed = forward.replace(/^(\.\/)+/, '').replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed === '.' ? '' : trimmed;
}

// --- The parser ---------------------------------------------------------------------------------------------

type Token =
  | { kind: 'word'; text: string; start: number }
  | { kind: 'column'; text: string; start: number }
  | { kind: 'string'; value: string; start: number }
  | { kind: 'number'; text: string; start: number }
  | { kind: 'symbol'; text: string; start: number }
  | { kind: 'end'; start: number };

type Operand =
  | { kind: 'column'; name: string }
  | { kind: 'text'; value: string }
  | { kind: 'number'; text: string }
  | { kind: 'call'; name: string; argument: Operand };

type Expression =
  | { kind: 'or' | 'and'; operands: Expression[] }
  | { kind: 'not'; operand: Expression }
  | { kind: 'constant'; value: boolean }
  | { kind: 'compare'; operator: string; left: Operand; right: Operand }
  | { kind: 'like'; operand: Operand; negated: boolean; caseInsensitive: boolean; pattern: string; escape: boolean }
  | { kind: 'in'; operand: Operand; negated: boolean; values: Operand[] }
  | { kind: 'null'; operand: Operand; negated: boolean }
  | { kind: 'between'; operand: Operand; negated: boolean; low: Operand; high: Operand };

const COMPARISON_OPERATORS = new Set(['=', '!=', '<>', '<', '<=', '>', '>=']);
const KEYWORDS = new Set(['and', 'or', 'not', 'like', 'ilike', 'in', 'is', 'null', 'between', 'escape', 'true', 'false']);
/** Words that start a statement or clause rather than a condition: named as such in the error. */
const STATEMENT_WORDS = new Set(['select', 'from', 'where', 'union', 'limit', 'offset', 'order', 'group', 'having', 'join', 'drop', 'delete', 'insert', 'update', 'create', 'alter', 'with', 'exists', 'case', 'cast']);

class FilterParser {
  private readonly tokens: Token[];
  private position = 0;
  private depth = 0;
  private conditions = 0;

  constructor(private readonly text: string) {
    this.tokens = tokenize(text, (message, at) => this.fail(message, at));
  }

  parseWhole(): Expression {
    const expression = this.parseOr();
    const next = this.peek();
    if (next.kind !== 'end') {
      const what = next.kind === 'symbol' && next.text === ';' ? 'A filter is one condition, not a list of statements' : 'A filter is one complete condition';
      this.fail(`${what}; the text after it`, next.start);
    }
    return expression;
  }

  private parseOr(): Expression {
    const operands = [this.parseAnd()];
    while (this.accept('word', 'or')) {
      operands.push(this.parseAnd());
    }
    return combine('or', operands);
  }

  private parseAnd(): Expression {
    const operands = [this.parseNot()];
    while (this.accept('word', 'and')) {
      operands.push(this.parseNot());
    }
    return combine('and', operands);
  }

  private parseNot(): Expression {
    const start = this.peek().start;
    if (this.accept('word', 'not')) {
      this.enter(start);
      const operand = this.parseNot();
      this.depth--;
      return { kind: 'not', operand };
    }
    return this.parsePredicate();
  }

  private parsePredicate(): Expression {
    const next = this.peek();
    if (next.kind === 'symbol' && next.text === '(') {
      this.position++;
      this.enter(next.start);
      const inner = this.parseOr();
      this.expect('symbol', ')', 'a closing parenthesis');
      this.depth--;
      return inner;
    }
    const start = next.start;
    if (next.kind === 'word' && (next.text === 'true' || next.text === 'false')) {
      // `FALSE` is what an empty typed list compiles to; the store re-validates compiled filters.
      this.position++;
      this.countCondition(start);
      return { kind: 'constant', value: next.text === 'true' };
    }
    const operand = this.parseOperand();
    this.countCondition(start);
    const negated = this.accept('word', 'not');
    const word = this.peek();
    if (word.kind === 'word' && (word.text === 'like' || word.text === 'ilike')) {
      this.position++;
      return this.parseLike(operand, negated, word.text === 'ilike', start);
    }
    if (this.accept('word', 'in')) {
      return this.parseIn(operand, negated, start);
    }
    if (this.accept('word', 'between')) {
      const low = this.parseOperand();
      this.expect('word', 'and', 'AND between the two bounds of BETWEEN');
      const high = this.parseOperand();
      this.requireSameType(operand, low, start);
      this.requireSameType(operand, high, start);
      return { kind: 'between', operand, negated, low, high };
    }
    if (negated) {
      this.fail('NOT after a value must be followed by LIKE, ILIKE, IN or BETWEEN', this.peek().start);
    }
    if (this.accept('word', 'is')) {
      const isNegated = this.accept('word', 'not');
      this.expect('word', 'null', 'NULL after IS (IS NULL or IS NOT NULL)');
      return { kind: 'null', operand, negated: isNegated };
    }
    const operator = this.peek();
    if (operator.kind === 'symbol' && COMPARISON_OPERATORS.has(operator.text)) {
      this.position++;
      const right = this.parseOperand();
      this.requireSameType(operand, right, start);
      return { kind: 'compare', operator: operator.text === '<>' ? '!=' : operator.text, left: operand, right };
    }
    return this.fail('Expected a comparison (=, !=, <, <=, >, >=), LIKE, IN, BETWEEN or IS NULL after the value', operator.start);
  }

  private parseLike(operand: Operand, negated: boolean, caseInsensitive: boolean, start: number): Expression {
    this.requireText(operand, start, 'LIKE compares text');
    const pattern = this.peek();
    if (pattern.kind !== 'string') {
      return this.fail("A LIKE pattern must be a quoted string such as 'notes/%'", pattern.start);
    }
    this.position++;
    let escape = false;
    if (this.accept('word', 'escape')) {
      const character = this.peek();
      if (character.kind !== 'string' || character.value !== '\\') {
        this.fail("LanceDB only accepts a backslash as the LIKE escape character (ESCAPE '\\'), which is also the default", character.start);
      }
      this.position++;
      escape = true;
    }
    return { kind: 'like', operand, negated, caseInsensitive, pattern: pattern.value, escape };
  }

  private parseIn(operand: Operand, negated: boolean, start: number): Expression {
    this.expect('symbol', '(', 'an opening parenthesis after IN');
    const values: Operand[] = [];
    for (;;) {
      const value = this.peek();
      if (value.kind !== 'string' && value.kind !== 'number') {
        return this.fail("An IN list holds quoted strings or numbers, such as IN ('pdf', 'docx')", value.start);
      }
      values.push(this.parseOperand());
      this.requireSameType(operand, values[values.length - 1], start);
      if (!this.accept('symbol', ',')) {
        break;
      }
    }
    this.expect('symbol', ')', 'a comma or the closing parenthesis of the IN list');
    return { kind: 'in', operand, negated, values };
  }

  private parseOperand(): Operand {
    const token = this.peek();
    if (token.kind === 'string') {
      this.position++;
      return { kind: 'text', value: token.value };
    }
    if (token.kind === 'number') {
      this.position++;
      return { kind: 'number', text: token.text };
    }
    if (token.kind === 'symbol' && token.text === '-') {
      const number = this.tokens[this.position + 1];
      if (number?.kind === 'number') {
        this.position += 2;
        return { kind: 'number', text: `-${number.text}` };
      }
    }
    if (token.kind === 'column') {
      this.position++;
      return this.columnOperand(token.text, token.start);
    }
    if (token.kind === 'word') {
      const next = this.tokens[this.position + 1];
      if (next?.kind === 'symbol' && next.text === '(') {
        return this.parseCall(token.text, token.start);
      }
      if (token.text === 'null') {
        return this.fail('Compare with NULL through IS NULL or IS NOT NULL', token.start);
      }
      if (STATEMENT_WORDS.has(token.text)) {
        return this.fail(`A filter is a condition, not a query: ${token.text.toUpperCase()} is not accepted`, token.start);
      }
      if (KEYWORDS.has(token.text)) {
        return this.fail(`Expected a column, a quoted string or a number, not ${token.text.toUpperCase()}`, token.start);
      }
      this.position++;
      return this.columnOperand(token.text, token.start);
    }
    if (token.kind === 'end') {
      return this.fail('The filter ends where a column, a quoted string or a number was expected', token.start);
    }
    return this.fail('Expected a column, a quoted string or a number', token.start);
  }

  private parseCall(name: string, start: number): Operand {
    if (!FILTER_FUNCTIONS.has(name)) {
      return this.fail(`Unknown function ${name}(); a filter may call ${[...FILTER_FUNCTIONS].join('() and ')}()`, start);
    }
    this.position += 2;
    this.enter(start);
    const argument = this.parseOperand();
    this.requireText(argument, start, `${name}() takes text`);
    this.expect('symbol', ')', `the closing parenthesis of ${name}()`);
    this.depth--;
    return { kind: 'call', name, argument };
  }

  private columnOperand(name: string, start: number): Operand {
    const column = name.toLowerCase();
    if (!DOCUMENT_FILTER_COLUMNS.includes(column)) {
      return this.fail(`Unknown column ${name}; the columns are ${DOCUMENT_FILTER_COLUMNS.join(', ')} (text in single quotes)`, start);
    }
    return { kind: 'column', name: column };
  }

  private requireSameType(left: Operand, right: Operand, start: number): void {
    if (operandType(left) !== operandType(right)) {
      this.fail("Text is compared with a number; every column is text, so quote the value ('2024-01-01', '42')", start);
    }
  }

  private requireText(operand: Operand, start: number, what: string): void {
    if (operandType(operand) !== 'text') {
      this.fail(`${what}; quote the value`, start);
    }
  }

  private enter(start: number): void {
    if (++this.depth > FILTER_MAX_DEPTH) {
      this.fail(`The filter nests parentheses, NOT and function calls more than ${FILTER_MAX_DEPTH} levels deep`, start);
    }
  }

  private countCondition(start: number): void {
    if (++this.conditions > FILTER_MAX_CONDITIONS) {
      this.fail(`The filter has more than ${FILTER_MAX_CONDITIONS} conditions; combine values with IN (…) instead of chaining OR`, start);
    }
  }

  private peek(): Token {
    return this.tokens[this.position];
  }

  /** Consumes the next token when it is this keyword or symbol. */
  private accept(kind: 'word' | 'symbol', text: string): boolean {
    const token = this.peek();
    if (token.kind === kind && token.text === text) {
      this.position++;
      return true;
    }
    return false;
  }

  private expect(kind: 'word' | 'symbol', text: string, what: string): void {
    if (!this.accept(kind, text)) {
      this.fail(`Expected ${what}`, this.peek().start);
    }
  }

  /** Throws the typed error: what went wrong, where, the text left unparsed from there, and what to write instead. */
  private fail(problem: string, at: number): never {
    const rest = this.text.slice(at).trim();
    const shown = rest.length > 80 ? `${rest.slice(0, 80)}…` : rest;
    const unparsed = rest === '' ? 'the filter ended early' : `not parsed: \`${shown}\``;
    throw new HaikuError('invalid_filter', `The filter is not valid at character ${at + 1}: ${problem} (${unparsed}). Write one condition over the document columns (${DOCUMENT_FILTER_COLUMNS.join(', ')}), for example: ${FILTER_EXAMPLE}.`);
  }
}

/** One child stays itself; nested groups of the same kind flatten (`a OR (b OR c)`), so rendering adds no depth. */
function combine(kind: 'or' | 'and', operands: Expression[]): Expression {
  if (operands.length === 1) {
    return operands[0];
  }
  return { kind, operands: operands.flatMap((operand) => (operand.kind === kind ? operand.operands : [operand])) };
}

function operandType(operand: Operand): 'text' | 'number' {
  return operand.kind === 'number' ? 'number' : 'text';
}

function tokenize(text: string, fail: (message: string, at: number) => never): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (/\s/.test(character)) {
      index++;
      continue;
    }
    const start = index;
    if (text.startsWith('--', index) || text.startsWith('/*', index)) {
      fail('Comments are not accepted in a filter', start);
    }
    if (character === "'") {
      let value = '';
      index++;
      for (;;) {
        if (index >= text.length) {
          fail("A string is not closed; end it with a single quote (write '' for a quote inside it)", start);
        }
        if (text[index] === "'") {
          if (text[index + 1] === "'") {
            value += "'";
            index += 2;
            continue;
          }
          index++;
          break;
        }
        value += text[index++];
      }
      tokens.push({ kind: 'string', value, start });
      continue;
    }
    if (character === '"') {
      fail("Double quotes are not accepted; write text in single quotes ('pdf') and columns without quotes", start);
    }
    if (character === '`') {
      const end = text.indexOf('`', index + 1);
      const name = end < 0 ? '' : text.slice(index + 1, end);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        fail('A quoted column must be a plain name such as `relative_path`', start);
      }
      tokens.push({ kind: 'column', text: name, start });
      index = end + 1;
      continue;
    }
    const number = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/.exec(text.slice(index, index + 64));
    if (number) {
      index += number[0].length;
      if (index < text.length && /[A-Za-z_]/.test(text[index])) {
        fail('A number runs into letters', start);
      }
      tokens.push({ kind: 'number', text: number[0], start });
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(index, index + 256));
    if (word) {
      index += word[0].length;
      tokens.push({ kind: 'word', text: word[0].toLowerCase(), start });
      continue;
    }
    const symbol = ['<=', '>=', '<>', '!=', '=', '<', '>', '(', ')', ',', '-', ';'].find((candidate) => text.startsWith(candidate, index));
    if (!symbol) {
      fail(`The character ${JSON.stringify(character)} is not accepted here`, start);
    }
    index += symbol.length;
    tokens.push({ kind: 'symbol', text: symbol, start });
  }
  tokens.push({ kind: 'end', start: text.length });
  return tokens;
}

// --- Rendering ----------------------------------------------------------------------------------------------

/** Canonical SQL: lower-case columns, upper-case keywords, re-quoted strings, parentheses only where needed. */
function renderExpression(expression: Expression): string {
  switch (expression.kind) {
    case 'or':
      return expression.operands.map(renderExpression).join(' OR ');
    case 'and':
      return expression.operands.map((operand) => (operand.kind === 'or' ? `(${renderExpression(operand)})` : renderExpression(operand))).join(' AND ');
    case 'not':
      return expression.operand.kind === 'or' || expression.operand.kind === 'and' ? `NOT (${renderExpression(expression.operand)})` : `NOT ${renderExpression(expression.operand)}`;
    case 'constant':
      return expression.value ? 'TRUE' : 'FALSE';
    case 'compare':
      return `${renderOperand(expression.left)} ${expression.operator} ${renderOperand(expression.right)}`;
    case 'like':
      return `${renderOperand(expression.operand)} ${expression.negated ? 'NOT ' : ''}${expression.caseInsensitive ? 'ILIKE' : 'LIKE'} ${sqlString(expression.pattern)}${expression.escape ? " ESCAPE '\\'" : ''}`;
    case 'in':
      return `${renderOperand(expression.operand)} ${expression.negated ? 'NOT ' : ''}IN (${expression.values.map(renderOperand).join(', ')})`;
    case 'null':
      return `${renderOperand(expression.operand)} IS ${expression.negated ? 'NOT ' : ''}NULL`;
    case 'between':
      return `${renderOperand(expression.operand)} ${expression.negated ? 'NOT ' : ''}BETWEEN ${renderOperand(expression.low)} AND ${renderOperand(expression.high)}`;
  }
}

function renderOperand(operand: Operand): string {
  switch (operand.kind) {
    case 'column':
      return operand.name;
    case 'text':
      return sqlString(operand.value);
    case 'number':
      return operand.text;
    case 'call':
      return `${operand.name}(${renderOperand(operand.argument)})`;
  }
}
