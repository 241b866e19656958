// Draws Kith's app icon and writes it to web/public/icons/: icon.svg (browsers that take SVG), and
// PNGs rendered from it with sharp (a server dependency) at 192 and 512 px, plus a maskable 512 px
// one whose picture stays within the central 80 % that launchers never crop, and the 96 px badge of
// push notifications: the same people in white on transparent, as Android draws a badge as a mask.
// Run after changing the drawing: `node scripts/make-icons.mjs`; the results are committed.
import { Buffer } from 'node:buffer';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

// --color-primary and --color-primary-soft of web/src/styles/global.css (light theme).
const PRIMARY = '#2f6f5e';
const SOFT = '#cfe6dd';

// Three people side by side, the middle one in front: a small circle of friends.
const people = `
  <circle cx="150" cy="222" r="44" fill="${SOFT}"/>
  <path d="M74 384a76 76 0 0 1 152 0z" fill="${SOFT}"/>
  <circle cx="362" cy="222" r="44" fill="${SOFT}"/>
  <path d="M286 384a76 76 0 0 1 152 0z" fill="${SOFT}"/>
  <circle cx="256" cy="196" r="58" fill="#ffffff" stroke="${PRIMARY}" stroke-width="10"/>
  <path d="M152 392a104 104 0 0 1 208 0z" fill="#ffffff" stroke="${PRIMARY}" stroke-width="10"/>`;

const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
  <rect width="512" height="512" rx="112" fill="${PRIMARY}"/>${people}
</svg>
`;

// Full bleed, the people shrunk around the centre into the safe zone.
const maskable = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
  <rect width="512" height="512" fill="${PRIMARY}"/>
  <g transform="translate(256 256) scale(0.78) translate(-256 -276)">${people}
  </g>
</svg>
`;

// The badge: the middle person's outline becomes a gap cut into the two behind it (a mask has one
// colour), and the view is cropped to the people so that they fill the small square.
const badge = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="40 100 432 320" width="96" height="96">
  <mask id="cut">
    <rect width="512" height="512" fill="#fff"/>
    <circle cx="256" cy="196" r="72" fill="#000"/>
    <path d="M138 398a118 118 0 0 1 236 0z" fill="#000"/>
  </mask>
  <g mask="url(#cut)" fill="#fff">
    <circle cx="150" cy="222" r="44"/>
    <path d="M74 384a76 76 0 0 1 152 0z"/>
    <circle cx="362" cy="222" r="44"/>
    <path d="M286 384a76 76 0 0 1 152 0z"/>
  </g>
  <g fill="#fff">
    <circle cx="256" cy="196" r="58"/>
    <path d="M152 392a104 104 0 0 1 208 0z"/>
  </g>
</svg>
`;

const out = fileURLToPath(new URL('../web/public/icons/', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(`${out}icon.svg`, icon);
for (const size of [192, 512]) {
  await sharp(Buffer.from(icon)).resize(size, size).png({ compressionLevel: 9 }).toFile(`${out}icon-${size}.png`);
}
await sharp(Buffer.from(maskable)).resize(512, 512).png({ compressionLevel: 9 }).toFile(`${out}maskable-512.png`);
await sharp(Buffer.from(badge)).resize(96, 96).png({ compressionLevel: 9 }).toFile(`${out}badge-96.png`);
console.log(`icons written to ${out}`);
