export * from './limits.js';
export * from './i18n.js';
export * from './enums.js';
export * from './errors.js';
export * from './validation.js';
export * from './api/schemas.js';
export * from './api/search-schemas.js';
export * from './api/link-schemas.js';
