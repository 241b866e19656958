// The part of @kith/common the web client bundles: plain constants and types, no schema library.
export * from './limits.js';
export * from './i18n.js';
export * from './locale-format.js';
export * from './locale-format-more.js';
export * from './language-names.js';
export * from './enums.js';
export * from './errors.js';
export * from './validation.js';
export * from './reactions.js';
export * from './mentions.js';
// The API's objects, endpoint table and live events, as types only: calls and answers are typed by
// the same schemas the server serializes with, and none of them enters the bundle.
export type * from './api/schemas.js';
export type * from './api/search-schemas.js';
export type * from './api/link-schemas.js';
export type * from './api/export-schemas.js';
export type * from './api/storage-schemas.js';
export type * from './api/endpoints.js';
export type * from './api/events.js';
export * from './markup.js';
