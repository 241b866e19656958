import { randomUUID } from 'node:crypto';
import { notFound } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A new id: a lowercase UUID v4 (contract §1.4). */
export function newId(): string {
  return randomUUID();
}

/** Path ids are lowercased before lookup; anything that is not a UUID is `null` (answered 404). */
export function parseId(value: string): string | null {
  const id = value.toLowerCase();
  return UUID.test(id) ? id : null;
}

/** A path id that must name something: anything that is not a UUID answers 404 like an unknown id. */
export function requireId(value: string): string {
  const id = parseId(value);
  if (id === null) throw notFound();
  return id;
}
