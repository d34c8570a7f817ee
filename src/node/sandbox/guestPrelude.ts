/**
 * JavaScript evaluated once in every fresh QuickJS context, before any guest code. It is a function expression
 * called with the raw host bridge `{ call(method, ...primitives) -> Promise<value>, write(stream, text),
 * done(ok, text) }`, which it keeps in its closure: the raw functions never appear on `globalThis`. It installs
 * the documented globals (see `SANDBOX_API_DESCRIPTION`) as frozen, non-writable, non-configurable properties,
 * and returns `{ complete, describeError, parse }`; the host calls `complete` on each evaluation's promise, and
 * `complete` reports through `done`.
 *
 * The host never reads guest objects: arguments cross as strings and numbers only, outcomes as a boolean and a
 * string, so a guest that pollutes prototypes (`toJSON`, `Promise.prototype.then`, …) can break its own
 * helpers but cannot change what the host receives. Results arrive as JSON text, parsed with the `JSON.parse`
 * captured before guest code ran; file contents arrive as values the host built in QuickJS's binary format
 * (`readFile`/`readJson` the text, `readLines` an array of lines), or as JSON text on the host's fallback
 * (parsed with the same `JSON.parse`, exported as `parse`).
 */
export const GUEST_PRELUDE_SOURCE = String.raw`(function (raw) {
  'use strict';
  var callHost = raw.call;
  var write = raw.write;
  var done = raw.done;
  var reflectApply = Reflect.apply;
  var parse = JSON.parse;
  var stringify = JSON.stringify;
  var freeze = Object.freeze;
  var defineProperty = Object.defineProperty;
  var isArray = Array.isArray;
  var global = globalThis;
  var STACK_LINES = __STACK_LINES__;
  var MARK = '\u0001';

  // The bridge passes strings as C strings, which end at the first NUL: a string holding a NUL (or starting with
  // the marker) crosses as the marker plus its JSON text, which has no NUL. The host decodes it the same way.
  // (Host results need no decoding: JSON text holds no NUL, and file contents arrive as values.)
  function encode(text) {
    return text.indexOf('\u0000') < 0 && text.charAt(0) !== MARK ? text : MARK + stringify(text);
  }

  function describeFunction(fn) {
    return '[Function: ' + (fn.name || 'anonymous') + ']';
  }

  function replaceSpecial(item) {
    if (typeof item === 'bigint') { return String(item) + 'n'; }
    if (typeof item === 'function') { return describeFunction(item); }
    if (typeof item === 'symbol') { return String(item); }
    if (item instanceof Error) { return String(item.name) + ': ' + String(item.message); }
    if (item instanceof Map) { var entries = {}; item.forEach(function (value, key) { entries[String(key)] = value; }); return entries; }
    if (item instanceof Set) { return Array.from(item); }
    return item;
  }

  // Strings print bare at the top level (like console.log); everything else as compact JSON.
  function formatValue(value, top) {
    if (typeof value === 'string') { return top ? value : stringify(value); }
    if (value === undefined) { return 'undefined'; }
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) { return String(replaceSpecial(value)); }
    if (typeof value === 'function' || value instanceof Error) { return String(replaceSpecial(value)); }
    try {
      return stringify(value, function (key, item) { return replaceSpecial(item); });
    } catch (error) {
      var seen = new Set();
      return stringify(value, function (key, item) {
        item = replaceSpecial(item);
        if (item !== null && typeof item === 'object') {
          if (seen.has(item)) { return '[Circular]'; }
          seen.add(item);
        }
        return item;
      });
    }
  }

  function printer(stream) {
    return function () {
      var parts = [];
      for (var index = 0; index < arguments.length; index++) { parts.push(formatValue(arguments[index], true)); }
      write(stream, encode(parts.join(' ') + '\n'));
    };
  }

  // Returns the host's promise itself (no extra async frame: host calls are the hot path of guest loops).
  // Rejections of file functions carry error.code ('ENOENT', ...), set by the host.
  function call(method, args) {
    var list = [method];
    for (var index = 0; index < args.length; index++) { list[index + 1] = typeof args[index] === 'string' ? encode(args[index]) : args[index]; }
    return reflectApply(callHost, undefined, list);
  }

  function requireString(value, what) {
    if (typeof value !== 'string') { throw new TypeError(what + ' must be a string, got ' + (value === null ? 'null' : typeof value)); }
    return value;
  }

  function normalize(path) {
    var absolute = path.charAt(0) === '/';
    var segments = [];
    var parts = path.replace(/\\/g, '/').split('/');
    for (var index = 0; index < parts.length; index++) {
      var part = parts[index];
      if (part === '' || part === '.') { continue; }
      if (part === '..') {
        if (segments.length > 0 && segments[segments.length - 1] !== '..') { segments.pop(); } else if (!absolute) { segments.push('..'); }
        continue;
      }
      segments.push(part);
    }
    var joined = segments.join('/');
    return absolute ? '/' + joined : (joined || '.');
  }

  function join() {
    var parts = [];
    for (var index = 0; index < arguments.length; index++) {
      var part = requireString(arguments[index], 'Path.join() argument ' + (index + 1));
      if (part !== '') { parts.push(part); }
    }
    return parts.length === 0 ? '.' : normalize(parts.join('/'));
  }

  function basename(path) {
    var normal = normalize(requireString(path, 'Path.basename(path): path'));
    return normal === '/' ? '' : normal.slice(normal.lastIndexOf('/') + 1);
  }

  function dirname(path) {
    var normal = normalize(requireString(path, 'Path.dirname(path): path'));
    var slash = normal.lastIndexOf('/');
    return slash < 0 ? '.' : slash === 0 ? '/' : normal.slice(0, slash);
  }

  async function search(query, limit) {
    requireString(query, 'search(query, limit): query');
    if (query.trim() === '') { throw new TypeError('search(query, limit): query must not be empty'); }
    if (limit !== undefined && limit !== null && (typeof limit !== 'number' || !(limit >= 1))) {
      throw new TypeError('search(query, limit): limit must be a number of at least 1');
    }
    return parse(await call('search', [query, limit === undefined || limit === null ? undefined : Math.floor(limit)]));
  }

  async function list_documents() {
    return parse(await call('list_documents', []));
  }

  async function cite(chunkIds) {
    var ids = isArray(chunkIds) ? chunkIds.slice() : [chunkIds];
    for (var index = 0; index < ids.length; index++) {
      if (typeof ids[index] !== 'string') { throw new TypeError('cite(chunkIds): pass one chunk id string or an array of them'); }
    }
    return parse(await call('cite', ids));
  }

  // File functions get their value ready-made (the host splits lines faster than this interpreter), and the text
  // crosses exactly (no NUL encoding); readJson parses the text here.
  async function readFile(path) {
    return await call('readFile', [requireString(path, 'readFile(path): path')]);
  }

  async function readJson(path) {
    return parse(await call('readJson', [requireString(path, 'readJson(path): path')]));
  }

  async function readLines(path) {
    return await call('readLines', [requireString(path, 'readLines(path): path')]);
  }

  async function listDir(path) {
    return parse(await call('listDir', [requireString(path, 'listDir(path): path')]));
  }

  async function exists(path) {
    var normal = normalize(requireString(path, 'exists(path): path'));
    if (normal.charAt(0) !== '/') { normal = normalize('/' + normal); }
    if (normal === '/') { return true; }
    var entries;
    try {
      entries = await listDir(dirname(normal));
    } catch (error) {
      if (error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) { return false; }
      throw error;
    }
    return entries.indexOf(basename(normal)) >= 0;
  }

  var consoleObject = {
    log: printer(1), info: printer(1), debug: printer(1), warn: printer(2), error: printer(2),
  };
  var pathObject = { join: join, basename: basename, dirname: dirname };
  var globals = {
    search: search, list_documents: list_documents, cite: cite, readFile: readFile, readJson: readJson,
    readLines: readLines, listDir: listDir, exists: exists, Path: pathObject, console: consoleObject,
  };
  Object.keys(consoleObject).forEach(function (name) { freeze(consoleObject[name]); });
  Object.keys(pathObject).forEach(function (name) { freeze(pathObject[name]); });
  Object.keys(globals).forEach(function (name) {
    freeze(globals[name]);
    defineProperty(global, name, { value: globals[name], writable: false, enumerable: false, configurable: false });
  });

  function trimStack(stack) {
    // Frames of this prelude are noise for the model: it only knows its own code.
    var lines = String(stack).split('\n').filter(function (line) { return line.indexOf('sandbox-api.js') < 0; });
    while (lines.length > 0 && lines[lines.length - 1].trim() === '') { lines.pop(); }
    if (lines.length <= STACK_LINES) { return lines.join('\n'); }
    return lines.slice(0, STACK_LINES).join('\n') + '\n    ... ' + (lines.length - STACK_LINES) + ' more frames';
  }

  function describeError(error) {
    if (error !== null && typeof error === 'object' && typeof error.message === 'string') {
      var head = String(error.name || 'Error') + ': ' + error.message;
      return encode(typeof error.stack === 'string' && error.stack.trim() !== '' ? head + '\n' + trimStack(error.stack) : head);
    }
    return encode('Uncaught ' + formatValue(error, false));
  }

  // The evaluation's promise yields {value: lastExpression}; a promise left as the last value is awaited.
  async function complete(evaluation) {
    var display;
    try {
      var result = await evaluation;
      var value = result === null || result === undefined ? undefined : result.value;
      if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
        value = await value;
      }
      display = value === undefined ? undefined : encode(formatValue(value, true));
    } catch (error) {
      done(false, describeError(error));
      return;
    }
    done(true, display);
  }

  return freeze({ complete: complete, describeError: describeError, parse: parse });
})`;
