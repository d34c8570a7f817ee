/**
 * Text from documents and file names reaches a terminal through `search`, `docs`, `toc` and `ask`; a document
 * could carry escape sequences that retitle the window, rewrite earlier lines or spoof output. Human output
 * drops every control character except newline and tab; JSON output escapes them instead.
 */

// ESC- and 8-bit-introduced sequences whole (CSI with its parameters, OSC/DCS/APC/PM/SOS strings up to their
// terminator), and other escapes with their intermediate and final bytes (`ESC ( B`), so no parameter bytes
// are left behind as visible garbage; then any single control left over.
const ESCAPE_SEQUENCE = /[\x1b]\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|\x1b[ -/]*[0-~]?/g;
// Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): U+202E shows `exe.txt` as
// `txt.exe`, and an unclosed one reorders the rest of the line.
const CONTROL_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
const C1_DELETE_OR_BIDI = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
/**
 * What a file name shows escaped rather than as it is: the line breaks and tabs other output keeps (in a name they
 * could fake a line of output), the bidirectional controls above, the invisible marks (U+061C, U+200E, U+200F),
 * and the line and paragraph separators (U+2028, U+2029).
 */
const FILE_NAME_HAZARD = /[\n\t\r\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/** `text` without terminal control characters (C0 except `\n` and `\t`, DEL, C1, bidirectional controls) and escape sequences. */
export function stripTerminalControls(text: string): string {
  // Most output has none; skip the replacements then.
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(text)) {
    return text;
  }
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL_CHARACTER, '');
}

/**
 * A file name (or path) for human output, with what `FILE_NAME_HAZARD` matches written as a visible escape
 * (`\n`, `\t`, `\u202e`): a name keeps to one field of one line and reads in its own order. Escape sequences and
 * other controls are left to the CLI's output filter (`stripTerminalControls`), which drops them as in all text.
 */
export function terminalFileName(name: string): string {
  return name.replace(FILE_NAME_HAZARD, (character) => NAMED_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * JSON whose strings keep control characters as `\u` escapes: `JSON.stringify` already escapes C0 (and ESC),
 * but leaves DEL, C1 (e.g. U+009B, a CSI on some terminals), the bidirectional controls and U+2028/U+2029 raw.
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(C1_DELETE_OR_BIDI, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
