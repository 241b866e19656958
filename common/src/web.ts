// The part of @kith/common the web client bundles: plain constants and types, no schema library.
export * from './limits.js';
export * from './i18n.js';
export * from './enums.js';
export * from './errors.js';
