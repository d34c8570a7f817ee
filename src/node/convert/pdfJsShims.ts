/**
 * pdf.js 5 calls `ArrayBuffer.prototype.transferToFixedLength` (Node ≥ 21) when it ships fonts to the main thread;
 * on Node 20 a page's text, or a rendered figure's, would be lost without this copy-based stand-in. Installed once,
 * before a document is opened.
 */
export function ensureTransferToFixedLength(): void {
  const prototype = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (length?: number) => ArrayBuffer };
  if (typeof prototype.transferToFixedLength !== 'function') {
    Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
      configurable: true,
      writable: true,
      value(this: ArrayBuffer, length?: number): ArrayBuffer {
        const size = length ?? this.byteLength;
        const copy = new ArrayBuffer(size);
        new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(size, this.byteLength)));
        return copy;
      },
    });
  }
}
