import { expect } from 'vitest';
import type { ApiResponse } from './client.js';

/** A lowercase canonical UUID v4 (docs/api §1.4). */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const ENVELOPE_KEYS = ['code', 'error', 'field', 'message'];
// The 0.5.6 client takes the presence of any of these as success (docs/api §1.5).
const SUCCESS_KEYS = ['id', 'entityType', 'api_key', 'apiKey', 'secretKey', 'inviteKey', 'token'];

/** Checks the error envelope of §1.5 on any error answer and returns its body. */
export function expectEnvelope(res: Pick<ApiResponse, 'status' | 'headers' | 'text'>): Record<string, unknown> {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(typeof body).toBe('object');
  expect(Array.isArray(body)).toBe(false);
  for (const key of Object.keys(body)) expect(ENVELOPE_KEYS).toContain(key);
  for (const key of SUCCESS_KEYS) expect(body).not.toHaveProperty(key);
  expect(body.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(0);
  expect(body.error).toBe(body.message);
  if ('field' in body) expect(typeof body.field).toBe('string');
  return body;
}

export interface ErrorExpectation {
  field?: string;
  /** The exact human-readable text. */
  message?: string;
  /** Account endpoints: no ':' in the text (the 0.5.6 client would cut it). */
  colonFree?: boolean;
}

/** An error answer with this status and code, in the envelope; a string names the expected `field`. */
export function expectError(
  res: Pick<ApiResponse, 'status' | 'headers' | 'text'>,
  status: number,
  code: string,
  expectation: string | ErrorExpectation = {},
): void {
  const { field, message, colonFree } = typeof expectation === 'string' ? { field: expectation } : expectation;
  expect(res.status, res.text).toBe(status);
  const body = expectEnvelope(res);
  expect(body.code).toBe(code);
  if (field !== undefined) expect(body.field).toBe(field);
  if (message !== undefined) expect(body.message).toBe(message);
  if (colonFree === true) expect(body.message).not.toContain(':');
}

// The exact keys of the contract's objects, written out here (not taken from the server's schemas)
// so the tests check the code against the contract, not against itself.

/** The Message object (§2.4), with Kith's `can` (what the caller may do with it). */
export const MESSAGE_KEYS = [
  'author',
  'can',
  'children',
  'createdAt',
  'data',
  'entityType',
  'files',
  'group',
  'id',
  'isDeleted',
  'isInFront',
  'isPublic',
  'lastActivityDate',
  'lineage',
  'mentions',
  'parent',
  'pinnedInGroup',
  'preview',
  'reactions',
  'type',
].sort();

/** The Message's `can` for a caller who may do nothing with it (not the author, a visitor, a placeholder). */
export const CANNOT = { edit: false, delete: false, publish: false, pin: false };

/** The `can` of another member on a message of the group page: any member may pin it (issue 20). */
export const MAY_PIN = { ...CANNOT, pin: true };

/** The Message preview, a card (§2.5). */
export const PREVIEW_KEYS = [
  'author',
  'children',
  'createdAt',
  'data',
  'entityType',
  'group',
  'id',
  'isDeleted',
  'isInFront',
  'lastActivityDate',
  'mentions',
  'pinnedInGroup',
  'preview',
  'reactions',
  'type',
].sort();

/** The sorted keys of a JSON object, to compare with the lists above. */
export const keysOf = (value: unknown): string[] => Object.keys(value as object).sort();
