// Draws media/icon.png, the 256 px marketplace icon: three lines of 5, 7 and 5 units (a haiku's syllables, a
// document's text) and a magnifying glass over them. Run `node scripts/packageIcon.mjs` after changing it; the PNG
// is committed.
import { createCanvas } from '@napi-rs/canvas';
import * as fs from 'node:fs';

const SIZE = 256;
const canvas = createCanvas(SIZE, SIZE);
const context = canvas.getContext('2d');

// A rounded square, deep indigo to teal.
const background = context.createLinearGradient(0, 0, SIZE, SIZE);
background.addColorStop(0, '#27306b');
background.addColorStop(1, '#127a7a');
context.fillStyle = background;
context.beginPath();
context.roundRect(8, 8, SIZE - 16, SIZE - 16, 44);
context.fill();

// The three lines, 5-7-5.
context.fillStyle = '#f4f1e8';
const unit = 19;
for (const [row, units] of [[0, 5], [1, 7], [2, 5]]) {
  context.beginPath();
  context.roundRect(44, 62 + row * 44, units * unit, 20, 10);
  context.fill();
}

// The magnifying glass: a ring and its handle, in gold.
context.strokeStyle = '#ffd166';
context.lineCap = 'round';
context.lineWidth = 16;
context.beginPath();
context.arc(162, 150, 40, 0, Math.PI * 2);
context.stroke();
context.lineWidth = 20;
context.beginPath();
context.moveTo(192, 180);
context.lineTo(222, 210);
context.stroke();

fs.writeFileSync(new URL('../media/icon.png', import.meta.url), canvas.toBuffer('image/png'));
